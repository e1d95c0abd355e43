//! The SIMT machine behind `simt`.
//!
//! - [`isa`]: the instruction table and what is derived from it ([`Inst`], the
//!   mnemonics, the disassembler);
//! - [`ir`]: [`Program`] and its operands, plain data that fits in `static` tables;
//! - [`Kernel`], [`validate()`] and [`link`]: nesting, operand kinds, limits and
//!   uniformity checks, shared by the `simt_kernel!` macro and run-time builders
//!   ([`ProgramBuilder`]); a [`Kernel`] is a program that passed them;
//! - [`launch()`]: the interpreter, with waves in lockstep under an exec mask, a
//!   divergence stack, workgroups and barriers;
//! - [`Stats`]: exact counters of divergence, LDS bank conflicts and global
//!   coalescing under a [`MemoryModel`], per launch and per instruction;
//!   [`Stats::listing`] joins them with the program per source line and explains
//!   the costliest lines, [`Stats::snapshot`] is their compact form for snapshot
//!   tests, and a launch can record each memory instruction's costliest phase
//!   ([`WorstPhase`]) and one workgroup's issues ([`Trace`]) when asked;
//! - [`occupancy()`]: theoretical occupancy of a kernel's registers and LDS on a
//!   [`Hardware`] description;
//! - [`Part`] and [`Timing`]: a GPU's figures, and a timed launch's estimate of
//!   its cycles, its limiter and where its waves waited.
#![deny(missing_docs)]

pub use simt_lang::{facts, float16, half, ir, isa, limits};

mod args;
mod cache;
mod error;
mod exec;
mod findings;
mod launch;
mod listing;
mod model;
pub mod occupancy;
mod part;
mod prediction;
mod prints;
mod proved;
mod snapshot;
mod stats;
mod timing;

pub use args::Args;
pub use cache::{
    CacheGeometry, DramSectors, Lookup, SectoredCache, MAX_CACHE_LINES, MAX_SECTORS_PER_LINE,
};
pub use error::{Error, Fault, FaultKind, LaunchError, LaunchErrorKind};
pub use exec::{launch, Machine};
pub use findings::{BufferByte, Finding, FindingKind, Findings, RaceClass, Scope, Site, Space};
pub use launch::{Arg, Dim3, Engine, LaneOrder, LaunchConfig, Order, OwnedArg, Schedule, Threads};

/// What the code `simt_kernel!` writes for a kernel's native runner calls.
#[doc(hidden)]
pub mod __native {
    pub use crate::exec::native::{
        available, block_lanes, decode_op, native_turns, Op, Runner, Runners, Turn, TurnEnd,
    };
}
pub use listing::{Hint, HintKind, Line, Listing, MAX_HINTS};
pub use model::MemoryModel;
pub use occupancy::{occupancy, Hardware, Limiter, Occupancy, Usage};
pub use part::{Clocks, Part, PartRow, PARTS};
pub use prediction::{predictions, Prediction};
pub use prints::{PrintLine, Prints};
pub use proved::races as proved_races;
pub use simt_lang::ir::*;
pub use simt_lang::isa::{
    Atomic64Op, AtomicOp, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, Inst, MaskOp, NarrowOp,
    Opcode, ShuffleOp, Tern64Op, TernOp, Un64Op, UnOp, WaveOp, WidenOp, Width,
};
pub use simt_lang::{
    link, register_counts, uniformity, validate, Element, Facts, Kernel, Note, NoteKind,
    ProgramBuilder, UniformityInfo, ValidationError, ValidationErrorKind, ValidationErrors,
};
pub use snapshot::{NonZero, Snapshot, SnapshotLine};
pub use stats::{Counters, Issue, LaunchValues, Stats, Trace, WorstPhase, MAX_TRACE_ISSUES};
pub use timing::{Bound, Stalls, Timing, Utilization};
