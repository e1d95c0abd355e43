//! Every ALU, compare, select and scalar instruction against host arithmetic, at
//! wave32 and wave64, with half the lanes masked off (masked lanes must keep their
//! old value).

use crate::exec_util;

use exec_util::*;
use simt_core::{
    Arg, Axis, BinOp, CmpOp, CmpType, ElemType, MaskOp, Operand, ProgramBuilder, ScalarType,
    Special, TernOp, UnOp,
};

const SENTINEL: u32 = 0xdead_beef;

/// Interesting 32-bit values: integer edges, shift counts and floats.
fn values() -> Vec<u32> {
    vec![
        0,
        1,
        2,
        7,
        31,
        32,
        33,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0xffff_fff9, // -7
        1.5f32.to_bits(),
        (-2.25f32).to_bits(),
        f32::NAN.to_bits(),
        0xffc0_0001, // a negative quiet NaN with a payload
        0x7f80_0001, // a signalling NaN
        f32::INFINITY.to_bits(),
        (-0.0f32).to_bits(),
        1e-40f32.to_bits(),
        3e9f32.to_bits(),
        (-3e9f32).to_bits(),
    ]
}

/// Every ordered pair of [`values`], padded to a whole number of 64-lane groups.
fn pairs() -> (Vec<u32>, Vec<u32>) {
    let vals = values();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &vals {
        for &y in &vals {
            a.push(x);
            b.push(y);
        }
    }
    while a.len() % 64 != 0 {
        a.push(a.len() as u32);
        b.push(0);
    }
    (a, b)
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// The documented semantics of each binary operation, written out independently.
fn host_bin(op: BinOp, a: u32, b: u32) -> u32 {
    let (ia, ib) = (a as i32, b as i32);
    match op {
        BinOp::AddU32 => a.wrapping_add(b),
        BinOp::SubU32 => a.wrapping_sub(b),
        BinOp::MulU32 => a.wrapping_mul(b),
        BinOp::MulHiU32 => ((a as u64 * b as u64) >> 32) as u32,
        BinOp::MulHiI32 => ((ia as i64 * ib as i64) >> 32) as u32,
        BinOp::DivU32 => a.checked_div(b).unwrap_or(u32::MAX),
        BinOp::DivI32 => {
            if ib == 0 {
                -1i32 as u32
            } else if ia == i32::MIN && ib == -1 {
                i32::MIN as u32
            } else {
                (ia / ib) as u32
            }
        }
        BinOp::RemU32 => a.checked_rem(b).unwrap_or(a),
        BinOp::RemI32 => {
            if ib == 0 {
                a
            } else if ia == i32::MIN && ib == -1 {
                0
            } else {
                (ia % ib) as u32
            }
        }
        BinOp::MinU32 => a.min(b),
        BinOp::MinI32 => ia.min(ib) as u32,
        BinOp::MaxU32 => a.max(b),
        BinOp::MaxI32 => ia.max(ib) as u32,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << (b % 32),
        BinOp::ShrU32 => a >> (b % 32),
        BinOp::ShrI32 => (ia >> (b % 32)) as u32,
        BinOp::AddF32 => arith(f(a) + f(b)),
        BinOp::SubF32 => arith(f(a) - f(b)),
        BinOp::MulF32 => arith(f(a) * f(b)),
        BinOp::DivF32 => arith(f(a) / f(b)),
        BinOp::MinF32 => arith(f(a).min(f(b))),
        BinOp::MaxF32 => arith(f(a).max(f(b))),
        BinOp::AddF16 => to_f16(h(a) + h(b)),
        BinOp::SubF16 => to_f16(h(a) - h(b)),
        BinOp::MulF16 => to_f16(h(a) * h(b)),
        BinOp::AddBf16 => to_bf16(bh(a) + bh(b)),
        BinOp::SubBf16 => to_bf16(bh(a) - bh(b)),
        BinOp::MulBf16 => to_bf16(bh(a) * bh(b)),
    }
}

// Half precision through the `half` crate's conversions from `f32`: a sum,
// difference or product of two half values computed in `f32` and rounded
// again is rounded once (24 bits hold twice a half format's precision plus
// two), and so is a product of two bf16 values, exact in `f32` unless it
// falls among `f32`'s subnormals, which these values do not reach.

fn h(x: u32) -> f32 {
    simt_core::half::f16::from_bits(x as u16).to_f32()
}

fn bh(x: u32) -> f32 {
    simt_core::half::bf16::from_bits(x as u16).to_f32()
}

fn to_f16(x: f32) -> u32 {
    if x.is_nan() {
        0x7e00
    } else {
        u32::from(simt_core::half::f16::from_f32(x).to_bits())
    }
}

fn to_bf16(x: f32) -> u32 {
    if x.is_nan() {
        0x7fc0
    } else {
        u32::from(simt_core::half::bf16::from_f32(x).to_bits())
    }
}

fn host_un(op: UnOp, a: u32) -> u32 {
    match op {
        UnOp::Mov => a,
        UnOp::Not => !a,
        UnOp::NegI32 => (a as i32).wrapping_neg() as u32,
        UnOp::AbsI32 => {
            if a == 0x8000_0000 {
                a
            } else {
                (a as i32).unsigned_abs()
            }
        }
        UnOp::NegF32 => (-f(a)).to_bits(),
        UnOp::AbsF32 => f(a).abs().to_bits(),
        UnOp::SqrtF32 => arith(f(a).sqrt()),
        UnOp::CvtF32U32 => (a as f32).to_bits(),
        UnOp::CvtF32I32 => (a as i32 as f32).to_bits(),
        UnOp::CvtU32F32 => f(a) as u32,
        UnOp::CvtI32F32 => f(a) as i32 as u32,
        UnOp::CvtF16F32 => to_f16(f(a)),
        UnOp::CvtF32F16 => arith(h(a)),
        UnOp::CvtBf16F32 => to_bf16(f(a)),
        UnOp::CvtF32Bf16 => arith(bh(a)),
        UnOp::Exp2F32 => arith(f64::from(f(a)).exp2() as f32),
        UnOp::Popc => a.count_ones(),
        UnOp::Clz => a.leading_zeros(),
        UnOp::Brev => a.reverse_bits(),
    }
}

fn host_cmp(op: CmpOp, ty: CmpType, a: u32, b: u32) -> bool {
    fn o<T: PartialOrd>(op: CmpOp, a: T, b: T) -> bool {
        match op {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
    match ty {
        CmpType::U32 => o(op, a, b),
        CmpType::I32 => o(op, a as i32, b as i32),
        CmpType::F32 => o(op, f(a), f(b)),
        CmpType::F16 => o(op, h(a), h(b)),
        CmpType::Bf16 => o(op, bh(a), bh(b)),
    }
}

/// Equal bits: NaN results included, since the machine writes one NaN.
fn same(got: u32, want: u32) -> bool {
    got == want
}

/// An arithmetic `f32` result as the machine writes it: any NaN is
/// `0x7fc0_0000`, whatever the host's sign and payload (`docs/src/language/instructions.md`).
fn arith(x: f32) -> u32 {
    if x.is_nan() {
        0x7fc0_0000
    } else {
        x.to_bits()
    }
}

const CMPOPS: [CmpOp; 6] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
];

/// Runs `body` (which reads v0, v1, v2 and writes v3) on odd lanes only, with v0..v2
/// loaded from three buffers and v3 preset to [`SENTINEL`]; returns v3 per item.
fn odd_lanes(body: &[simt_core::Inst], a: &[u32], b: &[u32], c: &[u32], width: u32) -> Vec<u32> {
    let mut p = ProgramBuilder::new("odd_lanes");
    let ba = p.buffer::<u32>("a");
    let bb = p.buffer::<u32>("b");
    let bc = p.buffer::<u32>("c");
    let out = p.buffer_mut::<u32>("out");
    p.extend([
        load(ElemType::U32, 0, gref(ba, gid())),
        load(ElemType::U32, 1, gref(bb, gid())),
        load(ElemType::U32, 2, gref(bc, gid())),
        mov(3, imm(SENTINEL)),
        bin(BinOp::And, 4, lane(), imm(1)),
        eq(0, v(4), imm(1)),
        if_(0),
    ]);
    p.extend(body.iter().copied());
    p.extend([endif(), store(ElemType::U32, gref(out, gid()), v(3))]);
    let program = p.build().expect("valid");
    let mut result = vec![0u32; a.len()];
    run(
        &program,
        &cfg(a.len() as u32 / 64, 64, width),
        &mut [
            Arg::buffer(a),
            Arg::buffer(b),
            Arg::buffer(c),
            Arg::buffer_mut(&mut result),
        ],
    );
    result
}

fn check(what: &str, got: &[u32], expect: impl Fn(usize) -> u32) {
    for (i, &g) in got.iter().enumerate() {
        let want = if i % 2 == 1 { expect(i) } else { SENTINEL };
        assert!(
            same(g, want),
            "{what}: item {i}: got {g:#x}, want {want:#x}"
        );
    }
}

#[test]
fn binary_ops_match_host_on_active_lanes_only() {
    let (a, b) = pairs();
    for width in [32, 64] {
        for &op in BinOp::ALL {
            let got = odd_lanes(&[bin(op, 3, v(0), v(1))], &a, &b, &b, width);
            check(&format!("{op:?} wave{width}"), &got, |i| {
                host_bin(op, a[i], b[i])
            });
        }
    }
}

#[test]
fn division_by_zero_is_defined() {
    let a = vec![5u32, 0x8000_0000, 7, 0x8000_0000];
    let b = vec![0u32, 0xffff_ffff, 0, 0];
    let pad = |v: &Vec<u32>| {
        let mut v = v.clone();
        v.resize(64, 1);
        // Put each case on an odd lane.
        let mut out = vec![1u32; 64];
        for (k, x) in v.iter().take(4).enumerate() {
            out[2 * k + 1] = *x;
        }
        out
    };
    let (a, b) = (pad(&a), pad(&b));
    let div_u = odd_lanes(&[bin(BinOp::DivU32, 3, v(0), v(1))], &a, &b, &b, 32);
    let div_i = odd_lanes(&[bin(BinOp::DivI32, 3, v(0), v(1))], &a, &b, &b, 32);
    let rem_u = odd_lanes(&[bin(BinOp::RemU32, 3, v(0), v(1))], &a, &b, &b, 32);
    let rem_i = odd_lanes(&[bin(BinOp::RemI32, 3, v(0), v(1))], &a, &b, &b, 32);
    assert_eq!(div_u[1], u32::MAX); // 5 / 0
    assert_eq!(div_i[1], -1i32 as u32);
    assert_eq!(rem_u[1], 5); // 5 % 0 = 5
    assert_eq!(rem_i[1], 5);
    assert_eq!(div_i[3], i32::MIN as u32); // MIN / -1
    assert_eq!(rem_i[3], 0); // MIN % -1
    assert_eq!(div_u[3], 0); // 0x8000_0000 / u32::MAX
    assert_eq!(rem_i[7], 0x8000_0000); // MIN % 0 = MIN
}

#[test]
fn unary_ops_match_host_on_active_lanes_only() {
    let (a, _) = pairs();
    for width in [32, 64] {
        for &op in UnOp::ALL {
            let got = odd_lanes(&[un(op, 3, v(0))], &a, &a, &a, width);
            check(&format!("{op:?} wave{width}"), &got, |i| host_un(op, a[i]));
        }
    }
}

#[test]
fn ternary_ops_are_fused_and_wrapping() {
    let (a, b) = pairs();
    let c: Vec<u32> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| x ^ y.rotate_left(7))
        .collect();
    // Operands chosen so that fused and unfused results differ.
    let mut fa = vec![(1.0f32 + f32::EPSILON).to_bits(); 64];
    let mut fb = vec![(1.0f32 - f32::EPSILON).to_bits(); 64];
    let mut fc = vec![(-1.0f32).to_bits(); 64];
    fa.extend(&a[..64]);
    fb.extend(&b[..64]);
    fc.extend(&c[..64]);
    for width in [32, 64] {
        let got = odd_lanes(
            &[tern(TernOp::FmaF32, 3, v(0), v(1), v(2))],
            &fa,
            &fb,
            &fc,
            width,
        );
        check(&format!("fma wave{width}"), &got, |i| {
            arith(f(fa[i]).mul_add(f(fb[i]), f(fc[i])))
        });
        assert_ne!(
            got[1],
            (f(fa[1]) * f(fb[1]) + f(fc[1])).to_bits(),
            "fma must round once"
        );
        let got = odd_lanes(
            &[tern(TernOp::MadU32, 3, v(0), v(1), v(2))],
            &a,
            &b,
            &c,
            width,
        );
        check(&format!("mad wave{width}"), &got, |i| {
            a[i].wrapping_mul(b[i]).wrapping_add(c[i])
        });
    }
}

#[test]
fn fma_rounding_down_is_the_float_at_or_below_the_exact_result() {
    let tiny = f32::from_bits(1);
    let cases: [(f32, f32, f32, f32); 12] = [
        (1.0, 1.0, 2f32.powi(-30), 1.0),
        (1.0, 1.0, -(2f32.powi(-30)), 1.0f32.next_down()),
        (-1.0, 1.0, 1.0, -0.0),
        (0.0, 1.0, 0.0, 0.0),
        (-0.0, 1.0, 0.0, -0.0),
        (f32::MAX, 2.0, 0.0, f32::MAX),
        (-f32::MAX, 2.0, 0.0, f32::NEG_INFINITY),
        (tiny, 0.5, 0.0, 0.0),
        (-tiny, 0.5, 0.0, -tiny),
        // CUDA's `expf` takes a floor this way: 0.5 * 252 + (1.5 2^23 + 1).
        (0.5, 252.0, 12582913.0, 12583039.0),
        (0.50001, 252.0, 12582913.0, 12583039.0),
        (
            1.0 + f32::EPSILON,
            1.0 - f32::EPSILON,
            -1.0,
            -(2f32.powi(-46)),
        ),
    ];
    let col = |k: usize| -> Vec<u32> {
        let mut v: Vec<u32> = cases
            .iter()
            .map(|c| [c.0, c.1, c.2, c.3][k].to_bits())
            .collect();
        v.resize(64, 0);
        v
    };
    let (a, b, c) = (col(0), col(1), col(2));
    for width in [32, 64] {
        let got = odd_lanes(
            &[tern(TernOp::FmaRmF32, 3, v(0), v(1), v(2))],
            &a,
            &b,
            &c,
            width,
        );
        // Every lane runs the cases twice over: the odd ones here, the even
        // ones from a copy shifted by one lane.
        for (i, case) in cases.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
            assert_eq!(got[i], case.3.to_bits(), "{case:?} wave{width}");
        }
        let shift = |x: &[u32]| -> Vec<u32> {
            std::iter::once(0)
                .chain(x.iter().copied())
                .take(64)
                .collect()
        };
        let got = odd_lanes(
            &[tern(TernOp::FmaRmF32, 3, v(0), v(1), v(2))],
            &shift(&a),
            &shift(&b),
            &shift(&c),
            width,
        );
        for (i, case) in cases.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
            assert_eq!(got[i + 1], case.3.to_bits(), "{case:?} wave{width}");
        }
    }
}

#[test]
fn compares_write_only_active_lane_bits() {
    let (a, b) = pairs();
    for width in [32, 64] {
        for ty in [
            CmpType::U32,
            CmpType::I32,
            CmpType::F32,
            CmpType::F16,
            CmpType::Bf16,
        ] {
            for op in CMPOPS {
                let mut p = ProgramBuilder::new("cmp");
                let ba = p.buffer::<u32>("a");
                let bb = p.buffer::<u32>("b");
                let out = p.buffer_mut::<u32>("out");
                p.extend([
                    load(ElemType::U32, 0, gref(ba, gid())),
                    load(ElemType::U32, 1, gref(bb, gid())),
                    // m1: every bit set.
                    scmp(CmpOp::Eq, CmpType::U32, 1, imm(0), imm(0)),
                    bin(BinOp::And, 4, lane(), imm(1)),
                    eq(0, v(4), imm(1)),
                    if_(0),
                    cmp(op, ty, 1, v(0), v(1)),
                    endif(),
                    select(3, 1, imm(1), imm(0)),
                    store(ElemType::U32, gref(out, gid()), v(3)),
                ]);
                let program = p.build().expect("valid");
                let mut got = vec![9u32; a.len()];
                run(
                    &program,
                    &cfg(a.len() as u32 / 64, 64, width),
                    &mut [Arg::buffer(&a), Arg::buffer(&b), Arg::buffer_mut(&mut got)],
                );
                for i in 0..a.len() {
                    let want = if i % 2 == 1 {
                        host_cmp(op, ty, a[i], b[i]) as u32
                    } else {
                        1
                    };
                    assert_eq!(got[i], want, "{op:?} {ty:?} wave{width} item {i}");
                }
            }
        }
    }
}

#[test]
fn select_and_mask_ops() {
    // m0 = lane < 5, m1 = lane is odd; v = select per mask op; only lanes >= 2 active.
    for width in [32u32, 64] {
        for (op, host) in [
            (MaskOp::And, (|a, b| a & b) as fn(bool, bool) -> bool),
            (MaskOp::Or, |a, b| a | b),
            (MaskOp::AndN, |a, b| a & !b),
            (MaskOp::Xor, |a, b| a ^ b),
        ] {
            let mut p = ProgramBuilder::new("masks");
            let out = p.buffer_mut::<u32>("out");
            p.extend([
                lt(0, lane(), imm(5)),
                bin(BinOp::And, 0, lane(), imm(1)),
                eq(1, v(0), imm(1)),
                mask(op, 2, 0, 1),
                simt_core::Inst::MaskNot {
                    dst: simt_core::MReg(3),
                    a: simt_core::MReg(2),
                },
                mov(1, imm(SENTINEL)),
                mov(2, imm(SENTINEL)),
                cmp(CmpOp::Ge, CmpType::U32, 4, lane(), imm(2)),
                if_(4),
                select(1, 2, lane(), imm(100)),
                select(2, 3, imm(7), imm(8)),
                endif(),
                bin(BinOp::MulU32, 3, gid(), imm(2)),
                store(ElemType::U32, gref(out, v(3)), v(1)),
                add(3, v(3), imm(1)),
                store(ElemType::U32, gref(out, v(3)), v(2)),
            ]);
            let program = p.build().expect("valid");
            let mut got = vec![0u32; 2 * width as usize];
            run(
                &program,
                &cfg(1, width, width),
                &mut [Arg::buffer_mut(&mut got)],
            );
            for l in 0..width as usize {
                let m = host(l < 5, l % 2 == 1);
                let (want1, want2) = if l < 2 {
                    (SENTINEL, SENTINEL)
                } else if m {
                    (l as u32, 8)
                } else {
                    (100, 7)
                };
                assert_eq!(got[2 * l], want1, "{op:?} wave{width} lane {l}");
                assert_eq!(got[2 * l + 1], want2, "{op:?} wave{width} lane {l} (not)");
            }
        }
    }
}

/// Odd lanes only: m2 = lane is odd, then `if m2`.
fn if_odd() -> [simt_core::Inst; 3] {
    [
        bin(BinOp::And, 4, lane(), imm(1)),
        eq(2, v(4), imm(1)),
        if_(2),
    ]
}

#[test]
fn scalar_ops_match_host() {
    // The scalar ALU runs once per wave: under a partial exec mask (odd lanes)
    // its result is the wave's, seen by every lane after the `if` closes.
    let vals = values();
    for &op in BinOp::ALL {
        let mut p = ProgramBuilder::new("scalar");
        let x = p.scalar("x", ScalarType::U32);
        let y = p.scalar("y", ScalarType::U32);
        let out = p.buffer_mut::<u32>("out");
        p.extend(if_odd());
        p.extend([
            sun(UnOp::Mov, 0, arg(x)),
            sbin(op, 1, s(0), arg(y)),
            scmp(CmpOp::Lt, CmpType::I32, 0, s(0), arg(y)),
            endif(),
            select(0, 0, imm(1), imm(0)),
            store(ElemType::U32, gref(out, gid()), s(1)),
            add(1, gid(), imm(64)),
            store(ElemType::U32, gref(out, v(1)), v(0)),
        ]);
        let program = p.build().expect("valid");
        for width in [32, 64] {
            for &a in &vals {
                for &b in &vals {
                    let mut got = vec![0u32; 128];
                    run(
                        &program,
                        &cfg(1, 64, width),
                        &mut [Arg::U32(a), Arg::U32(b), Arg::buffer_mut(&mut got)],
                    );
                    let want = host_bin(op, a, b);
                    assert!(
                        got[..64].iter().all(|&g| same(g, want)),
                        "{op:?}({a:#x}, {b:#x}) wave{width}"
                    );
                    let lt = ((a as i32) < (b as i32)) as u32;
                    assert!(
                        got[64..].iter().all(|&g| g == lt),
                        "s_cmp_lt_i32({a:#x}, {b:#x}) wave{width}"
                    );
                }
            }
        }
    }
    for &op in UnOp::ALL {
        let mut p = ProgramBuilder::new("scalar_unary");
        let x = p.scalar("x", ScalarType::U32);
        let out = p.buffer_mut::<u32>("out");
        p.extend(if_odd());
        p.extend([
            sun(op, 0, arg(x)),
            endif(),
            store(ElemType::U32, gref(out, gid()), s(0)),
        ]);
        let program = p.build().expect("valid");
        for width in [32, 64] {
            for &a in &vals {
                let mut got = vec![0u32; 64];
                run(
                    &program,
                    &cfg(1, 64, width),
                    &mut [Arg::U32(a), Arg::buffer_mut(&mut got)],
                );
                assert!(
                    got.iter().all(|&g| same(g, host_un(op, a))),
                    "{op:?}({a:#x}) wave{width}"
                );
            }
        }
    }
}

#[test]
fn scalar_arguments_of_every_type() {
    let mut p = ProgramBuilder::new("args");
    let a = p.scalar("a", ScalarType::U32);
    let b = p.scalar("b", ScalarType::I32);
    let c = p.scalar("c", ScalarType::F32);
    let out = p.buffer_mut::<u32>("out");
    p.extend([
        bin(BinOp::MulU32, 0, gid(), imm(3)),
        store(ElemType::U32, gref(out, v(0)), arg(a)),
        add(0, v(0), imm(1)),
        store(ElemType::U32, gref(out, v(0)), arg(b)),
        add(0, v(0), imm(1)),
        store(ElemType::U32, gref(out, v(0)), arg(c)),
    ]);
    let program = p.build().expect("valid");
    let mut got = vec![0u32; 3 * 32];
    run(
        &program,
        &cfg(1, 32, 32),
        &mut [
            Arg::U32(7),
            Arg::I32(-3),
            Arg::F32(2.5),
            Arg::buffer_mut(&mut got),
        ],
    );
    for l in 0..32 {
        assert_eq!(&got[3 * l..3 * l + 3], &[7, -3i32 as u32, 2.5f32.to_bits()]);
    }
}

#[test]
fn special_values_in_a_3d_launch() {
    let specials = [
        Special::LaneId,
        Special::LocalId(Axis::X),
        Special::LocalId(Axis::Y),
        Special::LocalId(Axis::Z),
        Special::GlobalId(Axis::X),
        Special::GlobalId(Axis::Y),
        Special::GlobalId(Axis::Z),
        Special::GroupId(Axis::X),
        Special::GroupId(Axis::Y),
        Special::GroupId(Axis::Z),
        Special::GroupSize(Axis::X),
        Special::GroupSize(Axis::Y),
        Special::GroupSize(Axis::Z),
        Special::NumGroups(Axis::X),
        Special::NumGroups(Axis::Y),
        Special::NumGroups(Axis::Z),
        Special::WaveId,
        Special::WaveWidth,
    ];
    let (grid, wg) = ([2u32, 3, 2], [4u32, 5, 3]); // 60 items: a partial last wave
    let n = (grid.iter().product::<u32>() * wg.iter().product::<u32>()) as usize;
    let k = specials.len() as u32;
    for width in [32u32, 64] {
        let mut p = ProgramBuilder::new("specials");
        let out = p.buffer_mut::<u32>("out");
        // Item index: a unique id from group id and local linear id.
        let (gs, items) = (wg.iter().product::<u32>(), 0u16);
        let _ = items;
        p.extend([
            // v0 = ((gz * 3 + gy) * 2 + gx) * 60 + lz * 20 + ly * 4 + lx, times k
            mov(0, Operand::Special(Special::GroupId(Axis::Z))),
            bin(BinOp::MulU32, 0, v(0), imm(grid[1])),
            add(0, v(0), Operand::Special(Special::GroupId(Axis::Y))),
            bin(BinOp::MulU32, 0, v(0), imm(grid[0])),
            add(0, v(0), Operand::Special(Special::GroupId(Axis::X))),
            bin(BinOp::MulU32, 0, v(0), imm(gs)),
            bin(
                BinOp::MulU32,
                1,
                Operand::Special(Special::LocalId(Axis::Z)),
                imm(wg[0] * wg[1]),
            ),
            add(0, v(0), v(1)),
            bin(
                BinOp::MulU32,
                1,
                Operand::Special(Special::LocalId(Axis::Y)),
                imm(wg[0]),
            ),
            add(0, v(0), v(1)),
            add(0, v(0), Operand::Special(Special::LocalId(Axis::X))),
            bin(BinOp::MulU32, 0, v(0), imm(k)),
        ]);
        for sp in specials {
            p.extend([
                store(ElemType::U32, gref(out, v(0)), Operand::Special(sp)),
                add(0, v(0), imm(1)),
            ]);
        }
        let program = p.build().expect("valid");
        let mut got = vec![u32::MAX; n * k as usize];
        let config = simt_core::LaunchConfig::new(grid, wg).wave_width(width);
        let stats = run(&program, &config, &mut [Arg::buffer_mut(&mut got)]);
        assert_eq!(stats.workgroups, 12);
        assert_eq!(stats.waves, 12 * (60u64.div_ceil(width as u64)));
        for gz in 0..grid[2] {
            for gy in 0..grid[1] {
                for gx in 0..grid[0] {
                    for linear in 0..gs {
                        let (lx, ly, lz) = (linear % 4, linear / 4 % 5, linear / 20);
                        let item = ((gz * grid[1] + gy) * grid[0] + gx) * gs + linear;
                        let want = [
                            linear % width,
                            lx,
                            ly,
                            lz,
                            gx * wg[0] + lx,
                            gy * wg[1] + ly,
                            gz * wg[2] + lz,
                            gx,
                            gy,
                            gz,
                            wg[0],
                            wg[1],
                            wg[2],
                            grid[0],
                            grid[1],
                            grid[2],
                            linear / width,
                            width,
                        ];
                        let base = (item * k) as usize;
                        assert_eq!(
                            &got[base..base + k as usize],
                            &want,
                            "item {item} wave{width}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn sub_word_loads_extend_and_stores_truncate() {
    let bytes: Vec<u8> = (0..64u32).map(|i| (i * 37 + 0x7d) as u8).collect();
    let signed: Vec<i8> = bytes.iter().map(|&b| b as i8).collect();
    let halves: Vec<u16> = (0..64u32).map(|i| (i * 4099 + 0x7ff0) as u16).collect();
    let shalves: Vec<i16> = halves.iter().map(|&h| h as i16).collect();
    for width in [32u32, 64] {
        let mut p = ProgramBuilder::new("subword");
        let b8 = p.buffer::<u8>("b8");
        let i8b = p.buffer::<i8>("i8b");
        let b16 = p.buffer::<u16>("b16");
        let i16b = p.buffer::<i16>("i16b");
        let out = p.buffer_mut::<u32>("out");
        let o8 = p.buffer_mut::<u8>("o8");
        let o16 = p.buffer_mut::<u16>("o16");
        p.extend([
            bin(BinOp::MulU32, 5, gid(), imm(4)),
            load(ElemType::U8, 0, gref(b8, gid())),
            load(ElemType::I8, 1, gref(i8b, gid())),
            load(ElemType::U16, 2, gref(b16, gid())),
            load(ElemType::I16, 3, gref(i16b, gid())),
            store(ElemType::U32, gref(out, v(5)), v(0)),
            add(5, v(5), imm(1)),
            store(ElemType::U32, gref(out, v(5)), v(1)),
            add(5, v(5), imm(1)),
            store(ElemType::U32, gref(out, v(5)), v(2)),
            add(5, v(5), imm(1)),
            store(ElemType::U32, gref(out, v(5)), v(3)),
            // Truncating stores of a value with every byte distinct.
            bin(BinOp::Or, 4, gid(), imm(0x1234_5600)),
            store(ElemType::U8, gref(o8, gid()), v(4)),
            store(ElemType::U16, gref(o16, gid()), v(4)),
        ]);
        let program = p.build().expect("valid");
        let mut got = vec![0u32; 256];
        let mut got8 = vec![0u8; 64];
        let mut got16 = vec![0u16; 64];
        run(
            &program,
            &cfg(1, 64, width),
            &mut [
                Arg::buffer(&bytes),
                Arg::buffer(&signed),
                Arg::buffer(&halves),
                Arg::buffer(&shalves),
                Arg::buffer_mut(&mut got),
                Arg::buffer_mut(&mut got8),
                Arg::buffer_mut(&mut got16),
            ],
        );
        for i in 0..64 {
            assert_eq!(got[4 * i], bytes[i] as u32);
            assert_eq!(got[4 * i + 1], signed[i] as i32 as u32);
            assert_eq!(got[4 * i + 2], halves[i] as u32);
            assert_eq!(got[4 * i + 3], shalves[i] as i32 as u32);
            assert_eq!(got8[i], i as u8);
            assert_eq!(got16[i], 0x5600 | i as u16);
        }
    }
}

#[test]
fn byte_addressing_reads_inside_words() {
    // Load the two halves of each u32 through byte offsets 4i and 4i + 2.
    let words: Vec<u32> = (0..32u32).map(|i| 0xa0b0_0000 | (i * 3)).collect();
    let mut p = ProgramBuilder::new("bytes");
    let w = p.buffer::<u32>("w");
    let out = p.buffer_mut::<u32>("out");
    p.extend([
        bin(BinOp::MulU32, 0, gid(), imm(4)),
        load(ElemType::U16, 1, gbytes(w, v(0))),
        add(0, v(0), imm(2)),
        load(ElemType::U16, 2, gbytes(w, v(0))),
        load(ElemType::U8, 3, gbytes(w, v(0))),
        bin(BinOp::MulU32, 0, gid(), imm(3)),
        store(ElemType::U32, gref(out, v(0)), v(1)),
        add(0, v(0), imm(1)),
        store(ElemType::U32, gref(out, v(0)), v(2)),
        add(0, v(0), imm(1)),
        store(ElemType::U32, gref(out, v(0)), v(3)),
    ]);
    let program = p.build().expect("valid");
    let mut got = vec![0u32; 96];
    run(
        &program,
        &cfg(1, 32, 32),
        &mut [Arg::buffer(&words), Arg::buffer_mut(&mut got)],
    );
    for i in 0..32 {
        let b = words[i].to_ne_bytes();
        assert_eq!(got[3 * i], u16::from_ne_bytes([b[0], b[1]]) as u32);
        assert_eq!(got[3 * i + 1], u16::from_ne_bytes([b[2], b[3]]) as u32);
        assert_eq!(got[3 * i + 2], b[2] as u32);
    }
}

#[test]
fn sources_may_be_the_destination() {
    // On odd lanes v3 (the destination) holds x, v1 holds b and v0 holds a; every
    // pattern of sources naming v3 is computed and checked against the host.
    let (a, b) = pairs();
    let x: Vec<u32> = b.iter().map(|y| y.wrapping_mul(7) ^ 0xabc).collect();
    let pick = |which: u8, i: usize| if which == 0 { x[i] } else { b[i] };
    let op = |k: u8| match k {
        0 => v(3),
        1 => v(1),
        _ => v(2),
    };
    for width in [32, 64] {
        let run_pattern = |inst: simt_core::Inst| {
            // v3 = ((a + 0) ^ (a + 0)) | x = x, through instructions that read v3.
            let body = [
                add(3, v(0), imm(0)),
                bin(BinOp::Xor, 3, v(3), v(3)),
                bin(BinOp::Or, 3, v(3), v(2)),
                inst,
            ];
            odd_lanes(&body, &a, &b, &x, width)
        };
        // Source k: 0 is v3 (x), 1 is v1 (b), 2 is v0 (a).
        for (sa, sb, sc) in [
            (0, 1, 2),
            (0, 0, 2),
            (1, 0, 2),
            (0, 1, 0),
            (0, 0, 0),
            (2, 0, 0),
            (1, 2, 0),
            (1, 0, 0),
        ] {
            let reg = |k: u8| if k == 2 { v(0) } else { op(k) };
            let val = |k: u8, i: usize| if k == 2 { a[i] } else { pick(k, i) };
            let got = run_pattern(tern(TernOp::MadU32, 3, reg(sa), reg(sb), reg(sc)));
            check(&format!("mad {sa}{sb}{sc} wave{width}"), &got, |i| {
                val(sa, i).wrapping_mul(val(sb, i)).wrapping_add(val(sc, i))
            });
        }
        for (sa, sb) in [(0, 1), (1, 0), (0, 0)] {
            let reg = |k: u8| op(k);
            let got = run_pattern(bin(BinOp::SubU32, 3, reg(sa), reg(sb)));
            check(&format!("sub {sa}{sb} wave{width}"), &got, |i| {
                pick(sa, i).wrapping_sub(pick(sb, i))
            });
        }
        let got = run_pattern(un(UnOp::NegI32, 3, v(3)));
        check(&format!("neg wave{width}"), &got, |i| x[i].wrapping_neg());
        let got = run_pattern(select(3, 0, v(3), v(1)));
        // m0 is the odd-lane mask: every active lane selects its old value.
        check(&format!("select wave{width}"), &got, |i| x[i]);
        let got = run_pattern(select(3, 0, v(1), v(3)));
        check(&format!("select wave{width}"), &got, |i| b[i]);
    }
}

/// `v_fms_f32` rounds `a * b - c` once: where the product alone rounds
/// away its low bits, the fused difference keeps them.
#[test]
fn fms_f32_rounds_once() {
    let e = 2f32.powi(-12);
    // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; the product rounded first
    // loses the 2^-24.
    let cases: [(f32, f32, f32, f32); 4] = [
        (3.0, 4.0, 5.0, 7.0),
        (1.0 + e, 1.0 + e, 1.0, 2f32.powi(-11) + 2f32.powi(-24)),
        (2.0, 0.5, 1.0, 0.0),
        (-2.0, 3.0, f32::INFINITY, f32::NEG_INFINITY),
    ];
    let col = |k: usize| -> Vec<u32> {
        let mut v: Vec<u32> = cases
            .iter()
            .map(|c| [c.0, c.1, c.2, c.3][k].to_bits())
            .collect();
        v.resize(64, 0);
        v
    };
    for width in [32, 64] {
        let got = odd_lanes(
            &[tern(TernOp::FmsF32, 3, v(0), v(1), v(2))],
            &col(0),
            &col(1),
            &col(2),
            width,
        );
        for (i, case) in cases.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
            assert_eq!(got[i], case.3.to_bits(), "{case:?} wave{width}");
        }
    }
    assert_ne!(
        (1.0 + e) * (1.0 + e) - 1.0,
        cases[1].3,
        "the cases need the fusion"
    );
}
