// A loop whose condition is workgroup-uniform may hold a barrier: a tree
// reduction in LDS, halving a scalar stride each iteration.
use simt::simt_kernel;

simt_kernel! {
    /// out[g] = sum of input[g * 256 .. g * 256 + 256]
    pub kernel reduce(input: &[u32], out: &mut [u32]) {
        lds tile: [u32; 256];
        vreg x, y, partner;
        sreg stride;
        mreg active, more;
        global_load x, input[global_id]
        lds_store tile[local_id], x
        barrier
        s_shr_u32 stride, group_size, 1
        loop
            v_cmp_lt_u32 active, local_id, stride
            if active
                v_add_u32 partner, local_id, stride
                lds_load y, tile[partner]
                lds_load x, tile[local_id]
                v_add_u32 x, x, y
                lds_store tile[local_id], x
            endif
            barrier
            s_shr_u32 stride, stride, 1
            s_cmp_gt_u32 more, stride, 0
        endloop more
        v_cmp_eq_u32 active, local_id, 0
        if active
            lds_load x, tile[0]
            global_store out[group_id], x
        endif
    }
}

#[test]
fn runs() {
    let input: Vec<u32> = (0..1024u32).map(|i| i * 7 % 1000).collect();
    for width in [32, 64] {
        let mut out = vec![0u32; 4];
        let config = simt::core::LaunchConfig::new(4, 256).wave_width(width);
        let stats = reduce::launch(&config, &input, &mut out).unwrap();
        for (g, &sum) in out.iter().enumerate() {
            let expected: u32 = input[g * 256..(g + 1) * 256].iter().sum();
            assert_eq!(sum, expected, "group {g}, wave{width}");
        }
        // One barrier before the loop and one in each of its 8 iterations, per wave.
        assert_eq!(stats.waves, 4 * 256 / u64::from(width));
        assert_eq!(stats.totals.barriers, 9 * stats.waves);
    }
    assert_eq!(reduce::LDS_BYTES, 1024);
}
