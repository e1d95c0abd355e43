//! The interpreter: a SIMT machine that runs a [`Program`] over a grid and counts.
//!
//! # The machine
//!
//! Workgroups run one at a time, in order (x fastest, then y, then z), or
//! spread over several threads with the results of that order (see
//! `parallel.rs` and [`Threads`](crate::Threads)). The
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
//! # Structure
//!
//! - `decode.rs`: the program as the loop runs it, decoded once per program
//!   (operand kinds resolved, offsets and atomics in one shape, the program's
//!   facts); a [`Machine`] keeps the last decoding between launches;
//! - `ops/`: the executor context made once per workgroup and the dispatch
//!   loop, one line per op, into handlers grouped by category
//!   (`ops/{alu,lanes,memory,control}.rs`); the semantics they apply are in
//!   `alu.rs`, `lanes.rs`, `flow.rs` and `memory/`;
//! - `instrument.rs`: the one interface through which the sanitizers, a
//!   parallel launch's marks and the worst-phase and trace recording watch a
//!   launch; the plain launch's instrument is `()`, so its loop has no
//!   instrument code;
//! - `worker.rs`: the scheduler; `parallel.rs`: spreading workgroups over
//!   threads.
//!
//! # Speed
//!
//! Vector registers are lane-contiguous (`[u32; 64]` per register and wave) and
//! every vector operation computes all lanes and blends the result into the
//! destination through per-lane exec words, so that each operation is a
//! straight loop the compiler vectorizes. Memory accesses classify their lane
//! offsets while computing them (one block, one broadcast offset, or
//! scattered); blocks and broadcasts are counted by formula and moved with one
//! copy. The scheduler, the dispatch loop and its handlers are generic over
//! the wave width and the instrument and `#[inline(always)]`; on x86-64 the
//! plain launch's loop (instrument `()`) and the watched launches' loop
//! (`instrument::Watch`) are compiled inside a `#[target_feature(enable
//! = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]` function used when the CPU reports
//! those features at run time (so `f32::mul_add` is one instruction instead of
//! a library call, lane loops use 256-bit vectors and lane counts one
//! `popcnt`), and the watched launches' loop once more plainly for every other CPU:
//! three builds per wave width (see `Worker::run_groups`). A worker's state
//! (`worker.rs`: registers, LDS, wave state, caches) is allocated once per
//! [`Machine`] or pool thread and reused across launches ([`launch`] uses one
//! machine per thread), never per workgroup or per instruction. The LDS is a
//! fixed-size word array, so lane loops index it with masked word indices and
//! no bounds checks.

// Lane loops index several arrays by lane: the form that vectorizes reliably.
#![allow(clippy::needless_range_loop)]

mod alu;
mod alu64;
mod bind;
mod decode;
mod flow;
mod groups;
pub(crate) mod instrument;
mod lanes;
mod marks;
mod memory;
pub(crate) mod native;
mod ops;
mod parallel;
mod sanitize;
mod wave;
mod worker;

#[cfg(test)]
mod tests;

use crate::error::{Error, Fault, FaultKind, LaunchError, LaunchErrorKind};
use crate::ir::Program;
use crate::launch::{Arg, Engine, LaunchConfig, Order, Schedule, Threads};
use crate::stats::Stats;
use crate::timing::stream::Streams;
use crate::Kernel;
use bind::{Geometry, Slot};
use decode::Decoded;
use groups::Groups;
use instrument::{Recorder, Watch};
use memory::Trap;
use worker::{Job, Worker};

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
    /// The calling thread's worker (the only one of a launch on one thread).
    worker: Worker,
    sanitizer: sanitize::Sanitizer,
    /// The workers whose results the last launch returned.
    workers: usize,
    /// The last program launched, decoded.
    decoded: Option<Decoded>,
}

/// The parts of a launch that stay fixed while it runs, shared by its workers.
struct Plan<'p> {
    program: &'p Program,
    decoded: &'p Decoded,
    /// Scalar arguments as bits, by parameter index.
    scalars: &'p [u32],
    geo: Geometry,
    config: &'p LaunchConfig,
    fast: bool,
    /// The kernel's native runners, when the launch runs them.
    native: Option<&'p native::Runners>,
    /// The order workgroups and waves run in.
    order: Order,
    /// Waves per workgroup.
    nwaves: usize,
    /// Workgroups in the grid (it fits: [`bind::check_config`] refuses
    /// larger grids).
    total: u64,
    /// Compute units with an L1 of their own (the model's, at most one per
    /// workgroup).
    cache_units: usize,
    /// The most workers the launch may use: 1 when it must run on one thread.
    threads: usize,
}

impl Plan<'_> {
    /// Empty statistics for this launch at wave width `W`.
    fn stats<const W: usize>(&self) -> Stats {
        let n = self.program.insts.len();
        Stats::new(&self.program.name, W as u32, &self.config.model.name, n)
    }

    /// Makes `caches` cold for this launch.
    fn reset_caches(&self, caches: &mut memory::Caches) -> Result<(), Error> {
        caches
            .reset(self.config.model.l1.as_ref(), self.cache_units)
            .map_err(|reason| {
                Error::Launch(LaunchError {
                    kernel: self.program.name.to_string(),
                    kind: LaunchErrorKind::Model {
                        name: self.config.model.name.to_string(),
                        reason,
                    },
                })
            })
    }
}

impl Machine {
    /// A machine with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many workers ran the workgroups whose results the last launch
    /// returned: 1 when it ran on one thread, including a parallel launch that
    /// ran again on one thread (see [`Threads`]); 0 before any launch.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Like [`launch`], reusing this machine's buffers.
    pub fn launch(
        &mut self,
        kernel: &Kernel,
        config: &LaunchConfig,
        args: &mut [Arg<'_>],
    ) -> Result<Stats, Error> {
        let program = kernel.program();
        crate::proved::check_shape(kernel, config).map_err(|kind| {
            Error::Launch(LaunchError {
                kernel: program.name.to_string(),
                kind,
            })
        })?;
        let proved = if config.sanitize {
            crate::proved::races(kernel, config)
        } else {
            Vec::new()
        };
        // Decoded once per program: a machine launching one kernel again
        // (the common case) reuses it.
        let decoded = match self.decoded.take() {
            Some(d) if d.is_of(program) => d,
            _ => Decoded::new(program),
        };
        let native = match (config.engine, config.schedule) {
            (Engine::Native, Schedule::UntilBarrier) => kernel
                .native()
                .and_then(|n| n.downcast_ref::<native::Runners>()),
            _ => None,
        };
        let result = self.launch_decoded(program, &decoded, native, config, args);
        self.decoded = Some(decoded);
        let mut stats = result?;
        stats.findings.prepend(proved);
        stats.launch = crate::stats::LaunchValues {
            grid: config.grid.to_array(),
            workgroup: config.workgroup.to_array(),
            scalars: args
                .iter()
                .map(|a| match *a {
                    Arg::U32(v) => Some(v),
                    Arg::I32(v) => Some(v as u32),
                    Arg::F32(v) => Some(v.to_bits()),
                    _ => None,
                })
                .collect(),
        };
        Ok(stats)
    }

    /// Runs a launch of `program`, decoded as `decoded`.
    fn launch_decoded(
        &mut self,
        program: &Program,
        decoded: &Decoded,
        native: Option<&native::Runners>,
        config: &LaunchConfig,
        args: &mut [Arg<'_>],
    ) -> Result<Stats, Error> {
        let prepared = &decoded.prepared;
        let refuse = |kind| {
            Error::Launch(LaunchError {
                kernel: program.name.to_string(),
                kind,
            })
        };
        let geo = bind::check_config(config, program).map_err(refuse)?;
        let align = 256u64.max(geo.line_bytes);
        let mut scratch = bind::scratch(program, config).map_err(refuse)?;
        let bind::Bound { mut slots, scalars } =
            bind::bind(program, args, align, &mut scratch).map_err(refuse)?;
        let total = config.grid.count();
        // Only these launches can be split: the others record in an order a
        // second worker would change, or return values that depend on it.
        let splittable = !config.sanitize
            && config.schedule_check.is_none()
            && config.trace_workgroup.is_none()
            && !config.worst_phases
            && config.timing.is_none()
            && !prepared.global_atomics
            // Each worker would copy the grid's whole scratch, which no
            // host reads: a kernel with scratch memory runs on one thread.
            && program.scratch_words == 0;
        let threads = match config.threads {
            _ if !splittable => 1,
            Threads::Auto => rayon::current_num_threads(),
            Threads::Count(n) => n,
        };
        let mut plan = Plan {
            program,
            decoded,
            scalars: &scalars,
            geo,
            config,
            fast: fast_path_available(),
            native,
            order: Order::Normal,
            nwaves: (config.workgroup.count() as usize).div_ceil(config.wave_width as usize),
            total,
            cache_units: total.min(u64::from(config.model.compute_units)) as usize,
            threads: threads.clamp(1, marks::MAX_WORKERS),
        };
        plan.reset_caches(&mut self.worker.caches)?;
        let Some(other) = config.schedule_check else {
            return self.run_width(&plan, &mut slots);
        };
        // The schedule check: run in the normal order and in the other one from
        // the same inputs, compare the outputs, keep the normal order's.
        let initial = bind::writable(&slots);
        let mut stats = self.run_width(&plan, &mut slots)?;
        let normal = bind::writable(&slots);
        bind::restore(&mut slots, &initial);
        plan.order = other;
        plan.reset_caches(&mut self.worker.caches)?;
        let permuted = self.run_width(&plan, &mut slots);
        let differing = bind::differences(&slots, &normal);
        bind::restore(&mut slots, &normal);
        permuted?;
        if let Some((address, bytes)) = differing {
            let byte = buffer_byte(&slots, address);
            // Who wrote the byte last: each order once more from the same
            // inputs, watching it (only when a byte differs).
            let mut writer = |order| {
                let (param, offset) = byte?;
                bind::restore(&mut slots, &initial);
                plan.order = order;
                plan.reset_caches(&mut self.worker.caches).ok()?;
                self.sanitizer
                    .start_watch(config.grid.to_array(), param, offset as u32);
                let run = self.run_width(&plan, &mut slots);
                let site = self.sanitizer.stop_watch();
                run.ok().and(site)
            };
            let (normal_writer, other_writer) = (writer(Order::Normal), writer(other));
            bind::restore(&mut slots, &normal);
            let (at, other) = match (normal_writer, other_writer) {
                (Some(n), o) => (n, o),
                (None, Some(o)) => (o, None),
                (None, None) => (crate::findings::Site::default(), None),
            };
            stats.findings.add(crate::findings::Finding {
                kind: crate::findings::FindingKind::ScheduleDependent,
                at,
                other,
                address: Some(address),
                bytes,
                occurrences: 1,
                byte: byte.and_then(|(param, offset)| {
                    Some(crate::findings::BufferByte {
                        buffer: program.params.get(param)?.name.to_string(),
                        offset,
                    })
                }),
                register: None,
            });
        }
        Ok(stats)
    }

    fn run_width(&mut self, plan: &Plan<'_>, slots: &mut [Slot<'_>]) -> Result<Stats, Error> {
        match plan.config.wave_width {
            64 => self.run::<64>(plan, slots, plan.native.map(|n| n.w64)),
            _ => self.run::<32>(plan, slots, plan.native.map(|n| n.w32)),
        }
    }

    fn run<const W: usize>(
        &mut self,
        plan: &Plan<'_>,
        slots: &mut [Slot<'_>],
        native: Option<native::Runner<W>>,
    ) -> Result<Stats, Error> {
        let program = plan.program;
        let config = plan.config;
        self.worker.setup::<W>(plan);
        let mut stats = plan.stats::<W>();
        self.workers = 1;
        if plan.threads > 1 {
            self.workers = parallel::run::<W>(&mut self.worker, plan, slots, &mut stats, native)?;
        } else {
            let watching = self.sanitizer.watching();
            let sanitizing = config.sanitize && !watching;
            if sanitizing {
                let buffers: Vec<&[u8]> = slots
                    .iter()
                    .map(|s| match s {
                        Slot::BufferMut { data, .. } => &data[..],
                        _ => &[][..],
                    })
                    .collect();
                self.sanitizer.start(
                    program,
                    config.grid.to_array(),
                    &buffers,
                    plan.nwaves,
                    config.lane_order,
                );
            }
            let job = Job {
                slots,
                stats: &mut stats,
                remaining: &mut config.instruction_budget.clone(),
                team: None,
            };
            let groups = Groups::ordered(plan.order, plan.total, 0..plan.total);
            let recording = config.trace_workgroup.is_some() || config.worst_phases;
            let timing = config.timing.as_ref();
            let w = &mut self.worker;
            // The watched launches (the sanitizers, the recording, the timing
            // or any of them) share one build of the loop (see
            // `Worker::run_groups`).
            match (watching || sanitizing, recording || timing.is_some()) {
                (false, false) => w.run_groups::<W>(plan, job, groups, None, native)?,
                (sanitizer, _) => {
                    let n = program.insts.len();
                    let recorder = recording
                        .then(|| Recorder::new(config.worst_phases, config.trace_workgroup, n));
                    let mut watch = Watch {
                        sanitizer: sanitizer.then_some(&mut self.sanitizer),
                        recorder,
                        marks: None,
                        streams: timing.map(|_| Streams::default()),
                    };
                    w.run_groups::<W>(plan, job, groups, Some(&mut watch), None)?;
                    if let Some(recorder) = watch.recorder {
                        recorder.finish(&mut stats);
                    }
                    if let (Some(part), Some(streams)) = (timing, watch.streams) {
                        let size = config.workgroup.count() as u32;
                        stats.timing = Some(crate::timing::replay(
                            program, part, W as u32, size, &streams,
                        ));
                    }
                }
            }
            if sanitizing {
                stats.findings = std::mem::take(&mut self.sanitizer.findings);
            }
        }
        stats.workers = self.workers;
        self.worker.finish(plan.decoded, &mut stats);
        for (c, inst) in stats.per_instruction.iter_mut().zip(program.insts.iter()) {
            if inst.is_vector() {
                c.vector_instructions = c.instructions;
            }
            // A `print` counts in no counter (it still takes a step of the
            // instruction budget).
            if matches!(inst, crate::isa::Inst::Print { .. }) {
                *c = crate::stats::Counters::default();
            }
        }
        stats.sum_totals();
        stats.prints = stats.prints.log.finish(program);
        Ok(stats)
    }
}

/// The writable buffer parameter holding launch address `address`, and the
/// byte's offset in it.
fn buffer_byte(slots: &[Slot<'_>], address: u64) -> Option<(usize, u64)> {
    slots
        .iter()
        .enumerate()
        .find_map(|(param, slot)| match slot {
            Slot::BufferMut { data, base } => {
                let offset = address.checked_sub(*base)?;
                (offset < data.len() as u64).then_some((param, offset))
            }
            _ => None,
        })
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

/// Whether the AVX2 + FMA build of the dispatch loop (with the bit
/// instructions every AVX2 CPU has) can run on this CPU.
fn fast_path_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("fma")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
