//! Lanes 33 words apart, the pitch padded by one word, each hit their own bank.
use simt::simt_kernel;

simt_kernel! {
    kernel k(out: &mut [u32]) {
        lds tile: [u32; 2112];
        vreg v, j;
        v_mul_u32 j, lane_id, 33
        lds_store tile[j], lane_id
        #[conflict_free]
        lds_load v, tile[j]
        global_store out[global_id.x], v
    }
}

#[test]
fn runs() {
    let mut out = vec![0u32; 32];
    let stats = k::launch(&simt::core::LaunchConfig::new(1, 32), &mut out).unwrap();
    // Stride 33 words: gcd(33, 32) = 1, no lane waits for another.
    assert_eq!(stats.totals.lds_conflict_cycles, 0);
    assert_eq!(out, (0..32).collect::<Vec<u32>>());
}
