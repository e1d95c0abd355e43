//! The reference simulator's published figures (wave32, seed 42), for comparison.
//!
//! Its memory columns follow from each kernel's algorithm and the memory model
//! alone, so this crate's kernels reproduce them exactly, at both wave widths; its
//! instruction and divergence columns depend on how each kernel is written
//! instruction by instruction and are kept only to be shown beside this crate's.

use serde::Serialize;
use simt::core::Counters;

/// One row of the published table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Published {
    /// The kernel's name.
    pub kernel: &'static str,
    /// Issued instructions.
    pub instructions: u64,
    /// Vector instructions.
    pub vector_instructions: u64,
    /// Divergent vector instructions, percent.
    pub divergence_pct: f64,
    /// LDS access phases.
    pub lds_accesses: u64,
    /// LDS bank-conflict cycles.
    pub lds_conflict_cycles: u64,
    /// Global access phases.
    pub global_accesses: u64,
    /// Global transactions (64-byte lines).
    pub global_transactions: u64,
}

impl Published {
    /// Whether `totals` has exactly these memory figures.
    pub fn memory_matches(&self, totals: &Counters) -> bool {
        (
            totals.lds_accesses,
            totals.lds_conflict_cycles,
            totals.global_accesses,
            totals.global_transactions,
        ) == (
            self.lds_accesses,
            self.lds_conflict_cycles,
            self.global_accesses,
            self.global_transactions,
        )
    }
}

const fn row(
    kernel: &'static str,
    instructions: u64,
    vector_instructions: u64,
    divergence_pct: f64,
    lds: (u64, u64),
    global: (u64, u64),
) -> Published {
    Published {
        kernel,
        instructions,
        vector_instructions,
        divergence_pct,
        lds_accesses: lds.0,
        lds_conflict_cycles: lds.1,
        global_accesses: global.0,
        global_transactions: global.1,
    }
}

/// The published table, in its order (the order of the registry).
pub const TABLE: [Published; 11] = [
    row("vecadd_i32", 1152, 1024, 0.0, (0, 0), (384, 768)),
    row("vecadd_f32", 1152, 1024, 0.0, (0, 0), (384, 768)),
    row("saxpy_f32", 1024, 896, 0.0, (0, 0), (384, 768)),
    row(
        "divergent_collatz_i32",
        1792,
        1280,
        30.0,
        (0, 0),
        (256, 512),
    ),
    row("reduce_i32", 15360, 4032, 13.49, (720, 0), (144, 272)),
    row("reduce_f32", 15360, 4032, 13.49, (720, 0), (144, 272)),
    row(
        "matmul_naive_f32",
        116864,
        91392,
        0.0,
        (0, 0),
        (16512, 24832),
    ),
    row(
        "matmul_tiled_f32",
        77824,
        74368,
        0.0,
        (17408, 0),
        (1152, 2304),
    ),
    row("copy_coalesced_f32", 768, 640, 0.0, (0, 0), (256, 512)),
    row("copy_strided_f32", 896, 768, 0.0, (0, 0), (256, 4352)),
    row(
        "lds_conflict_heavy_i32",
        1024,
        768,
        0.0,
        (256, 7936),
        (128, 256),
    ),
];

/// The published row of `kernel`.
pub fn find(kernel: &str) -> Option<&'static Published> {
    TABLE.iter().find(|p| p.kernel == kernel)
}
