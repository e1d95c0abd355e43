use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u128], n: usize) {
        global_store out[lane_id], 1
    }
}

fn main() {}
