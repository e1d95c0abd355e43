//! The 64-bit operations, one lane at a time: each value a `u64` made of a
//! register pair's two words (the low word in the first register).
//!
//! These run per lane, not as vectorized lane loops: 64-bit arithmetic is rare
//! in kernels and its loops are not worth their build time.

use super::alu::{toward_f32, Toward};
use crate::isa::{Bin64Op, Cmp64Type, CmpOp, NarrowOp, Tern64Op, Un64Op, WidenOp};
use rustc_apfloat::ieee::{BFloat, Half};

#[inline(always)]
fn f(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// An `f64` result's bits, with every NaN written as the one quiet NaN
/// `0x7ff8_0000_0000_0000` (as [`super::alu::bits`] does for `f32`).
#[inline(always)]
pub(super) fn bits(x: f64) -> u64 {
    if x.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        x.to_bits()
    }
}

/// `op(a, b)` as documented on [`Bin64Op`].
pub(super) fn bin(op: Bin64Op, a: u64, b: u64) -> u64 {
    match op {
        Bin64Op::AddU64 => a.wrapping_add(b),
        Bin64Op::SubU64 => a.wrapping_sub(b),
        Bin64Op::MulU64 => a.wrapping_mul(b),
        Bin64Op::MinU64 => a.min(b),
        Bin64Op::MinI64 => (a as i64).min(b as i64) as u64,
        Bin64Op::MaxU64 => a.max(b),
        Bin64Op::MaxI64 => (a as i64).max(b as i64) as u64,
        Bin64Op::And => a & b,
        Bin64Op::Or => a | b,
        Bin64Op::Xor => a ^ b,
        Bin64Op::AddF64 => bits(f(a) + f(b)),
        Bin64Op::SubF64 => bits(f(a) - f(b)),
        Bin64Op::MulF64 => bits(f(a) * f(b)),
        Bin64Op::DivF64 => bits(f(a) / f(b)),
        Bin64Op::MinF64 => bits(f(a).min(f(b))),
        Bin64Op::MaxF64 => bits(f(a).max(f(b))),
        Bin64Op::DivRzF64 => directed::div(a, b, Toward::Zero),
        Bin64Op::DivRmF64 => directed::div(a, b, Toward::Down),
        Bin64Op::DivRpF64 => directed::div(a, b, Toward::Up),
    }
}

/// `op(a)` as documented on [`Un64Op`].
pub(super) fn un(op: Un64Op, a: u64) -> u64 {
    match op {
        Un64Op::Mov => a,
        Un64Op::NegI64 => (a as i64).wrapping_neg() as u64,
        Un64Op::NegF64 => a ^ (1 << 63),
        Un64Op::AbsF64 => a & !(1 << 63),
        Un64Op::SqrtF64 => bits(f(a).sqrt()),
        Un64Op::CvtF64U64 => bits(a as f64),
        Un64Op::CvtF64I64 => bits(a as i64 as f64),
        Un64Op::CvtU64F64 => f(a) as u64,
        Un64Op::CvtI64F64 => f(a) as i64 as u64,
        Un64Op::SqrtRzF64 => directed::sqrt(a, Toward::Zero),
        Un64Op::SqrtRmF64 => directed::sqrt(a, Toward::Down),
        Un64Op::SqrtRpF64 => directed::sqrt(a, Toward::Up),
        Un64Op::CvtRzF64I64 => directed::from_int(i128::from(a as i64), Toward::Zero),
        Un64Op::CvtRmF64I64 => directed::from_int(i128::from(a as i64), Toward::Down),
        Un64Op::CvtRpF64I64 => directed::from_int(i128::from(a as i64), Toward::Up),
        Un64Op::CvtRzF64U64 => directed::from_int(i128::from(a), Toward::Zero),
        Un64Op::CvtRmF64U64 => directed::from_int(i128::from(a), Toward::Down),
        Un64Op::CvtRpF64U64 => directed::from_int(i128::from(a), Toward::Up),
        Un64Op::RndneF64 => bits(f(a).round_ties_even()),
        Un64Op::TruncF64 => bits(f(a).trunc()),
        Un64Op::FloorF64 => bits(f(a).floor()),
        Un64Op::CeilF64 => bits(f(a).ceil()),
    }
}

/// `op(a, b, c)` as documented on [`Tern64Op`].
pub(super) fn tern(op: Tern64Op, a: u64, b: u64, c: u64) -> u64 {
    match op {
        Tern64Op::FmaF64 => bits(f(a).mul_add(f(b), f(c))),
        Tern64Op::MadU64 => a.wrapping_mul(b).wrapping_add(c),
        Tern64Op::FmaRzF64 => directed::fma(a, b, c, Toward::Zero),
        Tern64Op::FmaRmF64 => directed::fma(a, b, c, Toward::Down),
        Tern64Op::FmaRpF64 => directed::fma(a, b, c, Toward::Up),
    }
}

/// `f64` arithmetic rounded toward zero, down or up, through
/// `rustc_apfloat` (IEEE-754 in every rounding direction), every NaN the
/// canonical one.
mod directed {
    use super::super::alu::Toward;
    use super::{bits, f};
    use rustc_apfloat::ieee::Double;
    use rustc_apfloat::{Float, FloatConvert, Round, Status, StatusAnd};

    fn round(dir: Toward) -> Round {
        match dir {
            Toward::Zero => Round::TowardZero,
            Toward::Down => Round::TowardNegative,
            Toward::Up => Round::TowardPositive,
        }
    }

    /// `a` rounded once to the 16-bit format `H` (`f16` or `bf16`), to
    /// nearest even or toward `dir`; NaN is the format's quiet NaN with
    /// nothing else set (`0x7e00`, `0x7fc0`), as the `f32` conversions
    /// give.
    pub(super) fn half<H: Float>(a: u64, dir: Option<Toward>) -> u32
    where
        Double: FloatConvert<H>,
    {
        let mut lost = false;
        let r: StatusAnd<H> = FloatConvert::<H>::convert_r(
            from(a),
            dir.map_or(Round::NearestTiesToEven, round),
            &mut lost,
        );
        let h = if r.value.is_nan() {
            H::qnan(None)
        } else {
            r.value
        };
        h.to_bits() as u32
    }

    fn from(x: u64) -> Double {
        Double::from_bits(u128::from(x))
    }

    fn out(r: StatusAnd<Double>) -> u64 {
        if r.value.is_nan() {
            bits(f64::NAN)
        } else {
            r.value.to_bits() as u64
        }
    }

    /// `a * b + c`, rounded once.
    pub(super) fn fma(a: u64, b: u64, c: u64, dir: Toward) -> u64 {
        out(from(a).mul_add_r(from(b), from(c), round(dir)))
    }

    /// `a / b`.
    pub(super) fn div(a: u64, b: u64, dir: Toward) -> u64 {
        out(from(a).div_r(from(b), round(dir)))
    }

    /// The integer `v`.
    pub(super) fn from_int(v: i128, dir: Toward) -> u64 {
        out(Double::from_i128_r(v, round(dir)))
    }

    /// `sqrt(a)`: the square root rounded to nearest, moved by one place
    /// where it lies on the wrong side of the exact root, which the sign of
    /// `s * s - a` (rounded up, so that no nonzero difference reads as 0)
    /// tells.
    pub(super) fn sqrt(a: u64, dir: Toward) -> u64 {
        let x = f(a);
        let s = x.sqrt();
        if !s.is_finite() || s == 0.0 {
            // NaN (a negative or NaN operand), infinity, or a zero kept
            // with its sign: exact.
            return bits(s);
        }
        let d = from(s.to_bits()).mul_add_r(
            from(s.to_bits()),
            from((-x).to_bits()),
            Round::TowardPositive,
        );
        let exact = d.value.is_zero() && !d.status.contains(Status::INEXACT);
        let above = !exact && !d.value.is_negative();
        let below = !exact && !above;
        let r = match dir {
            // The root is positive: toward zero is down.
            Toward::Zero | Toward::Down if above => s.next_down(),
            Toward::Up if below => s.next_up(),
            _ => s,
        };
        r.to_bits()
    }
}

/// `a op b`, the pairs read as `ty`.
pub(super) fn cmp(op: CmpOp, ty: Cmp64Type, a: u64, b: u64) -> bool {
    use std::cmp::Ordering;
    let order = match ty {
        Cmp64Type::U64 => Some(a.cmp(&b)),
        Cmp64Type::I64 => Some((a as i64).cmp(&(b as i64))),
        Cmp64Type::F64 => f(a).partial_cmp(&f(b)),
    };
    match (op, order) {
        // Unordered (a NaN): every comparison is false but `ne`.
        (CmpOp::Ne, None) => true,
        (_, None) => false,
        (CmpOp::Eq, Some(o)) => o == Ordering::Equal,
        (CmpOp::Ne, Some(o)) => o != Ordering::Equal,
        (CmpOp::Lt, Some(o)) => o == Ordering::Less,
        (CmpOp::Le, Some(o)) => o != Ordering::Greater,
        (CmpOp::Gt, Some(o)) => o == Ordering::Greater,
        (CmpOp::Ge, Some(o)) => o != Ordering::Less,
    }
}

/// The 32-bit `a` converted by `op`.
pub(super) fn widen(op: WidenOp, a: u32) -> u64 {
    match op {
        WidenOp::CvtF64F32 => bits(f64::from(f32::from_bits(a))),
        WidenOp::CvtF64U32 => f64::from(a).to_bits(),
        WidenOp::CvtF64I32 => f64::from(a as i32).to_bits(),
        WidenOp::CvtU64U32 => u64::from(a),
        WidenOp::CvtI64I32 => a as i32 as i64 as u64,
    }
}

/// The 64-bit `a` converted by `op`.
pub(super) fn narrow(op: NarrowOp, a: u64) -> u32 {
    match op {
        NarrowOp::CvtF32F64 => super::alu::bits(f(a) as f32),
        NarrowOp::CvtRzF32F64 => super::alu::bits(toward_f32(f(a), 0.0, Toward::Zero)),
        NarrowOp::CvtRmF32F64 => super::alu::bits(toward_f32(f(a), 0.0, Toward::Down)),
        NarrowOp::CvtRpF32F64 => super::alu::bits(toward_f32(f(a), 0.0, Toward::Up)),
        NarrowOp::CvtU32F64 => f(a) as u32,
        NarrowOp::CvtI32F64 => f(a) as i32 as u32,
        NarrowOp::CvtU32U64 => a as u32,
        NarrowOp::CvtF16F64 => directed::half::<Half>(a, None),
        NarrowOp::CvtRzF16F64 => directed::half::<Half>(a, Some(Toward::Zero)),
        NarrowOp::CvtRmF16F64 => directed::half::<Half>(a, Some(Toward::Down)),
        NarrowOp::CvtRpF16F64 => directed::half::<Half>(a, Some(Toward::Up)),
        NarrowOp::CvtBf16F64 => directed::half::<BFloat>(a, None),
        NarrowOp::CvtRzBf16F64 => directed::half::<BFloat>(a, Some(Toward::Zero)),
        NarrowOp::CvtRmBf16F64 => directed::half::<BFloat>(a, Some(Toward::Down)),
        NarrowOp::CvtRpBf16F64 => directed::half::<BFloat>(a, Some(Toward::Up)),
    }
}
