//! The interpreter: a SIMT machine that runs a [`Program`] over a grid and counts.
//!
//! # The machine
//!
//! Workgroups run one at a time, in order (x fastest, then y, then z). The
//! work-items of a workgroup are numbered x fastest; wave `w` holds work-items
//! `w * width ..`, and the last wave is partial (its launch mask has fewer bits)
//! when the workgroup size is not a multiple of the wave width. Registers start at
//! zero and the LDS is zeroed at the start of every workgroup.
//!
//! Waves are scheduled round robin: each runs until it parks at a barrier or ends.
//! A barrier releases when every wave of the workgroup has reached it. A wave that
//! ends while others wait at a barrier, or reaches a barrier after another wave
//! has ended, faults with [`FaultKind::BarrierStranded`]; a barrier reached with
//! exec different from the wave's launch mask faults with
//! [`FaultKind::BarrierPartialMask`]. Every issued instruction counts against the
//! launch's instruction budget.
//!
//! Control flow follows the divergence stack documented on [`Inst`](crate::Inst)
//! (see `flow.rs`). Skipped instructions are attributed to the instructions jumped
//! over: `per_instruction[k].skipped_instructions` counts how often instruction `k`
//! was skipped.
//!
//! # Speed
//!
//! Vector registers are lane-contiguous (`[u32; 64]` per register and wave) and
//! every vector operation computes all lanes into a scratch array, then blends it
//! into the destination through per-lane exec words, so that each operation is a
//! straight loop the compiler vectorizes. The scheduler and the dispatch loop are
//! generic over the wave width and `#[inline(always)]`; on x86-64 they are compiled
//! twice, once inside a `#[target_feature(enable = "avx2,fma")]` function used when
//! the CPU reports both features at run time (so `f32::mul_add` is one instruction
//! instead of a library call, and lane loops use 256-bit vectors), and once plainly
//! for every other CPU. Machine state is allocated once per [`Machine`] and reused
//! across its launches ([`launch`] uses one machine per thread), never per
//! workgroup or per instruction; a machine also remembers the `'static` programs
//! it has validated. The LDS is a fixed-size word array, so lane loops index it
//! with masked word indices and no bounds checks.

// Lane loops index several arrays by lane: the form that vectorizes reliably.
#![allow(clippy::needless_range_loop)]

mod alu;
mod bind;
mod flow;
mod lanes;
mod memory;
mod sanitize;
mod wave;

#[cfg(test)]
mod tests;

use crate::error::{Error, Fault, FaultKind, LaunchError};
use crate::ir::Program;
use crate::launch::{Arg, LaunchConfig, Order, Schedule};
use crate::stats::{Stats, Trace, WorstPhase};
use crate::validate::Kernel;
use bind::{Bound, Geometry, Prepared};
use flow::SkipLog;
use memory::{BankTable, Caches, LdsWords, Trap, LDS_WORDS};
use wave::{Exit, Status, Uniforms, Wave, WaveRun};

/// Runs `kernel` over the grid `config` describes, with `args` bound to its
/// parameters in order, and returns the launch's statistics.
///
/// Each thread keeps one [`Machine`] for this function, so its buffers (sized for
/// the largest launch the thread has made) are allocated once, not per launch.
///
/// The kernel was validated when it was made ([`Kernel`]); the configuration and
/// the arguments are checked here ([`Error::Launch`]); a wave that goes wrong
/// stops the launch with [`Error::Fault`], leaving writable buffers as the
/// instructions before the fault left them (the faulting instruction itself has
/// no effect).
pub fn launch(
    kernel: &Kernel,
    config: &LaunchConfig,
    args: &mut [Arg<'_>],
) -> Result<Stats, Error> {
    thread_local! {
        /// Each thread's machine, so that repeated launches reuse its buffers.
        static MACHINE: std::cell::RefCell<Machine> = std::cell::RefCell::new(Machine::new());
    }
    let reused = MACHINE.try_with(|m| {
        m.try_borrow_mut()
            .ok()
            .map(|mut m| m.launch(kernel, config, args))
    });
    match reused {
        Ok(Some(result)) => result,
        // The thread is shutting down, or (never in practice) a launch is
        // already running on it: use a fresh machine.
        _ => Machine::new().launch(kernel, config, args),
    }
}

/// An interpreter that keeps its buffers (registers, LDS, wave state) between
/// launches, for callers that launch many times.
#[derive(Debug, Default)]
pub struct Machine {
    vregs: Vec<[u32; 64]>,
    sregs: Vec<u32>,
    mregs: Vec<u64>,
    waves: Vec<Wave>,
    local: Vec<[[u32; 64]; 3]>,
    lds: Lds,
    lds_words: usize,
    stamps: Vec<u32>,
    gen: u32,
    skips: Vec<i64>,
    caches: Caches,
    sanitizer: sanitize::Sanitizer,
}

/// The workgroup's LDS, allocated once per machine at the largest size a program
/// may declare; a launch zeroes only the words its program uses.
struct Lds(Box<LdsWords>);

impl Default for Lds {
    fn default() -> Self {
        Lds(Box::new([0; LDS_WORDS]))
    }
}

impl std::fmt::Debug for Lds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lds({} words)", LDS_WORDS)
    }
}

/// The parts of a launch that stay fixed while it runs.
struct Plan<'p, 'b> {
    program: &'p Program,
    prepared: &'p Prepared,
    bound: Bound<'b>,
    geo: Geometry,
    config: &'p LaunchConfig,
    fast: bool,
    /// The order workgroups and waves run in.
    order: Order,
}

impl Machine {
    /// A machine with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Like [`launch`], reusing this machine's buffers.
    pub fn launch(
        &mut self,
        kernel: &Kernel,
        config: &LaunchConfig,
        args: &mut [Arg<'_>],
    ) -> Result<Stats, Error> {
        let program = kernel.program();
        self.launch_prepared(program, &bind::prepare(program), config, args)
    }

    /// Runs a launch of a program whose facts `prepared` holds.
    fn launch_prepared(
        &mut self,
        program: &Program,
        prepared: &Prepared,
        config: &LaunchConfig,
        args: &mut [Arg<'_>],
    ) -> Result<Stats, Error> {
        let refuse = |kind| {
            Error::Launch(LaunchError {
                kernel: program.name.to_string(),
                kind,
            })
        };
        let geo = bind::check_config(config).map_err(refuse)?;
        let align = 256u64.max(geo.line_bytes);
        let bound = bind::bind(program, args, align).map_err(refuse)?;
        let groups = config.grid.count().min(config.model.compute_units as u64) as usize;
        self.caches
            .reset(config.model.l1.as_ref(), groups)
            .map_err(|reason| {
                refuse(crate::error::LaunchErrorKind::Model {
                    name: config.model.name.to_string(),
                    reason,
                })
            })?;
        let mut plan = Plan {
            program,
            prepared,
            bound,
            geo,
            config,
            fast: fast_path_available(),
            order: Order::Normal,
        };
        let Some(other) = config.schedule_check else {
            return self.run_width(&mut plan);
        };
        // The schedule check: run in the normal order and in the other one from
        // the same inputs, compare the outputs, keep the normal order's.
        let initial = plan.bound.writable();
        let mut stats = self.run_width(&mut plan)?;
        let normal = plan.bound.writable();
        plan.bound.restore(&initial);
        plan.order = other;
        let permuted = self.run_width(&mut plan);
        let differing = plan.bound.differences(&normal);
        plan.bound.restore(&normal);
        permuted?;
        if let Some((address, bytes)) = differing {
            let at = crate::findings::Site {
                inst: 0,
                line: 0,
                workgroup: [0; 3],
                wave: 0,
                lane: 0,
            };
            stats.findings.add(crate::findings::Finding {
                kind: crate::findings::FindingKind::ScheduleDependent,
                at,
                other: None,
                address: Some(address),
                bytes,
                occurrences: 1,
            });
        }
        Ok(stats)
    }

    fn run_width(&mut self, plan: &mut Plan<'_, '_>) -> Result<Stats, Error> {
        match plan.config.wave_width {
            64 => self.run::<64>(plan),
            _ => self.run::<32>(plan),
        }
    }

    /// Sizes the buffers for a launch of waves of `W` lanes.
    fn setup<const W: usize>(&mut self, plan: &Plan<'_, '_>) -> usize {
        let p = &plan.prepared;
        let wg = plan.config.workgroup.to_array();
        let size = plan.config.workgroup.count() as usize;
        let nwaves = size.div_ceil(W);
        self.vregs.clear();
        self.vregs.resize(nwaves * p.vregs, [0; 64]);
        self.sregs.clear();
        self.sregs.resize(nwaves * p.sregs, 0);
        self.mregs.clear();
        self.mregs.resize(nwaves * p.mregs, 0);
        // Accesses are checked against the arrays, which end within `lds_bytes`.
        self.lds_words = p.lds_bytes.div_ceil(4).min(LDS_WORDS);
        let words = (p.lds_bytes >> plan.geo.bank_shift) + 1;
        self.stamps.clear();
        self.stamps.resize(words, 0);
        self.gen = 0;
        self.skips.clear();
        self.skips.resize(plan.program.insts.len() + 1, 0);
        self.waves.truncate(nwaves);
        while self.waves.len() < nwaves {
            self.waves.push(Wave {
                pc: 0,
                exec: 0,
                launch: 0,
                status: Status::Done,
                stack: Vec::with_capacity(crate::limits::MAX_NESTING as usize + 1),
            });
        }
        // Local ids depend only on the workgroup shape: compute them once.
        self.local.clear();
        self.local.resize(nwaves, [[0; 64]; 3]);
        // Work-items are numbered x fastest: step the ids like an odometer.
        let mut id = [0u32; 3];
        for ids in self.local.iter_mut() {
            for l in 0..W {
                ids[0][l] = id[0];
                ids[1][l] = id[1];
                ids[2][l] = id[2];
                id[0] += 1;
                if id[0] == wg[0] {
                    id[0] = 0;
                    id[1] += 1;
                    if id[1] == wg[1] {
                        id[1] = 0;
                        id[2] += 1;
                    }
                }
            }
        }
        // Lanes past the workgroup's end are never launched; keep them at zero.
        if let Some(last) = self.local.last_mut() {
            for l in (size - (nwaves - 1) * W)..W {
                for axis in last.iter_mut() {
                    axis[l] = 0;
                }
            }
        }
        nwaves
    }

    fn run<const W: usize>(&mut self, plan: &mut Plan<'_, '_>) -> Result<Stats, Error> {
        let program = plan.program;
        let config = plan.config;
        let nwaves = self.setup::<W>(plan);
        let mut stats = Stats::new(
            &program.name,
            W as u32,
            &config.model.name,
            program.insts.len(),
        );
        if config.worst_phases {
            stats.worst_phases = vec![WorstPhase::default(); program.insts.len()];
        }
        if config.sanitize {
            let buffers: Vec<usize> = plan
                .bound
                .slots
                .iter()
                .map(|s| match s {
                    bind::Slot::BufferMut { data, .. } => data.len(),
                    _ => 0,
                })
                .collect();
            self.sanitizer
                .start(program, config.grid.to_array(), &buffers, nwaves);
        }
        run_groups_dispatch::<W>(self, plan, &mut stats, nwaves)?;
        if config.sanitize {
            stats.findings = std::mem::take(&mut self.sanitizer.findings);
        }
        SkipLog(&mut self.skips).finish(|k, n| {
            if let Some(c) = stats.per_instruction.get_mut(k) {
                c.skipped_instructions += n;
            }
        });
        for (c, inst) in stats.per_instruction.iter_mut().zip(program.insts.iter()) {
            if inst.is_vector() {
                c.vector_instructions = c.instructions;
            }
        }
        stats.sum_totals();
        Ok(stats)
    }
}

/// Runs every workgroup of the launch: the scheduler around [`wave::run`].
///
/// With `DETAIL`, the waves run through the recording copy of the dispatch loop:
/// each memory instruction keeps its costliest phase in `stats.worst_phases`, and
/// the issues of the workgroup `config.trace_workgroup` names land in
/// `stats.trace`.
#[inline(always)]
fn run_groups<const W: usize, const DETAIL: bool>(
    m: &mut Machine,
    plan: &mut Plan<'_, '_>,
    stats: &mut Stats,
    nwaves: usize,
) -> Result<(), Error> {
    let program = plan.program;
    let config = plan.config;
    let size = config.workgroup.count() as usize;
    let mut remaining = config.instruction_budget;
    let grid = config.grid.to_array();
    let wg = config.workgroup.to_array();
    let (nv, ns, nm) = (
        plan.prepared.vregs,
        plan.prepared.sregs,
        plan.prepared.mregs,
    );
    // On the heap: kept in memory as arrays, which the lane loops read as vectors
    // (a stack copy may be split into scalars by the optimizer).
    let mut scratch = Box::new(wave::Scratch::<W>::new());
    let quantum = match config.schedule {
        Schedule::UntilBarrier => u64::MAX,
        Schedule::RoundRobin => 1,
    };
    let units = config.model.compute_units.max(1) as usize;
    let total = grid.iter().map(|&g| g as usize).product::<usize>();
    let wave_order = plan.order.of(nwaves);
    for linear in plan.order.of(total) {
        let (gx, gy, gz) = (
            (linear % grid[0] as usize) as u32,
            (linear / grid[0] as usize % grid[1] as usize) as u32,
            (linear / (grid[0] as usize * grid[1] as usize)) as u32,
        );
        let group = [gx, gy, gz];
        // Workgroup `g` (x fastest) runs on compute unit `g % units`.
        let unit = linear % units;
        if config.sanitize {
            m.sanitizer.workgroup(linear as u32, group);
        }
        let traced = DETAIL && config.trace_workgroup == Some(linear as u64);
        let mut trace = traced.then(|| Trace {
            workgroup: group,
            waves: nwaves as u32,
            ..Trace::default()
        });
        // Lanes past `W` are never read: zero only the wave's lanes (in
        // one pass when that is the whole register).
        if W >= 64 {
            m.vregs.fill([0; 64]);
        } else {
            for r in m.vregs.iter_mut() {
                r[..W].fill(0);
            }
        }
        m.sregs.fill(0);
        m.mregs.fill(0);
        m.lds.0[..m.lds_words].fill(0);
        for (w, wave) in m.waves.iter_mut().enumerate() {
            let lanes = (size - w * W).min(W);
            wave.launch = if lanes >= 64 {
                u64::MAX
            } else {
                (1u64 << lanes) - 1
            };
            wave.exec = wave.launch;
            wave.pc = 0;
            wave.status = Status::Ready;
            wave.stack.clear();
        }
        let mut done = 0;
        let mut waiting = 0u32;
        while done < nwaves {
            for &w in &wave_order {
                if m.waves[w].status != Status::Ready {
                    continue;
                }
                let uniforms = Uniforms {
                    group,
                    size: wg,
                    groups: grid,
                    global_base: [
                        gx.wrapping_mul(wg[0]),
                        gy.wrapping_mul(wg[1]),
                        gz.wrapping_mul(wg[2]),
                    ],
                    wave: w as u32,
                    width: W as u32,
                };
                let run = WaveRun {
                    program,
                    prepared: plan.prepared,
                    slots: &mut plan.bound.slots,
                    scalars: &plan.bound.scalars,
                    geo: plan.geo,
                    uniforms,
                    local: &m.local[w],
                    vr: &mut m.vregs[w * nv..(w + 1) * nv],
                    sr: &mut m.sregs[w * ns..(w + 1) * ns],
                    mr: &mut m.mregs[w * nm..(w + 1) * nm],
                    wave: &mut m.waves[w],
                    lds: &mut m.lds.0,
                    table: BankTable {
                        stamps: &mut m.stamps,
                        gen: &mut m.gen,
                    },
                    counters: &mut stats.per_instruction,
                    worsts: &mut stats.worst_phases,
                    hist: &mut stats.active_lanes_histogram,
                    skips: SkipLog(&mut m.skips),
                    remaining: &mut remaining,
                    quantum,
                    caches: m.caches.unit(unit),
                    san: if config.sanitize {
                        Some(&mut m.sanitizer)
                    } else {
                        None
                    },
                    wave_index: w,
                    trace: trace.as_mut(),
                };
                let fault = |pc: usize, trap: Trap| fault(program, config, group, w, pc, trap);
                match wave::run::<W, DETAIL>(run, &mut scratch) {
                    Err((pc, trap)) => return Err(fault(pc, *trap)),
                    Ok(Exit::Done(pc)) => {
                        m.waves[w].status = Status::Done;
                        done += 1;
                        if waiting > 0 {
                            return Err(fault(pc, stranded(waiting)));
                        }
                    }
                    Ok(Exit::Yielded) => {}
                    Ok(Exit::Parked(pc)) => {
                        waiting += 1;
                        if done > 0 {
                            return Err(fault(pc, stranded(waiting)));
                        }
                        if waiting as usize == nwaves {
                            waiting = 0;
                            if config.sanitize {
                                m.sanitizer.barrier();
                            }
                            for wave in &mut m.waves {
                                wave.status = Status::Ready;
                            }
                        }
                    }
                }
            }
        }
        stats.workgroups += 1;
        stats.waves += nwaves as u64;
        if trace.is_some() {
            stats.trace = trace;
        }
    }
    Ok(())
}

fn stranded(waiting: u32) -> Trap {
    Trap {
        kind: FaultKind::BarrierStranded { waiting },
        lane: None,
        address: None,
    }
}

/// Places a handler's trap in the program and the grid.
fn fault(
    program: &Program,
    config: &LaunchConfig,
    group: [u32; 3],
    wave: usize,
    pc: usize,
    trap: Trap,
) -> Error {
    let kind = match trap.kind {
        FaultKind::BudgetExceeded { .. } => FaultKind::BudgetExceeded {
            budget: config.instruction_budget,
        },
        kind => kind,
    };
    Error::Fault(Box::new(Fault {
        kernel: program.name.to_string(),
        file: program.file.to_string(),
        inst: pc as u32,
        loc: program.loc(pc),
        workgroup: group,
        wave: wave as u32,
        lane: trap.lane,
        address: trap.address,
        kind,
    }))
}

/// Whether the AVX2 + FMA build of the dispatch loop can run on this CPU.
fn fast_path_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Runs the launch with the best build of the interpreter the CPU allows.
#[inline]
fn run_groups_dispatch<const W: usize>(
    m: &mut Machine,
    plan: &mut Plan<'_, '_>,
    stats: &mut Stats,
    nwaves: usize,
) -> Result<(), Error> {
    if plan.config.trace_workgroup.is_some() || plan.config.worst_phases {
        // The recording copy is compiled only here, plainly: such a launch is
        // one to look at, not to time.
        return run_groups::<W, true>(m, plan, stats, nwaves);
    }
    #[cfg(target_arch = "x86_64")]
    if plan.fast {
        // SAFETY: `plan.fast` is true only when the CPU reported AVX2 and FMA.
        return unsafe { run_groups_avx2::<W>(m, plan, stats, nwaves) };
    }
    run_groups_plain::<W>(m, plan, stats, nwaves)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_groups_avx2<const W: usize>(
    m: &mut Machine,
    plan: &mut Plan<'_, '_>,
    stats: &mut Stats,
    nwaves: usize,
) -> Result<(), Error> {
    run_groups::<W, false>(m, plan, stats, nwaves)
}

fn run_groups_plain<const W: usize>(
    m: &mut Machine,
    plan: &mut Plan<'_, '_>,
    stats: &mut Stats,
    nwaves: usize,
) -> Result<(), Error> {
    run_groups::<W, false>(m, plan, stats, nwaves)
}
