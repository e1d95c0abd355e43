//! The operations an instruction's mnemonic selects: fixed when the kernel is
//! written, never operands.

use serde::Serialize;

/// A two-operand ALU operation on 32-bit values, shared by the vector and scalar ALUs.
///
/// Integer operations wrap. Shift amounts are taken modulo 32. Division by zero is
/// defined: `x / 0` is all ones for `u32` and `-1` for `i32`, `x % 0` is `x`;
/// `i32::MIN / -1` is `i32::MIN` and `i32::MIN % -1` is `0`. `f32` operations follow
/// IEEE-754 as Rust's `f32` does; `min`/`max` follow `f32::min`/`f32::max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    /// Wrapping addition (the same bits for `u32` and `i32`).
    AddU32,
    /// Wrapping subtraction.
    SubU32,
    /// Wrapping multiplication, low 32 bits.
    MulU32,
    /// High 32 bits of the unsigned 64-bit product.
    MulHiU32,
    /// High 32 bits of the signed 64-bit product.
    MulHiI32,
    /// Unsigned division.
    DivU32,
    /// Signed division, rounding toward zero.
    DivI32,
    /// Unsigned remainder.
    RemU32,
    /// Signed remainder (sign of the dividend).
    RemI32,
    /// Unsigned minimum.
    MinU32,
    /// Signed minimum.
    MinI32,
    /// Unsigned maximum.
    MaxU32,
    /// Signed maximum.
    MaxI32,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Shift left.
    Shl,
    /// Logical shift right.
    ShrU32,
    /// Arithmetic shift right.
    ShrI32,
    /// `f32` addition.
    AddF32,
    /// `f32` subtraction.
    SubF32,
    /// `f32` multiplication.
    MulF32,
    /// `f32` division.
    DivF32,
    /// `f32` minimum.
    MinF32,
    /// `f32` maximum.
    MaxF32,
    /// `f16` addition (see [`half`](crate::half) for how half precision
    /// rounds).
    AddF16,
    /// `f16` subtraction.
    SubF16,
    /// `f16` multiplication.
    MulF16,
    /// `bf16` addition.
    AddBf16,
    /// `bf16` subtraction.
    SubBf16,
    /// `bf16` multiplication.
    MulBf16,
}

/// A one-operand ALU operation, shared by the vector and scalar ALUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    /// Copy the bits.
    Mov,
    /// Bitwise not.
    Not,
    /// Wrapping `i32` negation.
    NegI32,
    /// Wrapping `i32` absolute value (`i32::MIN` stays `i32::MIN`).
    AbsI32,
    /// `f32` negation (flips the sign bit).
    NegF32,
    /// `f32` absolute value (clears the sign bit).
    AbsF32,
    /// `f32` square root.
    SqrtF32,
    /// `u32` to `f32`, rounding to nearest.
    CvtF32U32,
    /// `i32` to `f32`, rounding to nearest.
    CvtF32I32,
    /// `f32` to `u32`, truncating and saturating (NaN gives 0), as Rust's `as`.
    CvtU32F32,
    /// `f32` to `i32`, truncating and saturating (NaN gives 0), as Rust's `as`.
    CvtI32F32,
    /// `f32` to `f16`, rounding to nearest even.
    CvtF16F32,
    /// `f16` to `f32` (exact).
    CvtF32F16,
    /// `f32` to `bf16`, rounding to nearest even.
    CvtBf16F32,
    /// `bf16` to `f32` (exact).
    CvtF32Bf16,
    /// `2^a` in `f32`, rounded to nearest (subnormal results kept, `2^-inf`
    /// is 0, NaN stays NaN). Hardware computes it approximately (PTX's
    /// `ex2.approx.f32` is within 2 ulp); simt's is the rounded exact value,
    /// so that results do not depend on one vendor's approximation.
    Exp2F32,
    /// The number of set bits.
    Popc,
    /// The number of leading zero bits (32 for 0).
    Clz,
    /// The bits in reverse order (bit 0 to bit 31).
    Brev,
}

/// A three-operand ALU operation, shared by the vector and scalar ALUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TernOp {
    /// `a * b + c` in `f32` with a single rounding (fused multiply-add).
    FmaF32,
    /// `a * b + c` on 32-bit integers, wrapping.
    MadU32,
    /// `a * b + c` in `f16` with a single rounding.
    FmaF16,
    /// `a * b + c` in `bf16` with a single rounding.
    FmaBf16,
    /// `a * b + c` in `f32` with a single rounding toward negative infinity
    /// (PTX's `fma.rm.f32`, which CUDA's `expf` uses to take a floor): the
    /// largest `f32` not above the exact result, `-inf` below `-f32::MAX`;
    /// an exact zero from operands of different signs is `-0.0`.
    FmaRmF32,
    /// `a * b + c` in `f32` with a single rounding toward zero (PTX's
    /// `.rz`): the `f32` of largest magnitude not beyond the exact result,
    /// `f32::MAX` for a larger finite one; an exact zero is `-0.0` only when
    /// both terms are `-0.0`. PTX's `add`, `sub` and `mul` with `.rz` are
    /// this with a factor of `1.0`, `-1.0`, or an addend of `-0.0`.
    FmaRzF32,
    /// `a * b + c` in `f32` with a single rounding toward positive infinity
    /// (PTX's `.rp`): the smallest `f32` not below the exact result
    /// (`-f32::MAX` for a finite one below it, `+inf` above `f32::MAX`); an
    /// exact zero is `-0.0` only when both terms are `-0.0`.
    FmaRpF32,
    /// `a * b - c` in `f32`, rounded once: a fused multiply-subtract (PTX's
    /// `fma` of a negated addend, into which ptxas folds the `neg`).
    FmsF32,
}

/// The type a comparison reads its operands as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CmpType {
    /// Unsigned 32-bit.
    U32,
    /// Signed 32-bit.
    I32,
    /// `f32`; every comparison with NaN is false except `Ne`.
    F32,
    /// `f16` in the low 16 bits; NaN as for `F32`.
    F16,
    /// `bf16` in the low 16 bits; NaN as for `F32`.
    Bf16,
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CmpOp {
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
}

/// A two-operand operation on mask registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum MaskOp {
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a & !b`.
    AndN,
    /// `a ^ b`.
    Xor,
}

/// A read-modify-write operation of an atomic instruction on a 32-bit word.
///
/// The word's old value is `old`, the instruction's value `v`; integer operations
/// wrap. Within a wave, active lanes apply their updates in lane order, so a lane
/// sees (and may return) the value the lanes below it left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum AtomicOp {
    /// `old + v`, wrapping (the same bits for `u32` and `i32`).
    AddU32,
    /// `old - v`, wrapping.
    SubU32,
    /// Unsigned minimum.
    MinU32,
    /// Signed minimum.
    MinI32,
    /// Unsigned maximum.
    MaxU32,
    /// Signed maximum.
    MaxI32,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// `v`: the old value is swapped out.
    Exchange,
    /// `old + v` in `f32`, rounded as Rust's `f32` addition.
    AddF32,
    /// `old >= v ? 0 : old + 1`, unsigned: a counter that wraps to 0 after
    /// reaching `v` (CUDA's `atomicInc`, PTX's `atom.inc.u32`).
    IncU32,
}

/// A read-modify-write operation of an atomic instruction on a 64-bit
/// element (a register pair per lane, low word first), as
/// [`AtomicOp`] on words: integer operations wrap, lanes update in lane
/// order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Atomic64Op {
    /// `old + v`, wrapping (the same bits for `u64` and `i64`).
    AddU64,
    /// `old + v` in `f64`, rounded as Rust's `f64` addition.
    AddF64,
    /// Unsigned minimum.
    MinU64,
    /// Signed minimum.
    MinI64,
    /// Unsigned maximum.
    MaxU64,
    /// Signed maximum.
    MaxI64,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// `v`: the old value is swapped out.
    Exchange,
}

/// Where a lane shuffle reads from: lane `l` of the destination takes `src` from
/// lane `f(l, n)`, where `n` is the instruction's lane operand.
///
/// A lane whose source lane is outside the wave or inactive keeps its own value
/// of `src` (as CUDA's `__shfl_*_sync` do for a source outside the segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ShuffleOp {
    /// Lane `n mod width` (an index per lane).
    Index,
    /// Lane `l ^ n`.
    Xor,
    /// Lane `l - n` (lanes below `n` keep their own value).
    Up,
    /// Lane `l + n` (lanes at `width - n` and above keep their own value).
    Down,
}

/// A wave operation that reads a mask across the wave and writes one scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum WaveOp {
    /// Bits 0..32 of `mask & exec`: which of lanes 0..32 are active with their bit set.
    BallotLo,
    /// Bits 32..64 of `mask & exec` (zero at wave32).
    BallotHi,
    /// The number of active lanes whose bit in `mask` is set.
    Count,
}

/// How many consecutive 32-bit elements a wide load or store moves per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Width {
    /// Two elements (a `float2`, `global_load_dwordx2`).
    X2,
    /// Four elements (a `float4`, `global_load_dwordx4`).
    X4,
}

impl Width {
    /// The number of elements (and registers) per lane.
    pub const fn count(self) -> u16 {
        match self {
            Width::X2 => 2,
            Width::X4 => 4,
        }
    }
}

/// A two-operand ALU operation on 64-bit values, each held in a pair of
/// vector registers (the low word in the first).
///
/// Integer operations wrap; `f64` operations follow IEEE-754 as Rust's `f64`
/// does, `min`/`max` as `f64::min`/`f64::max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Bin64Op {
    /// Wrapping addition (the same bits for `u64` and `i64`).
    AddU64,
    /// Wrapping subtraction.
    SubU64,
    /// Wrapping multiplication, low 64 bits.
    MulU64,
    /// Unsigned minimum.
    MinU64,
    /// Signed minimum.
    MinI64,
    /// Unsigned maximum.
    MaxU64,
    /// Signed maximum.
    MaxI64,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// `f64` addition.
    AddF64,
    /// `f64` subtraction.
    SubF64,
    /// `f64` multiplication.
    MulF64,
    /// `f64` division.
    DivF64,
    /// `f64` minimum.
    MinF64,
    /// `f64` maximum.
    MaxF64,
    /// `f64` division rounded toward zero (PTX's `div.rz.f64`).
    DivRzF64,
    /// `f64` division rounded down, toward negative infinity (`div.rm.f64`).
    DivRmF64,
    /// `f64` division rounded up, toward positive infinity (`div.rp.f64`).
    DivRpF64,
}

/// A one-operand ALU operation from a register pair to a register pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Un64Op {
    /// Copy the 64 bits.
    Mov,
    /// Wrapping `i64` negation.
    NegI64,
    /// `f64` negation (flips the sign bit).
    NegF64,
    /// `f64` absolute value (clears the sign bit).
    AbsF64,
    /// `f64` square root.
    SqrtF64,
    /// `u64` to `f64`, rounding to nearest even.
    CvtF64U64,
    /// `i64` to `f64`, rounding to nearest even.
    CvtF64I64,
    /// `f64` to `u64`, truncating and saturating (NaN gives 0), as Rust's `as`.
    CvtU64F64,
    /// `f64` to `i64`, truncating and saturating (NaN gives 0), as Rust's `as`.
    CvtI64F64,
    /// `f64` square root rounded toward zero (PTX's `sqrt.rz.f64`).
    SqrtRzF64,
    /// `f64` square root rounded down (`sqrt.rm.f64`).
    SqrtRmF64,
    /// `f64` square root rounded up (`sqrt.rp.f64`).
    SqrtRpF64,
    /// `i64` to `f64` rounded toward zero (PTX's `cvt.rz.f64.s64`).
    CvtRzF64I64,
    /// `i64` to `f64` rounded down (`cvt.rm.f64.s64`).
    CvtRmF64I64,
    /// `i64` to `f64` rounded up (`cvt.rp.f64.s64`).
    CvtRpF64I64,
    /// `u64` to `f64` rounded toward zero (`cvt.rz.f64.u64`).
    CvtRzF64U64,
    /// `u64` to `f64` rounded down (`cvt.rm.f64.u64`).
    CvtRmF64U64,
    /// `u64` to `f64` rounded up (`cvt.rp.f64.u64`).
    CvtRpF64U64,
    /// `f64` rounded to an integral `f64`, ties to even (`cvt.rni.f64.f64`,
    /// `rint`); zeros and infinities as they are, a NaN (here and in the
    /// three below) the quiet NaN `0x7ff8_0000_0000_0000`.
    RndneF64,
    /// `f64` rounded toward zero to an integral `f64` (`cvt.rzi.f64.f64`,
    /// `trunc`).
    TruncF64,
    /// `f64` rounded down to an integral `f64` (`cvt.rmi.f64.f64`, `floor`).
    FloorF64,
    /// `f64` rounded up to an integral `f64` (`cvt.rpi.f64.f64`, `ceil`); a
    /// negative operand above -1 gives -0.
    CeilF64,
}

/// A three-operand ALU operation on register pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Tern64Op {
    /// `a * b + c` in `f64` with a single rounding (fused multiply-add).
    FmaF64,
    /// `a * b + c` on 64-bit integers, wrapping.
    MadU64,
    /// `a * b + c` in `f64` rounded once toward zero (PTX's `fma.rz.f64`;
    /// with `b = 1` an `add.rz.f64`).
    FmaRzF64,
    /// `a * b + c` in `f64` rounded once down (`fma.rm.f64`).
    FmaRmF64,
    /// `a * b + c` in `f64` rounded once up (`fma.rp.f64`).
    FmaRpF64,
}

/// The type a 64-bit comparison reads its register pairs as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Cmp64Type {
    /// Unsigned 64-bit.
    U64,
    /// Signed 64-bit.
    I64,
    /// `f64`; every comparison with NaN is false except `Ne`.
    F64,
}

/// A conversion from a 32-bit value to a register pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum WidenOp {
    /// `f32` to `f64` (exact).
    CvtF64F32,
    /// `u32` to `f64` (exact).
    CvtF64U32,
    /// `i32` to `f64` (exact).
    CvtF64I32,
    /// `u32` to `u64`: zero-extends.
    CvtU64U32,
    /// `i32` to `i64`: sign-extends.
    CvtI64I32,
}

/// A conversion from a register pair to a 32-bit value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum NarrowOp {
    /// `f64` to `f32`, rounding to nearest even.
    CvtF32F64,
    /// `f64` to `f32`, rounding toward zero (PTX's `cvt.rz.f32.f64`; with
    /// an exact `f64` operation first, PTX's `div`, `rcp` and `sqrt` with
    /// `.rz` on `f32`, whose `f64` results never fall on an `f32`
    /// unless exact).
    CvtRzF32F64,
    /// `f64` to `f32`, rounding toward negative infinity.
    CvtRmF32F64,
    /// `f64` to `f32`, rounding toward positive infinity.
    CvtRpF32F64,
    /// `f64` to `u32`, truncating and saturating (NaN gives 0), as Rust's `as`.
    CvtU32F64,
    /// `f64` to `i32`, truncating and saturating (NaN gives 0), as Rust's `as`.
    CvtI32F64,
    /// The low 32 bits of a 64-bit integer (`u64` or `i64` to 32 bits).
    CvtU32U64,
    /// `f64` to `f16` (in the low 16 bits), rounding to nearest even
    /// (`cvt.rn.f16.f64`): one rounding, where going through `f32` would
    /// round twice.
    CvtF16F64,
    /// `f64` to `f16`, rounding toward zero (the largest finite `f16`
    /// beyond it).
    CvtRzF16F64,
    /// `f64` to `f16`, rounding toward negative infinity.
    CvtRmF16F64,
    /// `f64` to `f16`, rounding toward positive infinity.
    CvtRpF16F64,
    /// `f64` to `bf16` (in the low 16 bits), rounding to nearest even.
    CvtBf16F64,
    /// `f64` to `bf16`, rounding toward zero.
    CvtRzBf16F64,
    /// `f64` to `bf16`, rounding toward negative infinity.
    CvtRmBf16F64,
    /// `f64` to `bf16`, rounding toward positive infinity.
    CvtRpBf16F64,
}
