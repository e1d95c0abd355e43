use simt::simt_kernel;

simt_kernel! {
    pub fn k(out: &mut [u32]) {
        global_store out[lane_id], 1
    }
}

fn main() {}
