//! The ALU operations on one 32-bit value at a time, written from their
//! documentation (`BinOp`, `UnOp`, `TernOp`, `CmpOp` and `docs/language.md`).

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
    }
}

/// `a * b + c`.
pub fn ternary(op: TernOp, a: u32, b: u32, c: u32) -> u32 {
    match op {
        TernOp::FmaF32 => bits(f(a).mul_add(f(b), f(c))),
        TernOp::MadU32 => a.wrapping_mul(b).wrapping_add(c),
        TernOp::FmaF16 => F16.fma(a, b, c),
        TernOp::FmaBf16 => BF16.fma(a, b, c),
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
