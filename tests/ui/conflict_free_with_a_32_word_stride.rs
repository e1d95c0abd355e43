//! Lanes 32 words apart all fall in one of the 32 banks.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        lds tile: [u32; 2048];
        vreg v, j;
        v_mul_u32 j, lane_id, 32
        #[conflict_free]
        lds_load v, tile[j]
        global_store out[global_id.x], v
    }
}

fn main() {}
