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
/// model and PTX are the `simt` crate's documentation, and run there, as do
/// those of the counters.
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

#[cfg(test)]
mod book_tests {
    use std::path::{Path, PathBuf};

    /// Whether a Markdown text has a block rustdoc compiles: one fenced with
    /// no info string, or with `rust` or one of rustdoc's attributes.
    fn has_rust_block(text: &str) -> bool {
        let mut open = false;
        for line in text.lines() {
            if let Some(info) = line.strip_prefix("```") {
                if !open {
                    let info = info.trim();
                    if info.is_empty()
                        || ["rust", "compile_fail", "should_panic", "no_run", "ignore"]
                            .iter()
                            .any(|k| info.starts_with(k))
                    {
                        return true;
                    }
                }
                open = !open;
            }
        }
        false
    }

    /// Every chapter of the book with a Rust block runs as doctests: it is
    /// one of the chapters of `book` above or part of the `simt` crate's
    /// documentation, so that none of its examples goes untested.
    #[test]
    fn every_chapter_with_rust_blocks_runs_as_doctests() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let included = [
            include_str!("lib.rs").to_owned(),
            std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        ];
        let mut chapters: Vec<PathBuf> = Vec::new();
        let mut dirs = vec![root.join("docs/src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "md") {
                    chapters.push(path);
                }
            }
        }
        assert!(chapters.len() > 20, "{chapters:?}");
        for path in chapters {
            if !has_rust_block(&std::fs::read_to_string(&path).unwrap()) {
                continue;
            }
            let chapter = path.strip_prefix(root.join("docs/src")).unwrap();
            let needle = format!("docs/src/{}\")", chapter.display());
            assert!(
                included.iter().any(|code| code.contains(&needle)),
                "docs/src/{} has Rust blocks but is no crate's doctests: \
                 include it in simt-kernels/src/lib.rs's `book`",
                chapter.display()
            );
        }
    }
}
