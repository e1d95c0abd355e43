//! The simt kernel language, shared by the `simt_kernel!` macro and the
//! interpreter in `simt-core`:
//!
//! - [`isa`]: the instruction table and what is derived from it ([`Inst`], the
//!   mnemonics, the disassembler);
//! - [`ir`]: [`Program`] and its operands, plain data that fits in `static` tables;
//! - [`Kernel`], [`validate()`] and [`link`]: nesting, operand kinds, limits and
//!   uniformity checks, shared by the macro and run-time builders
//!   ([`ProgramBuilder`]); a [`Kernel`] is a program that passed them;
//! - [`facts`](mod@facts): what a kernel's memory accesses cost and whether they race,
//!   proved from the program for every launch;
//! - [`limits`]: the register and nesting limits every program obeys;
//! - [`Element`]: the Rust types a buffer parameter may hold;
//! - [`float16`]: how `f16` and `bf16` values are read, rounded and written.
#![deny(missing_docs)]

mod builder;
mod element;
pub mod facts;
pub mod float16;
pub mod ir;
pub mod isa;
pub mod limits;
mod validate;

/// The `half` crate, whose `f16` and `bf16` are the Rust types of
/// half-precision buffers.
pub use half;

pub use builder::{register_counts, ProgramBuilder};
pub use element::Element;
pub use facts::{facts, Facts};
pub use ir::*;
pub use isa::{
    Atomic64Op, AtomicOp, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, Inst, InstVisitor, MaskOp,
    NarrowOp, Opcode, ShuffleOp, Tern64Op, TernOp, Un64Op, UnOp, WaveOp, WidenOp, Width,
};
pub use validate::{
    link, uniformity, validate, wave_uniform, Kernel, Note, NoteKind, OperandAt, Part,
    UniformityInfo, ValidationError, ValidationErrorKind, ValidationErrors,
};
