// Divergent loops with break and continue around nested divergent ifs: the
// Collatz walk of each lane, checked against the same walk on the host.
use simt::simt_kernel;

simt_kernel! {
    pub kernel collatz(steps_out: &mut [u32], peaks_out: &mut [u32]) {
        vreg n, steps, peaks, r;
        mreg done, again, even, big;
        v_add_u32 n, global_id, 1
        v_mov steps, 0
        v_mov peaks, 0
        loop
            v_cmp_eq_u32 done, n, 1
            break done
            v_cmp_eq_u32 again, n, n
            v_add_u32 steps, steps, 1
            v_and r, n, 1
            v_cmp_eq_u32 even, r, 0
            if even
                v_shr_u32 n, n, 1
            endif
            continue even
            v_mad_u32 n, n, 3, 1
            v_cmp_gt_u32 big, n, 100
            if big
                v_add_u32 peaks, peaks, 1
            else
                v_cmp_gt_u32 big, n, 50
                if big
                    v_add_u32 peaks, peaks, 0x10000
                endif
            endif
        endloop again
        global_store steps_out[global_id], steps
        global_store peaks_out[global_id], peaks
    }
}

fn oracle(start: u32) -> (u32, u32) {
    let (mut n, mut steps, mut peaks) = (start, 0, 0);
    while n != 1 {
        steps += 1;
        if n % 2 == 0 {
            n /= 2;
            continue;
        }
        n = 3 * n + 1;
        if n > 100 {
            peaks += 1;
        } else if n > 50 {
            peaks += 0x10000;
        }
    }
    (steps, peaks)
}

#[test]
fn runs() {
    for width in [32, 64] {
        let mut steps = vec![0u32; 128];
        let mut peaks = vec![0u32; 128];
        let config = simt::core::LaunchConfig::new(2, 64).wave_width(width);
        let stats = collatz::launch(&config, &mut steps, &mut peaks).unwrap();
        for i in 0..128 {
            assert_eq!(
                (steps[i], peaks[i]),
                oracle(i as u32 + 1),
                "lane {i}, wave{width}"
            );
        }
        assert!(stats.totals.divergent_vector_instructions > 0);
    }
}
