use simt::simt_kernel;

simt_kernel! {
    kernel fill(out: &mut [u32]) {
        global_store out[global_id], 7
    }
}

fn main() {
    let out = vec![0u32; 64];
    let config = simt::core::LaunchConfig::new(2, 32);
    let _ = fill::launch(&config, &out);
}
