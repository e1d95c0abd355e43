//! ALU handlers: one scalar definition per operation, and vector forms that apply
//! it to every lane of a wave (all lanes are computed; the caller blends the result
//! into the destination by the exec mask).
//!
//! The vector forms dispatch on the operation once, outside the lane loop, so each
//! loop body is a single operation the compiler can vectorize.

use crate::ir::{BinOp, CmpOp, CmpType, TernOp, UnOp};

#[inline(always)]
fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// `op(a, b)` as documented on [`BinOp`].
#[inline(always)]
pub(super) fn bin(op: BinOp, a: u32, b: u32) -> u32 {
    match op {
        BinOp::AddU32 => a.wrapping_add(b),
        BinOp::SubU32 => a.wrapping_sub(b),
        BinOp::MulU32 => a.wrapping_mul(b),
        BinOp::MulHiU32 => ((a as u64 * b as u64) >> 32) as u32,
        BinOp::MulHiI32 => ((a as i32 as i64 * b as i32 as i64) >> 32) as u32,
        BinOp::DivU32 => a.checked_div(b).unwrap_or(u32::MAX),
        BinOp::DivI32 => {
            if b == 0 {
                u32::MAX
            } else {
                (a as i32).wrapping_div(b as i32) as u32
            }
        }
        BinOp::RemU32 => a.checked_rem(b).unwrap_or(a),
        BinOp::RemI32 => {
            if b == 0 {
                a
            } else {
                (a as i32).wrapping_rem(b as i32) as u32
            }
        }
        BinOp::MinU32 => a.min(b),
        BinOp::MinI32 => (a as i32).min(b as i32) as u32,
        BinOp::MaxU32 => a.max(b),
        BinOp::MaxI32 => (a as i32).max(b as i32) as u32,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a.wrapping_shl(b),
        BinOp::ShrU32 => a.wrapping_shr(b),
        BinOp::ShrI32 => (a as i32).wrapping_shr(b) as u32,
        BinOp::AddF32 => (f(a) + f(b)).to_bits(),
        BinOp::SubF32 => (f(a) - f(b)).to_bits(),
        BinOp::MulF32 => (f(a) * f(b)).to_bits(),
        BinOp::DivF32 => (f(a) / f(b)).to_bits(),
        BinOp::MinF32 => f(a).min(f(b)).to_bits(),
        BinOp::MaxF32 => f(a).max(f(b)).to_bits(),
    }
}

/// `op(a)` as documented on [`UnOp`].
#[inline(always)]
pub(super) fn un(op: UnOp, a: u32) -> u32 {
    match op {
        UnOp::Mov => a,
        UnOp::Not => !a,
        UnOp::NegI32 => (a as i32).wrapping_neg() as u32,
        UnOp::AbsI32 => (a as i32).wrapping_abs() as u32,
        UnOp::NegF32 => a ^ 0x8000_0000,
        UnOp::AbsF32 => a & 0x7fff_ffff,
        UnOp::SqrtF32 => f(a).sqrt().to_bits(),
        UnOp::CvtF32U32 => (a as f32).to_bits(),
        UnOp::CvtF32I32 => (a as i32 as f32).to_bits(),
        UnOp::CvtU32F32 => f(a) as u32,
        UnOp::CvtI32F32 => f(a) as i32 as u32,
    }
}

/// `op(a, b, c)` as documented on [`TernOp`].
#[inline(always)]
pub(super) fn tern(op: TernOp, a: u32, b: u32, c: u32) -> u32 {
    match op {
        TernOp::FmaF32 => f(a).mul_add(f(b), f(c)).to_bits(),
        TernOp::MadU32 => a.wrapping_mul(b).wrapping_add(c),
    }
}

/// `a op b` read as `ty`, as documented on [`CmpOp`] and [`CmpType`].
#[inline(always)]
pub(super) fn cmp(op: CmpOp, ty: CmpType, a: u32, b: u32) -> bool {
    match ty {
        CmpType::U32 => ord(op, a, b),
        CmpType::I32 => ord(op, a as i32, b as i32),
        CmpType::F32 => ord(op, f(a), f(b)),
    }
}

#[inline(always)]
fn ord<T: PartialOrd>(op: CmpOp, a: T, b: T) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

#[inline(always)]
fn map1<const W: usize>(out: &mut [u32; W], a: &[u32; W], op: impl Fn(u32) -> u32) {
    for l in 0..W {
        out[l] = op(a[l]);
    }
}

#[inline(always)]
fn map2<const W: usize>(
    out: &mut [u32; W],
    a: &[u32; W],
    b: &[u32; W],
    op: impl Fn(u32, u32) -> u32,
) {
    for l in 0..W {
        out[l] = op(a[l], b[l]);
    }
}

#[inline(always)]
fn map3<const W: usize>(
    out: &mut [u32; W],
    a: &[u32; W],
    b: &[u32; W],
    c: &[u32; W],
    op: impl Fn(u32, u32, u32) -> u32,
) {
    for l in 0..W {
        out[l] = op(a[l], b[l], c[l]);
    }
}

/// `out = op(a, b)` in every lane.
#[inline(always)]
pub(super) fn vbinary<const W: usize>(op: BinOp, out: &mut [u32; W], a: &[u32; W], b: &[u32; W]) {
    macro_rules! each {
        ($($v:ident)*) => {
            match op {
                $(BinOp::$v => map2(out, a, b, |x, y| bin(BinOp::$v, x, y)),)*
            }
        };
    }
    each!(AddU32 SubU32 MulU32 MulHiU32 MulHiI32 DivU32 DivI32 RemU32 RemI32 MinU32 MinI32
        MaxU32 MaxI32 And Or Xor Shl ShrU32 ShrI32 AddF32 SubF32 MulF32 DivF32 MinF32 MaxF32);
}

/// `out = op(a)` in every lane.
#[inline(always)]
pub(super) fn vunary<const W: usize>(op: UnOp, out: &mut [u32; W], a: &[u32; W]) {
    macro_rules! each {
        ($($v:ident)*) => {
            match op {
                $(UnOp::$v => map1(out, a, |x| un(UnOp::$v, x)),)*
            }
        };
    }
    each!(Mov Not NegI32 AbsI32 NegF32 AbsF32 SqrtF32 CvtF32U32 CvtF32I32 CvtU32F32 CvtI32F32);
}

/// `out = op(a, b, c)` in every lane.
#[inline(always)]
pub(super) fn vternary<const W: usize>(
    op: TernOp,
    out: &mut [u32; W],
    a: &[u32; W],
    b: &[u32; W],
    c: &[u32; W],
) {
    match op {
        TernOp::FmaF32 => map3(out, a, b, c, |x, y, z| tern(TernOp::FmaF32, x, y, z)),
        TernOp::MadU32 => map3(out, a, b, c, |x, y, z| tern(TernOp::MadU32, x, y, z)),
    }
}

/// The comparison of every lane, as a mask (bit `l` for lane `l`).
#[inline(always)]
pub(super) fn vcmp<const W: usize>(
    op: CmpOp,
    ty: CmpType,
    scratch: &mut [u32; W],
    a: &[u32; W],
    b: &[u32; W],
) -> u64 {
    macro_rules! each {
        ($($t:ident)*; $($o:ident)*) => {
            each!(@t [$($t)*] [$($o)*])
        };
        (@t [$($t:ident)*] $os:tt) => {
            match ty {
                $(CmpType::$t => each!(@o $t $os),)*
            }
        };
        (@o $t:ident [$($o:ident)*]) => {
            match op {
                $(CmpOp::$o => map2(scratch, a, b, |x, y| cmp(CmpOp::$o, CmpType::$t, x, y) as u32),)*
            }
        };
    }
    each!(U32 I32 F32; Eq Ne Lt Le Gt Ge);
    pack(scratch)
}

/// Packs per-lane 0/1 values into a mask.
#[inline(always)]
fn pack<const W: usize>(bits: &[u32; W]) -> u64 {
    let mut mask = 0u64;
    for (l, &b) in bits.iter().enumerate() {
        mask |= ((b & 1) as u64) << l;
    }
    mask
}

/// Expands a mask into per-lane all-ones / zero words.
#[inline(always)]
pub(super) fn expand<const W: usize>(mask: u64, out: &mut [u32; W]) {
    for (l, o) in out.iter_mut().enumerate() {
        *o = 0u32.wrapping_sub(((mask >> l) & 1) as u32);
    }
}

/// `out = sel ? t : f` in every lane, `sel` holding all-ones / zero words.
#[inline(always)]
pub(super) fn select<const W: usize>(
    out: &mut [u32; W],
    sel: &[u32; W],
    t: &[u32; W],
    e: &[u32; W],
) {
    for l in 0..W {
        out[l] = (t[l] & sel[l]) | (e[l] & !sel[l]);
    }
}

/// Writes `val` into the lanes of `dst` whose `lanes` word is all ones.
#[inline(always)]
pub(super) fn blend<const W: usize>(dst: &mut [u32; W], val: &[u32; W], lanes: &[u32; W]) {
    for l in 0..W {
        dst[l] = (val[l] & lanes[l]) | (dst[l] & !lanes[l]);
    }
}
