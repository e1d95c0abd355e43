//! Named constants (shared by a block's kernels, or one kernel's own) stand
//! wherever a number goes, and a template's instances are kernels of their
//! own, each with its constants folded in.
use simt::simt_kernel;

simt_kernel! {
    const WG: u32 = 64;
    /// A constant may use the ones before it.
    const STRIDE = 2 * 16 + 1;
    const BIAS: i32 = -3;

    #[workgroup_size(WG)]
    kernel scale(out: &mut [i32]) {
        const K = WG / 2;
        vreg v;
        v_mul_u32 v, global_id.x, K
        v_add_i32 v, v, BIAS
        global_store out[global_id.x], v
    }

    /// Lane `l` stores and reloads word `l * PITCH` of a tile of 32 rows.
    kernel pitched<const PITCH: u32>(out: &mut [u32]) {
        lds tile: [u32; 32 * PITCH];
        vreg v, j;
        v_mul_u32 j, lane_id, PITCH
        lds_store tile[j], lane_id
        lds_load v, tile[j]
        v_add_u32 v, v, PITCH
        global_store out[global_id.x], v
    }

    pub kernel pitch32 = pitched<PITCH = 32>;
    pub kernel pitch33 = pitched<PITCH = STRIDE>;
}

#[test]
fn runs() {
    assert_eq!(scale::PROGRAM.workgroup_size, Some([64, 1, 1]));
    let mut out = vec![0i32; 128];
    scale::launch(&simt::core::LaunchConfig::new(2, 64), &mut out).unwrap();
    assert_eq!(out, (0..128).map(|i| i * 32 - 3).collect::<Vec<i32>>());

    assert_eq!(&*pitch32::PROGRAM.name, "pitch32");
    assert_eq!(pitch32::PROGRAM.lds_bytes, 32 * 32 * 4);
    assert_eq!(pitch33::PROGRAM.lds_bytes, 32 * 33 * 4);
    let config = simt::core::LaunchConfig::new(1, 32);
    let mut out = vec![0u32; 32];
    let stats = pitch32::launch(&config, &mut out).unwrap();
    assert_eq!(out, (32..64).collect::<Vec<u32>>());
    // Stride 32 words: all 32 lanes ask bank 0, 31 cycles of waiting on
    // the store and again on the load.
    assert_eq!(stats.totals.lds_conflict_cycles, 2 * 31);
    let stats = pitch33::launch(&config, &mut out).unwrap();
    assert_eq!(out, (33..65).collect::<Vec<u32>>());
    // Stride 33 words: gcd(33, 32) = 1, every lane its own bank.
    assert_eq!(stats.totals.lds_conflict_cycles, 0);
}
