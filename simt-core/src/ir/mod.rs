//! The intermediate representation: plain data, `static`-friendly.
//!
//! Decoding is kept apart from execution: the `simt_kernel!` macro (or a
//! [`ProgramBuilder`](crate::ProgramBuilder)) produces a [`Program`], [`link`](crate::link)
//! resolves its jump targets, [`validate`](crate::validate) checks it, and the
//! interpreter only ever reads it.

mod inst;
mod operand;
mod program;

pub use inst::{BinOp, CmpOp, CmpType, Inst, MaskOp, Reg, Sources, TernOp, UnOp};
pub use operand::{
    Addressing, Axis, ElemType, GlobalRef, InstIdx, LdsIdx, LdsRef, MReg, Operand, ParamIdx, SReg,
    ScalarType, Special, Uniformity, VReg,
};
pub use program::{LdsDecl, Param, ParamKind, Program, SourceLoc};
