use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32], config: u32) {
        global_store out[lane_id], config
    }
}

fn main() {}
