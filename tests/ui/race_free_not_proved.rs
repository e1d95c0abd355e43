//! `#[race_free]` fails on a race found at one wave width (64 work-items
//! are two waves at wave32, one at wave64), and on a pair the analysis
//! cannot decide without a declared shape.
use simt::simt_kernel;

simt_kernel! {
    #[workgroup_size(64)]
    #[race_free]
    kernel shifted(out: &mut [u32]) {
        lds t: [u32; 96];
        vreg v;
        lds_store t[local_id.x], local_id.x
        lds_load  v, t[local_id.x + 32]
        global_store out[global_id.x], v
    }

    #[race_free]
    kernel shapeless(out: &mut [u32]) {
        lds t: [u32; 1024];
        vreg v, j;
        lds_store t[local_id.x], local_id.x
        barrier
        v_sub_u32 j, group_size.x, local_id.x
        lds_load  v, t[j]
        lds_store t[local_id.x], v
        global_store out[global_id.x], v
    }
}

fn main() {}
