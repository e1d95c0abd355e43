//! The ALU operations on one 32-bit value at a time, written from their
//! documentation (`BinOp`, `UnOp`, `TernOp`, `CmpOp` and `docs/src/language/instructions.md`).

use crate::half::{BF16, F16};
use simt_lang::{BinOp, CmpOp, CmpType, TernOp, UnOp};

fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// An `f32` result's bits, with every NaN written as the one quiet NaN
/// `0x7fc0_0000`: the host's NaN sign and payload are not specified (they
/// differ between constant-folded and computed results), and a machine whose
/// registers are hashed and compared must not depend on them.
#[inline(always)]
pub(crate) fn bits(x: f32) -> u32 {
    if x.is_nan() {
        0x7fc0_0000
    } else {
        x.to_bits()
    }
}

fn i(bits: u32) -> i32 {
    bits as i32
}

/// `a op b`.
pub fn binary(op: BinOp, a: u32, b: u32) -> u32 {
    match op {
        BinOp::AddU32 => a.wrapping_add(b),
        BinOp::SubU32 => a.wrapping_sub(b),
        BinOp::MulU32 => a.wrapping_mul(b),
        BinOp::MulHiU32 => ((u64::from(a) * u64::from(b)) >> 32) as u32,
        BinOp::MulHiI32 => ((i64::from(i(a)) * i64::from(i(b))) >> 32) as u32,
        // `x / 0` is all ones (u32) or -1 (i32): the same bits.
        BinOp::DivU32 if b == 0 => u32::MAX,
        BinOp::DivU32 => a / b,
        BinOp::DivI32 if b == 0 => u32::MAX,
        BinOp::DivI32 if i(a) == i32::MIN && i(b) == -1 => a,
        BinOp::DivI32 => (i(a) / i(b)) as u32,
        // `x % 0` is `x`.
        BinOp::RemU32 if b == 0 => a,
        BinOp::RemU32 => a % b,
        BinOp::RemI32 if b == 0 => a,
        BinOp::RemI32 if i(a) == i32::MIN && i(b) == -1 => 0,
        BinOp::RemI32 => (i(a) % i(b)) as u32,
        BinOp::MinU32 => a.min(b),
        BinOp::MinI32 => i(a).min(i(b)) as u32,
        BinOp::MaxU32 => a.max(b),
        BinOp::MaxI32 => i(a).max(i(b)) as u32,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        // Shift amounts are taken modulo 32.
        BinOp::Shl => a << (b % 32),
        BinOp::ShrU32 => a >> (b % 32),
        BinOp::ShrI32 => (i(a) >> (b % 32)) as u32,
        BinOp::AddF32 => bits(f(a) + f(b)),
        BinOp::SubF32 => bits(f(a) - f(b)),
        BinOp::MulF32 => bits(f(a) * f(b)),
        BinOp::DivF32 => bits(f(a) / f(b)),
        BinOp::MinF32 => bits(f(a).min(f(b))),
        BinOp::MaxF32 => bits(f(a).max(f(b))),
        BinOp::AddF16 => F16.add(a, b),
        BinOp::SubF16 => F16.sub(a, b),
        BinOp::MulF16 => F16.mul(a, b),
        BinOp::AddBf16 => BF16.add(a, b),
        BinOp::SubBf16 => BF16.sub(a, b),
        BinOp::MulBf16 => BF16.mul(a, b),
    }
}

/// `op a`.
pub fn unary(op: UnOp, a: u32) -> u32 {
    match op {
        UnOp::Mov => a,
        UnOp::Not => !a,
        UnOp::NegI32 => 0u32.wrapping_sub(a),
        // `i32::MIN` stays `i32::MIN`.
        UnOp::AbsI32 if i(a) < 0 => 0u32.wrapping_sub(a),
        UnOp::AbsI32 => a,
        UnOp::NegF32 => a ^ 0x8000_0000,
        UnOp::AbsF32 => a & 0x7fff_ffff,
        UnOp::SqrtF32 => bits(f(a).sqrt()),
        UnOp::CvtF32U32 => (a as f32).to_bits(),
        UnOp::CvtF32I32 => (i(a) as f32).to_bits(),
        // Truncating and saturating, NaN to 0: Rust's `as`.
        UnOp::CvtU32F32 => f(a) as u32,
        UnOp::CvtI32F32 => f(a) as i32 as u32,
        UnOp::CvtF16F32 => F16.round_f32(a),
        UnOp::CvtF32F16 => F16.to_f32(a),
        UnOp::CvtBf16F32 => BF16.round_f32(a),
        UnOp::CvtF32Bf16 => BF16.to_f32(a),
        UnOp::Exp2F32 => exp2(f(a)),
        UnOp::Popc => (0..32).map(|k| (a >> k) & 1).sum(),
        UnOp::Clz => (0..32).rev().take_while(|&k| (a >> k) & 1 == 0).count() as u32,
        UnOp::Brev => (0..32).fold(0, |r, k| r | (((a >> k) & 1) << (31 - k))),
    }
}

/// `2^k` as an `f64`, for `-1022 <= k <= 1023`.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `2^x` rounded to nearest: `2^n 2^r` with `n` the nearest integer and
/// `|r| <= 1/2`, `2^r = e^(r ln 2)` summed from its series in `f64`, and the
/// product rounded once to `f32` (subnormals kept).
fn exp2(x: f32) -> u32 {
    if x.is_nan() {
        return bits(x);
    }
    if x >= 128.0 {
        return f32::INFINITY.to_bits();
    }
    // 2^-150 is half the least subnormal: below it, and at it (a tie, to
    // the even 0), the result is 0.
    if x <= -150.0 {
        return 0;
    }
    let x = f64::from(x);
    let n = x.round();
    let t = (x - n) * std::f64::consts::LN_2;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..=24 {
        term *= t / f64::from(k);
        sum += term;
    }
    bits((sum * pow2(n as i32)) as f32)
}

/// `x` as `(negative, m, e)` with `|x| = m 2^e` (finite `x`).
fn parts(x: f32) -> (bool, u128, i32) {
    let b = x.to_bits();
    let field = ((b >> 23) & 0xff) as i32;
    let frac = u128::from(b & 0x7f_ffff);
    let neg = b >> 31 == 1;
    if field == 0 {
        (neg, frac, -149)
    } else {
        (neg, frac | 1 << 23, field - 150)
    }
}

/// A direction of rounding: PTX's `.rz`, `.rm` and `.rp`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Toward {
    Zero,
    Down,
    Up,
}

/// `a * b + c` rounded once toward `dir`, from the exact sum as an integer
/// times a power of two.
fn fma_toward(a: f32, b: f32, c: f32, dir: Toward) -> u32 {
    if !(a.is_finite() && b.is_finite() && c.is_finite()) {
        // Infinities and NaN give an infinity or NaN, whatever the rounding.
        return bits(a.mul_add(b, c));
    }
    let (na, ma, ea) = parts(a);
    let (nb, mb, eb) = parts(b);
    let mut p = (na != nb, ma * mb, ea + eb);
    let mut q = parts(c);
    // An exact zero: rounding down, `-0.0` unless both terms are `+0.0`;
    // otherwise `+0.0` unless both are `-0.0`.
    let zero = |pn: bool, qn: bool| {
        let negative = if dir == Toward::Down {
            pn || qn
        } else {
            pn && qn
        };
        if negative {
            0x8000_0000
        } else {
            0
        }
    };
    if p.1 == 0 && q.1 == 0 {
        return zero(p.0, q.0);
    }
    if p.1 == 0 {
        return c.to_bits();
    }
    if q.1 == 0 {
        q.2 = p.2;
    }
    // A term 71 or more binary places below the other (which is then at
    // least 2^23 times larger than it) stands for less than the distance
    // from the other to any float but itself: only its sign matters, and a
    // term of 1 at 24 places below keeps it.
    if p.2 >= q.2 + 71 && q.1 != 0 {
        q = (q.0, 1, p.2 - 24);
    } else if q.2 >= p.2 + 71 {
        p = (p.0, 1, q.2 - 24);
    }
    let e0 = p.2.min(q.2);
    let signed = |(neg, m, e): (bool, u128, i32)| {
        let v = (m << (e - e0)) as i128;
        if neg {
            -v
        } else {
            v
        }
    };
    let v = signed(p) + signed(q);
    if v == 0 {
        // Terms that cancel exactly.
        return zero(true, false);
    }
    round_toward(v < 0, v.unsigned_abs(), e0, dir)
}

/// The `f32` that `±mag 2^e0` (`mag > 0`) rounds to toward `dir`.
pub(crate) fn round_toward(neg: bool, mag: u128, e0: i32, dir: Toward) -> u32 {
    // Whether a magnitude between two floats goes to the larger.
    let away = match dir {
        Toward::Zero => false,
        Toward::Down => neg,
        Toward::Up => !neg,
    };
    let sign = |r: f32| (if neg { -r } else { r }).to_bits();
    let top = 127 - mag.leading_zeros() as i32 + e0;
    if top > 127 {
        return sign(if away { f32::INFINITY } else { f32::MAX });
    }
    // The quantum of floats at this magnitude; drop the bits below it,
    // rounding the magnitude up where any were set and the direction is
    // away from zero.
    let quantum = (top - 23).max(-149);
    let shift = quantum - e0;
    let mut kept = if shift <= 0 {
        mag << (-shift)
    } else if shift >= 128 {
        0
    } else {
        mag >> shift
    };
    let exact = shift <= 0 || (shift < 128 && kept << shift == mag);
    if away && !exact {
        kept += 1;
    }
    // At most 2^24 times a power of two: exact in `f64`, and in `f32` but
    // for 2^128, which is the infinity it should be.
    sign((kept as f64 * pow2(quantum)) as f32)
}

/// `a * b + c`.
pub fn ternary(op: TernOp, a: u32, b: u32, c: u32) -> u32 {
    match op {
        TernOp::FmaF32 => bits(f(a).mul_add(f(b), f(c))),
        TernOp::MadU32 => a.wrapping_mul(b).wrapping_add(c),
        TernOp::FmaF16 => F16.fma(a, b, c),
        TernOp::FmaBf16 => BF16.fma(a, b, c),
        TernOp::FmaRmF32 => fma_toward(f(a), f(b), f(c), Toward::Down),
        TernOp::FmaRzF32 => fma_toward(f(a), f(b), f(c), Toward::Zero),
        TernOp::FmaRpF32 => fma_toward(f(a), f(b), f(c), Toward::Up),
        // The negation is exact: the fused product and sum of `-c`.
        TernOp::FmsF32 => bits(f(a).mul_add(f(b), -f(c))),
    }
}

/// `a op b`, reading both as `ty`.
pub fn compare(op: CmpOp, ty: CmpType, a: u32, b: u32) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let order = match ty {
        CmpType::U32 => Some(a.cmp(&b)),
        CmpType::I32 => Some(i(a).cmp(&i(b))),
        // Unordered (a NaN): every comparison is false but `ne`.
        CmpType::F32 => f(a).partial_cmp(&f(b)),
        CmpType::F16 => F16.order(a, b),
        CmpType::Bf16 => BF16.order(a, b),
    };
    match (op, order) {
        (CmpOp::Ne, None) => true,
        (_, None) => false,
        (CmpOp::Eq, Some(o)) => o == Equal,
        (CmpOp::Ne, Some(o)) => o != Equal,
        (CmpOp::Lt, Some(o)) => o == Less,
        (CmpOp::Le, Some(o)) => o != Greater,
        (CmpOp::Gt, Some(o)) => o == Greater,
        (CmpOp::Ge, Some(o)) => o != Less,
    }
}
