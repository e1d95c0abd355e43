//! Lanes 32 elements apart touch a sector each; without a declared shape,
//! even contiguous lanes cannot be proved coalesced (a phase may span rows).
use simt::simt_kernel;

simt_kernel! {
    #[workgroup_size(256)]
    kernel strided(x: &[u32], out: &mut [u32]) {
        vreg v, j;
        v_mul_u32 j, global_id.x, 32
        #[coalesced]
        global_load v, x[j]
        global_store out[global_id.x], v
    }

    kernel shapeless(x: &[u32], out: &mut [u32]) {
        vreg v;
        #[coalesced]
        global_load v, x[global_id.x]
        global_store out[global_id.x], v
    }

    kernel gathered(x: &[u32], idx: &[u32], out: &mut [u32]) {
        vreg v, j;
        global_load j, idx[global_id.x]
        #[coalesced]
        global_load v, x[j]
        global_store out[global_id.x], v
    }
}

fn main() {}
