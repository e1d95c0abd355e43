//! The instruction set: one table, and what is derived from it.
//!
//! - [`table`](self): every instruction with its fields, their roles, its unit and the
//!   uniformity of its result; generates [`Inst`] and [`Opcode`];
//! - [`Field`] and [`Role`]: uniform views of an instruction's fields, through
//!   which the validator, the uniformity analysis, the register counts, the
//!   macro and the disassembler read every instruction;
//! - `families`: one table per operation enum ([`BinOp`], ...), from
//!   which the enums, their immediate types, their mnemonics and the
//!   interpreter's lane loops are generated;
//! - [`MNEMONICS`]: how each instruction is spelled in the kernel language;
//! - `Display` for [`Inst`] and [`Program::display`](crate::Program::display):
//!   the disassembler.

mod display;
mod families;
mod field;
mod mnemonics;
mod ops;
mod table;

pub use display::{InstText, KernelText};
pub use field::{role, Field, Fields, FromField, IntoField, MemRef, Op, Role};
pub use mnemonics::{lookup, spelling, untyped, ImmType, Mnemonic, MNEMONICS};
pub use ops::{
    Atomic64Op, AtomicOp, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, MaskOp, NarrowOp, ShuffleOp,
    Tern64Op, TernOp, Un64Op, UnOp, WaveOp, WidenOp, Width,
};
pub use table::{Inst, InstVisitor, Opcode, Result as ResultLevel, Unit};
