//! What a launch counts.
//!
//! The interpreter counts per instruction; the kernel's totals are the sum over its
//! instructions, so every figure can be attributed to a source line.

use crate::ir::Program;
use serde::Serialize;

/// Counters of one instruction, or of a whole launch (their sum).
///
/// Definitions (the default [`MemoryModel`](crate::MemoryModel) gives the numbers
/// of its geometry):
/// - `instructions`: issued instructions, control flow, barriers and `end` included.
/// - `skipped_instructions`: instructions in bodies a wave jumped over because no
///   lane was active in them; not issued.
/// - `vector_instructions`: vector ALU, compare, select and memory instructions issued
///   (always with a non-empty exec mask).
/// - `divergent_vector_instructions`: those issued with exec different from the
///   wave's launch mask.
/// - `active_lanes`: active lanes summed over vector issues.
/// - `barriers`: barrier instructions issued, counted once per wave.
/// - `lds_accesses` / `global_accesses`: memory phases with at least one active lane.
/// - `lds_conflict_cycles`: per phase, the worst bank's distinct words minus one.
/// - `global_transactions`: per phase, the distinct lines touched.
/// - `global_sectors`: per phase, the distinct sectors touched.
/// - `*_bytes_requested`: active lanes times the access size.
/// - `global_bytes_moved`: transactions times the line size.
/// - `atomic_accesses`: phases of atomic instructions (global or LDS) with at
///   least one active lane; such phases also count as global or LDS accesses.
/// - `l1_hit_sectors` / `l1_miss_sectors`: under a model with an L1, the
///   sectors of global loads found in / fetched into the L1 of the workgroup's
///   compute unit (each phase's distinct sectors; stores and atomics bypass it).
/// - `dram_sectors`: under a model with an L1, the sectors DRAM moves below an
///   unbounded L2: each sector's first read (a load's or an atomic's first
///   touch) and its first write (written back once), attributed to the
///   instruction that read or wrote it first. A sector only written moves once,
///   one read and then written twice.
/// - `atomic_contention`: per atomic phase, the largest number of active lanes
///   aiming at one address, minus one: the updates that serialize behind another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Issued instructions.
    pub instructions: u64,
    /// Instructions jumped over in bodies with no active lane.
    pub skipped_instructions: u64,
    /// Vector instructions issued.
    pub vector_instructions: u64,
    /// Vector instructions issued with exec different from the launch mask.
    pub divergent_vector_instructions: u64,
    /// Active lanes summed over vector issues.
    pub active_lanes: u64,
    /// Barriers issued (per wave).
    pub barriers: u64,
    /// LDS phases with an active lane.
    pub lds_accesses: u64,
    /// LDS bank-conflict cycles.
    pub lds_conflict_cycles: u64,
    /// Bytes the active lanes asked of the LDS.
    pub lds_bytes_requested: u64,
    /// Global phases with an active lane.
    pub global_accesses: u64,
    /// Distinct global lines per phase, summed.
    pub global_transactions: u64,
    /// Distinct global sectors per phase, summed.
    pub global_sectors: u64,
    /// Bytes the active lanes asked of global memory.
    pub global_bytes_requested: u64,
    /// Bytes the transactions moved (`global_transactions * line_bytes`).
    pub global_bytes_moved: u64,
    /// Global load sectors found in the L1.
    pub l1_hit_sectors: u64,
    /// Global load sectors fetched into the L1.
    pub l1_miss_sectors: u64,
    /// Sectors read for the first time in the launch, plus sectors written
    /// for the first time (each written back once).
    pub dram_sectors: u64,
    /// Phases of atomic instructions with an active lane.
    pub atomic_accesses: u64,
    /// Per atomic phase, the most active lanes aiming at one address, minus one.
    pub atomic_contention: u64,
}

impl Counters {
    /// Adds `other` into `self`, field by field.
    pub fn add(&mut self, other: &Counters) {
        self.instructions += other.instructions;
        self.skipped_instructions += other.skipped_instructions;
        self.vector_instructions += other.vector_instructions;
        self.divergent_vector_instructions += other.divergent_vector_instructions;
        self.active_lanes += other.active_lanes;
        self.barriers += other.barriers;
        self.lds_accesses += other.lds_accesses;
        self.lds_conflict_cycles += other.lds_conflict_cycles;
        self.lds_bytes_requested += other.lds_bytes_requested;
        self.global_accesses += other.global_accesses;
        self.global_transactions += other.global_transactions;
        self.global_sectors += other.global_sectors;
        self.global_bytes_requested += other.global_bytes_requested;
        self.global_bytes_moved += other.global_bytes_moved;
        self.l1_hit_sectors += other.l1_hit_sectors;
        self.l1_miss_sectors += other.l1_miss_sectors;
        self.dram_sectors += other.dram_sectors;
        self.atomic_accesses += other.atomic_accesses;
        self.atomic_contention += other.atomic_contention;
    }

    /// The names of the counters, in declaration order (the names
    /// [`fields`](Self::fields) pairs with the values).
    pub const NAMES: [&'static str; 19] = [
        "instructions",
        "skipped_instructions",
        "vector_instructions",
        "divergent_vector_instructions",
        "active_lanes",
        "barriers",
        "lds_accesses",
        "lds_conflict_cycles",
        "lds_bytes_requested",
        "global_accesses",
        "global_transactions",
        "global_sectors",
        "global_bytes_requested",
        "global_bytes_moved",
        "l1_hit_sectors",
        "l1_miss_sectors",
        "dram_sectors",
        "atomic_accesses",
        "atomic_contention",
    ];

    /// Every counter with its name, in declaration order.
    pub fn fields(&self) -> [(&'static str, u64); 19] {
        [
            ("instructions", self.instructions),
            ("skipped_instructions", self.skipped_instructions),
            ("vector_instructions", self.vector_instructions),
            (
                "divergent_vector_instructions",
                self.divergent_vector_instructions,
            ),
            ("active_lanes", self.active_lanes),
            ("barriers", self.barriers),
            ("lds_accesses", self.lds_accesses),
            ("lds_conflict_cycles", self.lds_conflict_cycles),
            ("lds_bytes_requested", self.lds_bytes_requested),
            ("global_accesses", self.global_accesses),
            ("global_transactions", self.global_transactions),
            ("global_sectors", self.global_sectors),
            ("global_bytes_requested", self.global_bytes_requested),
            ("global_bytes_moved", self.global_bytes_moved),
            ("l1_hit_sectors", self.l1_hit_sectors),
            ("l1_miss_sectors", self.l1_miss_sectors),
            ("dram_sectors", self.dram_sectors),
            ("atomic_accesses", self.atomic_accesses),
            ("atomic_contention", self.atomic_contention),
        ]
    }

    /// Divergent vector instructions as a percentage of vector instructions (0 when none).
    pub fn divergence_pct(&self) -> f64 {
        ratio(self.divergent_vector_instructions, self.vector_instructions) * 100.0
    }

    /// Average active lanes per vector issue (0 when none).
    pub fn simd_efficiency(&self) -> f64 {
        ratio(self.active_lanes, self.vector_instructions)
    }

    /// L1 hit sectors as a share of the load sectors looked up (0 when none),
    /// as Nsight Compute's `l1tex__t_sector_hit_rate.pct` / 100.
    pub fn l1_hit_rate(&self) -> f64 {
        ratio(
            self.l1_hit_sectors,
            self.l1_hit_sectors + self.l1_miss_sectors,
        )
    }

    /// Global transactions per global access phase (0 when none).
    pub fn transactions_per_access(&self) -> f64 {
        ratio(self.global_transactions, self.global_accesses)
    }
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// The statistics of one launch.
///
/// Two launches' statistics are equal when their figures are: `workers`, how
/// many threads produced them, is left out, since the figures never depend on it.
#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    /// The kernel's name.
    pub kernel: String,
    /// The wave width of the launch.
    pub wave_width: u32,
    /// The memory model's name.
    pub model: String,
    /// Workgroups run.
    pub workgroups: u64,
    /// Waves run.
    pub waves: u64,
    /// How many workers ran the workgroups whose results these are: 1 on one
    /// thread, including a parallel launch that ran again on one thread (see
    /// [`Threads`](crate::Threads)). Not serialized: the figures themselves
    /// do not depend on it.
    #[serde(skip)]
    pub workers: usize,
    /// The launch's totals: the sum of `per_instruction`.
    #[serde(flatten)]
    pub totals: Counters,
    /// Entry `k` is the number of vector issues with exactly `k` active lanes
    /// (`wave_width + 1` entries).
    pub active_lanes_histogram: Vec<u64>,
    /// Counters of each instruction, indexed like [`Program::insts`](crate::Program::insts).
    pub per_instruction: Vec<Counters>,
    /// What the sanitizers found (empty unless the launch turned them on):
    /// first the races the kernel's facts prove for the launch's shape and
    /// wave width before it runs
    /// ([`FindingKind::ProvedRace`](crate::FindingKind::ProvedRace)), then
    /// what the run showed.
    pub findings: crate::findings::Findings,
    /// The costliest memory phase of each instruction, indexed like
    /// `per_instruction`, when the launch asked for them (empty otherwise)
    /// ([`LaunchConfig::record_worst_phases`](crate::LaunchConfig::record_worst_phases));
    /// unrecorded for instructions that issued no LDS or global phase and for
    /// the wide `_x2`/`_x4` accesses, whose lanes span several words. Kept for
    /// the listing's hints and a report's pictures, not serialized.
    #[serde(skip)]
    pub worst_phases: Vec<WorstPhase>,
    /// The issues of the workgroup [`LaunchConfig::trace_workgroup`](crate::LaunchConfig::trace_workgroup)
    /// chose, when it chose one that ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
    /// What the kernel's `print` instructions printed (left out of the JSON
    /// when nothing was).
    #[serde(skip_serializing_if = "crate::Prints::is_empty")]
    pub prints: crate::Prints,
    /// What the launch was given: its shape and scalar arguments, at which
    /// the listing evaluates the static facts' symbols. Not compared or
    /// serialized: the figures stand for themselves.
    #[serde(skip)]
    pub launch: LaunchValues,
    /// The timing model's estimate, when the launch asked for one
    /// ([`LaunchConfig::timing`](crate::LaunchConfig::timing)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<crate::Timing>,
}

/// A launch's shape and scalar arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchValues {
    /// Workgroups along each axis.
    pub grid: [u32; 3],
    /// Work-items per workgroup along each axis.
    pub workgroup: [u32; 3],
    /// Per parameter, a scalar argument's bits (`None` for a buffer).
    pub scalars: Vec<Option<u32>>,
}

impl PartialEq for Stats {
    fn eq(&self, other: &Self) -> bool {
        // Destructured so that a new field must be placed on one side or the other.
        let Stats {
            kernel,
            wave_width,
            model,
            workgroups,
            waves,
            workers: _,
            totals,
            active_lanes_histogram,
            per_instruction,
            findings,
            worst_phases,
            trace,
            prints,
            launch: _,
            timing,
        } = self;
        *kernel == other.kernel
            && *wave_width == other.wave_width
            && *model == other.model
            && *workgroups == other.workgroups
            && *waves == other.waves
            && *totals == other.totals
            && *active_lanes_histogram == other.active_lanes_histogram
            && *per_instruction == other.per_instruction
            && *findings == other.findings
            && *worst_phases == other.worst_phases
            && *trace == other.trace
            && *prints == other.prints
            && *timing == other.timing
    }
}

// The timing's figures are finite: the replay divides by positive figures only.
impl Eq for Stats {}

/// The most issues a [`Trace`] keeps: a runaway loop must not fill memory.
pub const MAX_TRACE_ISSUES: usize = 1 << 20;

/// Every instruction one workgroup's waves issued, in the order they issued them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Trace {
    /// The workgroup's id.
    pub workgroup: [u32; 3],
    /// Waves in the workgroup.
    pub waves: u32,
    /// The issues, in order; the index is the time.
    pub issues: Vec<Issue>,
    /// Whether issues past [`MAX_TRACE_ISSUES`] were dropped.
    pub truncated: bool,
}

/// One issued instruction of a [`Trace`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// The wave that issued it.
    pub wave: u32,
    /// The instruction's index in [`Program::insts`](crate::Program::insts).
    pub pc: u32,
    /// The exec mask it issued under.
    pub exec: u64,
}

/// The costliest phase one memory instruction issued during a launch: the one
/// with the most LDS conflict cycles, or the most global lines; the first such
/// phase when several tie.
///
/// Recorded only in launches that ask for it, and then only when a phase beats
/// the record so far: a comparison per phase and a copy of one phase's offsets
/// a handful of times per instruction.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WorstPhase {
    /// LDS: the phase's conflict cycles; global: its distinct lines.
    pub cost: u64,
    /// Global: the phase's distinct sectors (0 for LDS).
    pub sectors: u64,
    /// The wave's lane that is the phase's first lane.
    pub first_lane: u32,
    /// Bit `k` set: lane `first_lane + k` was active.
    pub active: u64,
    /// Byte offset of each lane of the phase (inactive lanes hold whatever the
    /// index gave): within the workgroup's LDS, or within the global buffer
    /// (buffers are aligned to lines, so lines start at multiples of the line size).
    pub offsets: Vec<u32>,
    /// Bytes each lane accesses.
    pub bytes: u32,
}

impl WorstPhase {
    /// Whether a phase was recorded.
    pub fn is_recorded(&self) -> bool {
        !self.offsets.is_empty()
    }

    /// The active lanes' byte offsets, with their lane in the phase.
    pub fn active_offsets(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.offsets
            .iter()
            .enumerate()
            .filter(|&(k, _)| k < 64 && self.active >> k & 1 == 1)
            .map(|(k, &o)| (k as u32, o))
    }

    /// Replaces the record with a phase of `cost` when it beats it (or none was
    /// recorded yet). The phase is `offsets[first_lane..first_lane + lanes]`.
    ///
    /// The test is all the hot path pays; the copy is out of line, since a
    /// record is beaten only a handful of times per instruction.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn offer(
        &mut self,
        cost: u64,
        sectors: u64,
        first_lane: usize,
        lanes: usize,
        active: u64,
        offsets: &[u32],
        bytes: u32,
    ) {
        if cost > self.cost || self.offsets.is_empty() {
            self.record(cost, sectors, first_lane, lanes, active, offsets, bytes);
        }
    }

    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        cost: u64,
        sectors: u64,
        first_lane: usize,
        lanes: usize,
        active: u64,
        offsets: &[u32],
        bytes: u32,
    ) {
        self.cost = cost;
        self.sectors = sectors;
        self.first_lane = first_lane as u32;
        self.active = active;
        self.offsets.clear();
        let end = (first_lane + lanes).min(offsets.len());
        self.offsets
            .extend_from_slice(offsets.get(first_lane..end).unwrap_or_default());
        self.bytes = bytes;
    }
}

impl Stats {
    /// Empty statistics for a launch of `kernel` with `insts` instructions.
    pub fn new(kernel: &str, wave_width: u32, model: &str, insts: usize) -> Self {
        Stats {
            kernel: kernel.to_owned(),
            wave_width,
            model: model.to_owned(),
            workgroups: 0,
            waves: 0,
            workers: 1,
            totals: Counters::default(),
            active_lanes_histogram: vec![0; wave_width as usize + 1],
            per_instruction: vec![Counters::default(); insts],
            findings: crate::findings::Findings::default(),
            worst_phases: Vec::new(),
            trace: None,
            prints: crate::Prints::default(),
            launch: LaunchValues::default(),
            timing: None,
        }
    }

    /// Recomputes `totals` as the sum of `per_instruction`.
    pub fn sum_totals(&mut self) {
        let mut totals = Counters::default();
        for c in &self.per_instruction {
            totals.add(c);
        }
        self.totals = totals;
    }
}

impl Stats {
    /// The counters of the instructions of `program` written on source line
    /// `line`, summed: what a profiler's source view shows beside the line.
    /// All zero when no instruction is written there. `program` is the one
    /// launched (a kernel module's `PROGRAM`), which knows each instruction's line.
    pub fn line(&self, program: &Program, line: u32) -> Counters {
        let mut sum = Counters::default();
        for (_, counters) in self.line_instructions(program, line) {
            sum.add(&counters);
        }
        sum
    }

    /// The counters of each instruction of `program` written on source line
    /// `line`, in the order written, with its index in
    /// [`Program::insts`]: `[n]` is the `n`-th instruction of the line.
    pub fn line_instructions(&self, program: &Program, line: u32) -> Vec<(usize, Counters)> {
        self.per_instruction
            .iter()
            .enumerate()
            .take(program.insts.len())
            .filter(|&(k, _)| program.loc(k).line == line)
            .map(|(k, counters)| (k, *counters))
            .collect()
    }
}
