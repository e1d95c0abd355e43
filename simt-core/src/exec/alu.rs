//! ALU handlers: one scalar definition per operation, and vector forms that apply
//! it to every lane of a wave.
//!
//! The vector forms dispatch on the operation once, outside the lane loop, so each
//! loop body is a single operation the compiler can vectorize. Each loop computes
//! every lane and blends the result into the destination through the per-lane exec
//! words, writing the destination register directly: a source that is the
//! destination itself is read from it lane by lane (the aliasing pattern is a
//! compile-time parameter), so no scratch copy sits between dependent instructions.

use crate::isa::{BinOp, CmpOp, CmpType, TernOp, UnOp};
use simt_lang::float16::Half;

#[inline(always)]
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
        BinOp::AddF32 => bits(f(a) + f(b)),
        BinOp::SubF32 => bits(f(a) - f(b)),
        BinOp::MulF32 => bits(f(a) * f(b)),
        BinOp::DivF32 => bits(f(a) / f(b)),
        BinOp::MinF32 => bits(f(a).min(f(b))),
        BinOp::MaxF32 => bits(f(a).max(f(b))),
        BinOp::AddF16 => Half::F16.add(a, b),
        BinOp::SubF16 => Half::F16.sub(a, b),
        BinOp::MulF16 => Half::F16.mul(a, b),
        BinOp::AddBf16 => Half::Bf16.add(a, b),
        BinOp::SubBf16 => Half::Bf16.sub(a, b),
        BinOp::MulBf16 => Half::Bf16.mul(a, b),
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
        UnOp::SqrtF32 => bits(f(a).sqrt()),
        UnOp::CvtF32U32 => (a as f32).to_bits(),
        UnOp::CvtF32I32 => (a as i32 as f32).to_bits(),
        UnOp::CvtU32F32 => f(a) as u32,
        UnOp::CvtI32F32 => f(a) as i32 as u32,
        UnOp::CvtF16F32 => Half::F16.round_f32(a),
        UnOp::CvtF32F16 => Half::F16.to_f32(a),
        UnOp::CvtBf16F32 => Half::Bf16.round_f32(a),
        UnOp::CvtF32Bf16 => Half::Bf16.to_f32(a),
        UnOp::Exp2F32 => bits(exp2_f32(f(a))),
        UnOp::Popc => a.count_ones(),
        UnOp::Clz => a.leading_zeros(),
        UnOp::Brev => a.reverse_bits(),
    }
}

/// `2^x` rounded to nearest: the double-precision power is within an ulp
/// of a double, so its rounding to `f32` is the exact value's except where
/// that lies within about 2^-52 of a midpoint between two floats.
#[inline(always)]
fn exp2_f32(x: f32) -> f32 {
    f64::from(x).exp2() as f32
}

/// A direction of rounding: PTX's `.rz`, `.rm` and `.rp`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Toward {
    Zero,
    Down,
    Up,
}

/// `a * b + c` rounded once toward `dir`. The product is exact in `f64`
/// (24-bit significands), so the sum is `s + e` exactly, `s` its `f64`
/// rounding and `e` the error (Knuth's two-sum).
#[inline(always)]
fn fma_toward_f32(a: f32, b: f32, c: f32, dir: Toward) -> f32 {
    let p = f64::from(a) * f64::from(b);
    let c = f64::from(c);
    let s = p + c;
    if !s.is_finite() {
        return s as f32;
    }
    let bb = s - p;
    let e = (p - (s - bb)) + (c - bb);
    if s == 0.0 && e == 0.0 {
        // An exact zero: rounding down, `-0.0` unless both terms are
        // `+0.0`; otherwise `+0.0` unless both are `-0.0`.
        let (pn, cn) = (p.is_sign_negative(), c.is_sign_negative());
        let negative = if dir == Toward::Down {
            pn || cn
        } else {
            pn && cn
        };
        return if negative { -0.0 } else { 0.0 };
    }
    toward_f32(s, e, dir)
}

/// The `f32` that `s + e` rounds to toward `dir`, where `e` is below half
/// an `f64` ulp of `s` (zero when `s` is exact). The nearest `f32` to `s`
/// is one step at most from the answer: a step down when it is above the
/// exact value and the direction is down, a step up likewise.
#[inline(always)]
pub(super) fn toward_f32(s: f64, e: f64, dir: Toward) -> f32 {
    let r = s as f32;
    let (rd, positive) = (f64::from(r), s > 0.0 || (s == 0.0 && e > 0.0));
    let above = rd > s || (rd == s && e < 0.0);
    let below = rd < s || (rd == s && e > 0.0);
    match dir {
        Toward::Down if above => r.next_down(),
        Toward::Up if below => r.next_up(),
        Toward::Zero if positive && above => r.next_down(),
        Toward::Zero if !positive && below => r.next_up(),
        _ => r,
    }
}

/// `op(a, b, c)` as documented on [`TernOp`].
#[inline(always)]
pub(super) fn tern(op: TernOp, a: u32, b: u32, c: u32) -> u32 {
    match op {
        TernOp::FmaF32 => bits(f(a).mul_add(f(b), f(c))),
        TernOp::MadU32 => a.wrapping_mul(b).wrapping_add(c),
        TernOp::FmaF16 => Half::F16.fma(a, b, c),
        TernOp::FmaBf16 => Half::Bf16.fma(a, b, c),
        TernOp::FmaRmF32 => bits(fma_toward_f32(f(a), f(b), f(c), Toward::Down)),
        TernOp::FmaRzF32 => bits(fma_toward_f32(f(a), f(b), f(c), Toward::Zero)),
        TernOp::FmaRpF32 => bits(fma_toward_f32(f(a), f(b), f(c), Toward::Up)),
        TernOp::FmsF32 => bits(f(a).mul_add(f(b), -f(c))),
    }
}

/// `a op b` read as `ty`, as documented on [`CmpOp`] and [`CmpType`].
#[inline(always)]
pub(super) fn cmp(op: CmpOp, ty: CmpType, a: u32, b: u32) -> bool {
    match ty {
        CmpType::U32 => ord(op, a, b),
        CmpType::I32 => ord(op, a as i32, b as i32),
        CmpType::F32 => ord(op, f(a), f(b)),
        CmpType::F16 => ord(op, Half::F16.to_f64(a), Half::F16.to_f64(b)),
        CmpType::Bf16 => ord(op, Half::Bf16.to_f64(a), Half::Bf16.to_f64(b)),
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

/// The comparison of every lane, as a mask (bit `l` for lane `l`), against `b`
/// in every lane or, for a wave-uniform operand, against one value.
#[inline(always)]
pub(super) fn vcmp<const W: usize>(op: CmpOp, ty: CmpType, a: &[u32; W], b: CmpRhs<'_, W>) -> u64 {
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
            match (op, b) {
                $(
                    (CmpOp::$o, CmpRhs::Lanes(b)) => {
                        mask_of::<W>(|l| cmp(CmpOp::$o, CmpType::$t, a[l], b[l]))
                    }
                    (CmpOp::$o, CmpRhs::Uniform(y)) => {
                        mask_of::<W>(|l| cmp(CmpOp::$o, CmpType::$t, a[l], y))
                    }
                )*
            }
        };
    }
    cmp_kinds!(each)
}

/// Calls `$then!` with every [`CmpType`], then every [`CmpOp`].
macro_rules! cmp_kinds {
    ($then:ident) => {
        $then!(U32 I32 F32 F16 Bf16; Eq Ne Lt Le Gt Ge)
    };
}
use cmp_kinds;

/// The right-hand side of a vector compare.
#[derive(Clone, Copy)]
pub(super) enum CmpRhs<'a, const W: usize> {
    /// A value per lane.
    Lanes(&'a [u32; W]),
    /// One value for every lane.
    Uniform(u32),
}

/// The mask whose bit `l` is `f(l)`, for `l < W` (a multiple of 32).
///
/// On x86-64 the lanes' all-ones or zero words are packed four at a time by
/// their sign bits (SSE's movemask, which every x86-64 CPU has and the AVX2
/// build encodes as AVX): the compare and movemask form, one code path for
/// both builds. Elsewhere the mask is built 32 lanes at a time in a `u32`,
/// an OR of shifted bits.
#[inline(always)]
fn mask_of<const W: usize>(f: impl Fn(usize) -> bool) -> u64 {
    const { assert!(W.is_multiple_of(32) && W <= 64) };
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_castsi128_ps, _mm_loadu_si128, _mm_movemask_ps};
        let mut mask = 0u64;
        for h in 0..W / 4 {
            let mut words = [0u32; 4];
            for (j, w) in words.iter_mut().enumerate() {
                *w = 0u32.wrapping_sub(f(h * 4 + j) as u32);
            }
            // SAFETY: SSE is part of x86-64, and `words` holds four `u32`s.
            let bits = unsafe {
                _mm_movemask_ps(_mm_castsi128_ps(_mm_loadu_si128(
                    words.as_ptr() as *const __m128i
                )))
            };
            mask |= u64::from(bits as u8) << (h * 4);
        }
        mask
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut mask = 0u64;
        for h in 0..W.div_ceil(32) {
            let mut half = 0u32;
            for j in 0..32 {
                half |= (f(h * 32 + j) as u32) << j;
            }
            mask |= (half as u64) << (h * 32);
        }
        mask
    }
}

/// Expands a mask into per-lane all-ones / zero words.
#[inline(always)]
pub(super) fn expand<const W: usize>(mask: u64, out: &mut [u32; W]) {
    for (h, chunk) in out.chunks_exact_mut(32).enumerate() {
        let half = (mask >> (h * 32)) as u32;
        for (j, o) in chunk.iter_mut().enumerate() {
            *o = 0u32.wrapping_sub((half >> j) & 1);
        }
    }
}

/// Writes `val` into the lanes of `dst` whose `lanes` word is all ones.
#[inline(always)]
pub(super) fn blend<const W: usize>(dst: &mut [u32; W], val: &[u32; W], lanes: &[u32; W]) {
    for l in 0..W {
        dst[l] = (val[l] & lanes[l]) | (dst[l] & !lanes[l]);
    }
}

/// `dst = op(a, b, c)` in the lanes whose `lanes` word is all ones, computed and
/// blended in one loop, straight into the destination register.
///
/// A source equal to the destination is passed as `A_DST` (`B_DST`, `C_DST`) and
/// read from `dst` itself (its slice argument is then ignored): each lane's old
/// value is read before it is written, so the loop needs no copy, and the borrow
/// rules prove the remaining sources distinct from `dst`, which lets it vectorize.
#[inline(always)]
fn fused<const W: usize, const A_DST: bool, const B_DST: bool, const C_DST: bool>(
    dst: &mut [u32; W],
    a: &[u32; W],
    b: &[u32; W],
    c: &[u32; W],
    lanes: &[u32; W],
    op: impl Fn(u32, u32, u32) -> u32,
) {
    for l in 0..W {
        let old = dst[l];
        let x = if A_DST { old } else { a[l] };
        let y = if B_DST { old } else { b[l] };
        let z = if C_DST { old } else { c[l] };
        dst[l] = (op(x, y, z) & lanes[l]) | (old & !lanes[l]);
    }
}

/// A vector source: lanes distinct from the destination, or the destination itself.
pub(super) enum Src<'a, const W: usize> {
    /// Lanes of another register or of a scratch array.
    Lanes(&'a [u32; W]),
    /// The destination register.
    Dst,
}

/// Lanes that are never read: the slice argument of a source passed as the destination.
static UNUSED: [u32; 64] = [0; 64];

fn unused<const W: usize>() -> &'static [u32; W] {
    const { assert!(W <= 64) };
    // SAFETY: `W <= 64`, so the first `W` elements of a `[u32; 64]` are a valid
    // `[u32; W]` (same alignment), borrowed for `'static` from a `static`.
    unsafe { &*(UNUSED.as_ptr() as *const [u32; W]) }
}

/// Calls [`fused`] with the aliasing pattern of three sources resolved at compile time.
#[inline(always)]
fn fused3<const W: usize>(
    dst: &mut [u32; W],
    srcs: [Src<'_, W>; 3],
    lanes: &[u32; W],
    op: impl Fn(u32, u32, u32) -> u32,
) {
    use Src::{Dst as D, Lanes as L};
    let u = unused::<W>();
    match srcs {
        [L(a), L(b), L(c)] => fused::<W, false, false, false>(dst, a, b, c, lanes, op),
        [D, L(b), L(c)] => fused::<W, true, false, false>(dst, u, b, c, lanes, op),
        [L(a), D, L(c)] => fused::<W, false, true, false>(dst, a, u, c, lanes, op),
        [L(a), L(b), D] => fused::<W, false, false, true>(dst, a, b, u, lanes, op),
        [D, D, L(c)] => fused::<W, true, true, false>(dst, u, u, c, lanes, op),
        [D, L(b), D] => fused::<W, true, false, true>(dst, u, b, u, lanes, op),
        [L(a), D, D] => fused::<W, false, true, true>(dst, a, u, u, lanes, op),
        [D, D, D] => fused::<W, true, true, true>(dst, u, u, u, lanes, op),
    }
}

/// Calls [`fused`] with the aliasing pattern of two sources resolved at compile time.
#[inline(always)]
fn fused2<const W: usize>(
    dst: &mut [u32; W],
    srcs: [Src<'_, W>; 2],
    lanes: &[u32; W],
    op: impl Fn(u32, u32) -> u32,
) {
    use Src::{Dst as D, Lanes as L};
    let u = unused::<W>();
    let op = |x, y, _| op(x, y);
    match srcs {
        [L(a), L(b)] => fused::<W, false, false, false>(dst, a, b, u, lanes, op),
        [D, L(b)] => fused::<W, true, false, false>(dst, u, b, u, lanes, op),
        [L(a), D] => fused::<W, false, true, false>(dst, a, u, u, lanes, op),
        [D, D] => fused::<W, true, true, false>(dst, u, u, u, lanes, op),
    }
}

/// `dst = op(a, b)` in the active lanes.
#[inline(always)]
pub(super) fn binary_into<const W: usize>(
    op: BinOp,
    dst: &mut [u32; W],
    srcs: [Src<'_, W>; 2],
    lanes: &[u32; W],
) {
    // A loop per operation the family table marks `Own`, one for all those
    // it marks `Shared` (a call per lane whatever the loop).
    macro_rules! each {
        ($($v:ident)*; $($shared:ident)*) => {
            match op {
                $(BinOp::$v => fused2(dst, srcs, lanes, |x, y| bin(BinOp::$v, x, y)),)*
                $(BinOp::$shared)|* => fused2(dst, srcs, lanes, |x, y| bin(op, x, y)),
            }
        };
    }
    simt_lang::for_each_bin_op!(lane_loops each)
}

/// Calls `$then!(own...; shared...)` with a family's operations
/// ([`simt_lang::isa`]'s family tables): those the table gives a lane loop of
/// their own, then those that share one.
macro_rules! lane_loops {
    ([$then:ident] $($rows:tt)*) => {
        lane_loops!(@split $then [] [] $($rows)*)
    };
    (@split $then:ident [$($own:ident)*] [$($shared:ident)*]) => {
        $then!($($own)*; $($shared)*)
    };
    (
        @split $then:ident [$($own:ident)*] $shared:tt
        $(#[doc = $d:literal])* $v:ident [$imm:ident, Own, $forms:ident] $($s:literal)|+ ,
        $($rest:tt)*
    ) => {
        lane_loops!(@split $then [$($own)* $v] $shared $($rest)*)
    };
    (
        @split $then:ident $own:tt [$($shared:ident)*]
        $(#[doc = $d:literal])* $v:ident [$imm:ident, Shared, $forms:ident] $($s:literal)|+ ,
        $($rest:tt)*
    ) => {
        lane_loops!(@split $then $own [$($shared)* $v] $($rest)*)
    };
}
use lane_loops;

/// `dst = op(a, b, c)` in the active lanes.
#[inline(always)]
pub(super) fn ternary_into<const W: usize>(
    op: TernOp,
    dst: &mut [u32; W],
    srcs: [Src<'_, W>; 3],
    lanes: &[u32; W],
) {
    macro_rules! each {
        ($($v:ident)*; $($shared:ident)*) => {
            match op {
                $(TernOp::$v => fused3(dst, srcs, lanes, |x, y, z| tern(TernOp::$v, x, y, z)),)*
                $(TernOp::$shared)|* => fused3(dst, srcs, lanes, |x, y, z| tern(op, x, y, z)),
            }
        };
    }
    simt_lang::for_each_tern_op!(lane_loops each)
}

/// `dst = op(a)` in the active lanes.
#[inline(always)]
pub(super) fn unary_into<const W: usize>(
    op: UnOp,
    dst: &mut [u32; W],
    src: Src<'_, W>,
    lanes: &[u32; W],
) {
    // As in `binary_into`.
    macro_rules! each {
        ($($v:ident)*; $($shared:ident)*) => {
            match op {
                $(UnOp::$v => fused2(dst, [src, Src::Lanes(unused())], lanes, |x, _| un(UnOp::$v, x)),)*
                $(UnOp::$shared)|* => fused2(dst, [src, Src::Lanes(unused())], lanes, |x, _| un(op, x)),
            }
        };
    }
    simt_lang::for_each_un_op!(lane_loops each)
}

/// `dst = sel ? t : e` in the active lanes, `sel` holding all-ones / zero words.
#[inline(always)]
pub(super) fn select_into<const W: usize>(
    dst: &mut [u32; W],
    t: Src<'_, W>,
    e: Src<'_, W>,
    sel: &[u32; W],
    lanes: &[u32; W],
) {
    fused3(dst, [t, e, Src::Lanes(sel)], lanes, |t, e, m| {
        (t & m) | (e & !m)
    });
}

/// Operations found by their `as u8` numbers in constant evaluation, and the
/// vector forms for one operation each, out of line: a native runner carries
/// an instruction's operation as a const generic and calls the one copy of
/// its loop that its crate holds per wave width, where inlining the vector
/// form into every step would compile the loops of every operation there
/// before the compiler could drop all but one.
///
/// A number that names no operation of its kind gives the kind's first: a
/// native step's arms for the other kinds are never run, but their constants
/// are evaluated with its number.
pub(super) mod by_number {
    use super::{binary_into, ternary_into, unary_into, vcmp, CmpRhs, Src};
    use crate::isa::{BinOp, CmpOp, CmpType, TernOp, UnOp};

    /// The [`BinOp`] numbered `n`.
    pub(in crate::exec) const fn bin_op(n: u8) -> BinOp {
        match BinOp::from_number(n) {
            Some(op) => op,
            None => BinOp::AddU32,
        }
    }

    /// The [`UnOp`] numbered `n`.
    pub(in crate::exec) const fn un_op(n: u8) -> UnOp {
        match UnOp::from_number(n) {
            Some(op) => op,
            None => UnOp::Mov,
        }
    }

    /// The [`TernOp`] numbered `n`.
    pub(in crate::exec) const fn tern_op(n: u8) -> TernOp {
        match TernOp::from_number(n) {
            Some(op) => op,
            None => TernOp::FmaF32,
        }
    }

    /// The number of a compare: its operation and its type in one byte.
    pub(in crate::exec) const fn cmp_number(op: CmpOp, ty: CmpType) -> u8 {
        op as u8 * 8 + ty as u8
    }

    /// The compare numbered `n` by [`cmp_number`].
    pub(in crate::exec) const fn cmp_of(n: u8) -> (CmpOp, CmpType) {
        macro_rules! find {
            ($($t:ident)*; $($o:ident)*) => {
                find!(@t [$($t)*] [$($o)*])
            };
            (@t [$($t:ident)*] $os:tt) => {{
                $(find!(@o $t $os);)*
                (CmpOp::Eq, CmpType::U32)
            }};
            (@o $t:ident [$($o:ident)*]) => {
                $(if n == cmp_number(CmpOp::$o, CmpType::$t) {
                    return (CmpOp::$o, CmpType::$t);
                })*
            };
        }
        super::cmp_kinds!(find)
    }

    /// [`binary_into`] for the operation numbered `OP`.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2, FMA, BMI1/2, LZCNT and POPCNT.
    #[inline(never)]
    #[cfg_attr(
        target_arch = "x86_64",
        target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
    )]
    pub(in crate::exec) unsafe fn binary<const W: usize, const OP: u8>(
        dst: &mut [u32; W],
        srcs: [Src<'_, W>; 2],
        lanes: &[u32; W],
    ) {
        binary_into(const { bin_op(OP) }, dst, srcs, lanes)
    }

    /// [`unary_into`] for the operation numbered `OP`.
    ///
    /// # Safety
    ///
    /// As [`binary`].
    #[inline(never)]
    #[cfg_attr(
        target_arch = "x86_64",
        target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
    )]
    pub(in crate::exec) unsafe fn unary<const W: usize, const OP: u8>(
        dst: &mut [u32; W],
        src: Src<'_, W>,
        lanes: &[u32; W],
    ) {
        unary_into(const { un_op(OP) }, dst, src, lanes)
    }

    /// [`ternary_into`] for the operation numbered `OP`.
    ///
    /// # Safety
    ///
    /// As [`binary`].
    #[inline(never)]
    #[cfg_attr(
        target_arch = "x86_64",
        target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
    )]
    pub(in crate::exec) unsafe fn ternary<const W: usize, const OP: u8>(
        dst: &mut [u32; W],
        srcs: [Src<'_, W>; 3],
        lanes: &[u32; W],
    ) {
        ternary_into(const { tern_op(OP) }, dst, srcs, lanes)
    }

    /// [`vcmp`] for the compare numbered `N` by [`cmp_number`].
    ///
    /// # Safety
    ///
    /// As [`binary`].
    #[inline(never)]
    #[cfg_attr(
        target_arch = "x86_64",
        target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
    )]
    pub(in crate::exec) unsafe fn compare<const W: usize, const N: u8>(
        a: &[u32; W],
        b: CmpRhs<'_, W>,
    ) -> u64 {
        let (op, ty) = const { cmp_of(N) };
        vcmp(op, ty, a, b)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Each operation's number finds it again through the lookups a
        /// native step makes in constant evaluation (for the ALU families,
        /// `from_number` of the family table; for compares, `cmp_of`), and no
        /// two compares share one: a native step runs the loop of the
        /// operation its number names.
        #[test]
        fn every_operation_is_found_by_its_number() {
            let mut seen = std::collections::BTreeSet::new();
            for &op in BinOp::ALL {
                assert_eq!(bin_op(op as u8), op);
            }
            for &op in UnOp::ALL {
                assert_eq!(un_op(op as u8), op);
            }
            for &op in TernOp::ALL {
                assert_eq!(tern_op(op as u8), op);
            }
            macro_rules! cmp {
                ($($t:ident)*; $($o:ident)*) => {
                    for ty in [$(CmpType::$t),*] {
                        for op in [$(CmpOp::$o),*] {
                            assert_eq!(cmp_of(cmp_number(op, ty)), (op, ty));
                            assert!(seen.insert(cmp_number(op, ty)));
                        }
                    }
                };
            }
            super::super::cmp_kinds!(cmp);
            assert_eq!(seen.len(), 5 * 6);
        }
    }
}
