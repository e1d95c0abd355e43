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

use serde::Serialize;
use simt::core::{
    Counters, Dim3, Findings, Hardware, Inst, LaunchConfig, Program, Stats, Usage, WorstPhase,
};
use std::fmt::Write as _;

pub mod atomics;
pub mod branch;
pub mod coalescing;
pub mod kway;
pub mod layout;
pub mod mandelbrot;
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
];

/// The study called `name`.
pub fn find(name: &str) -> Option<&'static Study> {
    STUDIES.iter().find(|s| s.name == name)
}

/// The launch every study variant starts from: `grid` workgroups of `workgroup`
/// work-items at wave width `width`, under the reference model, with the
/// sanitizers on and each memory instruction's costliest phase recorded (for
/// the static facts' cross-check).
pub(crate) fn config(
    grid: impl Into<Dim3>,
    workgroup: impl Into<Dim3>,
    width: u32,
) -> LaunchConfig {
    LaunchConfig::new(grid, workgroup)
        .wave_width(width)
        .sanitize(true)
        .record_worst_phases()
}

/// What one run of a study shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StudyResult {
    /// The study's name.
    pub study: &'static str,
    /// The wave width the variants ran at.
    pub width: u32,
    /// The variants, in the order the study lists them.
    pub variants: Vec<VariantRow>,
    /// The claims, each as the stated figure beside the measured one.
    pub relations: Vec<Relation>,
    /// Whether every variant matched its oracle, the sanitizers found nothing
    /// but [minor](simt::core::FindingKind::is_minor) findings in any of them,
    /// and every relation holds.
    pub passed: bool,
}

/// One variant's run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VariantRow {
    /// The variant's name.
    pub name: String,
    /// The memory model it ran under.
    pub model: String,
    /// Whether its outputs equal the oracle's, bit for bit.
    pub oracle_ok: bool,
    /// The launch's totals.
    pub stats: Counters,
    /// The counters of the region the claim is about, where there is one.
    pub region: Option<Counters>,
    /// The kernel's theoretical occupancy on each of [`Hardware::PRESETS`], by name.
    pub occupancy: Vec<(String, f64)>,
    /// What the sanitizers found in its launch; left out of the JSON when nothing.
    #[serde(skip_serializing_if = "Findings::is_empty")]
    pub findings: Findings,
    /// The kernel it ran, for what is checked per instruction (the static facts).
    #[serde(skip)]
    pub program: Program,
    /// The counters of each of its instructions.
    #[serde(skip)]
    pub per_instruction: Vec<Counters>,
    /// The workgroup shape it ran with.
    #[serde(skip)]
    pub workgroup: Dim3,
    /// The costliest phase of each memory instruction.
    #[serde(skip)]
    pub worst_phases: Vec<WorstPhase>,
}

/// A claim: a figure the text states and the one the counters give.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Relation {
    /// What is compared, e.g. "issues in region, switch32 / one case".
    pub what: String,
    /// The figure the text states, e.g. "32" or "2:1".
    pub stated: String,
    /// The figure computed from the counters.
    pub measured: f64,
    /// Whether the measured figure agrees with the stated one.
    pub holds: bool,
}

impl Relation {
    /// A relation that holds when `measured` equals `expected` (up to rounding of the
    /// division that produced it).
    pub fn exact(
        what: impl Into<String>,
        stated: impl Into<String>,
        expected: f64,
        measured: f64,
    ) -> Self {
        let holds = (measured - expected).abs() <= 1e-9 * expected.abs().max(1.0);
        Relation::new(what, stated, measured, holds)
    }

    /// A relation that holds when `measured` is within `tolerance` (relative) of
    /// `expected`: for claims the text itself states as approximate.
    pub fn near(
        what: impl Into<String>,
        stated: impl Into<String>,
        expected: f64,
        measured: f64,
        tolerance: f64,
    ) -> Self {
        let holds = (measured - expected).abs() <= tolerance * expected.abs();
        Relation::new(what, stated, measured, holds)
    }

    /// A relation with its own test (an ordering, a bound).
    pub fn new(
        what: impl Into<String>,
        stated: impl Into<String>,
        measured: f64,
        holds: bool,
    ) -> Self {
        Relation {
            what: what.into(),
            stated: stated.into(),
            measured,
            holds: holds && measured.is_finite(),
        }
    }
}

impl StudyResult {
    /// Collects the variants and relations and decides `passed`.
    pub fn new(
        study: &'static str,
        width: u32,
        variants: Vec<VariantRow>,
        relations: Vec<Relation>,
    ) -> Self {
        let passed = variants
            .iter()
            .all(|v| v.oracle_ok && !has_major_findings(&v.findings))
            && relations.iter().all(|r| r.holds);
        StudyResult {
            study,
            width,
            variants,
            relations,
            passed,
        }
    }

    /// The variant called `name`.
    pub fn variant(&self, name: &str) -> Option<&VariantRow> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// A markdown table with the variants side by side (a column each, a counter per
    /// row, the region's counters below the totals, then occupancy), followed by
    /// the relations, stated beside measured, and the sanitizers' findings if any.
    pub fn table(&self) -> String {
        let mut out = format!("### {} (wave{})\n\n| |", self.study, self.width);
        for v in &self.variants {
            let _ = write!(out, " {} |", v.name);
        }
        out.push_str("\n|---|");
        out.push_str(&"---:|".repeat(self.variants.len()));
        out.push('\n');
        let mut row = |label: &str, cells: Vec<String>| {
            let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
        };
        row(
            "model",
            self.variants.iter().map(|v| v.model.clone()).collect(),
        );
        row(
            "oracle",
            self.variants
                .iter()
                .map(|v| if v.oracle_ok { "ok" } else { "MISMATCH" }.to_owned())
                .collect(),
        );
        if self.variants.iter().any(|v| !v.findings.is_empty()) {
            row(
                "sanitizer findings",
                self.variants
                    .iter()
                    .map(|v| finding_count(&v.findings).to_string())
                    .collect(),
            );
        }
        let totals: Vec<_> = self
            .variants
            .iter()
            .map(|v| counter_rows(&v.stats))
            .collect();
        push_counter_rows(&mut row, "", &totals);
        if self.variants.iter().any(|v| v.region.is_some()) {
            let region: Vec<_> = self
                .variants
                .iter()
                .map(|v| counter_rows(&v.region.unwrap_or_default()))
                .collect();
            push_counter_rows(&mut row, "region: ", &region);
        }
        if let Some(first) = self.variants.first() {
            for (k, (hw, _)) in first.occupancy.iter().enumerate() {
                let cells = self
                    .variants
                    .iter()
                    .map(|v| {
                        v.occupancy
                            .get(k)
                            .map_or(String::new(), |(_, o)| format!("{:.0}%", o * 100.0))
                    })
                    .collect();
                row(&format!("occupancy, {hw}"), cells);
            }
        }
        out.push_str("\n| relation | stated | measured | holds |\n|---|---|---:|---|\n");
        for r in &self.relations {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                r.what,
                r.stated,
                format_figure(r.measured),
                if r.holds { "yes" } else { "NO" }
            );
        }
        for v in self.variants.iter().filter(|v| !v.findings.is_empty()) {
            let _ = writeln!(out, "\n{} findings:", v.name);
            for f in &v.findings.list {
                let _ = writeln!(out, "- {f}");
            }
            if v.findings.dropped > 0 {
                let _ = writeln!(out, "- and {} more", v.findings.dropped);
            }
        }
        out
    }
}

/// The distinct findings of a launch, those past the cap included.
pub fn finding_count(findings: &Findings) -> u64 {
    findings.list.len() as u64 + findings.dropped
}

/// Whether `findings` holds one that is not
/// [minor](simt::core::FindingKind::is_minor), or more than a launch keeps (what
/// [`Findings::assert_none`] rejects).
pub fn has_major_findings(findings: &Findings) -> bool {
    findings.major().next().is_some() || findings.dropped > 0
}

/// The counters a table shows, by label; derived ratios after the raw counts.
fn counter_rows(c: &Counters) -> Vec<(&'static str, f64)> {
    let per = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    vec![
        ("instructions", c.instructions as f64),
        ("skipped instructions", c.skipped_instructions as f64),
        ("vector instructions", c.vector_instructions as f64),
        (
            "divergent vector instructions",
            c.divergent_vector_instructions as f64,
        ),
        ("divergence %", c.divergence_pct()),
        ("lanes per issue", c.simd_efficiency()),
        ("barriers", c.barriers as f64),
        ("LDS accesses", c.lds_accesses as f64),
        ("LDS conflict cycles", c.lds_conflict_cycles as f64),
        ("global accesses", c.global_accesses as f64),
        ("global transactions", c.global_transactions as f64),
        ("global sectors", c.global_sectors as f64),
        (
            "sectors per request",
            per(c.global_sectors, c.global_accesses),
        ),
        ("global bytes requested", c.global_bytes_requested as f64),
        ("L1 hit sectors", c.l1_hit_sectors as f64),
        ("L1 miss sectors", c.l1_miss_sectors as f64),
        ("DRAM sectors", c.dram_sectors as f64),
        ("atomic accesses", c.atomic_accesses as f64),
        ("atomic contention", c.atomic_contention as f64),
    ]
}

/// Adds one table row per counter, leaving out counters that are zero everywhere.
fn push_counter_rows(
    row: &mut impl FnMut(&str, Vec<String>),
    prefix: &str,
    columns: &[Vec<(&'static str, f64)>],
) {
    let Some(first) = columns.first() else { return };
    for (k, (label, _)) in first.iter().enumerate() {
        if columns.iter().all(|c| c[k].1 == 0.0) {
            continue;
        }
        row(
            &format!("{prefix}{label}"),
            columns.iter().map(|c| format_figure(c[k].1)).collect(),
        );
    }
}

/// Whole numbers as such, others with three decimals: how tables and charts print a figure.
pub fn format_figure(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use simt::core::{Finding, FindingKind, Site};

    #[test]
    fn every_variant_launch_runs_the_sanitizers() {
        let c = config([2, 2], 64, 64);
        assert!(c.sanitize);
        assert_eq!((c.grid, c.wave_width), (Dim3::new(2, 2, 1), 64));
    }

    #[test]
    fn a_finding_fails_the_study_and_is_listed_under_its_table() {
        let clean = find("divergent_paths").and_then(|s| (s.run)(42, 32).ok());
        let clean = clean.expect("the study runs");
        assert!(clean.passed);
        assert!(!clean.table().contains("findings"));
        let mut variants = clean.variants.clone();
        let site = Site {
            inst: 3,
            line: 40,
            workgroup: [0, 0, 0],
            wave: 1,
            lane: 5,
        };
        let finding = Finding {
            kind: FindingKind::UninitVectorRegister { reg: 2 },
            at: site,
            other: None,
            address: None,
            bytes: 4,
            occurrences: 1,
            byte: None,
            register: None,
        };
        variants[1].findings.list.push(finding.clone());
        let result = StudyResult::new(clean.study, 32, variants, clean.relations.clone());
        assert!(!result.passed);
        let table = result.table();
        assert!(table.contains("| sanitizer findings | 0 | 1 |"), "{table}");
        assert!(
            table.contains(&format!("divergent_warps findings:\n- {finding}\n")),
            "{table}"
        );
    }
}
