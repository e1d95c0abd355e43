//! What a report run produces: a row per kernel and wave width, a result per
//! study and width, the failures; what `results/results.json` holds.

use crate::metrics::Metric;
use serde::Serialize;
use simt::core::{
    Counters, Dim3, Findings, Hardware, LaunchConfig, Listing, MemoryModel, Occupancy, Prints,
    Program, Schedule, Stats, Trace, Usage, WorstPhase,
};
use std::fmt::Write as _;
use std::time::Duration;

/// The simulator's speed on one kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Timing {
    /// Timed launches (after one untimed launch whose output is checked).
    pub launches: usize,
    /// The median wall-clock time of one launch, in nanoseconds.
    pub median_launch_ns: u64,
    /// Issued wave instructions per second at the median launch time.
    pub wave_instructions_per_second: f64,
}

/// One kernel at one wave width.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The kernel's name.
    pub kernel: String,
    /// The wave width.
    pub wave_width: u32,
    /// Whether an oracle checked the output: false for a kernel given as
    /// text, which has none (its `oracle_pass` is then vacuously true).
    pub has_oracle: bool,
    /// Whether the output equals the oracle's bit for bit.
    pub oracle_pass: bool,
    /// The first differing element when it does not.
    pub mismatch: Option<String>,
    /// Workgroups run.
    pub workgroups: u64,
    /// Waves run.
    pub waves: u64,
    /// The launch's counters.
    #[serde(flatten)]
    pub totals: Counters,
    /// Divergent vector instructions as a percentage of vector instructions.
    pub divergence_pct: f64,
    /// Average active lanes per vector issue.
    pub simd_efficiency: f64,
    /// Global transactions per global access phase.
    pub transactions_per_access: f64,
    /// Vector issues by number of active lanes.
    pub active_lanes_histogram: Vec<u64>,
    /// Whether the memory columns equal the reference simulator's published
    /// figures; `None` under another memory model, where they do not apply.
    pub matches_reference_memory: Option<bool>,
    /// How fast the interpreter ran it.
    pub timing: Timing,
    /// The timing model's estimate of the kernel on the report's part, when
    /// the report names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<simt::core::Timing>,
    /// The kernel's theoretical occupancy on the hardware [`hardware_for`] picks
    /// for the run's model and width.
    pub occupancy: Occupancy,
    /// What the sanitizers found in the checked launch (the timed launches run
    /// without them).
    pub findings: Findings,
    /// What the kernel's `print`s printed in the checked launch (left out of
    /// the JSON when nothing was).
    #[serde(skip_serializing_if = "Prints::is_empty")]
    pub prints: Prints,
    /// The counters per source line, with hints for the costliest lines.
    pub listing: Listing,
    /// The costliest phase of each memory instruction, for the HTML report's
    /// pictures.
    #[serde(skip)]
    pub worst_phases: Vec<WorstPhase>,
    /// The issues of workgroup 0 ([`TRACED_WORKGROUP`]), for the HTML report's
    /// divergence timeline.
    #[serde(skip)]
    pub trace: Option<Trace>,
}

/// The workgroup whose issues the report records: the first, which every launch
/// has.
pub const TRACED_WORKGROUP: u64 = 0;

/// A launch that returned an error instead of statistics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The kernel's name.
    pub kernel: String,
    /// The wave width.
    pub wave_width: u32,
    /// The error, as displayed.
    pub error: String,
}

/// A study whose run returned an error instead of a result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StudyFailure {
    /// The study's name.
    pub study: String,
    /// The wave width.
    pub wave_width: u32,
    /// The error, as displayed.
    pub error: String,
}

/// Everything one report run produced: what `results/results.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Results {
    /// The crate version that produced the results.
    pub version: &'static str,
    /// The seed of the inputs.
    pub seed: u64,
    /// The memory model.
    pub model: MemoryModel,
    /// How the waves of a workgroup took turns.
    pub schedule: Schedule,
    /// What each counter is called in Nsight Compute and rocprof, and how the
    /// definitions differ.
    pub metrics: &'static [Metric],
    /// One row per kernel and width, in table order.
    pub rows: Vec<Row>,
    /// Launches that failed.
    pub failures: Vec<Failure>,
    /// The studies asked for, each at each width, in the order they were run.
    pub studies: Vec<StudyResult>,
    /// Studies whose run failed.
    pub study_failures: Vec<StudyFailure>,
}

impl Results {
    /// Whether every launch succeeded, matched its oracle and had no finding
    /// that is not [minor](simt::core::FindingKind::is_minor), and every study
    /// ran and passed.
    pub fn all_passed(&self) -> bool {
        self.failures.is_empty()
            && self
                .rows
                .iter()
                .all(|r| r.oracle_pass && !has_major_findings(&r.findings))
            && self.study_failures.is_empty()
            && self.studies.iter().all(|s| s.passed)
    }
}

/// The hardware whose occupancy the report gives for a run under `model` at
/// `wave_width`: the one the part table builds on the model (`nvidia`:
/// Hopper; `cdna3`: CDNA3), otherwise (the reference model, whose terms are
/// AMD's) the AMD hardware of the run's wave width: RDNA3 at wave32, CDNA3 at
/// wave64, so that its waves are the run's waves.
pub fn hardware_for(model: &MemoryModel, wave_width: u32) -> &'static Hardware {
    match Hardware::by_name(&model.name) {
        Some(hardware) => hardware,
        None if wave_width == 64 => &Hardware::CDNA3,
        None => &Hardware::RDNA3,
    }
}

/// `config` recording what a row shows beyond the counters: the costliest
/// phase of each memory instruction (for the hints and the pictures) and the
/// issues of [`TRACED_WORKGROUP`] (for the timeline).
pub fn detailed(config: &LaunchConfig) -> LaunchConfig {
    config
        .clone()
        .record_worst_phases()
        .trace_workgroup(TRACED_WORKGROUP)
}

/// The row of `kernel` (whose IR is `program`), launched with `config`, from
/// the statistics of a [`detailed`] launch and the times of plain launches:
/// without an oracle (`has_oracle` false) and not compared with the reference
/// simulator's figures, which the report adds for its reference kernels.
pub fn row(
    kernel: &str,
    program: &Program,
    config: &LaunchConfig,
    mut stats: Stats,
    times: &mut [Duration],
) -> Row {
    let median = median(times);
    let secs = median.as_secs_f64();
    let t = &stats.totals;
    let workgroup_size = u32::try_from(config.workgroup.count()).unwrap_or(u32::MAX);
    Row {
        kernel: kernel.to_owned(),
        wave_width: config.wave_width,
        has_oracle: false,
        oracle_pass: true,
        mismatch: None,
        workgroups: stats.workgroups,
        waves: stats.waves,
        totals: *t,
        divergence_pct: t.divergence_pct(),
        simd_efficiency: t.simd_efficiency(),
        transactions_per_access: t.transactions_per_access(),
        active_lanes_histogram: stats.active_lanes_histogram.clone(),
        matches_reference_memory: None,
        timing: Timing {
            launches: times.len(),
            median_launch_ns: u64::try_from(median.as_nanos()).unwrap_or(u64::MAX),
            wave_instructions_per_second: if secs > 0.0 {
                t.instructions as f64 / secs
            } else {
                0.0
            },
        },
        occupancy: simt::core::occupancy(
            hardware_for(&config.model, config.wave_width),
            &Usage::of(program, workgroup_size),
        ),
        findings: std::mem::take(&mut stats.findings),
        prints: std::mem::take(&mut stats.prints),
        listing: stats.listing_with_facts(
            program,
            &simt::core::facts(
                program,
                Some([config.workgroup.x, config.workgroup.y, config.workgroup.z]),
            ),
        ),
        worst_phases: std::mem::take(&mut stats.worst_phases),
        trace: stats.trace.take(),
        estimate: stats.timing.take(),
    }
}

/// The median of `times` (the mean of the two middle ones for an even count).
fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    match times.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2,
    }
}

/// What one run of a study shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StudyResult {
    /// The study's name.
    pub study: &'static str,
    /// The source its claim comes from (the seed document: "001", ...).
    #[serde(skip)]
    pub source: &'static str,
    /// The claim, in one sentence.
    #[serde(skip)]
    pub claim: &'static str,
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
    /// The timing model's estimate, for the studies of time claims.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<simt::core::Timing>,
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
    /// Collects the variants and relations of study `study` (whose claim
    /// `claim` comes from `source`) and decides `passed`.
    pub fn new(
        study: &'static str,
        source: &'static str,
        claim: &'static str,
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
            source,
            claim,
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
        if self.variants.iter().any(|v| v.timing.is_some()) {
            let cells = |f: &dyn Fn(&simt::core::Timing) -> String| -> Vec<String> {
                self.variants
                    .iter()
                    .map(|v| v.timing.as_ref().map_or(String::new(), f))
                    .collect()
            };
            row("timing part", cells(&|t| t.part.clone()));
            row("estimated cycles", cells(&|t| format!("{:.0}", t.cycles)));
            row("limited by", cells(&|t| t.bound().name().to_owned()));
            row(
                "DRAM % of peak",
                cells(&|t| format!("{:.0}", 100.0 * t.utilization.dram)),
            );
            row(
                "issue % of peak",
                cells(&|t| format!("{:.0}", 100.0 * t.utilization.issue)),
            );
            row(
                "achieved occupancy",
                cells(&|t| format!("{:.0}%", 100.0 * t.achieved_occupancy)),
            );
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

#[cfg(test)]
mod tests {
    use super::median;
    use std::time::Duration;

    #[test]
    fn median_of_odd_and_even_counts() {
        let ms = Duration::from_millis;
        assert_eq!(median(&mut [ms(5), ms(1), ms(3)]), ms(3));
        assert_eq!(
            median(&mut [ms(4), ms(1), ms(2), ms(3)]),
            Duration::from_micros(2500)
        );
        assert_eq!(median(&mut []), Duration::ZERO);
    }
}
