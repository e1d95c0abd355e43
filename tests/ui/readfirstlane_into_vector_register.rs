use simt::simt_kernel;

simt_kernel! {
    kernel k(x: &[u32], out: &mut [u32]) {
        vreg v, first;
        global_load     v, x[lane_id]
        v_readfirstlane first, v
        global_store    out[lane_id], first
    }
}

fn main() {}
