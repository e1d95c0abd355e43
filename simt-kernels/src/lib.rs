//! The reference kernels of simt, their scalar oracles and the report behind
//! `cargo run --release -p simt-kernels --bin report`.
//!
//! The eleven kernels reproduce the reference simulator's benchmark set (see the
//! book's `docs/src/model/reference-simulator.md`): element-wise kernels, a data-dependent branch, an LDS
//! reduction, a naive and an LDS-tiled matrix multiply, a coalesced and a strided
//! copy, and an LDS pattern in which every lane lands in bank 0. Each one is written
//! with [`simt::simt_kernel!`] in [`kernels`], checked bit for bit against a scalar
//! oracle in plain Rust that performs the same arithmetic in the same order, and
//! listed in the [`registry`], which the tests and the report iterate over.
//!
//! ```
//! use simt_kernels::registry;
//!
//! let spec = registry::find("reduce_f32").unwrap();
//! let run = spec.run(42, &spec.config(64, simt::core::MemoryModel::reference())).unwrap();
//! assert!(run.passed());
//! // One partial sum per workgroup: 8 LDS phases to fill, 36 for the tree, 1 to read back.
//! assert_eq!(run.stats.totals.lds_accesses, 16 * 45);
//! ```
#![deny(missing_docs)]

pub mod calibration;
pub mod cli;
pub mod html;
pub mod kernels;
pub mod output;
pub mod reference;
pub mod registry;
pub mod report;
pub mod studies;

pub use output::{Mismatch, Values};
pub use registry::{KernelSpec, Run, Workload, KERNELS};
pub use simt_report::{metrics, rng, SplitMix64};

/// The examples of the README and of the book's chapters (`docs/src/`),
/// compiled and run as doctests. The chapters of the language, the timing
/// model and PTX are the `simt` crate's documentation, and run there.
#[cfg(doctest)]
pub mod book {
    /// The README.
    #[doc = include_str!("../../README.md")]
    pub struct Readme;
    /// `docs/src/guide/writing-kernels.md`.
    #[doc = include_str!("../../docs/src/guide/writing-kernels.md")]
    pub struct WritingKernels;
    /// `docs/src/guide/kernels-as-text.md`.
    #[doc = include_str!("../../docs/src/guide/kernels-as-text.md")]
    pub struct KernelsAsText;
    /// `docs/src/model/counters.md`.
    #[doc = include_str!("../../docs/src/model/counters.md")]
    pub struct Counters;
    /// `docs/src/model/memory-models.md`.
    #[doc = include_str!("../../docs/src/model/memory-models.md")]
    pub struct MemoryModels;
    /// `docs/src/model/occupancy.md`.
    #[doc = include_str!("../../docs/src/model/occupancy.md")]
    pub struct Occupancy;
    /// `docs/src/model/sanitizers.md`.
    #[doc = include_str!("../../docs/src/model/sanitizers.md")]
    pub struct Sanitizers;
    /// `docs/src/performance/threads.md`.
    #[doc = include_str!("../../docs/src/performance/threads.md")]
    pub struct Threads;
}
