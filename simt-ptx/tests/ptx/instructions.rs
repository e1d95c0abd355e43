//! The instructions whose lowering takes more than one simt instruction,
//! one at a time over edge cases and random operands, against models
//! written from the PTX ISA's own pseudo-code: bit fields (`bfe`, `bfi`),
//! byte permutes (`prmt`), rounding to integers (`cvt.rni/rzi/rmi/rpi`),
//! `ex2.approx` with `.ftz`, `fma.rm`, `min/max.NaN`, 64-bit bit counts,
//! 8- and 16-bit comparisons and vectors of small elements.

use crate::common::launch;
use crate::corpus::Rng;
use simt_core::{Arg, LaunchConfig};

/// A kernel whose thread `i` reads `a[i]`, `b[i]` and `c[i]` (words) into
/// `%r5`, `%r6`, `%r7` (and as floats into `%f5`, `%f6`, `%f7`), runs `body`,
/// and stores `%r8` to `out[i]`.
pub fn kernel(body: &str) -> simt_core::Kernel {
    kernel_with(body, &simt_ptx::Options::default())
}

/// [`kernel`] lowered with `options`.
pub fn kernel_with(body: &str, options: &simt_ptx::Options) -> simt_core::Kernel {
    let text = format!(
        ".version 9.5
.target sm_90
.address_size 64

.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po)
{{
	.reg .pred %p<8>;
	.reg .b16 %rs<16>;
	.reg .b32 %r<32>;
	.reg .f32 %f<16>;
	.reg .f64 %fd<8>;
	.reg .b64 %rd<32>;
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [pc];
	ld.param.u64 %rd4, [po];
	cvta.to.global.u64 %rd11, %rd1;
	cvta.to.global.u64 %rd12, %rd2;
	cvta.to.global.u64 %rd13, %rd3;
	cvta.to.global.u64 %rd14, %rd4;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	mul.wide.u32 %rd5, %r4, 4;
	add.s64 %rd6, %rd11, %rd5;
	ld.global.u32 %r5, [%rd6];
	add.s64 %rd7, %rd12, %rd5;
	ld.global.u32 %r6, [%rd7];
	add.s64 %rd8, %rd13, %rd5;
	ld.global.u32 %r7, [%rd8];
	mov.b32 %f5, %r5;
	mov.b32 %f6, %r6;
	mov.b32 %f7, %r7;
{body}
	add.s64 %rd9, %rd14, %rd5;
	st.global.u32 [%rd9], %r8;
	ret;
}}
"
    );
    match simt_ptx::compile_ptx_with("k.ptx", &text, options) {
        Ok(m) => m.kernels[0].kernel.clone(),
        Err(d) => panic!("{}\n{text}", d.render(false)),
    }
}

/// Runs `body` on `(a, b, c)` at both wave widths and checks each output
/// against `model`.
pub fn check(body: &str, inputs: &[(u32, u32, u32)], model: impl Fn(u32, u32, u32) -> u32) {
    let k = kernel(body);
    let mut a: Vec<u32> = inputs.iter().map(|x| x.0).collect();
    let mut b: Vec<u32> = inputs.iter().map(|x| x.1).collect();
    let mut c: Vec<u32> = inputs.iter().map(|x| x.2).collect();
    let n = a.len().div_ceil(64) * 64;
    for v in [&mut a, &mut b, &mut c] {
        v.resize(n, 0);
    }
    for width in [32, 64] {
        let mut out = vec![0u32; n];
        launch(
            &k,
            &LaunchConfig::new(n as u32 / 64, 64).wave_width(width),
            &mut [
                Arg::buffer(&a),
                Arg::buffer(&b),
                Arg::buffer(&c),
                Arg::buffer_mut(&mut out),
            ],
        );
        for i in 0..inputs.len() {
            let want = model(a[i], b[i], c[i]);
            assert_eq!(
                out[i], want,
                "`{body}` on ({:#x}, {:#x}, {:#x}) wave{width}: {:#x} != {want:#x}",
                a[i], b[i], c[i], out[i]
            );
        }
    }
}

fn bit(x: u32, i: u32) -> u32 {
    (x >> i) & 1
}

/// `bfe.{u,s}32` as the PTX ISA writes it.
fn bfe(a: u32, pos: u32, len: u32, signed: bool) -> u32 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    if len == 0 {
        return 0;
    }
    let sbit = if signed {
        bit(a, (pos + len - 1).min(31))
    } else {
        0
    };
    (0..32).fold(0, |d, i| {
        let b = if i < len && pos + i <= 31 {
            bit(a, pos + i)
        } else {
            sbit
        };
        d | b << i
    })
}

/// `bfi.b32` as the PTX ISA writes it.
fn bfi(a: u32, b: u32, pos: u32, len: u32) -> u32 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    let mut f = b;
    let mut i = 0;
    while i < len && pos + i <= 31 {
        f = (f & !(1 << (pos + i))) | bit(a, i) << (pos + i);
        i += 1;
    }
    f
}

/// `bfe.{u,s}64` as the PTX ISA writes it.
fn bfe64(a: u64, pos: u32, len: u32, signed: bool) -> u64 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    let bit = |i: u32| (a >> i) & 1;
    let sbit = if signed && len > 0 {
        bit((pos + len - 1).min(63))
    } else {
        0
    };
    (0..64).fold(0, |d, i| {
        let b = if i < len && pos + i <= 63 {
            bit(pos + i)
        } else {
            sbit
        };
        d | b << i
    })
}

/// `bfi.b64` as the PTX ISA writes it.
fn bfi64(a: u64, b: u64, pos: u32, len: u32) -> u64 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    let mut f = b;
    let mut i = 0;
    while i < len && pos + i <= 63 {
        f = (f & !(1 << (pos + i))) | ((a >> i) & 1) << (pos + i);
        i += 1;
    }
    f
}

/// 64-bit bit fields at a position and of a length held in registers
/// (`%r7`'s low 8 bits and those of `%r7 >> 8`), of `a` (words `%r5`,
/// `%r6`) and, for `bfi`, into the value with its words swapped: both
/// result words against the ISA's pseudo-code, with positions and lengths
/// past 64 and up to 255.
#[test]
fn sixty_four_bit_fields_at_register_positions() {
    let mut rng = Rng::new(64);
    let inputs: Vec<(u32, u32, u32)> = (0..400)
        .map(|k| {
            let (pos, len) = if k < 100 {
                (k % 10 * 8, k / 10 * 8)
            } else {
                let r = rng.next();
                let pick = |x: u64| {
                    if x.is_multiple_of(8) {
                        x >> 8 & 0xff
                    } else {
                        x >> 8 & 0x3f | x & 0x40
                    }
                };
                (pick(r) as u32, pick(r >> 16) as u32)
            };
            let junk = (rng.next() as u32) << 16;
            (rng.next() as u32, rng.next() as u32, pos | len << 8 | junk)
        })
        .collect();
    let wide = |a: u32, b: u32| u64::from(b) << 32 | u64::from(a);
    let build = "\tcvt.u64.u32 %rd20, %r5;\n\tcvt.u64.u32 %rd21, %r6;\n\tshl.b64 %rd22, %rd21, 32;\n\tor.b64 %rd23, %rd22, %rd20;\n\tshr.b32 %r9, %r7, 8;\n";
    let swapped = "\tshl.b64 %rd25, %rd20, 32;\n\tor.b64 %rd26, %rd25, %rd21;\n";
    for (op, field) in [
        ("bfe.u64 %rd24, %rd23, %r7, %r9;", 0),
        ("bfe.s64 %rd24, %rd23, %r7, %r9;", 1),
        ("bfi.b64 %rd24, %rd23, %rd26, %r7, %r9;", 2),
    ] {
        for high in [false, true] {
            let take = if high {
                "\tshr.b64 %rd27, %rd24, 32;\n\tcvt.u32.u64 %r8, %rd27;"
            } else {
                "\tcvt.u32.u64 %r8, %rd24;"
            };
            let body = format!("{build}{swapped}\t{op}\n{take}");
            check(&body, &inputs, |a, b, c| {
                let (x, pos, len) = (wide(a, b), c & 0xff, (c >> 8) & 0xff);
                let r = match field {
                    0 => bfe64(x, pos, len, false),
                    1 => bfe64(x, pos, len, true),
                    _ => bfi64(x, wide(b, a), pos, len),
                };
                (if high { r >> 32 } else { r }) as u32
            });
        }
    }
}

/// `f32` arithmetic with `.ftz`: subnormal operands read as the zero of
/// their sign and subnormal results written as one, as the ISA says, on
/// subnormals of both signs, normals and the values whose sums, products
/// and fused products fall below the least normal.
#[test]
fn flush_to_zero_flushes_operands_and_results() {
    let flush = |x: f32| {
        if x.is_subnormal() {
            if x.is_sign_negative() {
                -0.0
            } else {
                0.0
            }
        } else {
            x
        }
    };
    let values = [
        f32::from_bits(1),
        -f32::from_bits(5),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::MIN_POSITIVE * 1.5,
        f32::from_bits(0x007f_ffff),
        1.0,
        -2.5,
        0.0,
        -0.0,
        1e-20,
        3e-19,
    ];
    let mut inputs = vec![];
    for &a in &values {
        for &b in &values {
            for &c in &[0.0f32, -f32::MIN_POSITIVE, f32::from_bits(3), 1.0] {
                inputs.push((a.to_bits(), b.to_bits(), c.to_bits()));
            }
        }
    }
    let f = f32::from_bits;
    for (body, model) in [
        (
            "\tmov.b32 %f1, %r5;\n\tmov.b32 %f2, %r6;\n\tadd.ftz.f32 %f3, %f1, %f2;\n\tmov.b32 %r8, %f3;",
            (&|a: u32, b: u32, _: u32| flush(flush(f(a)) + flush(f(b))).to_bits()) as &dyn Fn(u32, u32, u32) -> u32,
        ),
        (
            "\tmov.b32 %f1, %r5;\n\tmov.b32 %f2, %r6;\n\tmul.rn.ftz.f32 %f3, %f1, %f2;\n\tmov.b32 %r8, %f3;",
            &|a, b, _| flush(flush(f(a)) * flush(f(b))).to_bits(),
        ),
        (
            "\tmov.b32 %f1, %r5;\n\tmov.b32 %f2, %r6;\n\tmov.b32 %f4, %r7;\n\tfma.rn.ftz.f32 %f3, %f1, %f2, %f4;\n\tmov.b32 %r8, %f3;",
            &|a, b, c| flush(flush(f(a)).mul_add(flush(f(b)), flush(f(c)))).to_bits(),
        ),
        (
            "\tmov.b32 %f1, %r5;\n\tmov.b32 %f2, %r6;\n\tsetp.lt.ftz.f32 %p1, %f1, %f2;\n\tselp.u32 %r8, 1, 0, %p1;",
            &|a, b, _| u32::from(flush(f(a)) < flush(f(b))),
        ),
        (
            "\tmov.b32 %f1, %r5;\n\tabs.ftz.f32 %f3, %f1;\n\tmov.b32 %r8, %f3;",
            &|a, _, _| flush(f(a)).abs().to_bits(),
        ),
        // Conversions: a flushed source rounds up to 0, not 1; a double
        // narrowed below the least normal is a zero.
        (
            "\tmov.b32 %f1, %r5;\n\tcvt.rpi.ftz.s32.f32 %r8, %f1;",
            &|a, _, _| flush(f(a)).ceil() as i32 as u32,
        ),
        (
            "\tmov.b32 %f1, %r5;\n\tmov.b32 %f2, %r6;\n\tmul.rn.f32 %f3, %f1, %f2;\n\tcvt.f64.f32 %fd1, %f3;\n\tcvt.rn.ftz.f32.f64 %f4, %fd1;\n\tmov.b32 %r8, %f4;",
            &|a, b, _| flush(f(a) * f(b)).to_bits(),
        ),
    ] {
        check(body, &inputs, model);
    }
}

/// `prmt.b32` (the default mode) as the PTX ISA writes it.
fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let bytes = (u64::from(b) << 32) | u64::from(a);
    (0..4).fold(0, |d, k| {
        let ctl = (c >> (4 * k)) & 0xf;
        let mut byte = ((bytes >> (8 * (ctl & 7))) & 0xff) as u32;
        if ctl & 8 != 0 {
            byte = if byte & 0x80 != 0 { 0xff } else { 0 };
        }
        d | byte << (8 * k)
    })
}

fn random(rng: &mut Rng, n: usize, bound: u32) -> Vec<(u32, u32, u32)> {
    (0..n)
        .map(|_| {
            (
                rng.next() as u32,
                rng.next() as u32 % bound,
                rng.next() as u32 % bound,
            )
        })
        .collect()
}

#[test]
fn bit_field_extract_and_insert_follow_the_isa() {
    let mut rng = Rng::new(30);
    // Positions and lengths past 32, and past 255 (read as their low byte).
    let mut inputs = random(&mut rng, 600, 80);
    inputs.extend(random(&mut rng, 100, 600));
    inputs.extend([
        (0x8000_0000, 31, 1),
        (0xffff_ffff, 0, 32),
        (0x1234_5678, 32, 4),
        (0xf0f0_f0f0, 4, 0),
    ]);
    check("\tbfe.u32 %r8, %r5, %r6, %r7;", &inputs, |a, p, l| {
        bfe(a, p, l, false)
    });
    check("\tbfe.s32 %r8, %r5, %r6, %r7;", &inputs, |a, p, l| {
        bfe(a, p, l, true)
    });
    check("\tbfi.b32 %r8, %r5, %r7, %r6, %r6;", &inputs, |a, p, b| {
        bfi(a, b, p, p)
    });
    check("\tbfi.b32 %r8, %r6, %r5, %r7, %r7;", &inputs, |b, a, p| {
        bfi(a, b, p, p)
    });
    // Constant positions, as immediates and in registers only set to them.
    for (pos, len) in [
        (0, 0),
        (0, 8),
        (4, 12),
        (20, 12),
        (28, 8),
        (31, 1),
        (32, 5),
        (0, 32),
        (3, 255),
        (256 + 8, 4),
    ] {
        check(
            &format!("\tbfe.u32 %r8, %r5, {pos}, {len};"),
            &inputs,
            |a, _, _| bfe(a, pos, len, false),
        );
        check(
            &format!(
                "\tmov.u32 %r20, {pos};\n\tmov.u32 %r21, {len};\n\tbfe.s32 %r8, %r5, %r20, %r21;"
            ),
            &inputs,
            |a, _, _| bfe(a, pos, len, true),
        );
        check(
            &format!("\tbfi.b32 %r8, %r5, %r6, {pos}, {len};"),
            &inputs,
            |a, b, _| bfi(a, b, pos, len),
        );
    }
}

#[test]
fn byte_permutes_follow_the_isa() {
    let mut rng = Rng::new(31);
    let inputs = random(&mut rng, 200, u32::MAX);
    let mut selectors = vec![
        0x3210, 0x7654, 0x0123, 0x5410, 0x7632, 0x2104, 0x7604, 0x4444, 0x8888, 0xf0b1, 0x1_3210,
    ];
    selectors.extend((0..20).map(|_| rng.next() as u32 & 0xffff));
    for sel in selectors {
        check(
            &format!("\tprmt.b32 %r8, %r5, %r6, {sel};"),
            &inputs,
            |a, b, _| prmt(a, b, sel),
        );
    }
}

/// `f32` bits a rounding has to get right: ties, the last fractional
/// values, both zeros, the edges of 2^23, infinities and NaN.
fn rounding_cases(rng: &mut Rng) -> Vec<(u32, u32, u32)> {
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999997,
        -0.49999997,
        1.0,
        -1.0,
        0.7,
        -0.7,
        8388607.5,
        -8388607.5,
        8388608.0,
        -8388609.0,
        16777215.0,
        3e9,
        -3e9,
        1e30,
        -1e30,
        1e-40,
        -1e-40,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    xs.extend(rng.f32s(300, -100.0, 100.0));
    xs.extend(rng.f32s(100, -2e7, 2e7));
    xs.into_iter().map(|x| (x.to_bits(), 0, 0)).collect()
}

#[test]
fn rounding_to_integers_is_exact() {
    let mut rng = Rng::new(32);
    let inputs = rounding_cases(&mut rng);
    let same = |r: f32| {
        if r.is_nan() {
            f32::NAN.to_bits()
        } else {
            r.to_bits()
        }
    };
    for (mode, f) in [
        ("rni", f32::round_ties_even as fn(f32) -> f32),
        ("rzi", f32::trunc),
        ("rmi", f32::floor),
        ("rpi", f32::ceil),
    ] {
        // A NaN stays the NaN it was: compare NaNs as one value.
        let body = format!(
            "\tcvt.{mode}.f32.f32 %f8, %f5;\n\tmov.b32 %r9, %f8;\n\tsetp.neu.f32 %p1, %f8, %f8;\n\tselp.b32 %r8, 0x7fc00000, %r9, %p1;"
        );
        check(&body, &inputs, |a, _, _| same(f(f32::from_bits(a))));
        // To integers: the rounding, then a conversion that saturates and
        // takes NaN to 0.
        check(
            &format!("\tcvt.{mode}.s32.f32 %r8, %f5;"),
            &inputs,
            |a, _, _| f(f32::from_bits(a)) as i32 as u32,
        );
        check(
            &format!("\tcvt.{mode}.u32.f32 %r8, %f5;"),
            &inputs,
            |a, _, _| f(f32::from_bits(a)) as u32,
        );
    }
}

/// `2^x` rounded to nearest, flushed to 0 where subnormal under `.ftz`.
fn exp2(x: f32, ftz: bool) -> u32 {
    let r = f64::from(x).exp2() as f32;
    let r = if ftz && r < f32::MIN_POSITIVE { 0.0 } else { r };
    if r.is_nan() {
        0x7fc0_0000
    } else {
        r.to_bits()
    }
}

#[test]
fn powers_of_two_flush_only_under_ftz() {
    let mut rng = Rng::new(33);
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        127.0,
        127.99,
        128.0,
        -126.0,
        -126.5,
        -130.0,
        -149.0,
        -149.5,
        -150.0,
        -151.0,
        1e-40,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    xs.extend(rng.f32s(300, -160.0, 130.0));
    xs.extend(rng.f32s(100, -1.0, 1.0));
    let inputs: Vec<(u32, u32, u32)> = xs.iter().map(|x| (x.to_bits(), 0, 0)).collect();
    check(
        "\tex2.approx.f32 %f8, %f5;\n\tmov.b32 %r8, %f8;",
        &inputs,
        |a, _, _| exp2(f32::from_bits(a), false),
    );
    check(
        "\tex2.approx.ftz.f32 %f8, %f5;\n\tmov.b32 %r8, %f8;",
        &inputs,
        |a, _, _| exp2(f32::from_bits(a), true),
    );
}

/// The largest `f32` at or below `a * b + c`, for operands whose exact
/// result a double holds (12-bit significands within 2^30 of each other).
fn fma_down(a: f32, b: f32, c: f32) -> f32 {
    let exact = f64::from(a) * f64::from(b) + f64::from(c);
    let mut r = exact as f32;
    if f64::from(r) > exact {
        r = r.next_down();
    }
    if r == 0.0 && exact == 0.0 && (a * b).is_sign_negative() != c.is_sign_negative() {
        r = -0.0;
    }
    r
}

#[test]
fn fused_multiply_add_rounding_down_and_nan_propagating_min_max() {
    let mut rng = Rng::new(34);
    let short = |rng: &mut Rng| {
        let x = rng.f32(-1000.0, 1000.0);
        f32::from_bits(x.to_bits() & 0xffff_f000)
    };
    let mut inputs: Vec<(u32, u32, u32)> = (0..500)
        .map(|_| {
            (
                short(&mut rng).to_bits(),
                short(&mut rng).to_bits(),
                short(&mut rng).to_bits(),
            )
        })
        .collect();
    inputs.extend(
        [
            (1.0f32, 1.0f32, -1.0f32),
            (-1.0, 1.0, 1.0),
            (0.5, 252.0, 12582913.0),
        ]
        .map(|(a, b, c)| (a.to_bits(), b.to_bits(), c.to_bits())),
    );
    check(
        "\tfma.rm.f32 %f8, %f5, %f6, %f7;\n\tmov.b32 %r8, %f8;",
        &inputs,
        |a, b, c| fma_down(f32::from_bits(a), f32::from_bits(b), f32::from_bits(c)).to_bits(),
    );
    let mut inputs: Vec<(u32, u32, u32)> = (0..200)
        .map(|_| {
            (
                rng.f32(-5.0, 5.0).to_bits(),
                rng.f32(-5.0, 5.0).to_bits(),
                0,
            )
        })
        .collect();
    for (x, y) in [
        (f32::NAN, 1.0),
        (1.0, f32::NAN),
        (f32::NAN, f32::NAN),
        (f32::INFINITY, -3.0),
    ] {
        inputs.push((x.to_bits(), y.to_bits(), 0));
    }
    let nan_or = |a: u32, b: u32, f: fn(f32, f32) -> f32| {
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        if x.is_nan() || y.is_nan() {
            0x7fff_ffff
        } else {
            f(x, y).to_bits()
        }
    };
    check(
        "\tmax.NaN.f32 %f8, %f5, %f6;\n\tmov.b32 %r8, %f8;",
        &inputs,
        |a, b, _| nan_or(a, b, f32::max),
    );
    check(
        "\tmin.NaN.f32 %f8, %f5, %f6;\n\tmov.b32 %r8, %f8;",
        &inputs,
        |a, b, _| nan_or(a, b, f32::min),
    );
}

#[test]
fn sixty_four_bit_bit_counts() {
    let mut rng = Rng::new(35);
    let mut inputs: Vec<(u32, u32, u32)> = (0..300)
        .map(|i| {
            let lo = rng.next() as u32 >> (i % 33).min(31);
            let hi = if i % 3 == 0 {
                0
            } else {
                rng.next() as u32 >> (i % 31)
            };
            (lo, hi, 0)
        })
        .collect();
    inputs.extend([
        (0, 0, 0),
        (1, 0, 0),
        (0, 0x8000_0000, 0),
        (u32::MAX, u32::MAX, 0),
    ]);
    let wide = |a: u32, b: u32| u64::from(b) << 32 | u64::from(a);
    check(
        "\tmov.b64 %rd20, {%r5, %r6};\n\tpopc.b64 %r8, %rd20;",
        &inputs,
        |a, b, _| wide(a, b).count_ones(),
    );
    check(
        "\tmov.b64 %rd20, {%r5, %r6};\n\tclz.b64 %r8, %rd20;",
        &inputs,
        |a, b, _| wide(a, b).leading_zeros(),
    );
    check(
        "\tmov.b64 %rd20, {%r5, %r6};\n\tbrev.b64 %rd21, %rd20;\n\tmov.b64 {%r9, %r10}, %rd21;\n\txor.b32 %r8, %r9, %r10;",
        &inputs,
        |a, b, _| {
            let r = wide(a, b).reverse_bits();
            (r as u32) ^ (r >> 32) as u32
        },
    );
    check("\tpopc.b32 %r8, %r5;", &inputs, |a, _, _| a.count_ones());
    check("\tclz.b32 %r8, %r5;", &inputs, |a, _, _| a.leading_zeros());
    check("\tbrev.b32 %r8, %r5;", &inputs, |a, _, _| a.reverse_bits());
}

#[test]
fn small_integers_compare_by_their_own_bits() {
    let mut rng = Rng::new(36);
    let mut inputs = random(&mut rng, 400, u32::MAX);
    inputs.extend([
        (0x7fff, 1, 0),
        (0x8000, 0xffff, 0),
        (0xffff_0001, 1, 0),
        (0x80, 0x7f, 0),
    ]);
    // Sums that overflow 16 (and 8) bits leave carries above them in
    // simt's 32-bit registers: comparisons read only the low bits.
    for (ty, cmp, bits, signed) in [
        ("s16", "lt", 16, true),
        ("s16", "ge", 16, true),
        ("u16", "lt", 16, false),
        ("u16", "hi", 16, false),
        ("b16", "eq", 16, false),
        ("s8", "le", 8, true),
        ("u8", "gt", 8, false),
    ] {
        let body = format!(
            "\tcvt.u16.u32 %rs1, %r5;\n\tcvt.u16.u32 %rs2, %r6;\n\tadd.s16 %rs3, %rs1, %rs2;\n\
             \tsetp.{cmp}.{ty} %p1, %rs3, %rs2;\n\tselp.u32 %r8, 1, 0, %p1;"
        );
        check(&body, &inputs, |a, b, _| {
            let ext = |x: u32| -> i64 {
                let x = x & ((1u64 << bits) - 1) as u32;
                if signed && x >> (bits - 1) & 1 == 1 {
                    i64::from(x) - (1i64 << bits)
                } else {
                    i64::from(x)
                }
            };
            let (x, y) = (ext(a.wrapping_add(b)), ext(b));
            u32::from(match cmp {
                "lt" => x < y,
                "ge" => x >= y,
                "hi" | "gt" => x > y,
                "le" => x <= y,
                _ => x == y,
            })
        });
    }
}

#[test]
fn vectors_of_small_elements_move_in_one_access() {
    let mut rng = Rng::new(37);
    let inputs = random(&mut rng, 300, u32::MAX);
    // Four signed bytes of a, summed; the two halves of b stored to out,
    // swapped as a vector of two u16, read back as one word and as two
    // bytes.
    check(
        "\tld.global.v4.s8 {%rs1, %rs2, %rs3, %rs4}, [%rd6];\n\
         \tcvt.s32.s16 %r10, %rs1;\n\tcvt.s32.s16 %r11, %rs2;\n\tcvt.s32.s16 %r12, %rs3;\n\tcvt.s32.s16 %r13, %rs4;\n\
         \tadd.s32 %r14, %r10, %r11;\n\tadd.s32 %r15, %r12, %r13;\n\tadd.s32 %r8, %r14, %r15;",
        &inputs,
        |a, _, _| a.to_le_bytes().iter().map(|&x| x as i8 as i32).sum::<i32>() as u32,
    );
    check(
        "\tadd.s64 %rd9, %rd14, %rd5;\n\tst.global.u32 [%rd9], %r6;\n\
         \tld.global.v2.u16 {%rs1, %rs2}, [%rd9];\n\tst.global.v2.u16 [%rd9], {%rs2, %rs1};\n\
         \tld.global.u32 %r9, [%rd9];\n\tld.global.v2.u8 {%rs5, %rs6}, [%rd9+2];\n\
         \tcvt.u32.u16 %r10, %rs5;\n\tcvt.u32.u16 %r11, %rs6;\n\tshl.b32 %r12, %r11, 24;\n\
         \tor.b32 %r13, %r12, %r10;\n\txor.b32 %r8, %r13, %r9;",
        &inputs,
        |_, b, _| {
            let swapped = b.rotate_left(16);
            let [x, y] = [swapped.to_le_bytes()[2], swapped.to_le_bytes()[3]];
            (u32::from(y) << 24 | u32::from(x)) ^ swapped
        },
    );
    // Four u16 in two words, read as one 8-byte vector: thread i reads
    // words 2i and 2i + 1 of a.
    let k = kernel(
        "\tmul.wide.u32 %rd20, %r4, 8;\n\tadd.s64 %rd21, %rd11, %rd20;\n\
         \tld.global.v4.u16 {%rs1, %rs2, %rs3, %rs4}, [%rd21];\n\
         \tcvt.u32.u16 %r10, %rs1;\n\tcvt.u32.u16 %r11, %rs4;\n\tshl.b32 %r12, %r11, 16;\n\tor.b32 %r8, %r12, %r10;",
    );
    let a: Vec<u32> = (0..128).map(|_| rng.next() as u32).collect();
    let zeros = vec![0u32; 128];
    for width in [32, 64] {
        let mut out = vec![0u32; 64];
        launch(
            &k,
            &LaunchConfig::new(1, 64).wave_width(width),
            &mut [
                Arg::buffer(&a),
                Arg::buffer(&zeros),
                Arg::buffer(&zeros),
                Arg::buffer_mut(&mut out),
            ],
        );
        for i in 0..64 {
            assert_eq!(
                out[i],
                (a[2 * i + 1] & 0xffff_0000) | (a[2 * i] & 0xffff),
                "wave{width} {i}"
            );
        }
    }
}

#[test]
fn a_negation_written_twice_folds_into_neither_reader() {
    // `t` is written twice before its two reads: folding either `neg` into
    // the first reader would leave the second reading nothing.
    let body = "	neg.f32 %f8, %f5;
	neg.f32 %f8, %f5;
	add.f32 %f9, %f8, %f6;
	mul.f32 %f10, %f8, %f7;
	add.f32 %f11, %f9, %f10;
	mov.b32 %r8, %f11;";
    let inputs: Vec<(u32, u32, u32)> = (0..64u32)
        .map(|i| {
            let f = |k: u32| (k as f32 * 0.37 - 5.0).to_bits();
            (f(i), f(i + 3), f(2 * i + 1))
        })
        .collect();
    check(body, &inputs, |a, b, c| {
        let (a, b, c) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        ((-a + b) + (-a * c)).to_bits()
    });
}

/// The error lowering `body` gives (it must fail).
fn refusal(body: &str) -> String {
    let text = format!(
        ".version 9.5
.target sm_90
.address_size 64

.visible .entry k(.param .u64 po)
{{
	.reg .b16 %rs<8>;
	.reg .b32 %r<8>;
	.reg .f32 %f<8>;
	.reg .f64 %fd<8>;
	.reg .b64 %rd<8>;
	mov.u32 %r1, %tid.x;
	cvt.u64.u32 %rd1, %r1;
	cvt.rn.f64.u32 %fd1, %r1;
{body}
	ret;
}}
"
    );
    match simt_ptx::compile_ptx("k.ptx", &text) {
        Ok(_) => panic!("lowered:\n{text}"),
        Err(d) => d.render(false),
    }
}

/// What simt has no exact form for is refused at its line, naming it.
#[test]
fn what_has_no_exact_form_is_refused_at_its_line() {
    for (body, says) in [
        (
            "\tadd.rz.f16 %rs2, %rs1, %rs1;",
            "directed rounding but of f32 and f64",
        ),
        (
            "\tcvt.rni.f32.f64 %f2, %fd1;",
            "rounding to an integral float between two types",
        ),
        (
            "\tcvt.rni.f16.f32 %rs2, %f1;",
            "rounding to an integral float between two types",
        ),
        (
            "\tcvt.rn.relu.f16.f32 %rs2, %f1;",
            "`.relu` and `.satfinite`",
        ),
        ("\tcvt.sat.f64.s32 %fd2, %r1;", "saturation but to f32"),
        (
            "\tcvt.sat.u32.u64 %r2, %rd1;",
            "saturating conversion of 64-bit integers",
        ),
    ] {
        let e = refusal(body);
        assert!(e.contains(says), "{body}: {e}");
        assert!(
            e.contains("k.ptx:15:"),
            "{body}: the error is at the instruction's line: {e}"
        );
    }
}

/// 64-bit results of which only the low word is read (kept as one word):
/// bit fields, shifts by a register amount and float conversions give it
/// as the whole value's low word.
#[test]
fn sixty_four_bit_results_read_as_their_low_word() {
    let mut rng = Rng::new(41);
    let mut inputs = random(&mut rng, 300, u32::MAX);
    for (k, x) in inputs.iter_mut().enumerate().take(80) {
        // Shift amounts 0 to 79, floats of every size.
        x.1 = k as u32;
        x.2 = (k as f32 * 1.7e8 - 3e9).to_bits();
    }
    let wide = |a: u32, b: u32| u64::from(b) << 32 | u64::from(a);
    check(
        "\tcvt.u64.u32 %rd20, %r5;\n\tcvt.u64.u32 %rd21, %r6;\n\tshl.b64 %rd22, %rd21, 32;\n\tor.b64 %rd23, %rd22, %rd20;\n\tbfe.u64 %rd24, %rd23, 28, 8;\n\tcvt.u32.u64 %r8, %rd24;",
        &inputs,
        |a, b, _| ((wide(a, b) >> 28) & 0xff) as u32,
    );
    check(
        "\tcvt.u64.u32 %rd20, %r5;\n\tcvt.u64.u32 %rd21, %r6;\n\tbfi.b64 %rd22, %rd20, %rd21, 28, 8;\n\tcvt.u32.u64 %r8, %rd22;",
        &inputs,
        |a, b, _| (b & !(0xff << 28)) | (a & 0xff) << 28,
    );
    check(
        "\tcvt.u64.u32 %rd20, %r5;\n\tshl.b64 %rd21, %rd20, %r6;\n\tcvt.u32.u64 %r8, %rd21;",
        &inputs,
        |a, b, _| u64::from(a).checked_shl(b).unwrap_or(0) as u32,
    );
    check(
        "\tcvt.rzi.s64.f32 %rd20, %f7;\n\tcvt.u32.u64 %r8, %rd20;",
        &inputs,
        |_, _, c| f32::from_bits(c) as i64 as u32,
    );
}

#[test]
fn local_memory_through_generic_addresses_is_each_threads_own() {
    // A 16-byte array: words b, c, a, b; word `a & 3` set to `c ^ 1`
    // through the generic pointer `cvta.local` makes, then word
    // `(a >> 2) & 3` read back through `cvta.to.local`'s local address.
    let body = "
	.local .align 8 .b8 buf[16];
	mov.u64 %rd20, buf;
	cvta.local.u64 %rd21, %rd20;
	st.u32 [%rd21], %r6;
	st.u32 [%rd21+4], %r7;
	st.v2.u32 [%rd21+8], {%r5, %r6};
	and.b32 %r9, %r5, 3;
	mul.wide.u32 %rd22, %r9, 4;
	add.s64 %rd23, %rd21, %rd22;
	xor.b32 %r10, %r7, 1;
	st.u32 [%rd23], %r10;
	shr.u32 %r11, %r5, 2;
	and.b32 %r12, %r11, 3;
	mul.wide.u32 %rd24, %r12, 4;
	cvta.to.local.u64 %rd25, %rd21;
	add.s64 %rd26, %rd25, %rd24;
	ld.local.u32 %r8, [%rd26];";
    let mut rng = Rng::new(31);
    check(body, &random(&mut rng, 256, u32::MAX), |a, b, c| {
        let mut words = [b, c, a, b];
        words[(a & 3) as usize] = c ^ 1;
        words[((a >> 2) & 3) as usize]
    });
}

#[test]
fn mad_hi_saturates_the_sum_of_the_high_word_and_the_addend() {
    let mut rng = Rng::new(37);
    let mut inputs = random(&mut rng, 192, u32::MAX);
    // Sums past both bounds: the largest high words with large addends.
    for (a, b, c) in [
        (i32::MIN, i32::MIN, i32::MAX),
        (i32::MIN, i32::MIN, 1),
        (i32::MIN, i32::MAX, i32::MIN),
        (i32::MAX, i32::MIN, -1),
        (-1, 1, i32::MIN),
        (0, 0, i32::MAX),
    ] {
        inputs.push((a as u32, b as u32, c as u32));
    }
    check(
        "\tmad.hi.sat.s32 %r8, %r5, %r6, %r7;",
        &inputs,
        |a, b, c| {
            let high = ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as i32;
            high.saturating_add(c as i32) as u32
        },
    );
}
