//! A value loaded from one address for every work-item (a read-only buffer at
//! a workgroup-uniform index) is workgroup-uniform, so an `if` on it may hold a
//! barrier.
use simt::simt_kernel;

simt_kernel! {
    kernel k(flags: &[u32], out: &mut [u32]) {
        lds tile: [u32; 64];
        vreg flag;
        mreg on;
        global_load  flag, flags[group_id.x]
        v_cmp_ne_u32 on, flag, 0
        if on
            lds_store tile[local_id.x], local_id.x
            barrier
        endif
        global_store out[global_id.x], flag
    }
}

#[test]
fn runs() {
    let flags = [1u32, 0];
    let mut out = vec![0u32; 128];
    let config = simt::core::LaunchConfig::new(2, 64);
    k::launch(&config, &flags, &mut out).unwrap();
    assert_eq!(&out[..64], &[1; 64][..]);
    assert_eq!(&out[64..], &[0; 64][..]);
}
