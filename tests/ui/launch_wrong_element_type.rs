use simt::simt_kernel;

simt_kernel! {
    kernel copy(src: &[u32], dst: &mut [u32]) {
        vreg x;
        global_load x, src[global_id]
        global_store dst[global_id], x
    }
}

fn main() {
    let src = vec![1.0f32; 64];
    let mut dst = vec![0u32; 64];
    let config = simt::core::LaunchConfig::new(2, 32);
    let _ = copy::launch(&config, &src, &mut dst);
}
