//! The operations an instruction's mnemonic selects: fixed when the kernel is
//! written, never operands.

use serde::Serialize;

/// Generates an operation enum from its family table
/// ([`families`](super::families)): the enum, [`ALL`](BinOp::ALL) in table
/// order (which is the `as u8` numbering) and the operation of a number.
macro_rules! op_enum {
    (
        [$(#[doc = $edoc:literal])* $name:ident]
        $( $(#[doc = $doc:literal])* $v:ident [$($attr:ident),*] $($spell:literal)|+ ,)*
    ) => {
        $(#[doc = $edoc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum $name {$(
            $(#[doc = $doc])*
            $v,
        )*}

        impl $name {
            /// Every operation, in table order: `ALL[op as usize] == op`.
            pub const ALL: &'static [$name] = &[$($name::$v),*];

            /// The operation numbered `n` (`op as u8`), if there is one.
            pub const fn from_number(n: u8) -> Option<$name> {
                if (n as usize) < Self::ALL.len() {
                    Some(Self::ALL[n as usize])
                } else {
                    None
                }
            }
        }
    };
}

crate::for_each_bin_op! { op_enum
    /// A two-operand ALU operation on 32-bit values, shared by the vector and scalar ALUs.
    ///
    /// Integer operations wrap. Shift amounts are taken modulo 32. Division by zero is
    /// defined: `x / 0` is all ones for `u32` and `-1` for `i32`, `x % 0` is `x`;
    /// `i32::MIN / -1` is `i32::MIN` and `i32::MIN % -1` is `0`. `f32` operations follow
    /// IEEE-754 as Rust's `f32` does; `min`/`max` follow `f32::min`/`f32::max`.
    BinOp
}

crate::for_each_un_op! { op_enum
    /// A one-operand ALU operation, shared by the vector and scalar ALUs.
    UnOp
}

crate::for_each_tern_op! { op_enum
    /// A three-operand ALU operation, shared by the vector and scalar ALUs.
    TernOp
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

crate::for_each_atomic_op! { op_enum
    /// A read-modify-write operation of an atomic instruction on a 32-bit word.
    ///
    /// The word's old value is `old`, the instruction's value `v`; integer operations
    /// wrap. Within a wave, active lanes apply their updates in lane order, so a lane
    /// sees (and may return) the value the lanes below it left.
    AtomicOp
}

crate::for_each_atomic64_op! { op_enum
    /// A read-modify-write operation of an atomic instruction on a 64-bit
    /// element (a register pair per lane, low word first), as
    /// [`AtomicOp`] on words: integer operations wrap, lanes update in lane
    /// order.
    Atomic64Op
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

crate::for_each_bin64_op! { op_enum
    /// A two-operand ALU operation on 64-bit values, each held in a pair of
    /// vector registers (the low word in the first).
    ///
    /// Integer operations wrap; `f64` operations follow IEEE-754 as Rust's `f64`
    /// does, `min`/`max` as `f64::min`/`f64::max`.
    Bin64Op
}

crate::for_each_un64_op! { op_enum
    /// A one-operand ALU operation from a register pair to a register pair.
    Un64Op
}

crate::for_each_tern64_op! { op_enum
    /// A three-operand ALU operation on register pairs.
    Tern64Op
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

crate::for_each_widen_op! { op_enum
    /// A conversion from a 32-bit value to a register pair.
    WidenOp
}

crate::for_each_narrow_op! { op_enum
    /// A conversion from a register pair to a 32-bit value.
    NarrowOp
}
