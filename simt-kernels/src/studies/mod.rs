//! The studies: the phenomena GPU programmers tune for, each shown as a few variant
//! kernels side by side, with the claim of the text it comes from checked as a
//! relation between the variants' counters.
//!
//! Every variant is a kernel written with [`simt::simt_kernel!`], checked bit for bit
//! against a scalar oracle on seeded inputs. A study's [`Relation`]s are computed
//! from the counters of its runs (a ratio, a difference, an ordering), and set
//! beside the figure the text states, so a study passes when the machine shows
//! what the text claims, not when it repeats a previous run.
//!
//! - Seed 001 (divergence and coalescing): [`branch`] (two paths, a 32-case switch,
//!   a rare branch), [`mandelbrot`], [`coalescing`] (strided reads, eight values
//!   per thread, packed pixels, gathered rows).
//! - Seed 002 (the memory model): [`transpose`], [`layout`] (AoS and SoA, a
//!   misaligned start), [`atomics`], [`reduction`] (the classic ladder, a wave's
//!   shuffle tree).
//! - Seed 003 (divergence across generations): [`kway`] (k-way splits,
//!   predication, occupancy).
//! - The seeds' claims about time, under the timing model on [`time_part`]:
//!   [`divergence_time`] (seeds 001 and 003), [`memory_time`] (seeds 001 and
//!   002).
//!
//! Every variant runs with the sanitizers on ([`LaunchConfig::sanitize`]): a study
//! whose kernels race or read what they never wrote does not pass, whatever its
//! counters say.
//!
//! "The region" of a variant is the part of its kernel the claim is about, such as
//! the bodies of a divergent `if`; its counters are the sum of the per-instruction
//! counters of those instructions, found from the program's structure (see
//! [`if_body`]), never from fixed indices.
//!
//! ```
//! let study = simt_kernels::studies::find("divergent_paths").unwrap();
//! let result = (study.run)(42, 32).unwrap();
//! assert!(result.passed);
//! println!("{}", result.table());
//! ```

use simt::core::{Counters, Dim3, Hardware, Inst, LaunchConfig, Part, Program, Stats, Usage};

pub mod atomics;
pub mod branch;
pub mod coalescing;
pub mod divergence_time;
pub mod kway;
pub mod layout;
pub mod mandelbrot;
pub mod memory_time;
pub mod reduction;
pub mod transpose;

/// One study: its name, the seed it comes from, the claim it checks and how to run it.
pub struct Study {
    /// The study's name, for `report --studies NAME` and the snapshots.
    pub name: &'static str,
    /// The seed the claim comes from: "001", "002" or "003".
    pub seed: &'static str,
    /// The claim, in one sentence.
    pub claim: &'static str,
    /// Runs every variant with inputs from `seed` at wave width `width` (32 or 64).
    pub run: fn(seed: u64, width: u32) -> Result<StudyResult, simt::core::Error>,
}

impl std::fmt::Debug for Study {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Study")
            .field("name", &self.name)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

/// Two entries are the same study when their names are equal (names are unique).
impl PartialEq for Study {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// Every study, grouped by seed.
pub static STUDIES: &[Study] = &[
    branch::DIVERGENT_PATHS,
    branch::SWITCH32,
    branch::RARE_BRANCH,
    mandelbrot::MANDELBROT,
    coalescing::STRIDED_READ,
    coalescing::EIGHT_PER_THREAD,
    coalescing::GRAYSCALE,
    coalescing::EMBEDDING_BAG,
    transpose::TRANSPOSE,
    layout::AOS_SOA,
    layout::MISALIGNED,
    atomics::ATOMICS,
    reduction::REDUCTION_LADDER,
    reduction::WAVE_TREE,
    kway::KWAY,
    kway::PREDICATION,
    kway::OCCUPANCY_INVARIANCE,
    divergence_time::WARP_SPLIT_TIME,
    divergence_time::KWAY_TIME,
    divergence_time::PREDICATION_TIME,
    divergence_time::OCCUPANCY_TIME,
    memory_time::L1_TRIO_TIME,
    memory_time::SAXPY_TIME,
    memory_time::OCCUPANCY_HIDING,
    memory_time::CONFLICT_TIME,
    memory_time::ATOMICS_TIME,
];

/// The study called `name`.
pub fn find(name: &str) -> Option<&'static Study> {
    STUDIES.iter().find(|s| s.name == name)
}

/// The launch every study variant starts from: `grid` workgroups of `workgroup`
/// work-items at wave width `width`, under the reference model, with the
/// sanitizers on and each memory instruction's costliest phase recorded (for
/// the static facts' cross-check).
pub fn config(grid: impl Into<Dim3>, workgroup: impl Into<Dim3>, width: u32) -> LaunchConfig {
    LaunchConfig::new(grid, workgroup)
        .wave_width(width)
        .sanitize(true)
        .record_worst_phases()
}

/// The part the studies of time claims run on: two SMs of an H100 SXM, each
/// with an H100 SM's figures, and a 66th of its L2 and DRAM bandwidth, so
/// that DRAM-bound sizes stay small.
pub fn time_part() -> Part {
    Part::h100_sxm().scaled(2)
}

/// [`config`] timed on [`time_part`].
pub(crate) fn timed(grid: impl Into<Dim3>, workgroup: impl Into<Dim3>, width: u32) -> LaunchConfig {
    config(grid, workgroup, width).timing(time_part())
}

pub use simt_report::results::{
    finding_count, format_figure, has_major_findings, Relation, StudyResult, VariantRow,
};

/// The result of `study` at `width`: its variants and relations, and whether
/// it passed, with the study's seed and claim.
pub fn result(
    study: &Study,
    width: u32,
    variants: Vec<VariantRow>,
    relations: Vec<Relation>,
) -> StudyResult {
    StudyResult::new(
        study.name,
        study.seed,
        study.claim,
        width,
        variants,
        relations,
    )
}

/// A row for one variant: totals, the region's counters and occupancy.
pub(crate) fn row(
    name: impl Into<String>,
    program: &Program,
    workgroup: impl Into<Dim3>,
    stats: &Stats,
    oracle_ok: bool,
    region: Option<&[usize]>,
) -> VariantRow {
    let workgroup = workgroup.into();
    let workgroup_size = workgroup.x * workgroup.y * workgroup.z;
    VariantRow {
        name: name.into(),
        model: stats.model.clone(),
        oracle_ok,
        stats: stats.totals,
        region: region.map(|r| sum(stats, r)),
        occupancy: occupancy(program, workgroup_size),
        findings: stats.findings.clone(),
        program: program.clone(),
        per_instruction: stats.per_instruction.clone(),
        workgroup,
        worst_phases: stats.worst_phases.clone(),
        // The studies compare launches, not lines: the per-instruction
        // stalls stay out of their rows.
        timing: stats.timing.clone().map(|mut t| {
            t.per_instruction.clear();
            t
        }),
    }
}

/// The theoretical occupancy of `program` in workgroups of `workgroup_size` on each
/// hardware preset.
pub fn occupancy(program: &Program, workgroup_size: u32) -> Vec<(String, f64)> {
    let usage = Usage::of(program, workgroup_size);
    Hardware::PRESETS
        .iter()
        .map(|hw| {
            (
                hw.name.to_owned(),
                simt::core::occupancy(hw, &usage).occupancy,
            )
        })
        .collect()
}

/// The sum of the counters of the instructions `region`.
pub fn sum(stats: &Stats, region: &[usize]) -> Counters {
    let mut total = Counters::default();
    for &k in region {
        total.add(&stats.per_instruction[k]);
    }
    total
}

/// The index of the `n`th instruction (from 0) of `program` that `is` accepts.
///
/// # Panics
/// When there is none: the studies call it on their own kernels, whose shape is fixed.
pub fn nth(program: &Program, n: usize, is: impl Fn(&Inst) -> bool) -> usize {
    program
        .insts
        .iter()
        .enumerate()
        .filter(|(_, inst)| is(inst))
        .nth(n)
        .map(|(k, _)| k)
        .unwrap_or_else(|| {
            panic!(
                "{}: no instruction #{n} of the kind asked for",
                program.name
            )
        })
}

/// The instructions strictly inside the `if` at `at`, up to its `endif`, without its
/// own `else`: the bodies a divergent wave runs one after the other. Nested
/// constructs are included whole.
///
/// # Panics
/// When `at` is not an `if`.
pub fn if_body(program: &Program, at: usize) -> Vec<usize> {
    let Inst::If { next, .. } = program.insts[at] else {
        panic!("{}: instruction {at} is not an `if`", program.name);
    };
    let next = next.get();
    let (own_else, end) = match program.insts[next] {
        Inst::Else { end } => (Some(next), end.get()),
        _ => (None, next),
    };
    (at + 1..end).filter(|&k| Some(k) != own_else).collect()
}

/// The body of the first `if` of `program`.
pub fn first_if_body(program: &Program) -> Vec<usize> {
    if_body(program, nth(program, 0, |i| matches!(i, Inst::If { .. })))
}

/// `a / b` as a float; NaN when `b` is 0, so a relation on it cannot hold by accident.
pub fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

/// Whether `inst` is a global load (narrow or wide).
pub fn is_global_load(inst: &Inst) -> bool {
    matches!(inst, Inst::GlobalLoad { .. } | Inst::GlobalLoadWide { .. })
}

/// Whether `inst` is a global store (narrow or wide).
pub fn is_global_store(inst: &Inst) -> bool {
    matches!(
        inst,
        Inst::GlobalStore { .. } | Inst::GlobalStoreWide { .. }
    )
}
