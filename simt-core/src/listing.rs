//! A launch's counters per source line, with the instruction text and hints.
//!
//! Profilers answer "which line, and why" on a source page; [`Stats::listing`]
//! does the same for a launch: the counters of the instructions written on one
//! line are summed, and the lines that cost the most get a one-line explanation
//! computed from the counters and from the costliest phase each memory
//! instruction issued ([`WorstPhase`]).

use crate::facts::Facts;
use crate::ir::Program;
use crate::isa::Inst;
use crate::model::MemoryModel;
use crate::stats::{Counters, Stats, WorstPhase};
use crate::timing::{Bound, Stalls, Timing};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// How many lines a listing flags at most: a page of hints hides the ones that
/// matter.
pub const MAX_HINTS: usize = 5;

/// The counters of a launch per source line, costliest lines explained.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Listing {
    /// The kernel's name.
    pub kernel: String,
    /// The launch's wave width.
    pub wave_width: u32,
    /// The memory model's name.
    pub model: String,
    /// One row per source line that holds instructions, in source order.
    pub lines: Vec<Line>,
    /// The costliest lines, costliest first (at most [`MAX_HINTS`]).
    pub hints: Vec<Hint>,
}

/// The summed counters of the instructions written on one source line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    /// 1-based source line (0 for instructions built without a location).
    pub line: u32,
    /// The instructions, disassembled with the kernel's names, `; `-separated.
    pub text: String,
    /// The source line itself, when the listing was given the kernel's
    /// source ([`Listing::set_source`]): a kernel lowered from another
    /// language (CUDA, through PTX) is read by its own lines, which its
    /// instructions do not spell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Indices of the instructions in [`Program::insts`].
    pub instructions: Vec<usize>,
    /// Issued instructions.
    pub issues: u64,
    /// Instructions jumped over in bodies no lane took.
    pub skipped: u64,
    /// Vector issues.
    pub vector_issues: u64,
    /// Average active lanes per vector issue (0 without vector issues).
    pub avg_active_lanes: f64,
    /// Divergent vector issues as a share of vector issues (0 to 1).
    pub divergent_share: f64,
    /// LDS phases.
    pub lds_accesses: u64,
    /// LDS bank-conflict cycles.
    pub lds_conflict_cycles: u64,
    /// Global phases.
    pub global_accesses: u64,
    /// Global transactions (lines) per phase (0 without global phases).
    pub transactions_per_access: f64,
    /// Global sectors per phase (0 without global phases).
    pub sectors_per_access: f64,
    /// Share of load sectors found in the L1, when the model has one and the
    /// line loads.
    pub l1_hit_rate: Option<f64>,
    /// Atomic phases.
    pub atomic_accesses: u64,
    /// Per atomic phase, the most lanes at one address minus one, summed.
    pub atomic_contention: u64,
    /// The static facts of the line's memory instructions beside what the
    /// launch measured ("LDS conflicts: predicted 32-way, measured 32-way"),
    /// and the races the facts found or could not rule out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
    /// The summed counters the figures above come from.
    #[serde(skip)]
    pub counters: Counters,
    /// Where the waves waited before the line's instructions, in cycles by
    /// reason, when the launch was timed
    /// ([`LaunchConfig::timing`](crate::LaunchConfig::timing)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stalls: Option<Stalls>,
}

/// What kind of cost a hint explains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HintKind {
    /// LDS lanes asking one bank for different words.
    BankConflict,
    /// Global accesses touching more lines than their bytes need.
    Uncoalesced,
    /// Vector issues with few active lanes because a branch split the wave.
    Divergence,
    /// Vector issues with few active lanes because waves are partly empty.
    PartialWaves,
    /// Atomic lanes updating one address, one after another.
    AtomicContention,
    /// What limits a timed launch, on the line that waits on it most.
    Limiter,
}

/// A costly line and why it costs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hint {
    /// The source line (the costliest, when several share the explanation).
    pub line: u32,
    /// Other lines with the same explanation (the body of one branch, say), in
    /// source order.
    pub also: Vec<u32>,
    /// What kind of cost.
    pub kind: HintKind,
    /// The cost that ranks hints, summed over `line` and `also`: extra LDS cycles, extra global transactions,
    /// idle lane-issues in units of whole waves, or serialized atomic updates;
    /// each is roughly one wasted issue slot of the unit involved.
    pub cost: u64,
    /// The explanation.
    pub text: String,
}

impl Stats {
    /// This launch's counters per source line of `program`, with hints for the
    /// costliest lines.
    ///
    /// The memory geometry the hints reason with is the preset named like the
    /// launch's model (the reference model's for a model of another name). The
    /// static facts are decided for the program's declared workgroup shape,
    /// or for any shape, with their assumptions;
    /// [`listing_with_facts`](Self::listing_with_facts) takes facts decided
    /// for the launch's shape.
    pub fn listing(&self, program: &Program) -> Listing {
        self.listing_with_facts(
            program,
            &crate::facts::facts(program, program.workgroup_size),
        )
    }

    /// [`listing`](Self::listing) with the static facts `facts` of `program`.
    pub fn listing_with_facts(&self, program: &Program, facts: &Facts) -> Listing {
        let model = MemoryModel::preset(&self.model).unwrap_or_default();
        let predictions = crate::prediction::predictions(program, facts, self, &model);
        let mut rows: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for k in 0..program.insts.len().min(self.per_instruction.len()) {
            rows.entry(program.loc(k).line).or_default().push(k);
        }
        let mut lines = Vec::with_capacity(rows.len());
        let mut hints = Vec::new();
        for (line, insts) in rows {
            let mut c = Counters::default();
            let mut text = String::new();
            for &k in &insts {
                if let Some(counters) = self.per_instruction.get(k) {
                    c.add(counters);
                }
                if let Some(inst) = program.insts.get(k) {
                    if !text.is_empty() {
                        text.push_str("; ");
                    }
                    text.push_str(&program.display_inst(inst).to_string());
                }
            }
            let launch = crate::prediction::Launch {
                values: &self.launch,
                width: self.wave_width,
            };
            let notes = crate::prediction::notes(program, facts, &predictions, &insts, &launch);
            let stalls = self.timing.as_ref().map(|t| {
                let mut s = Stalls::default();
                for &k in &insts {
                    if let Some(k) = t.per_instruction.get(k) {
                        s.add(k);
                    }
                }
                s
            });
            let row = Line {
                line,
                text,
                source: None,
                instructions: insts,
                issues: c.instructions,
                skipped: c.skipped_instructions,
                vector_issues: c.vector_instructions,
                avg_active_lanes: c.simd_efficiency(),
                divergent_share: c.divergence_pct() / 100.0,
                lds_accesses: c.lds_accesses,
                lds_conflict_cycles: c.lds_conflict_cycles,
                global_accesses: c.global_accesses,
                transactions_per_access: c.transactions_per_access(),
                sectors_per_access: ratio(c.global_sectors, c.global_accesses),
                l1_hit_rate: (c.l1_hit_sectors + c.l1_miss_sectors > 0).then(|| c.l1_hit_rate()),
                atomic_accesses: c.atomic_accesses,
                atomic_contention: c.atomic_contention,
                facts: notes,
                counters: c,
                stalls,
            };
            hints.extend(line_hints(self, program, &model, &row));
            lines.push(row);
        }
        // Costliest first; ties in source order, so the ranking is stable.
        hints.sort_by(|a, b| b.cost.cmp(&a.cost).then(a.line.cmp(&b.line)));
        // One explanation per cause: the lines of one branch's body say the same
        // thing, and would crowd out every other hint.
        let mut merged: Vec<Hint> = Vec::new();
        for h in hints {
            match merged
                .iter_mut()
                .find(|m| m.kind == h.kind && m.text == h.text)
            {
                Some(m) => {
                    m.also.push(h.line);
                    m.also.sort_unstable();
                    m.cost = m.cost.saturating_add(h.cost);
                }
                None => merged.push(h),
            }
        }
        merged.sort_by(|a, b| b.cost.cmp(&a.cost).then(a.line.cmp(&b.line)));
        let mut hints = merged;
        // What limits a timed launch comes first: it says which of the other
        // hints matter.
        if let Some(h) = self.timing.as_ref().and_then(|t| limiter_hint(t, &lines)) {
            hints.insert(0, h);
        }
        hints.truncate(MAX_HINTS);
        Listing {
            kernel: self.kernel.clone(),
            wave_width: self.wave_width,
            model: self.model.clone(),
            lines,
            hints,
        }
    }
}

impl Listing {
    /// Gives each row the text of its line in `source`, the file the
    /// kernel's lines number (trimmed; rows of line 0, or past the end, get
    /// none). The text listing then shows the source in place of the
    /// instructions, and the report's page beside them.
    pub fn set_source(&mut self, source: &str) {
        let lines: Vec<&str> = source.lines().collect();
        for l in &mut self.lines {
            l.source = (l.line as usize)
                .checked_sub(1)
                .and_then(|k| lines.get(k))
                .map(|t| t.trim().to_owned());
        }
    }

    /// Whether any row has its source line ([`set_source`](Self::set_source)).
    pub fn has_source(&self) -> bool {
        self.lines.iter().any(|l| l.source.is_some())
    }

    /// The hint about `line`, if it is one of the costliest.
    pub fn hint(&self, line: u32) -> Option<&Hint> {
        self.hints
            .iter()
            .find(|h| h.line == line || h.also.contains(&line))
    }
}

/// The hint naming what limits a timed launch, on the line whose waves wait
/// longest for it (the most issue cycles when the issue slots limit).
fn limiter_hint(timing: &Timing, lines: &[Line]) -> Option<Hint> {
    let u = &timing.utilization;
    let pct = |share: f64| (100.0 * share).round();
    let bound = timing.bound();
    let waited = |s: &Stalls| match bound {
        Bound::Dram | Bound::L2 | Bound::L1 => s.global + s.memory_throttle + s.drain,
        Bound::Lds => s.lds + s.lds_throttle,
        Bound::Issue => s.issuing,
        Bound::Atomics => s.global,
        Bound::Latency => s.total() - s.issuing - s.not_selected,
    };
    let line = lines
        .iter()
        .filter_map(|l| Some((l, waited(l.stalls.as_ref()?))))
        .filter(|(_, w)| *w > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let text = match bound {
        Bound::Dram => format!(
            "DRAM-bound at {}% of peak: fewer bytes, not fewer instructions (the waves wait here most)",
            pct(u.dram)
        ),
        Bound::L2 => format!(
            "L2-bound at {}% of its bandwidth: fewer sectors past the L1 (better reuse, coalescing)",
            pct(u.l2)
        ),
        Bound::L1 => format!(
            "L1-bound at {}% of its bandwidth: fewer sectors per request (coalesce the lanes' accesses)",
            pct(u.l1)
        ),
        Bound::Lds => format!(
            "LDS-bound at {}% of its cycles: fewer bank conflicts or LDS accesses",
            pct(u.lds)
        ),
        Bound::Issue => format!(
            "issue-bound at {}% of the issue slots: fewer instructions or fewer divergent paths",
            pct(u.issue)
        ),
        Bound::Atomics => format!(
            "updates of one atomic address serialize for {}% of the time: reduce per workgroup first",
            pct(u.atomics)
        ),
        Bound::Latency => format!(
            "latency-bound (no resource at {}% of peak; achieved occupancy {}%): more waves or more independent work per wave",
            pct(Bound::THRESHOLD),
            pct(timing.achieved_occupancy)
        ),
    };
    Some(Hint {
        line: line.0.line,
        also: Vec::new(),
        kind: HintKind::Limiter,
        cost: line.1.round() as u64,
        text,
    })
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// The worst phase of the line's instructions that has the highest cost.
fn worst_of<'s>(stats: &'s Stats, row: &Line) -> Option<(usize, &'s WorstPhase)> {
    row.instructions
        .iter()
        .filter_map(|&k| Some((k, stats.worst_phases.get(k)?)))
        .filter(|(_, w)| w.is_recorded())
        .max_by_key(|(_, w)| w.cost)
}

/// The distance between consecutive lanes' offsets, in bytes, when it is the same
/// for every pair of consecutive active lanes (at least two of them).
fn uniform_stride(w: &WorstPhase) -> Option<i64> {
    let mut lanes = w.active_offsets();
    let (k0, o0) = lanes.next()?;
    let (k1, o1) = lanes.next()?;
    let step = (i64::from(o1) - i64::from(o0)) / i64::from(k1 - k0);
    let uniform = w
        .active_offsets()
        .all(|(k, o)| i64::from(o) - i64::from(o0) == step * i64::from(k - k0));
    uniform.then_some(step)
}

/// The hints a line deserves, each with its cost (at most one per kind).
fn line_hints(stats: &Stats, program: &Program, model: &MemoryModel, row: &Line) -> Vec<Hint> {
    let c = &row.counters;
    let mut out = Vec::new();
    let mut hint = |kind, cost: u64, text: String| {
        if cost > 0 {
            out.push(Hint {
                line: row.line,
                also: Vec::new(),
                kind,
                cost,
                text,
            })
        }
    };
    if c.lds_conflict_cycles > 0 {
        hint(
            HintKind::BankConflict,
            c.lds_conflict_cycles,
            bank_conflict_text(stats, model, row),
        );
    }
    if c.global_accesses > 0 && c.atomic_accesses == 0 {
        let line_bytes = u64::from(model.line_bytes.max(1));
        let per_access = ratio(c.global_bytes_requested, c.global_accesses);
        // The fewest lines a phase's bytes fit in, when they are contiguous and
        // aligned: the figure a perfectly coalesced access reaches.
        let minimum = (per_access / line_bytes as f64).ceil().max(1.0);
        let actual = c.transactions_per_access();
        if actual >= 2.0 * minimum {
            let extra = c
                .global_transactions
                .saturating_sub((minimum as u64).saturating_mul(c.global_accesses));
            hint(
                HintKind::Uncoalesced,
                extra,
                uncoalesced_text(stats, row, actual, minimum),
            );
        }
    }
    if c.vector_instructions > 0 {
        let width = u64::from(stats.wave_width.max(1));
        let avg = c.simd_efficiency();
        if avg < 0.75 * width as f64 {
            // Rounded up, so that a few idle lanes still rank above none.
            let idle = (c.vector_instructions * width)
                .saturating_sub(c.active_lanes)
                .div_ceil(width);
            let avg_text = format!("{avg:.1} of {width} lanes active on average");
            if c.divergent_vector_instructions > 0 {
                let branch = row
                    .instructions
                    .first()
                    .and_then(|&k| enclosing_branch(program, k));
                let why = match branch {
                    Some((line, true)) => format!(
                        ": the loop on line {line} keeps running for some lanes after others leave"
                    ),
                    Some((line, false)) => {
                        format!(": the branch on line {line} splits the waves")
                    }
                    None => ": a branch splits the waves".to_owned(),
                };
                hint(HintKind::Divergence, idle, format!("{avg_text}{why}"));
            } else {
                hint(
                    HintKind::PartialWaves,
                    idle,
                    format!(
                        "{avg_text}: the waves are only partly filled; make the workgroup a multiple of {width} work-items"
                    ),
                );
            }
        }
    }
    if c.atomic_contention > 0 {
        let per_phase = ratio(c.atomic_contention, c.atomic_accesses) + 1.0;
        hint(
            HintKind::AtomicContention,
            c.atomic_contention,
            format!(
                "up to {per_phase:.1} lanes of a phase update one address on average: their updates serialize; combine within the wave first (a wave reduction, then one lane updates)"
            ),
        );
    }
    out
}

fn bank_conflict_text(stats: &Stats, model: &MemoryModel, row: &Line) -> String {
    let cycles = row.counters.lds_conflict_cycles;
    let phases = row.lds_accesses.max(1);
    let Some((_, w)) = worst_of(stats, row) else {
        return format!(
            "{cycles} bank-conflict cycles over {phases} phases (launch with `record_worst_phases()` to see the lanes and the stride)"
        );
    };
    let bank_bytes = model.lds_bank_bytes.max(1);
    let banks = model.lds_banks.max(1);
    // Distinct words per bank in the worst phase, to name the busiest bank.
    let mut words: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (_, o) in w.active_offsets() {
        let word = o / bank_bytes;
        let list = words.entry(word % banks).or_default();
        if !list.contains(&word) {
            list.push(word);
        }
    }
    let (bank, degree) = words
        .iter()
        .map(|(b, ws)| (*b, ws.len()))
        .max_by_key(|&(b, n)| (n, std::cmp::Reverse(b)))
        .unwrap_or((0, 1));
    let lanes = w
        .active_offsets()
        .filter(|(_, o)| (o / bank_bytes) % banks == bank)
        .count();
    let mut text = format!(
        "{lanes} lanes ask bank {bank} for {degree} different words ({degree}-way conflict, {} extra cycles in the worst phase, {cycles} over {phases} phases)",
        w.cost
    );
    if let Some(stride) = uniform_stride(w) {
        // Worst phases are recorded for accesses of a word or less: the
        // padding is a word (the `#[conflict_free]` help names wider ones).
        let bytes = stride.unsigned_abs();
        let word = u64::from(bank_bytes);
        let pad = crate::facts::Facts::pitch_padding(bytes, w.bytes, bank_bytes);
        if let Some(unit) = pad.filter(|&u| u == word) {
            text.push_str(&format!(
                ": lanes are {bytes} bytes ({} words) apart, pad the pitch by one word",
                bytes / unit
            ));
        } else {
            text.push_str(&format!(
                ": lanes are {} bytes apart",
                stride.unsigned_abs()
            ));
        }
    }
    text
}

fn uncoalesced_text(stats: &Stats, row: &Line, actual: f64, minimum: f64) -> String {
    let mut text = format!(
        "each access touches {actual:.1} lines, {:.1}x the minimum of {minimum}",
        actual / minimum
    );
    if let Some(stride) = worst_of(stats, row).and_then(|(_, w)| uniform_stride(w)) {
        text.push_str(&format!(
            ": lanes are {} bytes apart",
            stride.unsigned_abs()
        ));
        if stride.unsigned_abs() > 4 {
            text.push_str(", make consecutive lanes read consecutive elements");
        }
    } else if worst_of(stats, row).is_some() {
        text.push_str(": the lanes' addresses are scattered");
    }
    text
}

/// The innermost `if` or `loop` around instruction `k`: its source line, and
/// whether it is a loop.
fn enclosing_branch(program: &Program, k: usize) -> Option<(u32, bool)> {
    let mut depth = 0u32;
    for j in (0..k).rev() {
        match program.insts.get(j)? {
            Inst::EndIf | Inst::EndLoop { .. } => depth += 1,
            Inst::If { .. } | Inst::Loop { .. } => {
                if depth == 0 {
                    let is_loop = matches!(program.insts.get(j), Some(Inst::Loop { .. }));
                    return Some((program.loc(j).line, is_loop));
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    None
}

impl fmt::Display for Listing {
    /// An aligned text table, then the hints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let has_l1 = self.lines.iter().any(|l| l.l1_hit_rate.is_some());
        let has_atomics = self.lines.iter().any(|l| l.atomic_accesses > 0);
        let mut header = vec![
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
        ];
        if has_l1 {
            header.push("L1 hit %");
        }
        if has_atomics {
            header.push("atom cont");
        }
        let timed = self.lines.iter().any(|l| l.stalls.is_some());
        if timed {
            header.push("stall cyc");
            header.push("waits most on");
        }
        let mut rows: Vec<Vec<String>> = Vec::with_capacity(self.lines.len());
        for l in &self.lines {
            let blank_if_zero = |v: u64| if v == 0 { String::new() } else { v.to_string() };
            let vector = l.vector_issues > 0;
            let global = l.global_accesses > 0;
            let mut row = vec![
                l.line.to_string(),
                l.issues.to_string(),
                blank_if_zero(l.skipped),
                if vector {
                    format!("{:.2}", l.avg_active_lanes)
                } else {
                    String::new()
                },
                if vector {
                    format!("{:.1}", l.divergent_share * 100.0)
                } else {
                    String::new()
                },
                blank_if_zero(l.lds_accesses),
                blank_if_zero(l.lds_conflict_cycles),
                blank_if_zero(l.global_accesses),
                if global {
                    format!("{:.2}", l.transactions_per_access)
                } else {
                    String::new()
                },
                if global {
                    format!("{:.2}", l.sectors_per_access)
                } else {
                    String::new()
                },
            ];
            if has_l1 {
                row.push(
                    l.l1_hit_rate
                        .map_or(String::new(), |r| format!("{:.1}", r * 100.0)),
                );
            }
            if has_atomics {
                row.push(blank_if_zero(l.atomic_contention));
            }
            if timed {
                let s = l.stalls.unwrap_or_default();
                let waited = s.total() - s.issuing;
                row.push(blank_if_zero(waited.round() as u64));
                row.push(
                    s.largest()
                        .map_or(String::new(), |(name, _)| name.to_owned()),
                );
            }
            rows.push(row);
        }
        let widths: Vec<usize> = header
            .iter()
            .enumerate()
            .map(|(i, h)| {
                rows.iter()
                    .map(|r| r[i].len())
                    .chain([h.len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        writeln!(
            f,
            "{}, wave{}, model {}",
            self.kernel, self.wave_width, self.model
        )?;
        for (h, w) in header.iter().zip(&widths) {
            write!(f, "{h:>w$}  ")?;
        }
        let source = self.has_source();
        writeln!(f, "  {}", if source { "source" } else { "instruction" })?;
        for (row, l) in rows.iter().zip(&self.lines) {
            let mark = if self.hint(l.line).is_some() {
                '*'
            } else {
                ' '
            };
            for (cell, w) in row.iter().zip(&widths) {
                write!(f, "{cell:>w$}  ")?;
            }
            // A row without its source line (line 0: instructions the
            // compiler placed at no line) still says what it issued.
            let text = match &l.source {
                Some(s) if source => s,
                _ => &l.text,
            };
            writeln!(f, "{mark} {text}")?;
            let indent: usize = widths.iter().map(|w| w + 2).sum::<usize>() + 2;
            for note in &l.facts {
                writeln!(f, "{:indent$}{note}", "")?;
            }
        }
        if !self.hints.is_empty() {
            writeln!(f)?;
            writeln!(f, "costliest lines (*):")?;
            for h in &self.hints {
                write!(f, "  line {}", h.line)?;
                if !h.also.is_empty() {
                    let also: Vec<String> = h.also.iter().map(u32::to_string).collect();
                    write!(f, " (and {})", also.join(", "))?;
                }
                writeln!(f, ": {}", h.text)?;
            }
        }
        Ok(())
    }
}
