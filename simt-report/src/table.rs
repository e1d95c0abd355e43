//! The results as text: the table the report and the `simt` command print,
//! the notes under it, and the JSON file.

use crate::results::{finding_count, Results, Row};
use simt::core::{Limiter, Occupancy};
use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// The table's columns; the HTML summary shows all but the two speed ones.
pub(crate) const HEADER: [&str; COLUMNS] = [
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
    "sim Mwave-inst/s",
    "sim us/launch",
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

/// How a row's timing was taken: "one launch", or "median of N launches".
pub fn launches_text(launches: usize) -> String {
    if launches == 1 {
        "one launch".to_owned()
    } else {
        format!("median of {launches} launches")
    }
}

/// The columns a timed report adds before the simulator's speed: the
/// timing model's estimate and what limits it.
pub(crate) const ESTIMATE_HEADER: [&str; 2] = ["est. us", "limited by"];

/// A timed launch's estimate in a few lines: time, limiter, each resource's
/// share of its peak, occupancy, and where the waves waited, with the ncu
/// warp state each reason corresponds to.
pub fn estimate_text(t: &simt::core::Timing) -> String {
    let u = &t.utilization;
    let mut out = format!(
        "timing model, {}: {:.0} cycles, {:.2} us, limited by {}\n",
        t.part,
        t.cycles,
        t.microseconds,
        t.bound().name()
    );
    let _ = writeln!(
        out,
        "share of peak: DRAM {:.0}%, L2 {:.0}%, L1 {:.0}%, LDS {:.0}%, issue {:.0}%, one atomic address {:.0}%",
        100.0 * u.dram,
        100.0 * u.l2,
        100.0 * u.l1,
        100.0 * u.lds,
        100.0 * u.issue,
        100.0 * u.atomics
    );
    let _ = writeln!(
        out,
        "occupancy: achieved {:.0}%, theoretical {:.0}% ({} workgroups per unit)",
        100.0 * t.achieved_occupancy,
        100.0 * t.theoretical_occupancy,
        t.workgroups_per_unit
    );
    let total = t.stalls.total().max(1.0);
    let reasons: Vec<String> = simt::core::Stalls::NCU
        .iter()
        .zip(t.stalls.values())
        .filter(|(_, v)| *v > 0.0)
        .map(|((name, ncu), v)| format!("{name} {:.0}% ({ncu})", 100.0 * v / total))
        .collect();
    let _ = write!(out, "wave cycles: {}", reasons.join(", "));
    out
}

/// The rows as a Markdown table with aligned columns (numbers right-aligned);
/// with the timing model's columns when a row has an estimate.
pub fn table(rows: &[Row]) -> String {
    let timed = rows.iter().any(|r| r.estimate.is_some());
    let mut header: Vec<&str> = HEADER.to_vec();
    if timed {
        header.splice(COLUMNS - 2..COLUMNS - 2, ESTIMATE_HEADER);
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let t = &r.totals;
            let mut cells = vec![
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
            ];
            if timed {
                let estimate = match &r.estimate {
                    Some(e) => [
                        format!("{:.2}", e.microseconds),
                        e.bound().name().to_owned(),
                    ],
                    None => ["-".to_owned(), "-".to_owned()],
                };
                cells.splice(COLUMNS - 2..COLUMNS - 2, estimate);
            }
            cells
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let text: Vec<bool> = header
        .iter()
        .map(|h| TEXT_COLUMNS.contains(h) || *h == "limited by")
        .collect();
    let mut out = String::new();
    let line = |out: &mut String, row: &[String]| {
        out.push('|');
        for ((c, w), text) in row.iter().zip(&widths).zip(&text) {
            if *text {
                let _ = write!(out, " {c:<w$} |");
            } else {
                let _ = write!(out, " {c:>w$} |");
            }
        }
        out.push('\n');
    };
    line(
        &mut out,
        &header.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
    );
    out.push('|');
    for (w, text) in widths.iter().zip(&text) {
        if *text {
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

/// `text` with its control characters escaped (`\n`, `\u{1b}`): a printed
/// line stays one line and cannot steer the terminal.
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The lines a row's kernel printed, one per lane with who printed it and
/// from which source line; `None` when it printed nothing.
pub fn prints_list(row: &Row) -> Option<String> {
    let p = &row.prints;
    if p.is_empty() {
        return None;
    }
    let mut out = String::new();
    for l in &p.lines {
        let [x, y, z] = l.workgroup;
        let _ = writeln!(
            out,
            "  [workgroup ({x}, {y}, {z}) wave {} lane {}, line {}] {}",
            l.wave,
            l.lane,
            l.line,
            visible(&l.text)
        );
    }
    if p.dropped > 0 {
        let _ = writeln!(
            out,
            "  and {} more line{} after these (a launch keeps the first {})",
            p.dropped,
            if p.dropped == 1 { "" } else { "s" },
            simt::core::limits::MAX_PRINT_LINES
        );
    }
    let n = p.lines.len() as u64 + p.dropped;
    Some(format!(
        "printed ({n} line{}):\n{out}",
        if n == 1 { "" } else { "s" }
    ))
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
    use crate::results::{hardware_for, Failure, StudyFailure, StudyResult, Timing};
    use simt::core::{Counters, Findings, Hardware, Listing, MemoryModel, Schedule, Usage};
    use simt::core::{Finding, FindingKind, RaceClass, Site, Space};

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
            estimate: None,
            occupancy: simt::core::occupancy(
                &Hardware::RDNA3,
                &Usage {
                    vregs: 4,
                    workgroup_size: 64,
                    ..Usage::default()
                },
            ),
            findings: Findings::default(),
            prints: Default::default(),
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
    fn printed_lines_show_control_characters_escaped() {
        let mut r = row("k", true);
        r.prints.lines.push(simt::core::PrintLine {
            workgroup: [0, 0, 0],
            wave: 1,
            lane: 2,
            line: 7,
            text: "a\nb \u{1b}[2J é".to_owned(),
        });
        let list = prints_list(&r).unwrap();
        assert_eq!(
            list,
            "printed (1 line):\n  [workgroup (0, 0, 0) wave 1 lane 2, line 7] a\\nb \\u{1b}[2J é\n"
        );
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
        let mut result = StudyResult::new("a_study", "001", "it holds", 32, vec![], vec![]);
        assert!(result.passed);
        results.studies.push(result.clone());
        assert!(results.all_passed());
        result.passed = false;
        results.studies.push(result);
        assert!(!results.all_passed());
        results.studies.pop();
        results.study_failures.push(StudyFailure {
            study: "a_study".to_owned(),
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
