//! The report as one self-contained HTML page: a table of contents, the
//! summary table, then per kernel and width its annotated listing, a divergence
//! timeline of one workgroup, and pictures of the costliest phase of each
//! memory instruction; then per study its charts ([`charts`]).
//!
//! Everything is inline (CSS in a `<style>`, pictures as SVG drawn here by hand),
//! nothing is fetched and nothing runs: the file opens anywhere. The markup is
//! also well-formed XML (XHTML-compatible), so that tests can parse it.
//!
//! The pictures use a handful of colours, named in [`colors`], which the browser
//! test looks for in a screenshot.

use crate::results::{finding_count, has_major_findings, Results, Row};
use crate::table;
use simt::core::{Inst, MemoryModel, Program, Trace, WorstPhase};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

pub mod charts;
pub mod time;

/// The colours of the pictures.
pub mod colors {
    /// An active lane in the divergence timeline.
    pub const ACTIVE: &str = "#1c7ed6";
    /// An inactive lane in the divergence timeline.
    pub const INACTIVE: &str = "#dee2e6";
    /// A lane of a memory phase.
    pub const LANE: &str = "#495057";
    /// A bank asked for one word (no conflict).
    pub const BANK: &str = "#b2f2bb";
    /// The busiest bank of a conflicting phase.
    pub const CONFLICT: &str = "#e03131";
    /// A global line a phase touched.
    pub const LINE: &str = "#f08c00";
    /// One of the fewest lines the phase's bytes fit in.
    pub const MINIMUM: &str = "#2f9e44";
    /// A measured figure in a study's chart.
    pub const MEASURED: &str = "#3b5bdb";
    /// The figure the seed states, beside the measured one.
    pub const STATED: &str = "#868e96";
    /// The figure the seed measured on hardware, beside the measured one.
    pub const HARDWARE: &str = "#e8590c";
    /// The frame around a study's chart.
    pub const FRAME: &str = "#862e9c";
}

/// The narrowest a divergence timeline is drawn (its issues then get wider
/// columns, up to [`MAX_TIMELINE_COLUMN`] pixels), so that a short kernel's
/// timeline is readable.
pub const MIN_TIMELINE_WIDTH: usize = 480;
/// The widest column an issue gets in the timeline.
pub const MAX_TIMELINE_COLUMN: usize = 24;

/// Pixels per lane in the timeline: a lone active lane stays visible.
pub const TIMELINE_LANE: usize = 2;

/// How many issues per wave the timeline draws; longer waves are cut, and say so.
pub const MAX_TIMELINE_ISSUES: usize = 1500;

/// Writes `page` to `path`, creating its folder; the file is replaced whole
/// (written beside it, then renamed), never left half-written.
pub fn write_page(page: &str, path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, page)?;
    std::fs::rename(&tmp, path)
}

/// Escapes text for HTML element content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body { font-family: sans-serif; margin: 16px; color: #212529; background: #ffffff; width: 1360px; }
table { border-collapse: collapse; font-size: 12px; margin: 8px 0; }
th, td { border: 1px solid #ced4da; padding: 2px 6px; text-align: right; white-space: nowrap; }
th { background: #f1f3f5; }
td.text, th.text { text-align: left; font-family: monospace; }
tr.hot td { background: #fff4e6; }
div.fact { color: #555; font-size: 90%; }
table.listing { max-width: 1200px; }
table.listing td.text { white-space: normal; overflow-wrap: anywhere; min-width: 360px; }
ol.hints { font-size: 13px; max-width: 1200px; }
section.kernel { border-top: 2px solid #adb5bd; margin-top: 24px; }
figure { margin: 8px 0; }
figure.timeline { max-width: 1200px; overflow-x: auto; }
figcaption { font-size: 12px; font-family: monospace; }
svg { display: block; }
svg text { font-family: monospace; font-size: 10px; fill: #212529; }
svg text.axis { fill: #495057; }
.fail { color: #c92a2a; font-weight: bold; }
nav.toc { font-size: 13px; }
nav.toc ul { margin: 2px 0; }
section.study { border-top: 2px solid #adb5bd; margin-top: 24px; }
p.claim { font-size: 14px; max-width: 900px; }
.verdict { color: #2b8a3e; }
.verdict.fail { color: #c92a2a; }
td.holds { color: #2b8a3e; }
td.pair { padding: 0 4px; }
svg.chart text.heading { font-size: 12px; font-weight: bold; }
";

/// The whole page for rows whose timings are medians of `launches` launches,
/// with a section for each row whose kernel's program `program` finds.
pub fn render_with<'p>(
    results: &Results,
    launches: usize,
    program: &dyn Fn(&str) -> Option<&'p Program>,
) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n");
    out.push_str("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n");
    out.push_str("<meta charset=\"utf-8\"/>\n<title>simt report</title>\n");
    let _ = writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>");
    out.push_str("<h1>simt report</h1>\n");
    let _ = writeln!(
        out,
        "<p>seed {}, model {}, {} per row on one thread</p>",
        results.seed,
        esc(&results.model.name),
        crate::table::launches_text(launches)
    );
    contents(&mut out, results, program);
    summary(&mut out, results);
    for row in &results.rows {
        let Some(program) = program(&row.kernel) else {
            continue;
        };
        kernel_section(&mut out, row, program, &results.model);
    }
    for study in &results.studies {
        charts::study_section(&mut out, study);
    }
    for f in &results.study_failures {
        let _ = writeln!(
            out,
            "<p class=\"fail\">study {} at wave{} failed: {}</p>",
            esc(&f.study),
            f.wave_width,
            esc(&f.error)
        );
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// Links to the summary, every kernel section and every study section.
fn contents<'p>(
    out: &mut String,
    results: &Results,
    program: &dyn Fn(&str) -> Option<&'p Program>,
) {
    out.push_str("<nav class=\"toc\">\n<h2 id=\"contents\">Contents</h2>\n<ul>\n");
    out.push_str("<li><a href=\"#summary\">Summary</a></li>\n");
    let kernels: Vec<&Row> = results
        .rows
        .iter()
        .filter(|r| program(&r.kernel).is_some())
        .collect();
    if !kernels.is_empty() {
        out.push_str("<li>Kernels<ul>\n");
        for r in kernels {
            let _ = writeln!(
                out,
                "<li><a href=\"#{}\">{}, wave{}</a></li>",
                anchor(r),
                esc(&r.kernel),
                r.wave_width
            );
        }
        out.push_str("</ul></li>\n");
    }
    if !results.studies.is_empty() {
        out.push_str("<li>Studies<ul>\n");
        for s in &results.studies {
            let _ = writeln!(
                out,
                "<li><a href=\"#{}\">{}</a> {}</li>",
                charts::anchor(s),
                esc(&charts::title(s)),
                if s.passed {
                    "passes"
                } else {
                    "<span class=\"fail\">fails</span>"
                }
            );
        }
        out.push_str("</ul></li>\n");
    }
    out.push_str("</ul>\n</nav>\n");
}

fn summary(out: &mut String, results: &Results) {
    out.push_str("<h2 id=\"summary\">Summary</h2>\n<table class=\"summary\">\n<tr>");
    for h in &table::HEADER[..table::HEADER.len() - 2] {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr>\n");
    for r in &results.rows {
        let t = &r.totals;
        let findings = finding_count(&r.findings);
        let _ = writeln!(
            out,
            "<tr><td class=\"text\"><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td class=\"text\" title=\"{}\">{}</td><td>{}</td><td class=\"text\">{}</td></tr>",
            anchor(r),
            esc(&r.kernel),
            r.wave_width,
            t.instructions,
            t.vector_instructions,
            r.divergence_pct,
            r.simd_efficiency,
            t.lds_accesses,
            t.lds_conflict_cycles,
            t.global_accesses,
            t.global_transactions,
            r.transactions_per_access,
            esc(r.occupancy.hardware),
            esc(&table::occupancy_cell(&r.occupancy)),
            if has_major_findings(&r.findings) {
                format!("<span class=\"fail\">{findings}</span>")
            } else {
                findings.to_string()
            },
            if r.has_oracle && !r.oracle_pass {
                "<span class=\"fail\">FAIL</span>"
            } else {
                table::oracle_cell(r)
            }
        );
    }
    out.push_str("</table>\n");
    if let Some(note) = table::occupancy_note(&results.rows) {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(&note));
    }
    if results.rows.iter().any(|r| !r.findings.is_empty()) {
        out.push_str("<h3>Sanitizer findings</h3>\n<ul class=\"findings\">\n");
        for r in results.rows.iter().filter(|r| !r.findings.is_empty()) {
            for f in &r.findings.list {
                let _ = writeln!(
                    out,
                    "<li>{} at wave{}: {}</li>",
                    esc(&r.kernel),
                    r.wave_width,
                    esc(&f.to_string())
                );
            }
            if r.findings.dropped > 0 {
                let _ = writeln!(
                    out,
                    "<li>{} at wave{}: and {} more</li>",
                    esc(&r.kernel),
                    r.wave_width,
                    r.findings.dropped
                );
            }
        }
        out.push_str("</ul>\n");
    }
    for f in &results.failures {
        let _ = writeln!(
            out,
            "<p class=\"fail\">{} at wave{} failed: {}</p>",
            esc(&f.kernel),
            f.wave_width,
            esc(&f.error)
        );
    }
}

fn anchor(row: &Row) -> String {
    format!("{}-wave{}", row.kernel, row.wave_width)
}

fn kernel_section(out: &mut String, row: &Row, program: &Program, model: &MemoryModel) {
    let _ = writeln!(
        out,
        "<section class=\"kernel\" id=\"{}\">\n<h2>{}, wave{}</h2>",
        anchor(row),
        esc(&row.kernel),
        row.wave_width
    );
    listing(out, row);
    if let Some(t) = &row.estimate {
        time::section(out, t, &row.listing);
    }
    if let Some(trace) = &row.trace {
        timeline(out, trace, program, row.wave_width);
    }
    lds_pictures(out, row, program, model);
    global_pictures(out, row, program, model);
    out.push_str("</section>\n");
}

/// The static facts of a listing line, under its instruction: what each
/// memory instruction should cost beside what it measured, and its races.
fn facts_of(line: &simt::core::Line) -> String {
    line.facts
        .iter()
        .map(|f| format!("<div class=\"fact\">{}</div>", esc(f)))
        .collect()
}

fn listing(out: &mut String, row: &Row) {
    let l = &row.listing;
    out.push_str("<h3>Listing</h3>\n<table class=\"listing\">\n<tr>");
    for h in [
        "line",
        "issues",
        "skipped",
        "lanes",
        "div %",
        "lds acc",
        "conflict",
        "glb acc",
        "trans/acc",
        "sect/acc",
        "L1 hit %",
        "atom cont",
    ] {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    // A kernel lowered from another language (CUDA, through PTX) is read by
    // its own lines: they come first, the instructions they became beside.
    let source = l.has_source();
    if source {
        out.push_str("<th class=\"text\">source</th>");
    }
    out.push_str("<th class=\"text\">instruction</th></tr>\n");
    for line in &l.lines {
        let hot = l.hint(line.line).is_some();
        let vector = line.vector_issues > 0;
        let global = line.global_accesses > 0;
        let num = |v: u64| if v == 0 { String::new() } else { v.to_string() };
        let _ = writeln!(
            out,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td class=\"text\">{}</td></tr>",
            if hot { " class=\"hot\"" } else { "" },
            line.line,
            line.issues,
            num(line.skipped),
            if vector { format!("{:.2}", line.avg_active_lanes) } else { String::new() },
            if vector { format!("{:.1}", line.divergent_share * 100.0) } else { String::new() },
            num(line.lds_accesses),
            num(line.lds_conflict_cycles),
            num(line.global_accesses),
            if global { format!("{:.2}", line.transactions_per_access) } else { String::new() },
            if global { format!("{:.2}", line.sectors_per_access) } else { String::new() },
            line.l1_hit_rate.map_or(String::new(), |r| format!("{:.1}", r * 100.0)),
            num(line.atomic_contention),
            if source {
                format!(
                    "<td class=\"text\">{}</td>",
                    esc(line.source.as_deref().unwrap_or(""))
                )
            } else {
                String::new()
            },
            esc(&line.text) + &facts_of(line)
        );
    }
    out.push_str("</table>\n");
    if !l.hints.is_empty() {
        out.push_str("<ol class=\"hints\">\n");
        for h in &l.hints {
            let also = if h.also.is_empty() {
                String::new()
            } else {
                let lines: Vec<String> = h.also.iter().map(u32::to_string).collect();
                format!(" (and {})", lines.join(", "))
            };
            let _ = writeln!(out, "<li>line {}{also}: {}</li>", h.line, esc(&h.text));
        }
        out.push_str("</ol>\n");
    }
}

/// Lanes `lo..hi` of each contiguous run of set bits of `mask` (below `width`).
fn runs(mask: u64, width: u32) -> Vec<(u32, u32)> {
    // An exec mask has 64 bits: no wider wave exists.
    let width = width.min(64);
    let mut out = Vec::new();
    let mut lane = 0;
    while lane < width {
        if mask >> lane & 1 == 1 {
            let start = lane;
            while lane < width && mask >> lane & 1 == 1 {
                lane += 1;
            }
            out.push((start, lane));
        } else {
            lane += 1;
        }
    }
    out
}

/// The pixels per issue of a timeline whose longest wave issues `longest`
/// instructions: 2 for long waves, wider for short ones so that the timeline is
/// at least [`MIN_TIMELINE_WIDTH`] wide, at most [`MAX_TIMELINE_COLUMN`].
pub fn timeline_column(longest: usize) -> usize {
    MIN_TIMELINE_WIDTH
        .div_ceil(longest.max(1))
        .clamp(3, MAX_TIMELINE_COLUMN)
}

/// Per wave, one column per issued instruction (time runs right), a row of
/// [`TIMELINE_LANE`] pixels per lane: active lanes in [`colors::ACTIVE`],
/// inactive in [`colors::INACTIVE`]; under each wave an axis of the source
/// lines its issues come from, and above them a legend.
fn timeline(out: &mut String, trace: &Trace, program: &Program, width: u32) {
    const LABEL: usize = 60;
    // Below each wave: its axis (ticks and line numbers), then a margin.
    const GAP: usize = 22;
    const LEGEND: usize = 18;
    let mut per_wave: Vec<Vec<(u64, u32)>> = vec![Vec::new(); trace.waves as usize];
    for issue in &trace.issues {
        if let Some(w) = per_wave.get_mut(issue.wave as usize) {
            if w.len() < MAX_TIMELINE_ISSUES {
                w.push((issue.exec, program.loc(issue.pc as usize).line));
            }
        }
    }
    let longest = per_wave.iter().map(Vec::len).max().unwrap_or(0);
    let column = timeline_column(longest);
    let cut = per_wave.iter().any(|w| w.len() >= MAX_TIMELINE_ISSUES) || trace.truncated;
    let lanes = width as usize;
    let height = lanes * TIMELINE_LANE;
    let svg_w = (LABEL + longest * column + 4).max(LABEL + 300);
    let svg_h = LEGEND + per_wave.len() * (height + GAP) + 4;
    let _ = writeln!(
        out,
        "<h3>Divergence timeline, workgroup {}</h3>\n<figure class=\"timeline\">",
        trace.workgroup[0]
    );
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"{svg_w}\" height=\"{svg_h}\" viewBox=\"0 0 {svg_w} {svg_h}\">"
    );
    let _ = writeln!(
        out,
        "<g class=\"legend\"><rect x=\"{LABEL}\" y=\"2\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"11\">active lane</text><rect x=\"{}\" y=\"2\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"11\">inactive lane</text><text x=\"{}\" y=\"11\">L: source line</text></g>",
        colors::ACTIVE,
        LABEL + 14,
        LABEL + 100,
        colors::INACTIVE,
        LABEL + 114,
        LABEL + 210,
    );
    for (w, issues) in per_wave.iter().enumerate() {
        let top = LEGEND + w * (height + GAP);
        let _ = writeln!(
            out,
            "<text x=\"0\" y=\"{}\">wave {w}</text>",
            top + height / 2 + 4
        );
        let _ = writeln!(
            out,
            "<rect x=\"{LABEL}\" y=\"{top}\" width=\"{}\" height=\"{height}\" fill=\"{}\"/>",
            issues.len() * column,
            colors::INACTIVE
        );
        // Consecutive issues under one exec mask share their rectangles.
        let mut k = 0;
        while k < issues.len() {
            let exec = issues[k].0;
            let mut end = k + 1;
            while end < issues.len() && issues[end].0 == exec {
                end += 1;
            }
            for (lo, hi) in runs(exec, width) {
                let _ = writeln!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>",
                    LABEL + k * column,
                    top + lo as usize * TIMELINE_LANE,
                    (end - k) * column,
                    (hi - lo) as usize * TIMELINE_LANE,
                    colors::ACTIVE
                );
            }
            k = end;
        }
        axis(out, issues, column, LABEL, top + height);
    }
    out.push_str("</svg>\n");
    let divergent = trace
        .issues
        .iter()
        .filter(|i| {
            program
                .insts
                .get(i.pc as usize)
                .is_some_and(|inst| inst.is_vector())
        })
        .count();
    let _ = writeln!(
        out,
        "<figcaption>{} wave{}, {} issue{} ({} vector); one column of {column} pixels per issue, {TIMELINE_LANE} pixels per lane (lane 0 at the top); under each wave, the source line where its issues move to another{}</figcaption>\n</figure>",
        trace.waves,
        if trace.waves == 1 { "" } else { "s" },
        trace.issues.len(),
        if trace.issues.len() == 1 { "" } else { "s" },
        divergent,
        if cut { "; cut after the first issues" } else { "" }
    );
}

/// A wave's axis under its timeline, at `y`: a tick and the source line
/// wherever its issues move to another line, leaving out labels that would
/// overlap the one before.
fn axis(out: &mut String, issues: &[(u64, u32)], column: usize, left: usize, y: usize) {
    // Monospace at 10 pixels: about 6 pixels a character.
    const CHAR: usize = 6;
    let mut free = 0;
    let mut previous = None;
    for (k, &(_, line)) in issues.iter().enumerate() {
        if previous == Some(line) {
            continue;
        }
        previous = Some(line);
        let x = left + k * column;
        let label = format!("L{line}");
        if x < free {
            continue;
        }
        free = x + label.len() * CHAR + CHAR;
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" y1=\"{y}\" x2=\"{x}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1\"/><text class=\"axis\" x=\"{x}\" y=\"{}\">{label}</text>",
            y + 4,
            colors::STATED,
            y + 14
        );
    }
}

/// The memory instructions with a recorded worst phase, of one kind.
fn memory_insts<'r>(row: &'r Row, program: &Program, lds: bool) -> Vec<(usize, &'r WorstPhase)> {
    row.worst_phases
        .iter()
        .enumerate()
        .filter(|(_, w)| w.is_recorded())
        .filter(|&(k, _)| {
            program.insts.get(k).is_some_and(|inst| {
                let is_lds = matches!(
                    inst,
                    Inst::LdsLoad { .. }
                        | Inst::LdsStore { .. }
                        | Inst::LdsAtomic { .. }
                        | Inst::LdsCmpSwap { .. }
                );
                is_lds == lds
            })
        })
        .collect()
}

const BOX: usize = 14;
const PITCH: usize = 16;

/// Per LDS instruction, its worst phase: lanes on top, banks below, a line from
/// each active lane to its bank, the busiest bank in [`colors::CONFLICT`] when
/// it is asked for more than one word.
fn lds_pictures(out: &mut String, row: &Row, program: &Program, model: &MemoryModel) {
    let insts = memory_insts(row, program, true);
    if insts.is_empty() {
        return;
    }
    let banks = model.lds_banks.max(1);
    let bank_bytes = model.lds_bank_bytes.max(1);
    out.push_str("<h3>LDS: the worst phase of each instruction, lanes to banks</h3>\n");
    for (k, w) in insts {
        let inst = program
            .insts
            .get(k)
            .map(|i| program.display_inst(i).to_string())
            .unwrap_or_default();
        let mut words: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (_, o) in w.active_offsets() {
            let word = o / bank_bytes;
            let list = words.entry(word % banks).or_default();
            if !list.contains(&word) {
                list.push(word);
            }
        }
        let degree = words.values().map(Vec::len).max().unwrap_or(0);
        let lanes = w.offsets.len();
        let columns = lanes.max(banks as usize);
        let svg_w = columns * PITCH + 60;
        let svg_h = 120;
        let _ = writeln!(
            out,
            "<figure class=\"banks\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"banks\" width=\"{svg_w}\" height=\"{svg_h}\" viewBox=\"0 0 {svg_w} {svg_h}\">"
        );
        let _ = writeln!(
            out,
            "<text x=\"0\" y=\"20\">lanes</text><text x=\"0\" y=\"100\">banks</text>"
        );
        for lane in 0..lanes {
            let active = w.active >> lane & 1 == 1;
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"10\" width=\"{BOX}\" height=\"{BOX}\" fill=\"{}\"/>",
                50 + lane * PITCH,
                if active {
                    colors::LANE
                } else {
                    colors::INACTIVE
                }
            );
        }
        for bank in 0..banks {
            let n = words.get(&bank).map_or(0, Vec::len);
            let fill = if n > 1 && n == degree {
                colors::CONFLICT
            } else if n > 0 {
                colors::BANK
            } else {
                colors::INACTIVE
            };
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"88\" width=\"{BOX}\" height=\"{BOX}\" fill=\"{fill}\"/>",
                50 + bank as usize * PITCH
            );
            if n > 1 {
                let _ = writeln!(
                    out,
                    "<text x=\"{}\" y=\"116\">{n}</text>",
                    50 + bank as usize * PITCH + 2
                );
            }
        }
        for (lane, o) in w.active_offsets() {
            let bank = (o / bank_bytes) % banks;
            let _ = writeln!(
                out,
                "<line x1=\"{}\" y1=\"24\" x2=\"{}\" y2=\"88\" stroke=\"{}\" stroke-width=\"1\"/>",
                50 + lane as usize * PITCH + BOX / 2,
                50 + bank as usize * PITCH + BOX / 2,
                colors::LANE
            );
        }
        out.push_str("</svg>\n");
        let _ = writeln!(
            out,
            "<figcaption>line {}: {} — lanes {}..{}: {}-way, {} extra cycles</figcaption>\n</figure>",
            program.loc(k).line,
            esc(&inst),
            w.first_lane,
            w.first_lane as usize + lanes,
            degree.max(1),
            w.cost
        );
    }
}

/// Per global instruction, its worst phase: lanes on top, the lines it touched
/// below ([`colors::LINE`]), and as many [`colors::MINIMUM`] boxes as the fewest
/// lines its bytes fit in.
fn global_pictures(out: &mut String, row: &Row, program: &Program, model: &MemoryModel) {
    let insts = memory_insts(row, program, false);
    if insts.is_empty() {
        return;
    }
    let line_bytes = model.line_bytes.max(1);
    out.push_str("<h3>Global: the worst phase of each instruction, lanes to lines</h3>\n");
    for (k, w) in insts {
        let inst = program
            .insts
            .get(k)
            .map(|i| program.display_inst(i).to_string())
            .unwrap_or_default();
        let mut lines: Vec<u32> = w.active_offsets().map(|(_, o)| o / line_bytes).collect();
        lines.sort_unstable();
        lines.dedup();
        let active = w.active.count_ones() as usize;
        let minimum = (active * w.bytes as usize)
            .div_ceil(line_bytes as usize)
            .max(1);
        let lanes = w.offsets.len();
        let columns = lanes.max(lines.len()).max(minimum);
        let svg_w = columns * PITCH + 60;
        let svg_h = 140;
        let _ = writeln!(
            out,
            "<figure class=\"lines\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lines\" width=\"{svg_w}\" height=\"{svg_h}\" viewBox=\"0 0 {svg_w} {svg_h}\">"
        );
        let _ = writeln!(
            out,
            "<text x=\"0\" y=\"20\">lanes</text><text x=\"0\" y=\"100\">lines</text><text x=\"0\" y=\"130\">fewest</text>"
        );
        for lane in 0..lanes {
            let on = w.active >> lane & 1 == 1;
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"10\" width=\"{BOX}\" height=\"{BOX}\" fill=\"{}\"/>",
                50 + lane * PITCH,
                if on { colors::LANE } else { colors::INACTIVE }
            );
        }
        for (i, _) in lines.iter().enumerate() {
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"88\" width=\"{BOX}\" height=\"{BOX}\" fill=\"{}\"/>",
                50 + i * PITCH,
                colors::LINE
            );
        }
        for i in 0..minimum {
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"118\" width=\"{BOX}\" height=\"{BOX}\" fill=\"{}\"/>",
                50 + i * PITCH,
                colors::MINIMUM
            );
        }
        for (lane, o) in w.active_offsets() {
            let i = lines.binary_search(&(o / line_bytes)).unwrap_or(0);
            let _ = writeln!(
                out,
                "<line x1=\"{}\" y1=\"24\" x2=\"{}\" y2=\"88\" stroke=\"{}\" stroke-width=\"1\"/>",
                50 + lane as usize * PITCH + BOX / 2,
                50 + i * PITCH + BOX / 2,
                colors::LANE
            );
        }
        out.push_str("</svg>\n");
        let _ = writeln!(
            out,
            "<figcaption>line {}: {} — lanes {}..{}: {} line{} ({} sector{}) of {line_bytes} bytes, the fewest is {minimum}</figcaption>\n</figure>",
            program.loc(k).line,
            esc(&inst),
            w.first_lane,
            w.first_lane as usize + lanes,
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            w.sectors,
            if w.sectors == 1 { "" } else { "s" }
        );
    }
}
