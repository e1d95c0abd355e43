//! The SIMT machine behind `simt`.
//!
//! - [`ir`]: the instruction set and [`Program`], plain data that fits in `static` tables;
//! - [`validate()`] and [`link`]: nesting, operand kinds, limits and uniformity checks,
//!   shared by the `simt_kernel!` macro and run-time builders ([`ProgramBuilder`]);
//! - [`launch()`]: the interpreter, with waves in lockstep under an exec mask, a
//!   divergence stack, workgroups and barriers;
//! - [`Stats`]: exact counters of divergence, LDS bank conflicts and global
//!   coalescing under a [`MemoryModel`], per launch and per instruction.
#![deny(missing_docs)]

mod builder;
mod cache;
mod error;
mod exec;
pub mod ir;
mod launch;
pub mod limits;
mod model;
mod stats;
mod validate;

pub use builder::{register_counts, ProgramBuilder};
pub use cache::{
    CacheGeometry, DramSectors, Lookup, SectoredCache, MAX_CACHE_LINES, MAX_SECTORS_PER_LINE,
};
pub use error::{Error, Fault, FaultKind, LaunchError, LaunchErrorKind};
pub use exec::{launch, Machine};
pub use ir::*;
pub use launch::{Arg, Dim3, Element, LaunchConfig};
pub use model::MemoryModel;
pub use stats::{Counters, Stats};
pub use validate::{
    link, uniformity, validate, Note, UniformityInfo, ValidationError, ValidationErrorKind,
    ValidationErrors,
};
