//! Kernels written with `simt_kernel!`, launched through their typed `launch`:
//! results against host arithmetic, hand-computed counters, and run-time faults
//! that name the kernel's source line.

use simt::core::{Error, FaultKind, LaunchConfig};
use simt::simt_kernel;

/// The line of this constant; the kernels below are written at fixed offsets from it.
const KERNELS_LINE: u32 = line!();
simt_kernel! {
    /// Writes 1 to `out[global_id]`, with no bounds check.
    kernel unchecked_fill(out: &mut [u32]) {
        global_store out[global_id], 1
    }

    /// `out[i] = src[i * stride]`, to measure coalescing.
    kernel strided_copy(src: &[u32], out: &mut [u32], stride: u32) {
        vreg i, x;
        v_mul_u32 i, global_id, stride
        global_load x, src[i]
        global_store out[global_id], x
    }

    /// Each lane reads LDS word `lane * stride`, to measure bank conflicts.
    kernel lds_stride(out: &mut [u32], stride: u32) {
        lds tile: [u32; 2048];
        vreg i, x;
        v_mul_u32 i, local_id, stride
        lds_store tile[i], i
        lds_load x, tile[i]
        global_store out[global_id], x
    }

    /// Scalar parameters of each type, signed and float arithmetic.
    kernel affine(out_i: &mut [i32], out_f: &mut [f32], k: i32, scale: f32) {
        vreg x, f;
        v_sub_i32 x, global_id, 16
        v_mul_i32 x, x, k
        v_cvt_f32_i32 f, x
        v_mul_f32 f, f, scale
        global_store out_i[global_id], x
        global_store out_f[global_id], f
    }

    /// A loop that never ends.
    kernel spin() {
        mreg always;
        s_cmp_eq_u32 always, 0, 0
        loop
        endloop always
    }
}

#[test]
fn out_of_bounds_store_names_its_source_line() {
    let mut out = vec![0u32; 40];
    let err = unchecked_fill::launch(&LaunchConfig::new(2, 32), &mut out).unwrap_err();
    let Error::Fault(fault) = err else {
        panic!("expected a fault, got {err}");
    };
    assert_eq!(fault.kernel, "unchecked_fill");
    assert!(fault.file.ends_with("launch.rs"), "{}", fault.file);
    assert_eq!(fault.inst, 0);
    assert_eq!((fault.loc.line, fault.loc.column), (KERNELS_LINE + 4, 9));
    assert_eq!(fault.workgroup, [1, 0, 0]);
    assert_eq!(fault.lane, Some(8));
    assert!(
        matches!(
            fault.kind,
            FaultKind::GlobalOutOfBounds {
                offset: 160,
                size: 4,
                len: 160,
                ..
            }
        ),
        "{:?}",
        fault.kind
    );
}

#[test]
fn coalescing_follows_the_stride() {
    let src: Vec<u32> = (0..32 * 32).collect();
    // One wave of 32 lanes: 4-byte loads 4 * stride bytes apart, 64-byte lines.
    for (stride, transactions) in [(0, 1), (1, 2), (2, 4), (16, 32), (32, 32)] {
        let mut out = vec![0u32; 32];
        let stats =
            strided_copy::launch(&LaunchConfig::new(1, 32), &src, &mut out, stride).unwrap();
        for (i, &x) in out.iter().enumerate() {
            assert_eq!(x, src[i * stride as usize]);
        }
        // The load's transactions, plus 2 for the unit-stride store.
        assert_eq!(
            stats.totals.global_transactions,
            transactions + 2,
            "stride {stride}"
        );
        assert_eq!(stats.totals.global_accesses, 2);
    }
}

#[test]
fn lds_conflicts_follow_the_stride() {
    // 32 banks of 4-byte words: lanes `stride` words apart share banks when
    // `stride` has factors of two; the worst bank holds gcd(stride, 32) words.
    for (stride, cycles_per_access) in [(0, 0), (1, 0), (2, 1), (4, 3), (32, 31), (33, 0)] {
        let mut out = vec![0u32; 32];
        let stats = lds_stride::launch(&LaunchConfig::new(1, 32), &mut out, stride).unwrap();
        for (lane, &x) in out.iter().enumerate() {
            assert_eq!(x, lane as u32 * stride);
        }
        assert_eq!(stats.totals.lds_accesses, 2);
        assert_eq!(
            stats.totals.lds_conflict_cycles,
            2 * cycles_per_access,
            "stride {stride}"
        );
    }
}

#[test]
fn scalar_parameters_and_wave_widths_agree() {
    let mut results = Vec::new();
    for width in [32, 64] {
        let mut out_i = vec![0i32; 128];
        let mut out_f = vec![0f32; 128];
        let config = LaunchConfig::new(2, 64).wave_width(width);
        affine::launch(&config, &mut out_i, &mut out_f, -3, 0.25).unwrap();
        for g in 0..128 {
            let x = (g as i32 - 16) * -3;
            assert_eq!(out_i[g], x);
            assert_eq!(out_f[g], x as f32 * 0.25);
        }
        results.push((out_i, out_f));
    }
    assert_eq!(results[0], results[1]);
}

#[test]
fn a_runaway_loop_stops_at_the_budget() {
    let config = LaunchConfig::new(1, 32).instruction_budget(1000);
    let err = spin::launch(&config).unwrap_err();
    let Error::Fault(fault) = err else {
        panic!("expected a fault, got {err}");
    };
    assert_eq!(fault.kernel, "spin");
    // The budget runs out at the `endloop`, instruction 2.
    assert_eq!(fault.inst, 2);
    assert_eq!(
        (fault.loc.line, fault.loc.column),
        (KERNELS_LINE + 41, 9),
        "{fault}"
    );
}
