//! The instruction set.

use super::operand::{ElemType, GlobalRef, InstIdx, LdsRef, MReg, Operand, SReg, VReg};
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
}

/// A three-operand vector ALU operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TernOp {
    /// `a * b + c` in `f32` with a single rounding (fused multiply-add).
    FmaF32,
    /// `a * b + c` on 32-bit integers, wrapping.
    MadU32,
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

/// One instruction of a [`Program`](crate::Program).
///
/// Vector instructions write only the lanes active in the exec mask; masked-off
/// lanes keep their values. Control-flow instructions carry their jump targets,
/// resolved when the program is linked ([`link`](crate::link)), so the interpreter
/// never searches for a matching `endif`. Before linking a target is
/// [`InstIdx::UNLINKED`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Inst {
    /// Vector ALU: `dst = op(a, b)` in each active lane.
    VBinary {
        /// The operation.
        op: BinOp,
        /// Destination register.
        dst: VReg,
        /// First source.
        a: Operand,
        /// Second source.
        b: Operand,
    },
    /// Vector ALU: `dst = op(a)` in each active lane.
    VUnary {
        /// The operation.
        op: UnOp,
        /// Destination register.
        dst: VReg,
        /// Source.
        a: Operand,
    },
    /// Vector ALU: `dst = a * b + c` in each active lane.
    VTernary {
        /// The operation.
        op: TernOp,
        /// Destination register.
        dst: VReg,
        /// Multiplicand.
        a: Operand,
        /// Multiplier.
        b: Operand,
        /// Addend.
        c: Operand,
    },
    /// Vector compare: bit `l` of `dst` is set to `a op b` for each active lane `l`;
    /// the bits of inactive lanes are kept.
    VCmp {
        /// The comparison.
        op: CmpOp,
        /// How the operands are read.
        ty: CmpType,
        /// Destination mask.
        dst: MReg,
        /// Left operand.
        a: Operand,
        /// Right operand.
        b: Operand,
    },
    /// Vector select (predication): `dst = mask ? on_true : on_false` in each active lane.
    VSelect {
        /// Destination register.
        dst: VReg,
        /// The mask choosing per lane.
        mask: MReg,
        /// Value for lanes whose mask bit is set.
        on_true: Operand,
        /// Value for lanes whose mask bit is clear.
        on_false: Operand,
    },
    /// Scalar ALU: `dst = op(a, b)`, once per wave. Sources must be wave-uniform.
    SBinary {
        /// The operation.
        op: BinOp,
        /// Destination register.
        dst: SReg,
        /// First source.
        a: Operand,
        /// Second source.
        b: Operand,
    },
    /// Scalar ALU: `dst = op(a)`, once per wave. The source must be wave-uniform.
    SUnary {
        /// The operation.
        op: UnOp,
        /// Destination register.
        dst: SReg,
        /// Source.
        a: Operand,
    },
    /// Scalar compare: every bit of `dst` is set to `a op b`. Sources must be wave-uniform.
    SCmp {
        /// The comparison.
        op: CmpOp,
        /// How the operands are read.
        ty: CmpType,
        /// Destination mask.
        dst: MReg,
        /// Left operand.
        a: Operand,
        /// Right operand.
        b: Operand,
    },
    /// Mask operation: `dst = op(a, b)` on all 64 bits.
    MaskBinary {
        /// The operation.
        op: MaskOp,
        /// Destination mask.
        dst: MReg,
        /// First source.
        a: MReg,
        /// Second source.
        b: MReg,
    },
    /// Mask complement: `dst = !a` on all 64 bits.
    MaskNot {
        /// Destination mask.
        dst: MReg,
        /// Source.
        a: MReg,
    },
    /// Global load into each active lane; sub-word types are extended to 32 bits.
    GlobalLoad {
        /// The access type (its size is the access width).
        ty: ElemType,
        /// Destination register.
        dst: VReg,
        /// Where to read.
        src: GlobalRef,
    },
    /// Global store from each active lane; sub-word types keep the low bits.
    GlobalStore {
        /// The access type (its size is the access width).
        ty: ElemType,
        /// Where to write; the buffer must be writable.
        dst: GlobalRef,
        /// The value to store.
        src: Operand,
    },
    /// LDS load into each active lane; sub-word types are extended to 32 bits.
    LdsLoad {
        /// The access type (its size is the access width).
        ty: ElemType,
        /// Destination register.
        dst: VReg,
        /// Where to read.
        src: LdsRef,
    },
    /// LDS store from each active lane; sub-word types keep the low bits.
    LdsStore {
        /// The access type (its size is the access width).
        ty: ElemType,
        /// Where to write.
        dst: LdsRef,
        /// The value to store.
        src: Operand,
    },
    /// Opens a conditional: pushes exec and narrows it to `exec & mask`. When no lane
    /// remains, the then-body is skipped and execution continues at `next`.
    If {
        /// The condition.
        mask: MReg,
        /// The matching `Else`, or the matching `EndIf` when there is no `Else`.
        next: InstIdx,
    },
    /// Switches to the lanes of the enclosing `If` whose mask bit was clear. When no
    /// lane remains, the else-body is skipped and execution continues at `end`.
    Else {
        /// The matching `EndIf`.
        end: InstIdx,
    },
    /// Closes a conditional: restores the exec saved by its `If`.
    EndIf,
    /// Opens a loop: pushes exec as the loop's entry mask.
    Loop {
        /// The matching `EndLoop`.
        end: InstIdx,
    },
    /// Closes a loop body. Lanes active in this iteration (or sent here by `Continue`)
    /// whose bit in `mask` is set run another iteration, from `start + 1`; when none
    /// remain, the entry mask is restored and execution continues after this instruction.
    EndLoop {
        /// The loop condition.
        mask: MReg,
        /// The matching `Loop`.
        start: InstIdx,
    },
    /// Active lanes whose bit in `mask` is set leave the innermost loop; they are
    /// restored when the loop exits.
    Break {
        /// The lanes that leave.
        mask: MReg,
        /// The `EndLoop` of the innermost loop.
        end: InstIdx,
    },
    /// Active lanes whose bit in `mask` is set skip the rest of this iteration of the
    /// innermost loop and rejoin at its `EndLoop`.
    Continue {
        /// The lanes that skip ahead.
        mask: MReg,
        /// The `EndLoop` of the innermost loop.
        end: InstIdx,
    },
    /// Workgroup barrier: the wave waits until every wave of its workgroup arrives.
    /// It must be reached with the wave's full launch mask.
    Barrier,
    /// Ends the wave.
    End,
}

impl InstIdx {
    /// The placeholder target of a control-flow instruction before linking.
    pub const UNLINKED: InstIdx = InstIdx(u32::MAX);
}

impl Inst {
    /// Whether the instruction runs on the vector units (ALU, compare, select, memory):
    /// the instructions counted by `vector_instructions`.
    pub const fn is_vector(&self) -> bool {
        matches!(
            self,
            Inst::VBinary { .. }
                | Inst::VUnary { .. }
                | Inst::VTernary { .. }
                | Inst::VCmp { .. }
                | Inst::VSelect { .. }
                | Inst::GlobalLoad { .. }
                | Inst::GlobalStore { .. }
                | Inst::LdsLoad { .. }
                | Inst::LdsStore { .. }
        )
    }
}

/// A register of any class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Reg {
    /// A vector register.
    V(VReg),
    /// A scalar register.
    S(SReg),
    /// A mask register.
    M(MReg),
}

/// What an instruction reads: up to three value operands (memory indices included)
/// and up to one mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    /// Value operands, in operand order; unused slots are `None`.
    pub values: [Option<Operand>; 3],
    /// Mask registers read (a select's mask, a condition, a mask op's sources).
    pub masks: [Option<MReg>; 2],
}

impl Inst {
    /// The register the instruction writes, if any.
    pub const fn written(&self) -> Option<Reg> {
        match *self {
            Inst::VBinary { dst, .. }
            | Inst::VUnary { dst, .. }
            | Inst::VTernary { dst, .. }
            | Inst::VSelect { dst, .. }
            | Inst::GlobalLoad { dst, .. }
            | Inst::LdsLoad { dst, .. } => Some(Reg::V(dst)),
            Inst::SBinary { dst, .. } | Inst::SUnary { dst, .. } => Some(Reg::S(dst)),
            Inst::VCmp { dst, .. }
            | Inst::SCmp { dst, .. }
            | Inst::MaskBinary { dst, .. }
            | Inst::MaskNot { dst, .. } => Some(Reg::M(dst)),
            _ => None,
        }
    }

    /// The operands the instruction reads.
    pub const fn sources(&self) -> Sources {
        let (values, masks) = match *self {
            Inst::VBinary { a, b, .. }
            | Inst::SBinary { a, b, .. }
            | Inst::VCmp { a, b, .. }
            | Inst::SCmp { a, b, .. } => ([Some(a), Some(b), None], [None, None]),
            Inst::VUnary { a, .. } | Inst::SUnary { a, .. } => {
                ([Some(a), None, None], [None, None])
            }
            Inst::VTernary { a, b, c, .. } => ([Some(a), Some(b), Some(c)], [None, None]),
            Inst::VSelect {
                mask,
                on_true,
                on_false,
                ..
            } => ([Some(on_true), Some(on_false), None], [Some(mask), None]),
            Inst::MaskBinary { a, b, .. } => ([None, None, None], [Some(a), Some(b)]),
            Inst::MaskNot { a, .. } => ([None, None, None], [Some(a), None]),
            Inst::GlobalLoad { src, .. } => ([Some(src.index), None, None], [None, None]),
            Inst::LdsLoad { src, .. } => ([Some(src.index), None, None], [None, None]),
            Inst::GlobalStore { dst, src, .. } => {
                ([Some(dst.index), Some(src), None], [None, None])
            }
            Inst::LdsStore { dst, src, .. } => ([Some(dst.index), Some(src), None], [None, None]),
            Inst::If { mask, .. }
            | Inst::EndLoop { mask, .. }
            | Inst::Break { mask, .. }
            | Inst::Continue { mask, .. } => ([None, None, None], [Some(mask), None]),
            Inst::Else { .. } | Inst::EndIf | Inst::Loop { .. } | Inst::Barrier | Inst::End => {
                ([None, None, None], [None, None])
            }
        };
        Sources { values, masks }
    }
}
