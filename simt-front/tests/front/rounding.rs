//! Directed rounding (`v_fma_rz_f32`, `v_fma_rm_f32`, `v_fma_rp_f32`,
//! `v_cvt_rz/rm/rp_f32_f64`): hand-computed cases, and the interpreter
//! against `simt_oracle` (which rounds the exact result held as an integer
//! times a power of two) over edge values, near-cancellations and random
//! bit patterns.

use crate::differential::mix;
use crate::narrowing::run_words;

const KERNEL: &str = "
kernel rounding(a: &[f32], b: &[f32], c: &[f32], d: &[f64], out: &mut [u32]) {
    vreg x, y, z, r, p0, p1, at;
    global_load x, a[global_id.x]
    global_load y, b[global_id.x]
    global_load z, c[global_id.x]
    global_load_x2 [p0, p1], d[global_id.x]
    v_mul_u32 at, global_id.x, 6
    v_fma_rz_f32 r, x, y, z
    global_store out[at], r
    v_fma_rm_f32 r, x, y, z
    global_store out[at + 1], r
    v_fma_rp_f32 r, x, y, z
    global_store out[at + 2], r
    v_cvt_rz_f32_f64 r, [p0, p1]
    global_store out[at + 3], r
    v_cvt_rm_f32_f64 r, [p0, p1]
    global_store out[at + 4], r
    v_cvt_rp_f32_f64 r, [p0, p1]
    global_store out[at + 5], r
}";

/// Work-items (and cases) per launch.
const ITEMS: usize = 64 * 64;

/// The six results of each case: `fma` toward zero, down and up of
/// `(a, b, c)`, and `d` narrowed toward zero, down and up; on the
/// interpreter at wave width `width`, or on the oracle (`None`).
fn results(width: Option<u32>, a: &[f32], b: &[f32], c: &[f32], d: &[f64]) -> Vec<u32> {
    let f32s = |x: &[f32]| x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let inputs = [
        f32s(a),
        f32s(b),
        f32s(c),
        d.iter().flat_map(|v| v.to_le_bytes()).collect(),
    ];
    run_words(KERNEL, &inputs, a.len(), 6 * a.len(), width)
}

fn interpreted(width: u32, a: &[f32], b: &[f32], c: &[f32], d: &[f64]) -> Vec<u32> {
    results(Some(width), a, b, c, d)
}

fn oracle(a: &[f32], b: &[f32], c: &[f32], d: &[f64]) -> Vec<u32> {
    results(None, a, b, c, d)
}

#[test]
fn directed_rounding_gives_the_hand_computed_results() {
    let tiny = f32::from_bits(1);
    let up = |x: f32| x.next_up().to_bits();
    let down = |x: f32| x.next_down().to_bits();
    let b = |x: f32| x.to_bits();
    let e30 = 2f32.powi(-30);
    // (a, b, c, d) and the six results.
    let cases: Vec<([f32; 3], f64, [u32; 6])> = vec![
        (
            [1.0, 1.0, e30],
            1.0 + 2f64.powi(-30),
            [b(1.0), b(1.0), up(1.0), b(1.0), b(1.0), up(1.0)],
        ),
        (
            [1.0, 1.0, -e30],
            -(1.0 + 2f64.powi(-30)),
            [down(1.0), down(1.0), b(1.0), b(-1.0), down(-1.0), b(-1.0)],
        ),
        // Exact cancellation: -0.0 rounding down, +0.0 otherwise.
        (
            [-1.0, 1.0, 1.0],
            0.0,
            [b(0.0), b(-0.0), b(0.0), b(0.0), b(0.0), b(0.0)],
        ),
        // Zeros of one sign keep it.
        (
            [-0.0, 1.0, -0.0],
            -0.0,
            [b(-0.0), b(-0.0), b(-0.0), b(-0.0), b(-0.0), b(-0.0)],
        ),
        // Beyond f32::MAX: the largest float toward zero, infinity away.
        (
            [f32::MAX, 2.0, 0.0],
            1e300,
            [
                b(f32::MAX),
                b(f32::MAX),
                b(f32::INFINITY),
                b(f32::MAX),
                b(f32::MAX),
                b(f32::INFINITY),
            ],
        ),
        (
            [-f32::MAX, 2.0, 0.0],
            -1e300,
            [
                b(-f32::MAX),
                b(f32::NEG_INFINITY),
                b(-f32::MAX),
                b(-f32::MAX),
                b(f32::NEG_INFINITY),
                b(-f32::MAX),
            ],
        ),
        // Below the least subnormal.
        (
            [tiny, 0.5, 0.0],
            1e-300,
            [b(0.0), b(0.0), b(tiny), b(0.0), b(0.0), b(tiny)],
        ),
        (
            [-tiny, 0.5, 0.0],
            -1e-300,
            [b(-0.0), b(-tiny), b(-0.0), b(-0.0), b(-tiny), b(-0.0)],
        ),
        // (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly.
        (
            [1.0 + f32::EPSILON, 1.0 - f32::EPSILON, -1.0],
            -(2f64.powi(-46)),
            [b(-(2f32.powi(-46))); 6],
        ),
        // 1/3 in f64 lies between two floats.
        (
            [1.0, 3.0, 0.0],
            1.0 / 3.0,
            [b(3.0), b(3.0), b(3.0), b((1.0f64 / 3.0) as f32), 0, 0],
        ),
    ];
    let mut cases = cases;
    // 1/3's floats either side: nearest is below (0x3eaaaaab is above).
    let third = (1.0f64 / 3.0) as f32;
    let (lo, hi) = if f64::from(third) < 1.0 / 3.0 {
        (third, third.next_up())
    } else {
        (third.next_down(), third)
    };
    cases[9].2[3] = b(lo);
    cases[9].2[4] = b(lo);
    cases[9].2[5] = b(hi);
    let mut a = vec![0.0f32; ITEMS];
    let (mut bb, mut c, mut d) = (a.clone(), a.clone(), vec![0.0f64; ITEMS]);
    for (i, ([x, y, z], w, _)) in cases.iter().enumerate() {
        (a[i], bb[i], c[i], d[i]) = (*x, *y, *z, *w);
    }
    for got in [
        interpreted(32, &a, &bb, &c, &d),
        interpreted(64, &a, &bb, &c, &d),
        oracle(&a, &bb, &c, &d),
    ] {
        for (i, (inputs, w, want)) in cases.iter().enumerate() {
            assert_eq!(&got[6 * i..6 * i + 6], want, "case {i}: {inputs:?}, {w:e}");
        }
    }
}

/// Floats whose products and sums land near float boundaries: edge values,
/// cancellations (`c` near `-a*b`), and random bits.
fn values(seed: u64) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f64>) {
    let edges = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::from_bits(1),
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        1.0 + f32::EPSILON,
        3.0,
        0.1,
    ];
    let (mut a, mut b, mut c, mut d) = (vec![], vec![], vec![], vec![]);
    for i in 0..ITEMS as u64 {
        let r = |k: u64| mix(seed ^ (i << 8) ^ k);
        let pick = |k: u64| -> f32 {
            let x = r(k);
            match x % 4 {
                0 => {
                    let e = edges[(x >> 8) as usize % edges.len()];
                    if x >> 40 & 1 == 1 {
                        -e
                    } else {
                        e
                    }
                }
                1 => f32::from_bits((x >> 16) as u32),
                // Near 1, so that products and sums carry past 24 bits.
                _ => 1.0 + ((x >> 20) as u32 % 4096) as f32 * f32::EPSILON * 0.5,
            }
        };
        let (x, y) = (pick(1), pick(2));
        let z = match r(3) % 3 {
            0 => -(x * y),
            1 => -(x * y) * (1.0 + f32::EPSILON),
            _ => pick(4),
        };
        let w = match r(5) % 3 {
            0 => f64::from_bits(r(6)),
            1 => f64::from(pick(7)) * (1.0 + (r(8) % 1024) as f64 * f64::EPSILON),
            _ => f64::from(pick(9)),
        };
        a.push(x);
        b.push(y);
        c.push(z);
        d.push(w);
    }
    (a, b, c, d)
}

#[test]
fn directed_rounding_agrees_with_the_oracle() {
    for seed in 0..4 {
        let (a, b, c, d) = values(seed);
        let want = oracle(&a, &b, &c, &d);
        for width in [32, 64] {
            let got = interpreted(width, &a, &b, &c, &d);
            for i in 0..ITEMS {
                // NaNs of any payload are one NaN here.
                let same = |x: u32, y: u32| {
                    x == y || (f32::from_bits(x).is_nan() && f32::from_bits(y).is_nan())
                };
                for k in 0..6 {
                    assert!(
                    same(got[6 * i + k], want[6 * i + k]),
                    "wave{width} seed {seed} case {i} result {k}: ({:e}, {:e}, {:e}; {:e}) gives {:#x}, the oracle {:#x}",
                    a[i],
                    b[i],
                    c[i],
                    d[i],
                    got[6 * i + k],
                    want[6 * i + k]
                );
                }
            }
        }
    }
}
