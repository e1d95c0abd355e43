//! A reference evaluator of simt programs, for tests only.
//!
//! It runs a [`Program`] the plainest way the machine's documentation allows,
//! so that the interpreter in `simt_lang::exec` can be checked against it on
//! generated kernels: every instruction's semantics written again, lane by
//! lane, with an explicit divergence stack of masks; one `Vec<u8>` per buffer
//! and one per workgroup's LDS; workgroups one after another (x fastest);
//! waves taking turns as documented. It shares no code with the interpreter,
//! only the IR types; it finds the `else`, `endif` and `endloop` of each
//! construct from the nesting itself rather than from the linked targets.
//!
//! It counts what the documentation defines (`simt_core::Counters`): issues,
//! vector issues, divergent issues, active lanes and their histogram,
//! skipped instructions, barriers, memory phases, global lines and sectors, LDS
//! bank conflicts, bytes requested and moved, atomic phases and contention.
//! The L1 and DRAM figures of the cached models are left out.
//!
//! Choices where the documentation is silent, taken as the interpreter takes
//! them and listed so a reader can check them: lanes past the end of a
//! partial last wave read `local_id` (and `global_id` of local id) 0; sub-word
//! values are stored little-endian; buffers start on a line boundary.

mod alu;
mod directed;
mod half;
mod memory;
mod pairs;
mod wave;

use simt_lang::{Inst, ParamKind, Program};
use wave::{Step, Wave};

/// The memory geometry the counters use (`simt_core::MemoryModel` without its caches).
///
/// The facts have the same five fields (`simt_lang::facts::Geometry`); the
/// oracle keeps its own copy so that it shares no counting code with what it
/// checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Lanes per memory phase.
    pub phase_lanes: u32,
    /// Bytes per global line (transaction).
    pub line_bytes: u32,
    /// Bytes per global sector.
    pub sector_bytes: u32,
    /// LDS banks.
    pub lds_banks: u32,
    /// Bytes per LDS bank word.
    pub lds_bank_bytes: u32,
}

/// How the waves of a workgroup take turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Each wave runs until it parks at a barrier or ends, then the next.
    UntilBarrier,
    /// Each ready wave issues one instruction per turn.
    RoundRobin,
}

/// A launch: grid, workgroup shape, wave width, geometry, schedule and budget.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    /// Workgroups per axis.
    pub grid: [u32; 3],
    /// Work-items per workgroup per axis.
    pub workgroup: [u32; 3],
    /// 32 or 64.
    pub wave_width: u32,
    /// The memory geometry.
    pub geometry: Geometry,
    /// How waves take turns.
    pub schedule: Schedule,
    /// The most instructions the launch may issue.
    pub budget: u64,
}

/// A kernel argument, by parameter position.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A buffer's bytes (read-only or writable, as the parameter says).
    Buffer(Vec<u8>),
    /// A scalar's bits.
    Scalar(u32),
}

/// The counters of one instruction or of the whole launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub instructions: u64,
    pub skipped_instructions: u64,
    pub vector_instructions: u64,
    pub divergent_vector_instructions: u64,
    pub active_lanes: u64,
    pub barriers: u64,
    pub lds_accesses: u64,
    pub lds_conflict_cycles: u64,
    pub lds_bytes_requested: u64,
    pub global_accesses: u64,
    pub global_transactions: u64,
    pub global_sectors: u64,
    pub global_bytes_requested: u64,
    pub global_bytes_moved: u64,
    pub atomic_accesses: u64,
    pub atomic_contention: u64,
}

impl Counts {
    /// Every counter with its name (the names of `simt_core::Counters`).
    pub fn fields(&self) -> [(&'static str, u64); 16] {
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
            ("atomic_accesses", self.atomic_accesses),
            ("atomic_contention", self.atomic_contention),
        ]
    }
}

/// What a launch counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Per instruction, indexed like `Program::insts`.
    pub per_instruction: Vec<Counts>,
    /// Entry `k`: vector issues with exactly `k` active lanes.
    pub histogram: Vec<u64>,
    /// Per instruction: issues with some lane of the wave inactive (exec not
    /// all `wave_width` lanes), whatever the unit.
    pub masked_issues: Vec<u64>,
    /// Per instruction: issues with exec different from the wave's launch
    /// mask (lanes masked by control flow), whatever the unit.
    pub diverged_issues: Vec<u64>,
    /// Workgroups run.
    pub workgroups: u64,
    /// Waves run.
    pub waves: u64,
    /// How often the rarer paths of the semantics were taken.
    pub paths: Paths,
    /// Every line `print` made, in the order they were made: workgroups
    /// in turn (x fastest), issues in turn, lanes upwards.
    pub prints: Vec<Printed>,
}

/// One lane's line of a `print`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    /// The workgroup's id.
    pub workgroup: [u32; 3],
    /// The wave's index in its workgroup.
    pub wave: usize,
    /// The lane.
    pub lane: usize,
    /// The `print`'s index in the program.
    pub inst: usize,
    /// The values its format reads, as the lane read them.
    pub values: Vec<u32>,
}

/// Counts of paths through the semantics that a test suite can easily miss,
/// so that a run can show it took them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paths {
    /// A shuffle lane whose source lane was inactive (it kept its own value).
    pub shuffle_from_inactive: u64,
    /// A shuffle lane whose source lane was outside the wave.
    pub shuffle_from_outside: u64,
    /// A `v_readlane` of an inactive lane.
    pub readlane_of_inactive: u64,
    /// Compare-exchange lanes whose compare failed, and succeeded.
    pub cmpswap_failed: u64,
    pub cmpswap_succeeded: u64,
    /// A ballot or count whose mask had bits outside exec.
    pub wave_op_mask_beyond_exec: u64,
    /// Signed minimum or maximum (ALU or atomic) with a negative operand.
    pub signed_min_max_negative: u64,
    /// Atomic phases with contention between one and all their lanes.
    pub partial_contention: u64,
    /// LDS phases with bank conflicts.
    pub lds_conflicts: u64,
}

impl Report {
    /// The sum of the per-instruction counters.
    pub fn totals(&self) -> Counts {
        let mut t = Counts::default();
        for c in &self.per_instruction {
            let mut sum = t.fields().map(|(_, v)| v);
            for (s, (_, v)) in sum.iter_mut().zip(c.fields()) {
                *s += v;
            }
            t = Counts {
                instructions: sum[0],
                skipped_instructions: sum[1],
                vector_instructions: sum[2],
                divergent_vector_instructions: sum[3],
                active_lanes: sum[4],
                barriers: sum[5],
                lds_accesses: sum[6],
                lds_conflict_cycles: sum[7],
                lds_bytes_requested: sum[8],
                global_accesses: sum[9],
                global_transactions: sum[10],
                global_sectors: sum[11],
                global_bytes_requested: sum[12],
                global_bytes_moved: sum[13],
                atomic_accesses: sum[14],
                atomic_contention: sum[15],
            };
        }
        t
    }
}

/// Why a launch stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A lane's access falls outside its buffer or LDS array.
    OutOfBounds,
    /// A lane's byte offset is not aligned to its access.
    Misaligned,
    /// A barrier reached with exec different from the launch mask.
    BarrierPartialMask,
    /// A wave ended while others wait at a barrier, or reached one after
    /// another ended.
    BarrierStranded,
    /// The instruction budget ran out.
    BudgetExceeded,
    /// The arguments do not match the parameters.
    BadArguments,
}

/// A fault and where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The faulting instruction.
    pub inst: usize,
    /// The workgroup.
    pub workgroup: [u32; 3],
    /// The wave within it.
    pub wave: usize,
    /// The first faulting lane, for memory faults.
    pub lane: Option<u32>,
}

/// Where each construct's control points are, found from the nesting.
#[derive(Clone, Debug)]
struct Structure {
    /// For an `if`: its `else` or, without one, its `endif`. For an `else`: its
    /// `endif`. For a `loop`: its `endloop`. For an `endloop`: its `loop`. For a
    /// `break` or `continue`: the innermost loop's `endloop`.
    target: Vec<usize>,
}

impl Structure {
    fn of(insts: &[Inst]) -> Structure {
        let mut target = vec![usize::MAX; insts.len()];
        // Open constructs: (index of the opener, index of the `else` if seen).
        let mut open: Vec<(usize, Option<usize>)> = Vec::new();
        let mut exits: Vec<Vec<usize>> = Vec::new();
        for (k, inst) in insts.iter().enumerate() {
            match inst {
                Inst::If { .. } => open.push((k, None)),
                Inst::Else { .. } => {
                    if let Some((opener, els)) = open.last_mut() {
                        target[*opener] = k;
                        *els = Some(k);
                    }
                }
                Inst::EndIf => {
                    if let Some((opener, els)) = open.pop() {
                        match els {
                            Some(e) => target[e] = k,
                            None => target[opener] = k,
                        }
                    }
                }
                Inst::Loop { .. } => {
                    open.push((k, None));
                    exits.push(Vec::new());
                }
                Inst::Break { .. } | Inst::Continue { .. } => {
                    if let Some(e) = exits.last_mut() {
                        e.push(k);
                    }
                }
                Inst::EndLoop { .. } => {
                    if let Some((opener, _)) = open.pop() {
                        target[opener] = k;
                        target[k] = opener;
                    }
                    for e in exits.pop().unwrap_or_default() {
                        target[e] = k;
                    }
                }
                _ => {}
            }
        }
        Structure { target }
    }
}

/// Everything a wave reads besides its own registers.
pub(crate) struct Shared<'a> {
    pub(crate) program: &'a Program,
    pub(crate) structure: &'a Structure,
    pub(crate) launch: &'a Launch,
    pub(crate) args: &'a mut [Value],
    pub(crate) lds: Vec<u8>,
    pub(crate) group: [u32; 3],
    pub(crate) report: &'a mut Report,
    pub(crate) issued: u64,
}

/// Runs `program` over the grid `launch` describes, with `args` bound to its
/// parameters in order; writable buffers keep what the launch wrote, up to a
/// fault.
pub fn run(program: &Program, launch: &Launch, args: &mut [Value]) -> Result<Report, Fault> {
    let n = program.insts.len();
    let width = launch.wave_width as usize;
    let mut report = Report {
        per_instruction: vec![Counts::default(); n],
        histogram: vec![0; width + 1],
        masked_issues: vec![0; n],
        diverged_issues: vec![0; n],
        workgroups: 0,
        waves: 0,
        paths: Paths::default(),
        prints: Vec::new(),
    };
    let bad = Fault {
        kind: FaultKind::BadArguments,
        inst: 0,
        workgroup: [0; 3],
        wave: 0,
        lane: None,
    };
    if args.len() != program.params.len() {
        return Err(bad);
    }
    for (p, a) in program.params.iter().zip(args.iter()) {
        let fits = matches!(
            (p.kind, a),
            (ParamKind::Buffer { .. }, Value::Buffer(_)) | (ParamKind::Scalar(_), Value::Scalar(_))
        );
        if !fits {
            return Err(bad);
        }
    }
    let structure = Structure::of(&program.insts);
    let lds_bytes = program
        .lds
        .iter()
        .map(|d| d.offset as usize + d.bytes() as usize)
        .max()
        .unwrap_or(0);
    let size = (launch.workgroup[0] * launch.workgroup[1] * launch.workgroup[2]) as usize;
    let nwaves = size.div_ceil(width);
    let mut shared = Shared {
        program,
        structure: &structure,
        launch,
        args,
        lds: Vec::new(),
        group: [0; 3],
        report: &mut report,
        issued: 0,
    };
    let [gx, gy, gz] = launch.grid;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                shared.group = [x, y, z];
                shared.lds = vec![0; lds_bytes];
                let mut waves: Vec<Wave> = (0..nwaves)
                    .map(|w| Wave::new(w, (size - w * width).min(width), launch))
                    .collect();
                run_group(&mut shared, &mut waves)?;
                shared.report.workgroups += 1;
                shared.report.waves += nwaves as u64;
            }
        }
    }
    Ok(report)
}

/// Runs one workgroup's waves to the end, in turns.
fn run_group(shared: &mut Shared<'_>, waves: &mut [Wave]) -> Result<(), Fault> {
    let quantum = match shared.launch.schedule {
        Schedule::UntilBarrier => u64::MAX,
        Schedule::RoundRobin => 1,
    };
    let fault = |shared: &Shared<'_>, kind, inst, wave| Fault {
        kind,
        inst,
        workgroup: shared.group,
        wave,
        lane: None,
    };
    loop {
        if waves.iter().all(|w| w.done) {
            return Ok(());
        }
        for w in 0..waves.len() {
            if waves[w].done || waves[w].parked {
                continue;
            }
            let mut turn = 0;
            while turn < quantum {
                turn += 1;
                match waves[w].step(shared)? {
                    Step::Next => {}
                    Step::Parked(at) => {
                        waves[w].parked = true;
                        if waves.iter().any(|v| v.done) {
                            return Err(fault(shared, FaultKind::BarrierStranded, at, w));
                        }
                        if waves.iter().all(|v| v.parked) {
                            for v in waves.iter_mut() {
                                v.parked = false;
                            }
                        }
                        break;
                    }
                    Step::Done(at) => {
                        waves[w].done = true;
                        if waves.iter().any(|v| v.parked) {
                            return Err(fault(shared, FaultKind::BarrierStranded, at, w));
                        }
                        break;
                    }
                }
            }
        }
    }
}
