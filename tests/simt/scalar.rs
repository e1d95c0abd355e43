//! The 18 scalar compares and the scalar multiply-adds, written with
//! `simt_kernel!` and run under a partial exec mask at wave32 and wave64: a
//! scalar compare sets every bit of its mask, the bits of inactive lanes too, and
//! a scalar result is the wave's whatever lanes are active.

use simt::core::LaunchConfig;
use simt::simt_kernel;

simt_kernel! {
    /// In odd lanes, every scalar compare of `a` with `b` (`fa` with `fb` for
    /// `f32`) into m1..m18, and `fa * fb + fc` fused and `a * b + 3`; every lane
    /// then stores the 18 mask bits and the two results at `out[20 * i ..]`.
    kernel compares(a: u32, b: u32, fa: f32, fb: f32, fc: f32, out: &mut [u32]) {
        vreg bit, x, base;
        sreg fused, mad;
        mreg odd;
        v_and bit, lane_id, 1
        v_cmp_eq_u32 odd, bit, 1
        if odd
            s_cmp_eq_u32 m1, a, b
            s_cmp_ne_u32 m2, a, b
            s_cmp_lt_u32 m3, a, b
            s_cmp_le_u32 m4, a, b
            s_cmp_gt_u32 m5, a, b
            s_cmp_ge_u32 m6, a, b
            s_cmp_eq_i32 m7, a, b
            s_cmp_ne_i32 m8, a, b
            s_cmp_lt_i32 m9, a, b
            s_cmp_le_i32 m10, a, b
            s_cmp_gt_i32 m11, a, b
            s_cmp_ge_i32 m12, a, b
            s_cmp_eq_f32 m13, fa, fb
            s_cmp_ne_f32 m14, fa, fb
            s_cmp_lt_f32 m15, fa, fb
            s_cmp_le_f32 m16, fa, fb
            s_cmp_gt_f32 m17, fa, fb
            s_cmp_ge_f32 m18, fa, fb
            s_fma_f32 fused, fa, fb, fc
            s_mad_i32 mad, a, b, -3
        endif
        v_mul_u32 base, global_id, 20
        v_select x, m1, 1, 0
        global_store out[base], x
        v_select x, m2, 1, 0
        global_store out[base + 1], x
        v_select x, m3, 1, 0
        global_store out[base + 2], x
        v_select x, m4, 1, 0
        global_store out[base + 3], x
        v_select x, m5, 1, 0
        global_store out[base + 4], x
        v_select x, m6, 1, 0
        global_store out[base + 5], x
        v_select x, m7, 1, 0
        global_store out[base + 6], x
        v_select x, m8, 1, 0
        global_store out[base + 7], x
        v_select x, m9, 1, 0
        global_store out[base + 8], x
        v_select x, m10, 1, 0
        global_store out[base + 9], x
        v_select x, m11, 1, 0
        global_store out[base + 10], x
        v_select x, m12, 1, 0
        global_store out[base + 11], x
        v_select x, m13, 1, 0
        global_store out[base + 12], x
        v_select x, m14, 1, 0
        global_store out[base + 13], x
        v_select x, m15, 1, 0
        global_store out[base + 14], x
        v_select x, m16, 1, 0
        global_store out[base + 15], x
        v_select x, m17, 1, 0
        global_store out[base + 16], x
        v_select x, m18, 1, 0
        global_store out[base + 17], x
        global_store out[base + 18], fused
        global_store out[base + 19], mad
    }
}

/// The 18 compares in the kernel's order, written out on host types.
fn host(a: u32, b: u32, fa: f32, fb: f32) -> [bool; 18] {
    let (ia, ib) = (a as i32, b as i32);
    [
        a == b,
        a != b,
        a < b,
        a <= b,
        a > b,
        a >= b,
        ia == ib,
        ia != ib,
        ia < ib,
        ia <= ib,
        ia > ib,
        ia >= ib,
        fa == fb,
        fa != fb,
        fa < fb,
        fa <= fb,
        fa > fb,
        fa >= fb,
    ]
}

#[test]
fn scalar_compares_set_every_lane_bit_under_a_partial_mask() {
    let ints = [
        0u32,
        1,
        7,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0xffff_fff9,
    ];
    let floats = [1.5f32, -2.25, f32::NAN, f32::INFINITY, -0.0, 0.0];
    // 96 items: a partial second wave at wave64, three waves at wave32.
    let items = 96usize;
    for width in [32u32, 64] {
        let config = LaunchConfig::new(1, items as u32).wave_width(width);
        for (k, &a) in ints.iter().enumerate() {
            let b = ints[(k * 3 + 1) % ints.len()];
            for &b in &[a, b, a.wrapping_add(1)] {
                for &fa in &floats {
                    for &fb in &floats {
                        let mut out = vec![u32::MAX; 20 * items];
                        compares::launch(&config, a, b, fa, fb, 0.5, &mut out).unwrap();
                        let want: Vec<u32> = host(a, b, fa, fb).iter().map(|&t| t as u32).collect();
                        let fused = fa.mul_add(fb, 0.5).to_bits();
                        let mad = a.wrapping_mul(b).wrapping_sub(3);
                        for i in 0..items {
                            let got = &out[20 * i..20 * i + 20];
                            let what = format!("wave{width} item {i}: {a:#x} {b:#x} {fa} {fb}");
                            assert_eq!(&got[..18], &want[..], "{what}");
                            let same_float = got[18] == fused
                                || (f32::from_bits(got[18]).is_nan()
                                    && fa.mul_add(fb, 0.5).is_nan());
                            assert!(same_float, "{what}: fma {:#x} != {fused:#x}", got[18]);
                            assert_eq!(got[19], mad, "{what}: mad");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn scalar_fma_rounds_once() {
    // (1 + e)(1 - e) - 1 = -e^2 exactly when fused; the unfused product rounds
    // 1 - e^2 to 1, giving 0.
    let e = f32::EPSILON;
    let mut out = vec![0u32; 20 * 64];
    for width in [32u32, 64] {
        let config = LaunchConfig::new(1, 64).wave_width(width);
        compares::launch(&config, 0, 0, 1.0 + e, 1.0 - e, -1.0, &mut out).unwrap();
        for i in 0..64 {
            assert_eq!(
                f32::from_bits(out[20 * i + 18]),
                -(e * e),
                "wave{width} item {i}"
            );
        }
    }
}
