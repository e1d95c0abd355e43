//! The 64-bit operations on register pairs, written on their own: integers
//! through 128-bit arithmetic cut back to 64 bits, NaNs found by their
//! exponent and fraction bits.

use crate::alu::{round_toward, Toward};
use crate::directed;
use crate::half::{BF16, F16};
use simt_lang::{Bin64Op, Cmp64Type, CmpOp, NarrowOp, Tern64Op, Un64Op, WidenOp};

const SIGN: u64 = 1 << 63;
const CANONICAL_NAN: u64 = 0x7ff8_0000_0000_0000;

/// Whether `x`'s bits are a NaN: all exponent bits set, a fraction not zero.
fn is_nan(x: u64) -> bool {
    (x >> 52) & 0x7ff == 0x7ff && x & ((1 << 52) - 1) != 0
}

/// An `f64` result's bits, every NaN the canonical one.
pub(crate) fn canon(x: f64) -> u64 {
    let b = x.to_bits();
    if is_nan(b) {
        CANONICAL_NAN
    } else {
        b
    }
}

fn f(x: u64) -> f64 {
    f64::from_bits(x)
}

fn signed(x: u64) -> i128 {
    i128::from(x as i64)
}

/// The low 64 bits of `x`.
fn low(x: i128) -> u64 {
    (x & 0xffff_ffff_ffff_ffff) as u64
}

/// A number whose low 64 bits are those of `a * b`: the product of the
/// 32-bit halves, less the high halves' product, which only moves bits 64
/// and above (and below 2^98, so a 64-bit addend cannot overflow it).
fn product(a: u64, b: u64) -> u128 {
    let (a0, a1) = (u128::from(a as u32), u128::from(a >> 32));
    let (b0, b1) = (u128::from(b as u32), u128::from(b >> 32));
    a0 * b0 + ((a0 * b1 + a1 * b0) << 32)
}

pub fn binary(op: Bin64Op, a: u64, b: u64) -> u64 {
    let (ua, ub) = (i128::from(a), i128::from(b));
    match op {
        Bin64Op::AddU64 => low(ua + ub),
        Bin64Op::SubU64 => low(ua - ub),
        Bin64Op::MulU64 => product(a, b) as u64,
        Bin64Op::MinU64 => low(ua.min(ub)),
        Bin64Op::MaxU64 => low(ua.max(ub)),
        Bin64Op::MinI64 => low(signed(a).min(signed(b))),
        Bin64Op::MaxI64 => low(signed(a).max(signed(b))),
        Bin64Op::And => a & b,
        Bin64Op::Or => a | b,
        Bin64Op::Xor => a ^ b,
        Bin64Op::AddF64 => canon(f(a) + f(b)),
        Bin64Op::SubF64 => canon(f(a) - f(b)),
        Bin64Op::MulF64 => canon(f(a) * f(b)),
        Bin64Op::DivF64 => canon(f(a) / f(b)),
        Bin64Op::MinF64 => canon(f(a).min(f(b))),
        Bin64Op::MaxF64 => canon(f(a).max(f(b))),
        Bin64Op::DivRzF64 => directed::div(f(a), f(b), Toward::Zero),
        Bin64Op::DivRmF64 => directed::div(f(a), f(b), Toward::Down),
        Bin64Op::DivRpF64 => directed::div(f(a), f(b), Toward::Up),
    }
}

pub fn unary(op: Un64Op, a: u64) -> u64 {
    match op {
        Un64Op::Mov => a,
        Un64Op::NegI64 => low(-signed(a)),
        Un64Op::NegF64 => a ^ SIGN,
        Un64Op::AbsF64 => a & !SIGN,
        Un64Op::SqrtF64 => canon(f(a).sqrt()),
        Un64Op::CvtF64U64 => canon(a as f64),
        Un64Op::CvtF64I64 => canon(signed(a) as f64),
        Un64Op::CvtU64F64 => to_int(a, 0, u64::MAX as i128) as u64,
        Un64Op::CvtI64F64 => low(to_int(a, i64::MIN as i128, i64::MAX as i128)),
        Un64Op::SqrtRzF64 => directed::sqrt(f(a), Toward::Zero),
        Un64Op::SqrtRmF64 => directed::sqrt(f(a), Toward::Down),
        Un64Op::SqrtRpF64 => directed::sqrt(f(a), Toward::Up),
        Un64Op::CvtRzF64I64 => directed::from_int(signed(a), Toward::Zero),
        Un64Op::CvtRmF64I64 => directed::from_int(signed(a), Toward::Down),
        Un64Op::CvtRpF64I64 => directed::from_int(signed(a), Toward::Up),
        Un64Op::CvtRzF64U64 => directed::from_int(i128::from(a), Toward::Zero),
        Un64Op::CvtRmF64U64 => directed::from_int(i128::from(a), Toward::Down),
        Un64Op::CvtRpF64U64 => directed::from_int(i128::from(a), Toward::Up),
        Un64Op::RndneF64 => integral(a, None),
        Un64Op::TruncF64 => integral(a, Some(Toward::Zero)),
        Un64Op::FloorF64 => integral(a, Some(Toward::Down)),
        Un64Op::CeilF64 => integral(a, Some(Toward::Up)),
    }
}

/// The `f64` `a` rounded to an integer, to nearest even (`None`) or toward
/// `dir`, from its significand and exponent: the integer part is the
/// significand shifted right, the dropped bits decide the step away from
/// zero. The sign stays, so a negative operand rounding to 0 gives -0.
fn integral(a: u64, dir: Option<Toward>) -> u64 {
    let neg = a >> 63 == 1;
    let field = ((a >> 52) & 0x7ff) as i64;
    if field == 0x7ff {
        return if is_nan(a) { canon(f64::NAN) } else { a };
    }
    // |a| = m 2^e; from 2^52 up every double is an integer.
    let (m, e) = if field == 0 {
        (a & ((1 << 52) - 1), -1074)
    } else {
        (a & ((1 << 52) - 1) | 1 << 52, field - 1075)
    };
    if e >= 0 {
        return a;
    }
    let shift = (-e).min(64) as u32;
    let int = m.checked_shr(shift).unwrap_or(0);
    let rest = m - int.checked_shl(shift).unwrap_or(0);
    // The dropped part against one half: below, at or above.
    let half = u128::from(rest) << 1;
    let one = 1u128 << shift;
    let away = match dir {
        None => half > one || (half == one && int & 1 == 1),
        Some(Toward::Zero) => false,
        Some(Toward::Down) => neg && rest != 0,
        Some(Toward::Up) => !neg && rest != 0,
    };
    let mag = int + u64::from(away);
    // At most 2^52: exact.
    (mag as f64).to_bits() | a & SIGN
}

/// The `f64` `a` truncated toward zero and clamped to `lo..=hi`; NaN is 0.
fn to_int(a: u64, lo: i128, hi: i128) -> i128 {
    if is_nan(a) {
        return 0;
    }
    let t = f(a).trunc();
    if t <= lo as f64 {
        lo
    } else if t >= hi as f64 {
        hi
    } else {
        t as i128
    }
}

pub fn ternary(op: Tern64Op, a: u64, b: u64, c: u64) -> u64 {
    match op {
        Tern64Op::FmaF64 => canon(f(a).mul_add(f(b), f(c))),
        Tern64Op::MadU64 => (product(a, b) + u128::from(c)) as u64,
        Tern64Op::FmaRzF64 => directed::fma(f(a), f(b), f(c), Toward::Zero),
        Tern64Op::FmaRmF64 => directed::fma(f(a), f(b), f(c), Toward::Down),
        Tern64Op::FmaRpF64 => directed::fma(f(a), f(b), f(c), Toward::Up),
    }
}

pub fn compare(op: CmpOp, ty: Cmp64Type, a: u64, b: u64) -> bool {
    if ty == Cmp64Type::F64 && (is_nan(a) || is_nan(b)) {
        return op == CmpOp::Ne;
    }
    // -1, 0 or 1 as a is below, equal to or above b.
    let sign = match ty {
        Cmp64Type::U64 => (i128::from(a) - i128::from(b)).signum(),
        Cmp64Type::I64 => (signed(a) - signed(b)).signum(),
        Cmp64Type::F64 => {
            let d = f(a) - f(b);
            // Equal values (0 and -0 included) differ by zero; infinities of
            // one sign give NaN and are equal.
            if f(a) == f(b) {
                0
            } else if d < 0.0 {
                -1
            } else {
                1
            }
        }
    };
    match op {
        CmpOp::Eq => sign == 0,
        CmpOp::Ne => sign != 0,
        CmpOp::Lt => sign < 0,
        CmpOp::Le => sign <= 0,
        CmpOp::Gt => sign > 0,
        CmpOp::Ge => sign >= 0,
    }
}

pub fn widen(op: WidenOp, a: u32) -> u64 {
    match op {
        WidenOp::CvtF64F32 => canon(f64::from(f32::from_bits(a))),
        WidenOp::CvtF64U32 => (a as f64).to_bits(),
        WidenOp::CvtF64I32 => ((a as i32) as f64).to_bits(),
        WidenOp::CvtU64U32 => u64::from(a),
        WidenOp::CvtI64I32 => low(i128::from(a as i32)),
    }
}

pub fn narrow(op: NarrowOp, a: u64) -> u32 {
    match op {
        NarrowOp::CvtF32F64 => {
            if is_nan(a) {
                0x7fc0_0000
            } else {
                (f(a) as f32).to_bits()
            }
        }
        NarrowOp::CvtRzF32F64 => narrow_toward(a, Toward::Zero),
        NarrowOp::CvtRmF32F64 => narrow_toward(a, Toward::Down),
        NarrowOp::CvtRpF32F64 => narrow_toward(a, Toward::Up),
        NarrowOp::CvtU32F64 => to_int(a, 0, i128::from(u32::MAX)) as u32,
        NarrowOp::CvtI32F64 => to_int(a, i128::from(i32::MIN), i128::from(i32::MAX)) as i32 as u32,
        NarrowOp::CvtU32U64 => (a & 0xffff_ffff) as u32,
        NarrowOp::CvtF16F64 => F16.round_f64(a, None),
        NarrowOp::CvtRzF16F64 => F16.round_f64(a, Some(Toward::Zero)),
        NarrowOp::CvtRmF16F64 => F16.round_f64(a, Some(Toward::Down)),
        NarrowOp::CvtRpF16F64 => F16.round_f64(a, Some(Toward::Up)),
        NarrowOp::CvtBf16F64 => BF16.round_f64(a, None),
        NarrowOp::CvtRzBf16F64 => BF16.round_f64(a, Some(Toward::Zero)),
        NarrowOp::CvtRmBf16F64 => BF16.round_f64(a, Some(Toward::Down)),
        NarrowOp::CvtRpBf16F64 => BF16.round_f64(a, Some(Toward::Up)),
    }
}

/// The `f64` `a` rounded to `f32` toward `dir`, from its significand and
/// exponent as integers.
fn narrow_toward(a: u64, dir: Toward) -> u32 {
    let neg = a >> 63 == 1;
    let field = ((a >> 52) & 0x7ff) as i32;
    let frac = u128::from(a & ((1 << 52) - 1));
    let sign = if neg { 0x8000_0000 } else { 0 };
    match (field, frac) {
        (0x7ff, 0) => sign | 0x7f80_0000,
        (0x7ff, _) => 0x7fc0_0000,
        (0, 0) => sign,
        (0, m) => round_toward(neg, m, -1074, dir),
        (e, m) => round_toward(neg, m | 1 << 52, e - 1075, dir),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64b(x: f64) -> u64 {
        x.to_bits()
    }

    #[test]
    fn hand_computed_cases() {
        // (2^32 + 1)^2 = 2^64 + 2^33 + 1 wraps to 2^33 + 1.
        assert_eq!(
            binary(Bin64Op::MulU64, 0x1_0000_0001, 0x1_0000_0001),
            0x2_0000_0001
        );
        assert_eq!(binary(Bin64Op::MulU64, u64::MAX, u64::MAX), 1);
        assert_eq!(ternary(Tern64Op::MadU64, u64::MAX, u64::MAX, u64::MAX), 0);
        assert_eq!(binary(Bin64Op::AddU64, 0xffff_ffff, 1), 0x1_0000_0000);
        assert_eq!(binary(Bin64Op::MinI64, u64::MAX, 1), u64::MAX);
        assert_eq!(unary(Un64Op::NegI64, 1 << 63), 1 << 63);
        assert_eq!(binary(Bin64Op::DivF64, 0, 0), CANONICAL_NAN);
        assert_eq!(
            ternary(
                Tern64Op::FmaF64,
                0x3ff0_0000_0040_0000,
                0x3fef_ffff_ff80_0000,
                f64b(-1.0)
            ),
            0xbc30_0000_0000_0000
        );
        assert_eq!(unary(Un64Op::CvtU64F64, f64b(1e20)), u64::MAX);
        assert_eq!(unary(Un64Op::CvtI64F64, f64b(-2.5)), (-2i64) as u64);
        assert_eq!(
            unary(Un64Op::CvtF64U64, (1 << 53) + 1),
            0x4340_0000_0000_0000
        );
        assert_eq!(narrow(NarrowOp::CvtI32F64, f64b(1e10)), 0x7fff_ffff);
        assert_eq!(
            narrow(NarrowOp::CvtF32F64, f64b(1.0 + 2f64.powi(-24))),
            0x3f80_0000
        );
        assert_eq!(widen(WidenOp::CvtI64I32, 0xffff_fffb), (-5i64) as u64);
        assert!(compare(CmpOp::Lt, Cmp64Type::I64, f64b(-0.0), 0));
        assert!(!compare(CmpOp::Lt, Cmp64Type::U64, f64b(-0.0), 0));
        assert!(compare(CmpOp::Eq, Cmp64Type::F64, f64b(-0.0), 0));
        assert!(compare(
            CmpOp::Ne,
            Cmp64Type::F64,
            CANONICAL_NAN,
            CANONICAL_NAN
        ));
        assert!(!compare(CmpOp::Ge, Cmp64Type::F64, CANONICAL_NAN, 0));
    }
}
