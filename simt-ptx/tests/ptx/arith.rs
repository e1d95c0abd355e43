//! `corpus/arith.cu`: arithmetic at the edges PTX defines, from nvcc's PTX,
//! checked on the host without simt's own rounding code.
//!
//! - Rounding toward zero, down and up (CUDA's `__fadd_rz`, `__fdiv_ru`,
//!   `__double2float_rd`, ...): each result must bracket the exact value as
//!   its direction says (the largest float not above it, the smallest not
//!   below it), the exact value compared as an integer times a power of
//!   two, or through products exact in `f64` (`r * y` against `x` for a
//!   quotient, `r * r` against `x` for a square root).
//! - Saturating `add`/`sub` and conversions, floats to 8-, 16- and 64-bit
//!   integers, and 16- and 64-bit shifts by a register amount past the
//!   width: Rust's saturating and checked operations.
//! - The same directions for doubles (`__dadd_rz`, `__ddiv_ru`,
//!   `__dsqrt_rd`, ...), each result compared with the exact value as big
//!   integers.

use crate::corpus::{corpus, kernel, nvidia, Rng, WIDTHS};
use num_bigint::BigInt;
use simt_core::Arg;
use std::cmp::Ordering;

/// `|x| = m 2^e` with `m` an integer (finite `x`), and its sign.
fn parts(x: f32) -> (bool, i128, i32) {
    let b = x.to_bits();
    let field = ((b >> 23) & 0xff) as i32;
    let frac = i128::from(b & 0x7f_ffff);
    let neg = b >> 31 == 1;
    if field == 0 {
        (neg, frac, -149)
    } else {
        (neg, frac | 1 << 23, field - 150)
    }
}

/// `x 2^scale` as an integer (`x` a multiple of `2^-scale`).
fn scaled(x: f32, scale: i32) -> i128 {
    let (neg, m, e) = parts(x);
    if m == 0 {
        return 0;
    }
    assert!(e + scale >= 0, "{x:e} is not a multiple of 2^-{scale}");
    let v = m << (e + scale);
    if neg {
        -v
    } else {
        v
    }
}

/// `v` against `k 2^-scale`.
fn against(v: f32, k: i128, scale: i32) -> Ordering {
    if v.is_infinite() {
        return if v > 0.0 {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    let (neg, m, e) = parts(v);
    let m = if neg { -m } else { m };
    let up = e + scale;
    if up >= 0 {
        return (m << up).cmp(&k);
    }
    // `v` is below `2^-scale` in magnitude (its quantum is finer): against
    // a nonzero `k` only `k`'s sign counts.
    if -up >= 25 {
        return if k == 0 { m.cmp(&0) } else { 0.cmp(&k) };
    }
    m.cmp(&(k << -up))
}

/// Whether `r` is `dir`'s rounding of the value `cmp` compares against.
fn brackets(r: f32, dir: usize, cmp: &dyn Fn(f32) -> Ordering) -> bool {
    if r.is_nan() {
        return false;
    }
    let down = |r: f32| cmp(r) != Ordering::Greater && cmp(r.next_up()) == Ordering::Greater;
    let up = |r: f32| cmp(r) != Ordering::Less && cmp(r.next_down()) == Ordering::Less;
    match dir {
        // Toward zero: down above zero, up below.
        0 if cmp(0.0) == Ordering::Less => down(r),
        0 => up(r),
        1 => down(r),
        _ => up(r),
    }
}

/// A float of either sign in `[2^-8, 2^9)` with a random significand: sums,
/// products and fused products of three are exact as integers times
/// `2^-62`.
fn moderate(rng: &mut Rng) -> f32 {
    let x = rng.next();
    let e = (x % 17) as i32 - 8;
    let m = 1.0 + ((x >> 8) as u32 & 0x7f_ffff) as f32 / (1u32 << 23) as f32;
    let v = m * 2f32.powi(e);
    if x >> 40 & 1 == 1 {
        -v
    } else {
        v
    }
}

#[test]
fn rounding_toward_zero_down_and_up_brackets_the_exact_value() {
    let m = corpus("arith");
    let k = kernel(&m, "rounding");
    let n = 1000usize;
    let mut rng = Rng::new(31);
    let (mut a, mut b, mut c) = (vec![], vec![], vec![]);
    let (mut d, mut ints) = (vec![], vec![]);
    for i in 0..n {
        let (x, y) = (moderate(&mut rng), moderate(&mut rng));
        // A third of the addends cancel the product to a few bits.
        let z = if i % 3 == 0 {
            -(x * y)
        } else {
            moderate(&mut rng)
        };
        a.push(x);
        b.push(y);
        c.push(z);
        let bits = rng.next();
        d.push(match i % 4 {
            0 => f64::from_bits(bits),
            1 => f64::from(x) * (1.0 + (bits % 4096) as f64 * f64::EPSILON),
            2 => (bits as i64 >> (bits % 64)) as f64,
            _ => f64::from(x) / 3.0,
        });
        ints.push((rng.next() as i32) >> (rng.next() % 32));
    }
    // Zeros of a sign the direction decides: 2 - 2 and 2 * 2 - 4 are -0.0
    // rounding down and +0.0 otherwise; -0.0 times 3 is -0.0.
    (a[0], b[0], c[0]) = (2.0, 2.0, -4.0);
    (a[1], b[1]) = (-0.0, 3.0);
    // nvcc loads `int`s as `u32` words.
    let words: Vec<u32> = ints.iter().map(|&m| m as u32).collect();
    for width in WIDTHS {
        let mut out = vec![0f32; 30 * n];
        simt_core::launch(
            k,
            &nvidia(4, 256, width),
            &mut [
                Arg::buffer(&a),
                Arg::buffer(&b),
                Arg::buffer(&c),
                Arg::buffer(&d),
                Arg::buffer(&words),
                Arg::buffer_mut(&mut out),
                Arg::U32(n as u32),
            ],
        )
        .expect("runs");
        let bits = |k: usize| out[k].to_bits();
        let zeros = [0.0f32.to_bits(), (-0.0f32).to_bits(), 0.0f32.to_bits()];
        assert_eq!([bits(3), bits(4), bits(5)], zeros, "2 - 2");
        assert_eq!([bits(9), bits(10), bits(11)], zeros, "2 * 2 - 4");
        assert_eq!(
            [bits(36), bits(37), bits(38)],
            [(-0.0f32).to_bits(); 3],
            "-0 * 3"
        );
        for i in 0..n {
            let (x, y, z, w, m) = (a[i], b[i], c[i], d[i], ints[i]);
            let exact: [&dyn Fn(f32) -> Ordering; 10] = [
                &|v| against(v, scaled(x, 62) + scaled(y, 62), 62),
                &|v| against(v, scaled(x, 62) - scaled(y, 62), 62),
                &|v| against(v, scaled(x, 31) * scaled(y, 31), 62),
                &|v| against(v, scaled(x, 31) * scaled(y, 31) + scaled(z, 62), 62),
                // v against x / y is v y against x, turned for a negative y.
                &|v| {
                    let o = (f64::from(v) * f64::from(y)).total_cmp(&f64::from(x));
                    if y < 0.0 {
                        o.reverse()
                    } else {
                        o
                    }
                },
                &|v| {
                    let o = (f64::from(v) * f64::from(y)).total_cmp(&1.0);
                    if y < 0.0 {
                        o.reverse()
                    } else {
                        o
                    }
                },
                &|v| {
                    if v < 0.0 {
                        Ordering::Less
                    } else {
                        (f64::from(v) * f64::from(v)).total_cmp(&f64::from(x.abs()))
                    }
                },
                &|v| f64::from(v).total_cmp(&w),
                &|v| f64::from(v).total_cmp(&f64::from(m)),
                &|v| f64::from(v).total_cmp(&f64::from(m as u32)),
            ];
            for (op, cmp) in exact.iter().enumerate() {
                if op == 6 && x < 0.0 {
                    // The square root of a negative float is NaN.
                    assert!(out[30 * i + 18].is_nan(), "sqrt of {x:e}");
                    continue;
                }
                for dir in 0..3 {
                    let r = out[30 * i + 3 * op + dir];
                    assert!(
                        brackets(r, dir, *cmp),
                        "wave{width} case {i} op {op} direction {dir}: ({x:e}, {y:e}, {z:e}, {w:e}, {m}) gave {r:e}"
                    );
                }
            }
        }
    }
}

#[test]
fn saturating_arithmetic_and_conversions_clamp() {
    let m = corpus("arith");
    let k = kernel(&m, "saturating");
    let mut rng = Rng::new(32);
    let n = 600usize;
    let pick = |rng: &mut Rng| -> i32 {
        let x = rng.next();
        match x % 4 {
            0 => [i32::MAX, i32::MIN, 0, -1, 32767, -32768, 65535, 65536][(x >> 8) as usize % 8],
            1 => (x >> 32) as i32 >> 14,
            _ => (x >> 32) as i32,
        }
    };
    let a: Vec<i32> = (0..n).map(|_| pick(&mut rng)).collect();
    let b: Vec<i32> = (0..n).map(|_| pick(&mut rng)).collect();
    let words = |v: &[i32]| -> Vec<u32> { v.iter().map(|&x| x as u32).collect() };
    let (wa, wb) = (words(&a), words(&b));
    for width in WIDTHS {
        let mut out = vec![0u32; 5 * n];
        simt_core::launch(
            k,
            &nvidia(3, 256, width),
            &mut [
                Arg::buffer(&wa),
                Arg::buffer(&wb),
                Arg::buffer_mut(&mut out),
                Arg::U32(n as u32),
            ],
        )
        .expect("runs");
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [
                x.saturating_add(y),
                x.saturating_sub(y),
                x.clamp(-32768, 32767),
                x.clamp(0, 65535),
                x.max(0),
            ]
            .map(|w| w as u32);
            assert_eq!(&out[5 * i..5 * i + 5], &want, "wave{width} ({x}, {y})");
        }
    }
}

#[test]
fn floats_convert_to_narrow_and_wide_integers_truncated_and_saturated() {
    let m = corpus("arith");
    let k = kernel(&m, "to_ints");
    let mut rng = Rng::new(33);
    let n = 512usize;
    let edges = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.5,
        127.9,
        128.0,
        -128.5,
        -129.0,
        255.5,
        256.0,
        32767.5,
        -32769.0,
        65535.9,
        2.5,
        -2.5,
        9.3e18,
        -9.3e18,
        1e30,
    ];
    let a: Vec<f32> = (0..n)
        .map(|i| {
            let x = rng.next();
            match i % 3 {
                0 => edges[(x >> 8) as usize % edges.len()],
                1 => f32::from_bits((x >> 32) as u32),
                _ => ((x >> 40) as i32 - (1 << 23)) as f32 / 64.0,
            }
        })
        .collect();
    for width in WIDTHS {
        let (mut narrow, mut wide) = (vec![0u32; 4 * n], vec![0u64; 2 * n]);
        simt_core::launch(
            k,
            &nvidia(2, 256, width),
            &mut [
                Arg::buffer(&a),
                Arg::buffer_mut(&mut narrow),
                Arg::buffer_mut(&mut wide),
                Arg::U32(n as u32),
            ],
        )
        .expect("runs");
        for (i, &x) in a.iter().enumerate() {
            let want = [
                i32::from(x as i16),
                i32::from(x as u16),
                i32::from(x as i8),
                i32::from(x as u8),
            ]
            .map(|w| w as u32);
            assert_eq!(&narrow[4 * i..4 * i + 4], &want, "wave{width} {x:e}");
            let want = [x as i64, x.round_ties_even() as i64].map(|w| w as u64);
            assert_eq!(&wide[2 * i..2 * i + 2], &want, "wave{width} {x:e}");
        }
    }
}

#[test]
fn shifts_by_a_register_amount_clamp_past_the_width_and_bit_fields_cross_words() {
    let m = corpus("arith");
    let k = kernel(&m, "shifts");
    let mut rng = Rng::new(34);
    let n = 700usize;
    let special = [
        0u32,
        1,
        15,
        16,
        17,
        31,
        32,
        33,
        47,
        63,
        64,
        65,
        80,
        255,
        256,
        u32::MAX,
    ];
    let v: Vec<u64> = (0..n).map(|_| rng.next()).collect();
    let by: Vec<u32> = (0..n)
        .map(|i| {
            if i < 2 * special.len() {
                special[i % special.len()]
            } else {
                (rng.next() % 90) as u32
            }
        })
        .collect();
    for width in WIDTHS {
        let mut out = vec![0u64; 10 * n];
        simt_core::launch(
            k,
            &nvidia(3, 256, width),
            &mut [
                Arg::buffer(&v),
                Arg::buffer(&by),
                Arg::buffer_mut(&mut out),
                Arg::U32(n as u32),
            ],
        )
        .expect("runs");
        for i in 0..n {
            let (x, s) = (v[i], by[i]);
            let h = x as u16;
            let (hl, hr) = if s >= 16 { (0, 0) } else { (h << s, h >> s) };
            let hs = ((h as i16) >> s.min(15)) as u16;
            let want = [
                x << (s & 63),
                x >> (s & 63),
                ((x as i64) >> (s & 63)) as u64,
                x.checked_shl(s).unwrap_or(0),
                x.checked_shr(s).unwrap_or(0),
                ((x as i64) >> s.min(63)) as u64,
                u64::from(hl) | u64::from(hr) << 16 | u64::from(hs) << 32,
                (x >> 28) & 0xff,
                (((x as i64) << (64 - 42)) >> (64 - 12)) as u64,
                (x & !(0xff << 28)) | (u64::from(s) & 0xff) << 28,
            ];
            assert_eq!(
                &out[10 * i..10 * i + 10],
                &want,
                "wave{width} {x:#x} by {s}"
            );
        }
    }
}

/// `v` against the integer `x`, exactly.
fn against_int(v: f32, x: i128) -> Ordering {
    if v.is_infinite() {
        return if v > 0.0 {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    let (neg, m, e) = parts(v);
    let m = if neg { -m } else { m };
    if e >= 0 {
        (m << e).cmp(&x)
    } else if x.unsigned_abs() < 1 << 30 {
        // Both exact in f64.
        f64::from(v).total_cmp(&(x as f64))
    } else {
        // |v| < 2^24 against a larger integer: its sign decides.
        0.cmp(&x)
    }
}

#[test]
fn sixty_four_bit_integers_convert_to_floats_as_each_rounding_says() {
    let m = corpus("arith");
    let k = kernel(&m, "wide_to_float");
    let n = 800usize;
    let x = wide_integers(n);
    for width in WIDTHS {
        let mut out = vec![0f32; 8 * n];
        simt_core::launch(
            k,
            &nvidia(4, 256, width),
            &mut [
                Arg::buffer(&x),
                Arg::buffer_mut(&mut out),
                Arg::U32(n as u32),
            ],
        )
        .expect("runs");
        for (i, &u) in x.iter().enumerate() {
            let o = &out[8 * i..8 * i + 8];
            let v = u as i64;
            assert_eq!(o[0].to_bits(), (v as f32).to_bits(), "wave{width} {v}");
            assert_eq!(o[4].to_bits(), (u as f32).to_bits(), "wave{width} {u}");
            for (dir, k) in [(0, 1), (1, 2), (2, 3)] {
                assert!(
                    brackets(o[k], dir, &|f| against_int(f, i128::from(v))),
                    "wave{width} {v} direction {dir}: {:e}",
                    o[k]
                );
                assert!(
                    brackets(o[k + 4], dir, &|f| against_int(f, i128::from(u))),
                    "wave{width} {u} direction {dir}: {:e}",
                    o[k + 4]
                );
            }
        }
    }
}

/// 64-bit integers at the edges of `f32` and `f64` precision: zero, one,
/// the extremes, values just past 2^24 and 2^53, halfway cases, and random
/// ones of every size and sign.
fn wide_integers(n: usize) -> Vec<u64> {
    let mut rng = Rng::new(35);
    (0..n)
        .map(|i| {
            let r = rng.next();
            match i % 5 {
                0 => [
                    0,
                    1,
                    u64::MAX,
                    1 << 63,
                    (1 << 63) - 1,
                    1 << 24,
                    (1 << 24) + 1,
                    (1 << 53) + 1,
                    (1 << 54) + 3,
                ][(r >> 8) as usize % 9],
                1 => r >> (r % 64),
                2 => (r as i64 >> (r % 64)) as u64,
                // Halfway between two floats, and one either side.
                3 => (((r >> 40) | 1 << 23) << 40) + (1 << 39) + (r % 3) - 1,
                _ => r,
            }
        })
        .collect()
}

/// `x 2^2200` as an integer: every finite double is a multiple of
/// `2^-1074`, so exact sums, products, quotients and roots compare as
/// integers at scale `2^2200` (one value) or `2^4400` (a product).
fn exact(x: f64) -> BigInt {
    let b = x.to_bits();
    let field = ((b >> 52) & 0x7ff) as i64;
    let frac = b & ((1 << 52) - 1);
    let (m, e) = if field == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, field - 1075)
    };
    let v = BigInt::from(m) << (e + 2200) as usize;
    if b >> 63 == 1 {
        -v
    } else {
        v
    }
}

/// `exact(x)` at the product scale, `x 2^4400`.
fn exact2(x: f64) -> BigInt {
    exact(x) << 2200usize
}

/// `v` against the value `k`, both at one scale; infinities beyond all.
fn against_big(v: f64, k: &BigInt, scale2: bool) -> Ordering {
    if v.is_infinite() {
        return if v > 0.0 {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    let v = if scale2 { exact2(v) } else { exact(v) };
    v.cmp(k)
}

/// Whether `r` is `dir`'s rounding of the value `cmp` compares against.
fn brackets64(r: f64, dir: usize, cmp: &dyn Fn(f64) -> Ordering) -> bool {
    if r.is_nan() {
        return false;
    }
    let down = |r: f64| {
        cmp(r) != Ordering::Greater && (r == f64::INFINITY || cmp(r.next_up()) == Ordering::Greater)
    };
    let up = |r: f64| {
        cmp(r) != Ordering::Less && (r == f64::NEG_INFINITY || cmp(r.next_down()) == Ordering::Less)
    };
    match dir {
        0 if cmp(0.0) == Ordering::Greater => up(r),
        0 => down(r),
        1 => down(r),
        _ => up(r),
    }
}

/// A double of either sign with a random mantissa and an exponent within
/// 2^-20 and 2^20, now and then an integer (exact quotients and roots).
fn moderate64(rng: &mut Rng) -> f64 {
    let x = rng.next();
    if x.is_multiple_of(8) {
        return (x >> 8) as f64 % 64.0 + 1.0;
    }
    let m = 1.0 + (x >> 12) as f64 / (1u64 << 52) as f64;
    let v = m * 2f64.powi((x % 41) as i32 - 20);
    if x >> 11 & 1 == 1 {
        -v
    } else {
        v
    }
}

#[test]
fn doubles_rounded_toward_zero_down_and_up_bracket_the_exact_value() {
    let m = corpus("arith");
    let k = kernel(&m, "rounding_f64");
    let n = 600usize;
    let mut rng = Rng::new(53);
    let (mut a, mut b, mut c) = (vec![], vec![], vec![]);
    for i in 0..n {
        let (x, y) = (moderate64(&mut rng), moderate64(&mut rng));
        // A third of the addends cancel the product to a few bits.
        let z = if i % 3 == 0 {
            -(x * y)
        } else {
            moderate64(&mut rng)
        };
        a.push(x);
        b.push(y);
        c.push(z);
    }
    // 2 - 2 and 2 * 2 - 4 are -0.0 rounding down and +0.0 otherwise; -0.0
    // times 3 is -0.0.
    (a[0], b[0], c[0]) = (2.0, 2.0, -4.0);
    (a[1], b[1]) = (-0.0, 3.0);
    // The edges: products and quotients past the largest double, of both
    // signs; the smallest subnormal halved and its root; a subnormal
    // product.
    let tiny = f64::from_bits(1);
    for (k, (x, y, z)) in [
        (f64::MAX, 2.0, 1.0),
        (f64::MAX, -0.5, -1.0),
        (1e300, -1e300, 1.0),
        (tiny, 2.0, tiny),
        (1e-300, 1e-10, 0.0),
        (-tiny, 3.0, 1.0),
    ]
    .into_iter()
    .enumerate()
    {
        (a[2 + k], b[2 + k], c[2 + k]) = (x, y, z);
    }
    for width in WIDTHS {
        let mut out = vec![0f64; 21 * n];
        simt_core::launch(
            k,
            &nvidia(3, 256, width),
            &mut [
                Arg::buffer(&a),
                Arg::buffer(&b),
                Arg::buffer(&c),
                Arg::buffer_mut(&mut out),
                Arg::U32(n as u32),
            ],
        )
        .expect("runs");
        let bits = |k: usize| out[k].to_bits();
        let zeros = [0.0f64.to_bits(), (-0.0f64).to_bits(), 0.0f64.to_bits()];
        assert_eq!([bits(3), bits(4), bits(5)], zeros, "2 - 2");
        assert_eq!([bits(9), bits(10), bits(11)], zeros, "2 * 2 - 4");
        assert_eq!(
            [bits(27), bits(28), bits(29)],
            [(-0.0f64).to_bits(); 3],
            "-0 * 3"
        );
        for i in 0..n {
            let (x, y, z) = (a[i], b[i], c[i]);
            let (ex, ey) = (exact(x), exact(y));
            let turned = |o: Ordering| if y < 0.0 { o.reverse() } else { o };
            let ops: [&dyn Fn(f64) -> Ordering; 7] = [
                &|v| against_big(v, &(&ex + &ey), false),
                &|v| against_big(v, &(&ex - &ey), false),
                &|v| against_big(v, &(&ex * &ey), true),
                &|v| against_big(v, &(&ex * &ey + exact2(z)), true),
                // v against x / y is v y against x, turned for a negative y.
                // An infinity is beyond every quotient, whatever y's sign.
                &|v| {
                    if v.is_infinite() {
                        against_big(v, &ex, false)
                    } else {
                        turned((exact(v) * &ey).cmp(&exact2(x)))
                    }
                },
                &|v| {
                    if v.is_infinite() {
                        against_big(v, &ex, false)
                    } else {
                        turned((exact(v) * &ey).cmp(&exact2(1.0)))
                    }
                },
                &|v| {
                    if v < 0.0 {
                        Ordering::Less
                    } else if v.is_infinite() {
                        Ordering::Greater
                    } else {
                        (exact(v) * exact(v)).cmp(&exact2(x))
                    }
                },
            ];
            for (op, cmp) in ops.iter().enumerate() {
                if op == 6 && x < 0.0 {
                    assert!(out[21 * i + 18].is_nan(), "sqrt of {x:e}");
                    continue;
                }
                for dir in 0..3 {
                    let r = out[21 * i + 3 * op + dir];
                    assert!(
                        brackets64(r, dir, *cmp),
                        "wave{width} case {i} op {op} direction {dir}: ({x:e}, {y:e}, {z:e}) gave {r:e}"
                    );
                }
            }
        }
    }
}

#[test]
fn sixty_four_bit_integers_convert_to_doubles_as_each_rounding_says() {
    let m = corpus("arith");
    let k = kernel(&m, "wide_to_double");
    let n = 800usize;
    let x = wide_integers(n);
    for width in WIDTHS {
        let mut out = vec![0f64; 8 * n];
        simt_core::launch(
            k,
            &nvidia(4, 256, width),
            &mut [
                Arg::buffer(&x),
                Arg::buffer_mut(&mut out),
                Arg::U32(n as u32),
            ],
        )
        .expect("runs");
        for (i, &u) in x.iter().enumerate() {
            let o = &out[8 * i..8 * i + 8];
            let v = u as i64;
            assert_eq!(o[0].to_bits(), (v as f64).to_bits(), "wave{width} {v}");
            assert_eq!(o[4].to_bits(), (u as f64).to_bits(), "wave{width} {u}");
            let (sv, su) = (BigInt::from(v) << 2200usize, BigInt::from(u) << 2200usize);
            for (dir, k) in [(0, 1), (1, 2), (2, 3)] {
                assert!(
                    brackets64(o[k], dir, &|f| against_big(f, &sv, false)),
                    "wave{width} {v} direction {dir}: {:e}",
                    o[k]
                );
                assert!(
                    brackets64(o[k + 4], dir, &|f| against_big(f, &su, false)),
                    "wave{width} {u} direction {dir}: {:e}",
                    o[k + 4]
                );
            }
        }
    }
}

/// A 16-bit float format's values, every non-negative finite one in
/// ascending order as `(exact value at scale 2^2200, bits)`, then the
/// power of two past the largest standing for infinity (where rounding to
/// nearest with an unbounded exponent would go, so ties to even reach it).
struct HalfTable(Vec<(BigInt, u16)>);

impl HalfTable {
    /// `frac` fraction bits (10 for `f16`, 7 for `bf16`).
    fn new(frac: u32) -> Self {
        let inf: u16 = 0x7fff & !((1 << frac) - 1);
        let decode = |b: u16| -> BigInt {
            let field = i64::from(b >> frac);
            let m = i64::from(b & ((1 << frac) - 1));
            let bias = (1i64 << (14 - frac)) - 1;
            let (m, e) = if field == 0 {
                (m, 1 - bias - i64::from(frac))
            } else {
                (m | 1 << frac, field - bias - i64::from(frac))
            };
            BigInt::from(m) << (e + 2200) as usize
        };
        // The bits past the largest finite value decode as its binade's
        // next power of two.
        HalfTable((0..=inf).map(|b| (decode(b), b)).collect())
    }

    /// `x` (at scale 2^2200; `neg` its sign, for zeros) rounded to this
    /// format: `dir` 0 to nearest even, 1 toward zero, 2 down, 3 up.
    fn round(&self, x: &BigInt, neg: bool, dir: usize) -> u16 {
        let mag = x.magnitude().clone().into();
        // On the magnitude: down for toward zero, and for down or up by
        // the sign.
        let away = match dir {
            1 => Some(false),
            2 => Some(neg),
            3 => Some(!neg),
            _ => None,
        };
        let t = &self.0;
        let i = t.partition_point(|(v, _)| *v <= mag) - 1;
        let bits = if i + 1 == t.len() {
            // At or past the power of two beyond the largest value: the
            // largest toward zero, else infinity.
            t[i - usize::from(away == Some(false))].1
        } else if t[i].0 == mag {
            t[i].1
        } else {
            let (lo, hi) = (&t[i], &t[i + 1]);
            match away {
                Some(false) => lo.1,
                Some(true) => hi.1,
                None => match (&mag << 1usize).cmp(&(&lo.0 + &hi.0)) {
                    Ordering::Less => lo.1,
                    Ordering::Greater => hi.1,
                    Ordering::Equal if lo.1 & 1 == 0 => lo.1,
                    Ordering::Equal => hi.1,
                },
            }
        };
        bits | if neg { 0x8000 } else { 0 }
    }
}

/// An `f16`'s value (exact in `f64`).
fn f16_value(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let field = i32::from((b >> 10) & 0x1f);
    let m = f64::from(b & 0x3ff);
    sign * match field {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (m + 1024.0) * 2f64.powi(field - 25),
    }
}

#[test]
fn conversions_to_half_precision_round_once_as_each_direction_says() {
    let m = corpus("arith");
    let k = kernel(&m, "to_half");
    let n = 700usize;
    let mut rng = Rng::new(77);
    let (mut f, mut d, mut w) = (vec![], vec![], vec![]);
    for i in 0..n {
        let r = rng.next();
        // Near ties of both formats: an odd significand of 12 or 9 bits
        // (a tie), moved a few ulps of its own type.
        let tie = |bits: u64, scale: i32| {
            ((((r >> 8) % (1 << bits)) | 1 << (bits - 1) | 1) as f64)
                * 2f64.powi((r >> 40) as i32 % scale - scale / 2)
        };
        let (x, y) = match i % 4 {
            0 => (moderate(&mut rng), moderate64(&mut rng)),
            1 => {
                let t = tie(12, 40);
                ((t as f32).next_up(), f64::from_bits(t.to_bits() + (r & 3)))
            }
            2 => {
                let t = tie(9, 200);
                (
                    (t as f32).next_down(),
                    f64::from_bits(t.to_bits().wrapping_sub(r & 3)),
                )
            }
            _ => (f32::from_bits(r as u32), f64::from_bits(rng.next())),
        };
        f.push(x);
        d.push(y);
    }
    w.extend(wide_integers(n).into_iter().map(|u| u as i64));
    // Edges: zeros, the largest and least of each format and past them,
    // infinities, NaN, and rint's ties.
    let edges: [(f32, f64); 10] = [
        (0.0, -0.0),
        (-0.0, 2.5),
        (65520.0, -2.5),
        (-65504.0, 65520.0),
        (f32::MAX, 1e300),
        (f32::from_bits(1), f64::from_bits(1)),
        (2f32.powi(-25), -2f64.powi(-25)),
        (f32::INFINITY, f64::NEG_INFINITY),
        (f32::NAN, f64::NAN),
        (0.5, -0.5),
    ];
    for (i, (x, y)) in edges.into_iter().enumerate() {
        (f[i], d[i]) = (x, y);
    }
    w[0] = 65520;
    w[1] = -(1 << 40) - 1;
    // A hair above a bf16 tie, the hair below f64's precision (s64) and
    // below f32's (s32): rounding twice would land on the tie and go to
    // even, below.
    w[2] = (1 << 62) + (1 << 54) + 1;
    w[3] = -w[2];
    w[4] = (1 << 24) + (1 << 16) + 1;
    let (f16, bf16) = (HalfTable::new(10), HalfTable::new(7));
    for width in WIDTHS {
        let mut out = vec![0u16; 44 * n];
        let mut whole = vec![0f64; 4 * n];
        let mut ints = vec![0u64; 3 * n];
        let wide: Vec<u64> = w.iter().map(|&v| v as u64).collect();
        simt_core::launch(
            k,
            &nvidia(3, 256, width),
            &mut [
                Arg::buffer(&f),
                Arg::buffer(&d),
                Arg::buffer(&wide),
                Arg::buffer_mut(&mut out),
                Arg::buffer_mut(&mut whole),
                Arg::buffer_mut(&mut ints),
                Arg::U32(n as u32),
            ],
        )
        .expect("runs");
        for i in 0..n {
            let o = &out[44 * i..44 * i + 44];
            // Each source exactly, or `None` for NaN and infinities; the
            // fifth (the 64-bit integer as unsigned) writes at 34.
            let sources: [(Option<(BigInt, bool)>, String); 5] = [
                (
                    f[i].is_finite()
                        .then(|| (exact(f64::from(f[i])), f[i].is_sign_negative())),
                    format!("f32 {:e}", f[i]),
                ),
                (
                    d[i].is_finite()
                        .then(|| (exact(d[i]), d[i].is_sign_negative())),
                    format!("f64 {:e}", d[i]),
                ),
                (
                    Some((BigInt::from(w[i]) << 2200usize, w[i] < 0)),
                    format!("s64 {}", w[i]),
                ),
                (
                    Some((BigInt::from(w[i] as i32) << 2200usize, (w[i] as i32) < 0)),
                    format!("s32 {}", w[i] as i32),
                ),
                (
                    Some((BigInt::from(w[i] as u64) << 2200usize, false)),
                    format!("u64 {}", w[i] as u64),
                ),
            ];
            for (s, (source, what)) in sources.iter().enumerate() {
                for (t, table) in [&f16, &bf16].into_iter().enumerate() {
                    for dir in 0..4 {
                        let got = o[[0, 8, 16, 24, 34][s] + 4 * t + dir];
                        // Infinities stay infinite in every direction;
                        // NaN is the format's quiet NaN.
                        let y = [f64::from(f[i]), d[i]].get(s).copied().unwrap_or(0.0);
                        let want = match source {
                            Some((x, neg)) => table.round(x, *neg, dir),
                            None if y.is_nan() => [0x7e00, 0x7fc0][t],
                            None => [0x7c00, 0x7f80][t] | if y < 0.0 { 0x8000 } else { 0 },
                        };
                        assert_eq!(
                            got,
                            want,
                            "wave{width} {what} to {} direction {dir}: {got:#06x}, not {want:#06x}",
                            ["f16", "bf16"][t]
                        );
                    }
                }
            }
            // Clamped: +0 for NaN, zeros and below (a tiny negative value
            // too, which would round to -0), 1 above, else to nearest.
            let x = f[i];
            let sat = if x.is_nan() || x <= 0.0 {
                0
            } else if x >= 1.0 {
                0x3c00
            } else {
                f16.round(&exact(f64::from(x)), false, 0)
            };
            assert_eq!(o[32], sat, "wave{width} sat {x:e}");
            assert_eq!(o[33], o[0], "wave{width} through f64 {x:e}");
            // Up from a flushed subnormal is the zero of its sign; an
            // integral half is rint of the half's value.
            let up = if x.is_subnormal() {
                if x < 0.0 {
                    0x8000
                } else {
                    0
                }
            } else {
                o[3]
            };
            assert_eq!(o[42], up, "wave{width} ftz {x:e}");
            let h = f16_value(o[0]);
            let want = if h.is_nan() {
                0x7e00
            } else {
                f16.round(&exact(h.round_ties_even()), h.is_sign_negative(), 0)
            };
            assert_eq!(o[43], want, "wave{width} rni of {:#06x}", o[0]);
            let y = d[i];
            let r = &whole[4 * i..4 * i + 4];
            for (k, want) in [y.round_ties_even(), y.trunc(), y.floor(), y.ceil()]
                .into_iter()
                .enumerate()
            {
                assert!(
                    r[k].to_bits() == want.to_bits() || (r[k].is_nan() && want.is_nan()),
                    "wave{width} {y:e} rounding {k}: {:e}",
                    r[k]
                );
            }
            let q = &ints[3 * i..3 * i + 3];
            assert_eq!(
                q[0] as i32,
                y.round_ties_even() as i32,
                "wave{width} rni {y:e}"
            );
            assert_eq!(q[1] as i64, y.floor() as i64, "wave{width} rmi {y:e}");
            assert_eq!(q[2] as u32, y.ceil() as u32, "wave{width} rpi {y:e}");
        }
    }
}
