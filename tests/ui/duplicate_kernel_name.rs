// Two kernels of one name: the second gets no module, so rustc reports no
// second definition, and calls reach the first.
use simt::simt_kernel;

simt_kernel! {
    kernel fill(out: &mut [u32]) {
        global_store out[lane_id], 1
    }

    kernel fill(out: &mut [u32], value: u32) {
        global_store out[lane_id], value
    }
}

fn main() {
    let mut out = vec![0u32; 32];
    let config = simt::__private::LaunchConfig::new(1, 32);
    let _ = fill::launch(&config, &mut out);
}
