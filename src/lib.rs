//! simt: GPU kernels written inline in Rust, run by a SIMT interpreter that counts
//! divergence, LDS bank conflicts and global memory coalescing.

pub use simt_core as core;
pub use simt_macros::simt_kernel;

/// Kernels given as text at run time, in the language of `simt_kernel!`, with
/// diagnostics rendered as rustc renders its own (the `text` feature: it
/// brings the front end, and syn, into the program).
#[cfg(feature = "text")]
pub use simt_front::{
    compile, compile_file, compile_file_with, compile_rust_file, Diagnostics, Help, Kind, Place,
    PlacedLabel, TextDiagnostic,
};

/// CUDA kernels as nvcc's PTX, run with every counter, sanitizer and
/// listing of simt's own kernels (the `ptx` feature: it brings the PTX
/// lowering, `simt-ptx`, into the program).
#[cfg(feature = "ptx")]
pub use ptx::{compile_cuda, compile_ptx, compile_ptx_with};

/// CUDA kernels through PTX: what lowers, what is refused and why, and a
/// worked example (the book's `docs/src/guide/cuda.md`; the `ptx` feature).
#[cfg(feature = "ptx")]
#[doc = include_str!("../docs/src/guide/cuda.md")]
pub mod ptx;

/// The kernel language, its operands and every instruction (the book's
/// chapters in `docs/src/language/`, one after another).
#[doc = include_str!("../docs/src/language/kernels.md")]
#[doc = include_str!("../docs/src/language/operands.md")]
#[doc = include_str!("../docs/src/language/printing.md")]
#[doc = include_str!("../docs/src/language/contracts.md")]
#[doc = include_str!("../docs/src/language/errors.md")]
#[doc = include_str!("../docs/src/language/instructions.md")]
pub mod language {}

/// The timing model: parts, what it models and leaves out, how it is checked
/// (the book's `docs/src/model/timing.md`).
#[doc = include_str!("../docs/src/model/timing.md")]
pub mod timing {}

/// The examples of the book's chapter on the counters
/// (`docs/src/model/counters.md`), run as this crate's doctests: the source
/// lines they name are those of the tests rustdoc makes of them here.
#[cfg(doctest)]
#[doc = include_str!("../docs/src/model/counters.md")]
pub struct CountersDoctests;

#[doc(hidden)]
pub mod __private {
    pub use simt_core::*;
    pub use std::borrow::Cow;
}
