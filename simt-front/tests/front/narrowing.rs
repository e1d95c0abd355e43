//! Doubles narrowed to `f16` and `bf16` in every rounding direction
//! (`v_cvt_{,rz_,rm_,rp_}{f16,bf16}_f64`) and rounded to integral doubles
//! (`v_rndne_f64`, `v_trunc_f64`, `v_floor_f64`, `v_ceil_f64`):
//! hand-computed cases, and the interpreter at both widths against
//! `simt_oracle` (which rounds the operand's significand as an integer)
//! over edge values, values a hair from ties, and random bit patterns.

use crate::differential::mix;
use simt_core::{LaunchConfig, OwnedArg, ParamKind};
use simt_oracle::{Geometry, Launch, Value};

const KERNEL: &str = "
kernel narrowing(d: &[f64], out: &mut [u32]) {
    vreg p0, p1, q0, q1, r, at;
    global_load_x2 [p0, p1], d[global_id.x]
    v_mul_u32 at, global_id.x, 16
    v_cvt_f16_f64 r, [p0, p1]
    global_store out[at], r
    v_cvt_rz_f16_f64 r, [p0, p1]
    global_store out[at + 1], r
    v_cvt_rm_f16_f64 r, [p0, p1]
    global_store out[at + 2], r
    v_cvt_rp_f16_f64 r, [p0, p1]
    global_store out[at + 3], r
    v_cvt_bf16_f64 r, [p0, p1]
    global_store out[at + 4], r
    v_cvt_rz_bf16_f64 r, [p0, p1]
    global_store out[at + 5], r
    v_cvt_rm_bf16_f64 r, [p0, p1]
    global_store out[at + 6], r
    v_cvt_rp_bf16_f64 r, [p0, p1]
    global_store out[at + 7], r
    v_rndne_f64 [q0, q1], [p0, p1]
    global_store_x2 out[at + 8], [q0, q1]
    v_trunc_f64 [q0, q1], [p0, p1]
    global_store_x2 out[at + 10], [q0, q1]
    v_floor_f64 [q0, q1], [p0, p1]
    global_store_x2 out[at + 12], [q0, q1]
    v_ceil_f64 [q0, q1], [p0, p1]
    global_store_x2 out[at + 14], [q0, q1]
}";

/// Words of results per case.
const WORDS: usize = 16;

/// Work-items (and cases) per launch.
const ITEMS: usize = 64 * 64;

/// The words a one-dimensional launch of `kernel` leaves in its last
/// buffer (`words` of them, zeroed first), given its other buffers' bytes:
/// on the interpreter at wave width `width`, or on the oracle (`None`).
pub(crate) fn run_words(
    kernel: &str,
    inputs: &[Vec<u8>],
    items: usize,
    words: usize,
    width: Option<u32>,
) -> Vec<u32> {
    let kernel = simt_front::compile(kernel).unwrap_or_else(|e| panic!("{e}"));
    let out = vec![0u8; 4 * words];
    let bytes = match width {
        Some(width) => {
            let mut args: Vec<OwnedArg> = kernel
                .program()
                .host_params()
                .iter()
                .zip(inputs.iter().chain([&out]))
                .map(|(p, bytes)| match p.kind {
                    ParamKind::Buffer { elem, writable } => OwnedArg::Buffer {
                        elem,
                        writable,
                        bytes: bytes.clone(),
                    },
                    _ => unreachable!("buffers only"),
                })
                .collect();
            let config = LaunchConfig::new(items as u32 / 64, 64).wave_width(width);
            simt_core::launch(&kernel, &config, &mut OwnedArg::lend(&mut args)).expect("runs");
            let Some(OwnedArg::Buffer { bytes, .. }) = args.pop() else {
                unreachable!()
            };
            bytes
        }
        None => {
            let mut args: Vec<Value> = inputs
                .iter()
                .chain([&out])
                .map(|b| Value::Buffer(b.clone()))
                .collect();
            let launch = Launch {
                grid: [items as u32 / 64, 1, 1],
                workgroup: [64, 1, 1],
                wave_width: 32,
                geometry: Geometry {
                    phase_lanes: 32,
                    line_bytes: 128,
                    sector_bytes: 32,
                    lds_banks: 32,
                    lds_bank_bytes: 4,
                },
                schedule: simt_oracle::Schedule::UntilBarrier,
                budget: 1 << 24,
            };
            simt_oracle::run(kernel.program(), &launch, &mut args).expect("runs");
            let Some(Value::Buffer(out)) = args.pop() else {
                unreachable!()
            };
            out
        }
    };
    bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

fn results(d: &[f64], width: Option<u32>) -> Vec<u32> {
    let bytes = d.iter().flat_map(|v| v.to_le_bytes()).collect();
    run_words(KERNEL, &[bytes], d.len(), WORDS * d.len(), width)
}

/// One case's words: the eight narrowings, then the four integral doubles
/// as pairs of words.
fn words(halves: [u32; 8], integral: [f64; 4]) -> [u32; WORDS] {
    let mut w = [0; WORDS];
    w[..8].copy_from_slice(&halves);
    for (k, x) in integral.iter().enumerate() {
        let b = x.to_bits();
        w[8 + 2 * k] = b as u32;
        w[9 + 2 * k] = (b >> 32) as u32;
    }
    w
}

#[test]
fn narrowing_and_integral_rounding_give_the_hand_computed_results() {
    let p = |k: i32| 2f64.powi(k);
    // (operand, f16 rn/rz/rm/rp, bf16 rn/rz/rm/rp, rint/trunc/floor/ceil).
    let cases: Vec<(f64, [u32; WORDS])> = vec![
        // Half an f16 ulp above 1: a tie, to even; a bf16 value exactly.
        (
            1.0 + p(-11),
            words(
                [
                    0x3c00, 0x3c00, 0x3c00, 0x3c01, 0x3f80, 0x3f80, 0x3f80, 0x3f81,
                ],
                [1.0, 1.0, 1.0, 2.0],
            ),
        ),
        // A hair above that tie: up to nearest. Through f32 (whose nearest
        // drops the hair) the tie would go to even, 0x3c00.
        (
            1.0 + p(-11) + p(-40),
            words(
                [
                    0x3c01, 0x3c00, 0x3c00, 0x3c01, 0x3f80, 0x3f80, 0x3f80, 0x3f81,
                ],
                [1.0, 1.0, 1.0, 2.0],
            ),
        ),
        (
            -(1.0 + p(-11)),
            words(
                [
                    0xbc00, 0xbc00, 0xbc01, 0xbc00, 0xbf80, 0xbf80, 0xbf81, 0xbf80,
                ],
                [-1.0, -1.0, -2.0, -1.0],
            ),
        ),
        // Half a bf16 ulp above 1: a tie for bf16.
        (
            1.0 + p(-8),
            words(
                [
                    0x3c04, 0x3c04, 0x3c04, 0x3c04, 0x3f80, 0x3f80, 0x3f80, 0x3f81,
                ],
                [1.0, 1.0, 1.0, 2.0],
            ),
        ),
        // 65520: halfway from f16's largest (65504) to 2^16, which is out
        // of range: nearest overflows, toward zero stays finite.
        (
            65520.0,
            words(
                [
                    0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x4780, 0x477f, 0x477f, 0x4780,
                ],
                [65520.0; 4],
            ),
        ),
        (
            -65520.0,
            words(
                [
                    0xfc00, 0xfbff, 0xfc00, 0xfbff, 0xc780, 0xc77f, 0xc780, 0xc77f,
                ],
                [-65520.0; 4],
            ),
        ),
        // Far beyond both formats.
        (
            1e300,
            words(
                [
                    0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x7f80, 0x7f7f, 0x7f7f, 0x7f80,
                ],
                [1e300; 4],
            ),
        ),
        // Below f16's least subnormal (2^-24), a bf16 normal.
        (
            p(-30),
            words(
                [0, 0, 0, 1, 0x3080, 0x3080, 0x3080, 0x3080],
                [0.0, 0.0, 0.0, 1.0],
            ),
        ),
        (
            -p(-30),
            words(
                [
                    0x8000, 0x8000, 0x8001, 0x8000, 0xb080, 0xb080, 0xb080, 0xb080,
                ],
                [-0.0, -0.0, -1.0, -0.0],
            ),
        ),
        // Half f16's least subnormal: a tie, to even (zero); a hair above,
        // up to it.
        (
            p(-25),
            words(
                [0, 0, 0, 1, 0x3300, 0x3300, 0x3300, 0x3300],
                [0.0, 0.0, 0.0, 1.0],
            ),
        ),
        (
            p(-25) + p(-60),
            words(
                [1, 0, 0, 1, 0x3300, 0x3300, 0x3300, 0x3301],
                [0.0, 0.0, 0.0, 1.0],
            ),
        ),
        // Ties of the integral roundings: to even.
        (
            2.5,
            words(
                [
                    0x4100, 0x4100, 0x4100, 0x4100, 0x4020, 0x4020, 0x4020, 0x4020,
                ],
                [2.0, 2.0, 2.0, 3.0],
            ),
        ),
        (
            -2.5,
            words(
                [
                    0xc100, 0xc100, 0xc100, 0xc100, 0xc020, 0xc020, 0xc020, 0xc020,
                ],
                [-2.0, -2.0, -3.0, -2.0],
            ),
        ),
        (
            3.5,
            words(
                [
                    0x4300, 0x4300, 0x4300, 0x4300, 0x4060, 0x4060, 0x4060, 0x4060,
                ],
                [4.0, 3.0, 3.0, 4.0],
            ),
        ),
        (
            -0.5,
            words(
                [
                    0xb800, 0xb800, 0xb800, 0xb800, 0xbf00, 0xbf00, 0xbf00, 0xbf00,
                ],
                [-0.0, -0.0, -1.0, -0.0],
            ),
        ),
        // 2^52 - 0.5: the last doubles with a fraction; odd, so the tie
        // goes up to 2^52.
        (
            p(52) - 0.5,
            words(
                [
                    0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x5980, 0x597f, 0x597f, 0x5980,
                ],
                [p(52), p(52) - 1.0, p(52) - 1.0, p(52)],
            ),
        ),
        // The least subnormal double.
        (
            f64::from_bits(1),
            words([0, 0, 0, 1, 0, 0, 0, 1], [0.0, 0.0, 0.0, 1.0]),
        ),
        (
            -f64::from_bits(1),
            words(
                [
                    0x8000, 0x8000, 0x8001, 0x8000, 0x8000, 0x8000, 0x8001, 0x8000,
                ],
                [-0.0, -0.0, -1.0, -0.0],
            ),
        ),
        // Infinity and NaN, whatever the direction.
        (
            f64::NEG_INFINITY,
            words(
                [
                    0xfc00, 0xfc00, 0xfc00, 0xfc00, 0xff80, 0xff80, 0xff80, 0xff80,
                ],
                [f64::NEG_INFINITY; 4],
            ),
        ),
        (
            f64::from_bits(0x7ff0_0000_0000_0001),
            words(
                [
                    0x7e00, 0x7e00, 0x7e00, 0x7e00, 0x7fc0, 0x7fc0, 0x7fc0, 0x7fc0,
                ],
                [f64::from_bits(0x7ff8_0000_0000_0000); 4],
            ),
        ),
    ];
    let mut d = vec![0.0f64; ITEMS];
    for (i, (x, _)) in cases.iter().enumerate() {
        d[i] = *x;
    }
    for width in [Some(32), Some(64), None] {
        let got = results(&d, width);
        for (i, (x, want)) in cases.iter().enumerate() {
            assert_eq!(
                &got[WORDS * i..WORDS * (i + 1)],
                want,
                "{width:?}: case {i}, {x:e}"
            );
        }
    }
}

/// Doubles near the roundings' edges: edge values, values a few ulps from
/// an `f16` or `bf16` tie or an integer plus a half, and random bits.
fn values(seed: u64) -> Vec<f64> {
    let edges = [
        0.0f64,
        1.0,
        0.5,
        65504.0,
        65520.0,
        f64::from(f32::MAX),
        2f64.powi(-24),
        2f64.powi(-133),
        2f64.powi(52),
        f64::MAX,
        f64::INFINITY,
        f64::NAN,
    ];
    (0..ITEMS as u64)
        .map(|i| {
            let r = |k: u64| mix(seed ^ (i << 8) ^ k);
            let x = r(1);
            let sign = if x >> 40 & 1 == 1 { -1.0 } else { 1.0 };
            let nudge = |v: f64| {
                // Up to 4 ulps either way.
                f64::from_bits(v.to_bits().wrapping_add((r(2) % 9).wrapping_sub(4)))
            };
            sign * match x % 5 {
                0 => edges[(x >> 8) as usize % edges.len()],
                1 => f64::from_bits(r(3)),
                // An f16 or bf16 tie: a 12- or 9-bit odd significand.
                2 => {
                    nudge((((r(4) % 2048) | 2048 | 1) as f64) * 2f64.powi((r(5) % 40) as i32 - 30))
                }
                3 => {
                    nudge((((r(4) % 256) | 256 | 1) as f64) * 2f64.powi((r(5) % 200) as i32 - 100))
                }
                // An integer plus a half.
                _ => nudge((r(4) % (1 << 53)) as f64 * 0.5),
            }
        })
        .collect()
}

#[test]
fn narrowing_and_integral_rounding_agree_with_the_oracle() {
    for seed in 0..3 {
        let d = values(seed);
        let want = results(&d, None);
        for width in [32, 64] {
            let got = results(&d, Some(width));
            for (i, x) in d.iter().enumerate() {
                for k in 0..WORDS {
                    assert_eq!(
                        got[WORDS * i + k],
                        want[WORDS * i + k],
                        "wave{width} seed {seed} case {i} word {k}: {x:e} ({:#x})",
                        x.to_bits()
                    );
                }
            }
        }
    }
}
