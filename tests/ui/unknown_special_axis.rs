use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        global_store out[global_id.w], 1
    }
}

fn main() {}
