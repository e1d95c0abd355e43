use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32], PROGRAM: u32) {
        global_store out[lane_id], PROGRAM
    }
}

fn main() {
    let mut out = vec![0u32; 32];
    let config = simt::core::LaunchConfig::new(1, 32);
    let _ = k::launch(&config, &mut out, 1);
}
