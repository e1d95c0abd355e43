//! The exchange of `lds_race_between_waves_without_barrier.rs` with a barrier
//! between the store and the load: proved free under the declared shape, and
//! it reverses each workgroup's ids.
use simt::simt_kernel;

simt_kernel! {
    #[workgroup_size(128)]
    #[race_free]
    kernel k(out: &mut [u32]) {
        lds t: [u32; 128];
        vreg v, w, j;
        v_mov     v, global_id.x
        lds_store t[local_id.x], v
        barrier
        v_sub_u32 j, 127, local_id.x
        lds_load  w, t[j]
        global_store out[global_id.x], w
    }
}

#[test]
fn runs() {
    let mut out = vec![0u32; 256];
    let config = simt::core::LaunchConfig::new(2, 128);
    let stats = k::launch(&config.sanitize(true), &mut out).unwrap();
    stats.findings.assert_none();
    // Work-item i of workgroup g reads what work-item 127 - i stored:
    // g * 128 + 127 - i.
    for (n, &v) in out.iter().enumerate() {
        let (g, i) = (n / 128, n % 128);
        assert_eq!(v as usize, g * 128 + 127 - i);
    }
}
