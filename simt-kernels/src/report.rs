//! The report: every chosen kernel at every chosen width, checked against its
//! oracle and by the sanitizers, timed, printed as a table and written as JSON;
//! then the chosen studies.

use crate::cli::Options;
use crate::reference;
use crate::registry::KernelSpec;
use crate::studies::{finding_count, has_major_findings, StudyResult};
use serde::Serialize;
use simt::core::{
    Counters, Error, Findings, Hardware, LaunchConfig, Limiter, Listing, MemoryModel, Occupancy,
    Program, Schedule, Stats, Trace, Usage, WorstPhase,
};
use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

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
    /// The kernel's theoretical occupancy on the hardware [`hardware_for`] picks
    /// for the run's model and width.
    pub occupancy: Occupancy,
    /// What the sanitizers found in the checked launch (the timed launches run
    /// without them).
    pub findings: Findings,
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
    pub metrics: &'static [crate::metrics::Metric],
    /// One row per kernel and width, in table order.
    pub rows: Vec<Row>,
    /// Launches that failed.
    pub failures: Vec<Failure>,
    /// The studies asked for with `--studies`, each at each width, in
    /// [`crate::studies::STUDIES`] order.
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
/// `wave_width`: the model's own where it names one (`nvidia`: Hopper; `cdna3`:
/// CDNA3), otherwise (the reference model, whose terms are AMD's) the AMD
/// hardware of the run's wave width: RDNA3 at wave32, CDNA3 at wave64, so that
/// its waves are the run's waves.
pub fn hardware_for(model: &MemoryModel, wave_width: u32) -> &'static Hardware {
    match model.name.as_ref() {
        "nvidia" => &Hardware::HOPPER,
        "cdna3" => &Hardware::CDNA3,
        _ if wave_width == 64 => &Hardware::CDNA3,
        _ => &Hardware::RDNA3,
    }
}

/// Runs `spec` at `wave_width`: one launch whose output is checked, then
/// `launches` timed launches on one thread (each on freshly reset buffers), so
/// that the speed column compares with single-threaded simulators whatever the
/// machine's cores.
pub fn measure(
    spec: &KernelSpec,
    seed: u64,
    wave_width: u32,
    model: &MemoryModel,
    schedule: Schedule,
    launches: usize,
) -> Result<Row, Error> {
    let config = spec.config(wave_width, model.clone()).schedule(schedule);
    let mut workload = (spec.prepare)(seed);
    // The checked launch, untimed, also records the worst phases for the hints
    // and the pictures, and one workgroup for the timeline, and runs the
    // sanitizers.
    let stats = workload.launch(&detailed(&config).sanitize(true))?;
    let output = workload.output();
    let expected = workload.expected();
    let mismatch = output.first_mismatch(&expected).map(|m| m.to_string());

    let timed = config.clone().threads(1);
    let mut times = Vec::with_capacity(launches);
    for _ in 0..launches.max(1) {
        workload.reset();
        let start = Instant::now();
        workload.launch(&timed)?;
        times.push(start.elapsed());
    }
    let mut row = row(spec.name, spec.program, &config, stats, &mut times);
    row.has_oracle = true;
    row.oracle_pass = mismatch.is_none();
    row.mismatch = mismatch;
    row.matches_reference_memory = (*model == MemoryModel::reference())
        .then(|| reference::find(spec.name).is_some_and(|p| p.memory_matches(&row.totals)));
    Ok(row)
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
/// simulator's figures, which [`measure`] adds for the reference kernels.
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
        listing: stats.listing_with_facts(
            program,
            &simt::core::facts(
                program,
                Some([config.workgroup.x, config.workgroup.y, config.workgroup.z]),
            ),
        ),
        worst_phases: std::mem::take(&mut stats.worst_phases),
        trace: stats.trace.take(),
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

/// Runs every kernel and width `options` asks for, then every study at every
/// width.
pub fn run(options: &Options) -> Results {
    run_with_progress(options, |_, _, _| {})
}

/// Like [`run`], calling `progress(done, total, next)` before each kernel or
/// study and width (`next` names it) and once at the end (with `next` empty).
pub fn run_with_progress(
    options: &Options,
    mut progress: impl FnMut(usize, usize, &str),
) -> Results {
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    let total = (options.kernels.len() + options.studies.len()) * options.widths.len();
    let mut done = 0;
    for spec in &options.kernels {
        for &width in &options.widths {
            progress(done, total, &format!("{} wave{width}", spec.name));
            done += 1;
            match measure(
                spec,
                options.seed,
                width,
                &options.model,
                options.schedule,
                options.launches,
            ) {
                Ok(row) => rows.push(row),
                Err(e) => failures.push(Failure {
                    kernel: spec.name.to_owned(),
                    wave_width: width,
                    error: e.to_string(),
                }),
            }
        }
    }
    let mut study_results = Vec::new();
    let mut study_failures = Vec::new();
    for study in &options.studies {
        for &width in &options.widths {
            progress(done, total, &format!("study {} wave{width}", study.name));
            done += 1;
            match (study.run)(options.seed, width) {
                Ok(result) => study_results.push(result),
                Err(e) => study_failures.push(StudyFailure {
                    study: study.name.to_owned(),
                    wave_width: width,
                    error: e.to_string(),
                }),
            }
        }
    }
    progress(done, total, "");
    Results {
        version: env!("CARGO_PKG_VERSION"),
        seed: options.seed,
        model: options.model.clone(),
        schedule: options.schedule,
        metrics: crate::metrics::METRICS,
        rows,
        failures,
        studies: study_results,
        study_failures,
    }
}

/// The table's columns.
const HEADER: [&str; COLUMNS] = [
    "kernel",
    "wave",
    "instr",
    "vector",
    "div %",
    "SIMD eff",
    "lds acc",
    "lds conflict cyc",
    "glb acc",
    "glb trans",
    "trans/acc",
    "occupancy",
    "findings",
    "oracle",
    "Mwave-inst/s",
    "us/launch",
];
const COLUMNS: usize = 16;
/// The columns of text, left-aligned; the others hold numbers.
const TEXT_COLUMNS: [&str; 3] = ["kernel", "occupancy", "oracle"];

/// A short name for the resource that limits occupancy.
pub fn limiter_name(limiter: Limiter) -> &'static str {
    match limiter {
        Limiter::WorkgroupSize => "size",
        Limiter::WaveSlots => "waves",
        Limiter::WorkgroupSlots => "groups",
        Limiter::Registers => "vregs",
        Limiter::ScalarRegisters => "sregs",
        Limiter::Lds => "lds",
    }
}

/// An occupancy in a table cell: resident waves per unit out of its wave slots,
/// and what limits them, e.g. `32/64 lds`.
pub fn occupancy_cell(occupancy: &Occupancy) -> String {
    format!(
        "{}/{} {}",
        occupancy.waves_per_unit,
        occupancy.max_waves_per_unit,
        limiter_name(occupancy.limited_by)
    )
}

/// The oracle column: `pass`, `FAIL`, or `none` for a kernel without an oracle.
pub fn oracle_cell(row: &Row) -> &'static str {
    match (row.has_oracle, row.oracle_pass) {
        (false, _) => "none",
        (true, true) => "pass",
        (true, false) => "FAIL",
    }
}

/// The rows as a Markdown table with aligned columns (numbers right-aligned).
pub fn table(rows: &[Row]) -> String {
    let cells: Vec<[String; COLUMNS]> = rows
        .iter()
        .map(|r| {
            let t = &r.totals;
            [
                r.kernel.clone(),
                r.wave_width.to_string(),
                t.instructions.to_string(),
                t.vector_instructions.to_string(),
                format!("{:.2}", r.divergence_pct),
                format!("{:.2}", r.simd_efficiency),
                t.lds_accesses.to_string(),
                t.lds_conflict_cycles.to_string(),
                t.global_accesses.to_string(),
                t.global_transactions.to_string(),
                format!("{:.2}", r.transactions_per_access),
                occupancy_cell(&r.occupancy),
                finding_count(&r.findings).to_string(),
                oracle_cell(r).to_owned(),
                format!("{:.1}", r.timing.wave_instructions_per_second / 1e6),
                format!("{:.1}", r.timing.median_launch_ns as f64 / 1e3),
            ]
        })
        .collect();
    let mut widths = HEADER.map(str::len);
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let text = HEADER.map(|h| TEXT_COLUMNS.contains(&h));
    let mut out = String::new();
    let line = |out: &mut String, row: &[String; COLUMNS]| {
        out.push('|');
        for ((c, w), text) in row.iter().zip(widths).zip(text) {
            if text {
                let _ = write!(out, " {c:<w$} |");
            } else {
                let _ = write!(out, " {c:>w$} |");
            }
        }
        out.push('\n');
    };
    line(&mut out, &HEADER.map(str::to_owned));
    out.push('|');
    for (w, text) in widths.iter().zip(text) {
        if text {
            let _ = write!(out, "{}|", "-".repeat(w + 2));
        } else {
            let _ = write!(out, "{}:|", "-".repeat(w + 1));
        }
    }
    out.push('\n');
    for row in &cells {
        line(&mut out, row);
    }
    out
}

/// One line saying how many rows reproduce the reference simulator's memory
/// figures; `None` when no row was compared (another memory model).
pub fn reference_summary(rows: &[Row]) -> Option<String> {
    let compared: Vec<&Row> = rows
        .iter()
        .filter(|r| r.matches_reference_memory.is_some())
        .collect();
    if compared.is_empty() {
        return None;
    }
    let matching = compared
        .iter()
        .filter(|r| r.matches_reference_memory == Some(true))
        .count();
    let mut line = format!(
        "memory columns equal to the reference simulator's published table: {matching} of {} rows",
        compared.len()
    );
    for r in compared
        .iter()
        .filter(|r| r.matches_reference_memory == Some(false))
    {
        let _ = write!(line, "\n  differs: {} at wave{}", r.kernel, r.wave_width);
    }
    Some(line)
}

/// One line saying what the occupancy column is and on which hardware, per wave
/// width; `None` without rows.
pub fn occupancy_note(rows: &[Row]) -> Option<String> {
    let mut seen: Vec<(u32, &str)> = Vec::new();
    for r in rows {
        let pair = (r.wave_width, r.occupancy.hardware);
        if !seen.contains(&pair) {
            seen.push(pair);
        }
    }
    if seen.is_empty() {
        return None;
    }
    let on: Vec<String> = seen
        .iter()
        .map(|(width, hw)| format!("{hw} for wave{width}"))
        .collect();
    Some(format!(
        "occupancy: theoretical resident waves per compute unit / its wave slots, and the resource that limits them, on {}",
        on.join(", ")
    ))
}

/// The sanitizers' findings, one line each under the kernel and width they
/// came from; `None` when there is none.
pub fn findings_list(rows: &[Row]) -> Option<String> {
    let mut out = String::new();
    for r in rows.iter().filter(|r| !r.findings.is_empty()) {
        let _ = writeln!(out, "  {} at wave{}:", r.kernel, r.wave_width);
        for f in &r.findings.list {
            let _ = writeln!(out, "    {f}");
        }
        if r.findings.dropped > 0 {
            let _ = writeln!(out, "    and {} more", r.findings.dropped);
        }
    }
    (!out.is_empty()).then(|| format!("sanitizer findings:\n{out}"))
}

/// Writes `results` as pretty JSON to `path`, creating its folder; the file is
/// replaced whole (written beside it, then renamed), never left half-written.
pub fn write_json(results: &Results, path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut json = serde_json::to_string_pretty(results).map_err(io::Error::other)?;
    json.push('\n');
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, json)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use simt::core::{Finding, FindingKind, RaceClass, Site, Space};

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

    fn row(kernel: &str, oracle_pass: bool) -> Row {
        Row {
            kernel: kernel.to_owned(),
            wave_width: 32,
            has_oracle: true,
            oracle_pass,
            mismatch: (!oracle_pass).then(|| "element 0: got 1, expected 2".to_owned()),
            workgroups: 1,
            waves: 2,
            totals: Counters {
                instructions: 20,
                vector_instructions: 14,
                divergent_vector_instructions: 2,
                active_lanes: 416,
                global_accesses: 4,
                global_transactions: 68,
                ..Counters::default()
            },
            divergence_pct: 100.0 / 7.0,
            simd_efficiency: 416.0 / 14.0,
            transactions_per_access: 17.0,
            active_lanes_histogram: vec![0; 33],
            matches_reference_memory: None,
            timing: Timing {
                launches: 3,
                median_launch_ns: 12_345,
                wave_instructions_per_second: 20.0 / 12_345e-9,
            },
            occupancy: simt::core::occupancy(
                &Hardware::RDNA3,
                &Usage {
                    vregs: 4,
                    workgroup_size: 64,
                    ..Usage::default()
                },
            ),
            findings: Findings::default(),
            listing: Listing {
                kernel: kernel.to_owned(),
                wave_width: 32,
                model: "reference".to_owned(),
                lines: vec![],
                hints: vec![],
            },
            worst_phases: vec![],
            trace: None,
        }
    }

    #[test]
    fn the_table_aligns_its_columns_and_formats_each_figure() {
        let table = table(&[row("gather", true), row("a_much_longer_name", false)]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{table}");
        assert!(
            lines[1].starts_with("|--------------------|-----:|"),
            "{table}"
        );
        let cells: Vec<&str> = lines[2].split('|').map(str::trim).collect();
        assert_eq!(
            cells[1..17],
            [
                "gather",
                "32",
                "20",
                "14",
                "14.29",
                "29.71",
                "0",
                "0",
                "4",
                "68",
                "17.00",
                "64/64 waves",
                "0",
                "pass",
                "1.6",
                "12.3"
            ]
        );
        // Text columns are left-aligned, numbers right-aligned.
        assert!(lines[2].contains("| 64/64 waves |"), "{table}");
        assert!(lines[1].contains("|-------------|"), "{table}");
        assert!(lines[3].contains("| FAIL "), "{table}");
    }

    #[test]
    fn the_hardware_follows_the_model_or_else_the_wave_width() {
        let name = |model: MemoryModel, width| hardware_for(&model, width).name;
        assert_eq!(name(MemoryModel::nvidia(), 32), "hopper");
        assert_eq!(name(MemoryModel::nvidia(), 64), "hopper");
        assert_eq!(name(MemoryModel::cdna3(), 32), "cdna3");
        assert_eq!(name(MemoryModel::reference(), 32), "rdna3");
        assert_eq!(name(MemoryModel::reference(), 64), "cdna3");
    }

    #[test]
    fn the_occupancy_note_names_the_hardware_of_each_width() {
        assert_eq!(occupancy_note(&[]), None);
        let mut rows = vec![row("a", true), row("b", true), row("a", true)];
        rows[2].wave_width = 64;
        rows[2].occupancy.hardware = "cdna3";
        let note = occupancy_note(&rows).unwrap();
        assert!(
            note.ends_with("on rdna3 for wave32, cdna3 for wave64"),
            "{note}"
        );
    }

    fn race() -> Finding {
        let site = |line| Site {
            inst: line,
            line,
            workgroup: [1, 0, 0],
            wave: 0,
            lane: 0,
        };
        Finding {
            kind: FindingKind::Race {
                space: Space::Global,
                class: RaceClass::ReadAfterWrite,
                scope: simt::core::Scope::Workgroups,
                same_value: false,
            },
            at: site(12),
            other: Some(site(14)),
            address: Some(0x100),
            bytes: 4,
            occurrences: 3,
            byte: None,
            register: None,
        }
    }

    #[test]
    fn findings_are_counted_listed_and_fail_the_results() {
        let mut rows = vec![row("a", true), row("b", true)];
        assert_eq!(findings_list(&rows), None);
        rows[1].findings.list.push(race());
        let table = table(&rows);
        let cells: Vec<&str> = table
            .lines()
            .nth(3)
            .unwrap()
            .split('|')
            .map(str::trim)
            .collect();
        assert_eq!(cells[13], "1", "{table}");
        let list = findings_list(&rows).unwrap();
        assert_eq!(
            list,
            format!("sanitizer findings:\n  b at wave32:\n    {}\n", race())
        );
        assert!(list.contains("global race, read after write"), "{list}");
        let mut results = results(rows);
        assert!(!results.all_passed());
        // A write after a write of the same value is minor: listed, not failing.
        if let FindingKind::Race { same_value, .. } = &mut results.rows[1].findings.list[0].kind {
            *same_value = true;
        }
        assert!(results.all_passed());
    }

    #[test]
    fn a_study_that_does_not_pass_or_fails_to_run_fails_the_results() {
        let mut results = results(vec![row("a", true)]);
        let study = crate::studies::find("divergent_paths").unwrap();
        let mut result = (study.run)(1, 32).unwrap();
        assert!(result.passed);
        results.studies.push(result.clone());
        assert!(results.all_passed());
        result.passed = false;
        results.studies.push(result);
        assert!(!results.all_passed());
        results.studies.pop();
        results.study_failures.push(StudyFailure {
            study: "divergent_paths".to_owned(),
            wave_width: 64,
            error: "boom".to_owned(),
        });
        assert!(!results.all_passed());
    }

    #[test]
    fn the_reference_summary_counts_and_names_differing_rows() {
        let mut rows = vec![row("a", true), row("b", true), row("c", true)];
        assert_eq!(reference_summary(&rows), None);
        rows[0].matches_reference_memory = Some(true);
        rows[1].matches_reference_memory = Some(false);
        rows[1].wave_width = 64;
        assert_eq!(
            reference_summary(&rows).unwrap(),
            "memory columns equal to the reference simulator's published table: 1 of 2 rows\n  differs: b at wave64"
        );
    }

    fn results(rows: Vec<Row>) -> Results {
        Results {
            version: "0",
            seed: 1,
            model: MemoryModel::reference(),
            schedule: Schedule::UntilBarrier,
            metrics: crate::metrics::METRICS,
            rows,
            failures: vec![],
            studies: vec![],
            study_failures: vec![],
        }
    }

    #[test]
    fn a_row_without_an_oracle_says_none_and_passes() {
        let mut without = row("from_a_file", true);
        without.has_oracle = false;
        let table = table(&[without.clone(), row("b", false)]);
        let cells = |n: usize| -> Vec<String> {
            let line = table.lines().nth(n).unwrap();
            line.split('|').map(|c| c.trim().to_owned()).collect()
        };
        assert_eq!(cells(2)[14], "none", "{table}");
        assert_eq!(cells(3)[14], "FAIL", "{table}");
        assert!(results(vec![without]).all_passed());
    }

    #[test]
    fn a_failed_oracle_or_launch_fails_the_results() {
        let mut results = results(vec![row("a", true)]);
        assert!(results.all_passed());
        results.rows.push(row("b", false));
        assert!(!results.all_passed());
        results.rows.pop();
        results.failures.push(Failure {
            kernel: "c".to_owned(),
            wave_width: 64,
            error: "boom".to_owned(),
        });
        assert!(!results.all_passed());
    }
}
