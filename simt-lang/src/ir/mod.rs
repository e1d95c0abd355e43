//! Programs as plain data, `static`-friendly: operands, registers, parameters,
//! LDS declarations and source locations. The instructions themselves are
//! described by the table in [`isa`](crate::isa).
//!
//! Decoding is kept apart from execution: the `simt_kernel!` macro (or a
//! [`ProgramBuilder`](crate::ProgramBuilder)) produces a [`Program`], [`link`](crate::link)
//! resolves its jump targets, [`Kernel::new`](crate::Kernel::new) validates it,
//! and the interpreter only ever reads it.

mod blocks;
mod operand;
mod print;
mod program;

pub use blocks::{straight_blocks, BLOCK_CHUNK};
pub use operand::{
    Addressing, Axis, ElemType, GlobalRef, InstIdx, LdsIdx, LdsRef, MReg, Operand, ParamIdx, Reg,
    SReg, ScalarType, Space, Special, Uniformity, VReg,
};
pub use print::{
    format_values, parse_format, render, FormatError, Piece, Placeholder, PrintFormat,
    MAX_PRINT_VALUES,
};
pub use program::{LdsDecl, Param, ParamKind, Program, RaceFree, RegName, SourceLoc};
