//! Contiguous lanes under a declared shape, and a broadcast, are coalesced.
use simt::simt_kernel;

simt_kernel! {
    #[workgroup_size(64)]
    kernel copy(x: &[u32], out: &mut [u32]) {
        vreg v, w;
        #[coalesced]
        global_load v, x[global_id.x]
        #[coalesced]
        global_load w, x[group_id.x]
        v_add_u32 v, v, w
        #[coalesced]
        global_store out[global_id.x], v
    }
}

#[test]
fn runs() {
    let x: Vec<u32> = (0..128).collect();
    let mut out = vec![0u32; 128];
    copy::launch(&simt::core::LaunchConfig::new(2, 64), &x, &mut out).unwrap();
    // out[i] = x[i] + x[i / 64].
    assert!(out
        .iter()
        .enumerate()
        .all(|(i, &v)| v as usize == i + i / 64));
}
