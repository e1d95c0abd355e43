use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        global_store out[lane_id], 1
        else
        global_store out[lane_id], 2
    }
}

fn main() {}
