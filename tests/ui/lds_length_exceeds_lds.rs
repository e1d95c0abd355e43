use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        lds big: [u32; 4294967295 * 2];
        vreg v;
        lds_load     v, big[lane_id]
        global_store out[lane_id], v
    }
}

fn main() {}
