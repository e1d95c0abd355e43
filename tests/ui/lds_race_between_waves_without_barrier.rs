//! Under a declared workgroup of 128, each work-item reads the word work-item
//! `127 - local_id.x` wrote, with no barrier: a work-item of another wave at
//! wave32 and at wave64, so every launch races.
use simt::simt_kernel;

simt_kernel! {
    #[workgroup_size(128)]
    kernel k(out: &mut [u32]) {
        lds t: [u32; 128];
        vreg v, w, j;
        v_mov     v, global_id.x
        lds_store t[local_id.x], v
        v_sub_u32 j, 127, local_id.x
        lds_load  w, t[j]
        global_store out[global_id.x], w
    }
}

fn main() {}
