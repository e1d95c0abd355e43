//! The operation families: one table per operation enum, each row an
//! operation with its doc, its attributes and the mnemonic suffixes that
//! spell it (the first is the one the disassembler prints).
//!
//! Each table is a callback macro, as the instruction table is: it calls
//! `$then! { [$($pre)*] rows }`, so one table generates the enum and its
//! numbering ([`ops`](super::ops)), the immediate types and the mnemonic rows
//! ([`mnemonics`](super::mnemonics)) and the interpreter's lane loops. A row is
//!
//! ```text
//! /// What it computes.
//! Variant [attributes] "suffix" | "synonym",
//! ```
//!
//! with the attributes, where a family has them:
//! - the immediate type ([`ImmType`](super::ImmType)) a value operand's
//!   literal is read as;
//! - the lane loop: `Own` for an operation the interpreter runs in a loop
//!   of its own, `Shared` for one that shares a loop with the others of its
//!   family (a half-precision or directed rounding, `2^x`: a call per lane
//!   whatever the loop, where a loop each would only lengthen the build);
//! - the forms: `Both` for an operation with a vector and a scalar
//!   instruction, `Vector` for a vector one alone.
//!
//! Adding an operation of an existing shape: a row here, its semantics in
//! `simt-core`'s ALU and in `simt-oracle`, its tests, and its row in the
//! book's instruction reference (which is tested against the mnemonics).

/// The rows of [`BinOp`](crate::isa::BinOp): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_bin_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// Wrapping addition (the same bits for `u32` and `i32`).
            AddU32 [Int, Own, Both] "add_u32" | "add_i32",
            /// Wrapping subtraction.
            SubU32 [Int, Own, Both] "sub_u32" | "sub_i32",
            /// Wrapping multiplication, low 32 bits.
            MulU32 [Int, Own, Both] "mul_u32" | "mul_i32",
            /// High 32 bits of the unsigned 64-bit product.
            MulHiU32 [Int, Own, Both] "mul_hi_u32",
            /// High 32 bits of the signed 64-bit product.
            MulHiI32 [Int, Own, Both] "mul_hi_i32",
            /// Unsigned division.
            DivU32 [Int, Own, Both] "div_u32",
            /// Signed division, rounding toward zero.
            DivI32 [Int, Own, Both] "div_i32",
            /// Unsigned remainder.
            RemU32 [Int, Own, Both] "rem_u32",
            /// Signed remainder (sign of the dividend).
            RemI32 [Int, Own, Both] "rem_i32",
            /// Unsigned minimum.
            MinU32 [Int, Own, Both] "min_u32",
            /// Signed minimum.
            MinI32 [Int, Own, Both] "min_i32",
            /// Unsigned maximum.
            MaxU32 [Int, Own, Both] "max_u32",
            /// Signed maximum.
            MaxI32 [Int, Own, Both] "max_i32",
            /// Bitwise and.
            And [Int, Own, Both] "and",
            /// Bitwise or.
            Or [Int, Own, Both] "or",
            /// Bitwise exclusive or.
            Xor [Int, Own, Both] "xor",
            /// Shift left.
            Shl [Int, Own, Both] "shl",
            /// Logical shift right.
            ShrU32 [Int, Own, Both] "shr_u32",
            /// Arithmetic shift right.
            ShrI32 [Int, Own, Both] "shr_i32",
            /// `f32` addition.
            AddF32 [F32, Own, Both] "add_f32",
            /// `f32` subtraction.
            SubF32 [F32, Own, Both] "sub_f32",
            /// `f32` multiplication.
            MulF32 [F32, Own, Both] "mul_f32",
            /// `f32` division.
            DivF32 [F32, Own, Both] "div_f32",
            /// `f32` minimum.
            MinF32 [F32, Own, Both] "min_f32",
            /// `f32` maximum.
            MaxF32 [F32, Own, Both] "max_f32",
            /// `f16` addition (see [`half`](crate::half) for how half precision
            /// rounds).
            AddF16 [F16, Shared, Vector] "add_f16",
            /// `f16` subtraction.
            SubF16 [F16, Shared, Vector] "sub_f16",
            /// `f16` multiplication.
            MulF16 [F16, Shared, Vector] "mul_f16",
            /// `bf16` addition.
            AddBf16 [Bf16, Shared, Vector] "add_bf16",
            /// `bf16` subtraction.
            SubBf16 [Bf16, Shared, Vector] "sub_bf16",
            /// `bf16` multiplication.
            MulBf16 [Bf16, Shared, Vector] "mul_bf16",
        }
    };
}

/// The rows of [`UnOp`](crate::isa::UnOp): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_un_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// Copy the bits.
            Mov [Bits, Own, Both] "mov",
            /// Bitwise not.
            Not [Int, Own, Both] "not",
            /// Wrapping `i32` negation.
            NegI32 [Int, Own, Both] "neg_i32",
            /// Wrapping `i32` absolute value (`i32::MIN` stays `i32::MIN`).
            AbsI32 [Int, Own, Both] "abs_i32",
            /// `f32` negation (flips the sign bit).
            NegF32 [F32, Own, Both] "neg_f32",
            /// `f32` absolute value (clears the sign bit).
            AbsF32 [F32, Own, Both] "abs_f32",
            /// `f32` square root.
            SqrtF32 [F32, Own, Both] "sqrt_f32",
            /// `u32` to `f32`, rounding to nearest.
            CvtF32U32 [Int, Own, Both] "cvt_f32_u32",
            /// `i32` to `f32`, rounding to nearest.
            CvtF32I32 [Int, Own, Both] "cvt_f32_i32",
            /// `f32` to `u32`, truncating and saturating (NaN gives 0), as Rust's `as`.
            CvtU32F32 [F32, Own, Both] "cvt_u32_f32",
            /// `f32` to `i32`, truncating and saturating (NaN gives 0), as Rust's `as`.
            CvtI32F32 [F32, Own, Both] "cvt_i32_f32",
            /// `f32` to `f16`, rounding to nearest even.
            CvtF16F32 [F32, Shared, Vector] "cvt_f16_f32",
            /// `f16` to `f32` (exact).
            CvtF32F16 [F16, Shared, Vector] "cvt_f32_f16",
            /// `f32` to `bf16`, rounding to nearest even.
            CvtBf16F32 [F32, Shared, Vector] "cvt_bf16_f32",
            /// `bf16` to `f32` (exact).
            CvtF32Bf16 [Bf16, Shared, Vector] "cvt_f32_bf16",
            /// `2^a` in `f32`, rounded to nearest (subnormal results kept, `2^-inf`
            /// is 0, NaN stays NaN). Hardware computes it approximately (PTX's
            /// `ex2.approx.f32` is within 2 ulp); simt's is the rounded exact value,
            /// so that results do not depend on one vendor's approximation.
            Exp2F32 [F32, Shared, Vector] "exp2_f32",
            /// The number of set bits.
            Popc [Int, Own, Vector] "popc",
            /// The number of leading zero bits (32 for 0).
            Clz [Int, Own, Vector] "clz",
            /// The bits in reverse order (bit 0 to bit 31).
            Brev [Int, Own, Vector] "brev",
        }
    };
}

/// The rows of [`TernOp`](crate::isa::TernOp): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_tern_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// `a * b + c` in `f32` with a single rounding (fused multiply-add).
            FmaF32 [F32, Own, Both] "fma_f32",
            /// `a * b + c` on 32-bit integers, wrapping.
            MadU32 [Int, Own, Both] "mad_u32" | "mad_i32",
            /// `a * b + c` in `f16` with a single rounding.
            FmaF16 [F16, Shared, Vector] "fma_f16",
            /// `a * b + c` in `bf16` with a single rounding.
            FmaBf16 [Bf16, Shared, Vector] "fma_bf16",
            /// `a * b + c` in `f32` with a single rounding toward negative infinity
            /// (PTX's `fma.rm.f32`, which CUDA's `expf` uses to take a floor): the
            /// largest `f32` not above the exact result, `-inf` below `-f32::MAX`;
            /// an exact zero from operands of different signs is `-0.0`.
            FmaRmF32 [F32, Shared, Vector] "fma_rm_f32",
            /// `a * b + c` in `f32` with a single rounding toward zero (PTX's
            /// `.rz`): the `f32` of largest magnitude not beyond the exact result,
            /// `f32::MAX` for a larger finite one; an exact zero is `-0.0` only when
            /// both terms are `-0.0`. PTX's `add`, `sub` and `mul` with `.rz` are
            /// this with a factor of `1.0`, `-1.0`, or an addend of `-0.0`.
            FmaRzF32 [F32, Shared, Vector] "fma_rz_f32",
            /// `a * b + c` in `f32` with a single rounding toward positive infinity
            /// (PTX's `.rp`): the smallest `f32` not below the exact result
            /// (`-f32::MAX` for a finite one below it, `+inf` above `f32::MAX`); an
            /// exact zero is `-0.0` only when both terms are `-0.0`.
            FmaRpF32 [F32, Shared, Vector] "fma_rp_f32",
            /// `a * b - c` in `f32`, rounded once: a fused multiply-subtract (PTX's
            /// `fma` of a negated addend, into which ptxas folds the `neg`).
            FmsF32 [F32, Shared, Vector] "fms_f32",
        }
    };
}

/// The rows of [`Bin64Op`](crate::isa::Bin64Op): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_bin64_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// Wrapping addition (the same bits for `u64` and `i64`).
            AddU64 [] "add_u64" | "add_i64",
            /// Wrapping subtraction.
            SubU64 [] "sub_u64" | "sub_i64",
            /// Wrapping multiplication, low 64 bits.
            MulU64 [] "mul_u64" | "mul_i64",
            /// Unsigned minimum.
            MinU64 [] "min_u64",
            /// Signed minimum.
            MinI64 [] "min_i64",
            /// Unsigned maximum.
            MaxU64 [] "max_u64",
            /// Signed maximum.
            MaxI64 [] "max_i64",
            /// Bitwise and.
            And [] "and_b64",
            /// Bitwise or.
            Or [] "or_b64",
            /// Bitwise exclusive or.
            Xor [] "xor_b64",
            /// `f64` addition.
            AddF64 [] "add_f64",
            /// `f64` subtraction.
            SubF64 [] "sub_f64",
            /// `f64` multiplication.
            MulF64 [] "mul_f64",
            /// `f64` division.
            DivF64 [] "div_f64",
            /// `f64` division rounded toward zero (PTX's `div.rz.f64`).
            DivRzF64 [] "div_rz_f64",
            /// `f64` division rounded down, toward negative infinity (`div.rm.f64`).
            DivRmF64 [] "div_rm_f64",
            /// `f64` division rounded up, toward positive infinity (`div.rp.f64`).
            DivRpF64 [] "div_rp_f64",
            /// `f64` minimum.
            MinF64 [] "min_f64",
            /// `f64` maximum.
            MaxF64 [] "max_f64",
        }
    };
}

/// The rows of [`Un64Op`](crate::isa::Un64Op): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_un64_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// Copy the 64 bits.
            Mov [] "mov_b64",
            /// Wrapping `i64` negation.
            NegI64 [] "neg_i64",
            /// `f64` negation (flips the sign bit).
            NegF64 [] "neg_f64",
            /// `f64` absolute value (clears the sign bit).
            AbsF64 [] "abs_f64",
            /// `f64` square root.
            SqrtF64 [] "sqrt_f64",
            /// `f64` square root rounded toward zero (PTX's `sqrt.rz.f64`).
            SqrtRzF64 [] "sqrt_rz_f64",
            /// `f64` square root rounded down (`sqrt.rm.f64`).
            SqrtRmF64 [] "sqrt_rm_f64",
            /// `f64` square root rounded up (`sqrt.rp.f64`).
            SqrtRpF64 [] "sqrt_rp_f64",
            /// `u64` to `f64`, rounding to nearest even.
            CvtF64U64 [] "cvt_f64_u64",
            /// `i64` to `f64`, rounding to nearest even.
            CvtF64I64 [] "cvt_f64_i64",
            /// `i64` to `f64` rounded toward zero (PTX's `cvt.rz.f64.s64`).
            CvtRzF64I64 [] "cvt_rz_f64_i64",
            /// `i64` to `f64` rounded down (`cvt.rm.f64.s64`).
            CvtRmF64I64 [] "cvt_rm_f64_i64",
            /// `i64` to `f64` rounded up (`cvt.rp.f64.s64`).
            CvtRpF64I64 [] "cvt_rp_f64_i64",
            /// `u64` to `f64` rounded toward zero (`cvt.rz.f64.u64`).
            CvtRzF64U64 [] "cvt_rz_f64_u64",
            /// `u64` to `f64` rounded down (`cvt.rm.f64.u64`).
            CvtRmF64U64 [] "cvt_rm_f64_u64",
            /// `u64` to `f64` rounded up (`cvt.rp.f64.u64`).
            CvtRpF64U64 [] "cvt_rp_f64_u64",
            /// `f64` to `u64`, truncating and saturating (NaN gives 0), as Rust's `as`.
            CvtU64F64 [] "cvt_u64_f64",
            /// `f64` to `i64`, truncating and saturating (NaN gives 0), as Rust's `as`.
            CvtI64F64 [] "cvt_i64_f64",
            /// `f64` rounded to an integral `f64`, ties to even (`cvt.rni.f64.f64`,
            /// `rint`); zeros and infinities as they are, a NaN (here and in the
            /// three below) the quiet NaN `0x7ff8_0000_0000_0000`.
            RndneF64 [] "rndne_f64",
            /// `f64` rounded toward zero to an integral `f64` (`cvt.rzi.f64.f64`,
            /// `trunc`).
            TruncF64 [] "trunc_f64",
            /// `f64` rounded down to an integral `f64` (`cvt.rmi.f64.f64`, `floor`).
            FloorF64 [] "floor_f64",
            /// `f64` rounded up to an integral `f64` (`cvt.rpi.f64.f64`, `ceil`); a
            /// negative operand above -1 gives -0.
            CeilF64 [] "ceil_f64",
        }
    };
}

/// The rows of [`Tern64Op`](crate::isa::Tern64Op): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_tern64_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// `a * b + c` in `f64` with a single rounding (fused multiply-add).
            FmaF64 [] "fma_f64",
            /// `a * b + c` in `f64` rounded once toward zero (PTX's `fma.rz.f64`;
            /// with `b = 1` an `add.rz.f64`).
            FmaRzF64 [] "fma_rz_f64",
            /// `a * b + c` in `f64` rounded once down (`fma.rm.f64`).
            FmaRmF64 [] "fma_rm_f64",
            /// `a * b + c` in `f64` rounded once up (`fma.rp.f64`).
            FmaRpF64 [] "fma_rp_f64",
            /// `a * b + c` on 64-bit integers, wrapping.
            MadU64 [] "mad_u64" | "mad_i64",
        }
    };
}

/// The rows of [`WidenOp`](crate::isa::WidenOp): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_widen_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// `f32` to `f64` (exact).
            CvtF64F32 [F32] "cvt_f64_f32",
            /// `u32` to `f64` (exact).
            CvtF64U32 [Int] "cvt_f64_u32",
            /// `i32` to `f64` (exact).
            CvtF64I32 [Int] "cvt_f64_i32",
            /// `u32` to `u64`: zero-extends.
            CvtU64U32 [Int] "cvt_u64_u32",
            /// `i32` to `i64`: sign-extends.
            CvtI64I32 [Int] "cvt_i64_i32",
        }
    };
}

/// The rows of [`NarrowOp`](crate::isa::NarrowOp): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_narrow_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// `f64` to `f32`, rounding to nearest even.
            CvtF32F64 [] "cvt_f32_f64",
            /// `f64` to `f32`, rounding toward zero (PTX's `cvt.rz.f32.f64`; with
            /// an exact `f64` operation first, PTX's `div`, `rcp` and `sqrt` with
            /// `.rz` on `f32`, whose `f64` results never fall on an `f32`
            /// unless exact).
            CvtRzF32F64 [] "cvt_rz_f32_f64",
            /// `f64` to `f32`, rounding toward negative infinity.
            CvtRmF32F64 [] "cvt_rm_f32_f64",
            /// `f64` to `f32`, rounding toward positive infinity.
            CvtRpF32F64 [] "cvt_rp_f32_f64",
            /// `f64` to `f16` (in the low 16 bits), rounding to nearest even
            /// (`cvt.rn.f16.f64`): one rounding, where going through `f32` would
            /// round twice.
            CvtF16F64 [] "cvt_f16_f64",
            /// `f64` to `f16`, rounding toward zero (the largest finite `f16`
            /// beyond it).
            CvtRzF16F64 [] "cvt_rz_f16_f64",
            /// `f64` to `f16`, rounding toward negative infinity.
            CvtRmF16F64 [] "cvt_rm_f16_f64",
            /// `f64` to `f16`, rounding toward positive infinity.
            CvtRpF16F64 [] "cvt_rp_f16_f64",
            /// `f64` to `bf16` (in the low 16 bits), rounding to nearest even.
            CvtBf16F64 [] "cvt_bf16_f64",
            /// `f64` to `bf16`, rounding toward zero.
            CvtRzBf16F64 [] "cvt_rz_bf16_f64",
            /// `f64` to `bf16`, rounding toward negative infinity.
            CvtRmBf16F64 [] "cvt_rm_bf16_f64",
            /// `f64` to `bf16`, rounding toward positive infinity.
            CvtRpBf16F64 [] "cvt_rp_bf16_f64",
            /// `f64` to `u32`, truncating and saturating (NaN gives 0), as Rust's `as`.
            CvtU32F64 [] "cvt_u32_f64",
            /// `f64` to `i32`, truncating and saturating (NaN gives 0), as Rust's `as`.
            CvtI32F64 [] "cvt_i32_f64",
            /// The low 32 bits of a 64-bit integer (`u64` or `i64` to 32 bits).
            CvtU32U64 [] "cvt_u32_u64" | "cvt_i32_i64",
        }
    };
}

/// The rows of [`AtomicOp`](crate::isa::AtomicOp): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_atomic_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// `old + v`, wrapping (the same bits for `u32` and `i32`).
            AddU32 [Int] "add_u32" | "add_i32",
            /// `old - v`, wrapping.
            SubU32 [Int] "sub_u32" | "sub_i32",
            /// Unsigned minimum.
            MinU32 [Int] "min_u32",
            /// Signed minimum.
            MinI32 [Int] "min_i32",
            /// Unsigned maximum.
            MaxU32 [Int] "max_u32",
            /// Signed maximum.
            MaxI32 [Int] "max_i32",
            /// Bitwise and.
            And [Int] "and",
            /// Bitwise or.
            Or [Int] "or",
            /// Bitwise exclusive or.
            Xor [Int] "xor",
            /// `v`: the old value is swapped out.
            Exchange [Access] "xchg",
            /// `old >= v ? 0 : old + 1`, unsigned: a counter that wraps to 0 after
            /// reaching `v` (CUDA's `atomicInc`, PTX's `atom.inc.u32`).
            IncU32 [Int] "inc_u32",
            /// `old + v` in `f32`, rounded as Rust's `f32` addition.
            AddF32 [F32] "add_f32",
        }
    };
}

/// The rows of [`Atomic64Op`](crate::isa::Atomic64Op): calls `$then! { [$($pre)*] rows }`.
#[macro_export]
macro_rules! for_each_atomic64_op {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
            /// `old + v`, wrapping (the same bits for `u64` and `i64`).
            AddU64 [] "add_u64" | "add_i64",
            /// `old + v` in `f64`, rounded as Rust's `f64` addition.
            AddF64 [] "add_f64",
            /// Unsigned minimum.
            MinU64 [] "min_u64",
            /// Signed minimum.
            MinI64 [] "min_i64",
            /// Unsigned maximum.
            MaxU64 [] "max_u64",
            /// Signed maximum.
            MaxI64 [] "max_i64",
            /// Bitwise and.
            And [] "and_b64",
            /// Bitwise or.
            Or [] "or_b64",
            /// Bitwise exclusive or.
            Xor [] "xor_b64",
            /// `v`: the old value is swapped out.
            Exchange [] "xchg_b64",
        }
    };
}
