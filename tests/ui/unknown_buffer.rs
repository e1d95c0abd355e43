use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        global_store output[global_id], 1
    }
}

fn main() {}
