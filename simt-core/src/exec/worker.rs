//! A worker: the registers, LDS and wave state that run workgroups one after
//! another, and the scheduler that takes a workgroup's waves in turns.
//!
//! A launch on one thread is one worker running every workgroup; a parallel
//! launch gives each thread a worker of its own (see `parallel.rs`). A worker's
//! buffers are sized once per launch ([`Worker::setup`]) and reused across
//! launches, never allocated per workgroup or per instruction.

use super::bind::Slot;
use super::decode::Decoded;
use super::flow::SkipLog;
use super::groups::Groups;
use super::instrument::{Instrument, Watch};
use super::memory::{BankTable, Caches, Lds, Trap};
use super::native::{BlockRun, Runner, RunnerFor};
use super::ops::{Exec, Regs, Scratch};
use super::parallel::Team;
use super::wave::{Exit, Status, Uniforms, Wave};
use super::Plan;
use crate::error::{Error, FaultKind};
use crate::launch::Schedule;
use crate::stats::Stats;

/// The state a thread runs workgroups with.
#[derive(Debug, Default)]
pub(super) struct Worker {
    vregs: Vec<[u32; 64]>,
    sregs: Vec<u32>,
    mregs: Vec<u64>,
    waves: Vec<Wave>,
    /// Local ids per wave, axis and lane: they depend only on the workgroup shape.
    local: Vec<[[u32; 64]; 3]>,
    /// The workgroup shape and wave width `local` was laid out for: a launch
    /// of the same shape keeps it.
    local_for: Option<([u32; 3], usize)>,
    lds: LdsBox,
    /// The bank-conflict counter's word table and its generation.
    stamps: Vec<u32>,
    gen: u32,
    /// Skipped-instruction differences (see [`SkipLog`]).
    skips: Vec<i64>,
    /// The issue counts native runners kept per block, by the block's
    /// first instruction.
    runs: Vec<BlockRun>,
    /// An empty vector whose allocation each workgroup's per-wave register
    /// views reuse (see `Regs::relabel`).
    views: Vec<Regs<'static>>,
    /// The lane scratch of the last launch, for the next of the same wave
    /// width (a `Scratch<W>`).
    scratch: Option<Box<dyn std::any::Any + Send>>,
    /// The L1s of the compute units this worker runs and the DRAM sectors.
    pub(super) caches: Caches,
}

/// The workgroup's LDS, allocated once per worker at the largest size a program
/// may declare; each workgroup zeroes only the blocks the last one wrote.
#[derive(Debug)]
struct LdsBox(Box<Lds>);

impl Default for LdsBox {
    fn default() -> Self {
        LdsBox(Lds::new())
    }
}

/// A worker's state between workgroups, saved to run them again.
pub(super) struct Checkpoint {
    caches: Caches,
    skips: Vec<i64>,
    runs: Vec<BlockRun>,
}

/// What one call of the scheduler reads and writes besides the worker's own
/// state.
pub(super) struct Job<'j, 'b> {
    /// The bound buffers (private copies on a parallel launch's other workers).
    pub(super) slots: &'j mut [Slot<'b>],
    /// The statistics the workgroups add to.
    pub(super) stats: &'j mut Stats,
    /// Instructions the launch may still issue.
    pub(super) remaining: &'j mut u64,
    /// The other workers of a parallel launch.
    pub(super) team: Option<&'j Team>,
}

impl Worker {
    /// Sizes the buffers for a launch of `plan` with waves of `W` lanes.
    pub(super) fn setup<const W: usize>(&mut self, plan: &Plan<'_>) {
        let p = &plan.decoded.prepared;
        let wg = plan.config.workgroup.to_array();
        let size = plan.config.workgroup.count() as usize;
        let nwaves = plan.nwaves;
        // One register of each class past the program's per wave: see `Regs`.
        // Sized only: every workgroup zeroes its registers as it starts
        // (`reset_group`).
        self.vregs.resize(nwaves * (p.vregs + 1), [0; 64]);
        self.sregs.resize(nwaves * (p.sregs + 1), 0);
        self.lds.0.avx2 = plan.fast;
        self.mregs.resize(nwaves * (p.mregs + 1), 0);
        let words = (p.lds_bytes >> plan.geo.bank_shift) + 1;
        // Grown only, and the generation goes on from the last launch's: no
        // stamp is above it, so the table needs no clearing (which cost a
        // pass over the largest LDS a launch declared, every launch).
        if self.stamps.len() < words {
            self.stamps.resize(words, 0);
        }
        self.skips.clear();
        self.skips.resize(plan.program.insts.len() + 1, 0);
        self.runs.clear();
        self.runs
            .resize(plan.program.insts.len(), BlockRun::default());
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
        if self.local_for == Some((wg, W)) {
            return;
        }
        self.local_for = Some((wg, W));
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
    }

    /// Adds the skipped instructions and the native runners' block counts
    /// recorded since [`setup`](Self::setup) to `stats`: each block's runs
    /// to every inline instruction of the block ([`BlockRun`]).
    pub(super) fn finish(&mut self, decoded: &Decoded, stats: &mut Stats) {
        SkipLog(&mut self.skips).finish(|k, n| {
            if let Some(c) = stats.per_instruction.get_mut(k) {
                c.skipped_instructions += n;
            }
        });
        for &(start, len) in &decoded.blocks {
            let Some(&run) = self.runs.get(start) else {
                continue;
            };
            if run.runs == 0 {
                continue;
            }
            let counters = stats.per_instruction.iter_mut().skip(start);
            for (op, c) in decoded.ops[start..start + len].iter().zip(counters) {
                if op.kind() == 0 {
                    continue;
                }
                c.instructions += run.runs;
                if op.counts_lanes() {
                    c.active_lanes += run.active;
                    c.divergent_vector_instructions += run.divergent;
                }
            }
        }
    }

    /// What the workgroups run so far left in this worker: its caches,
    /// skipped instructions and block counts (registers and LDS start afresh
    /// each workgroup).
    pub(super) fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            caches: self.caches.clone(),
            skips: self.skips.clone(),
            runs: self.runs.clone(),
        }
    }

    /// Goes back to `checkpoint`.
    pub(super) fn restore(&mut self, checkpoint: Checkpoint) {
        self.caches = checkpoint.caches;
        self.skips = checkpoint.skips;
        self.runs = checkpoint.runs;
    }

    /// Runs workgroups `groups` (linear indices, x fastest) in their order,
    /// watched by `instr` if any.
    ///
    /// The loop is compiled three times per wave width: a plain launch (no
    /// instrument) runs the AVX2 + FMA build with `()`, whose hooks compile to
    /// nothing; a watched launch runs the AVX2 + FMA build with [`Watch`],
    /// which calls whichever instruments it holds; a CPU without those
    /// features runs the baseline build with [`Watch`] for both, a plain
    /// launch with an empty one. Unit tests of this crate build only the
    /// baseline one, so that it is tested and the test build stays small; the
    /// integration tests run the other two.
    pub(super) fn run_groups<const W: usize>(
        &mut self,
        plan: &Plan<'_>,
        job: Job<'_, '_>,
        groups: Groups,
        instr: Option<&mut Watch<'_>>,
        native: Option<Runner<W>>,
    ) -> Result<(), Error> {
        #[cfg(all(target_arch = "x86_64", not(test)))]
        if plan.fast {
            // SAFETY: `plan.fast` is true only when the CPU reported every feature
            // the function enables, which are those native runners are built for.
            return unsafe {
                match instr {
                    None => run_groups_avx2::<W, ()>(self, plan, job, groups, &mut (), native),
                    Some(i) => run_groups_avx2::<W, Watch<'_>>(self, plan, job, groups, i, None),
                }
            };
        }
        // Native runners need the features of the AVX2 build.
        let _ = native;
        match instr {
            Some(i) => run_groups_plain::<W>(self, plan, job, groups, i),
            None => run_groups_plain::<W>(self, plan, job, groups, &mut Watch::default()),
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(test)))]
#[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn run_groups_avx2<const W: usize, I: Instrument>(
    w: &mut Worker,
    plan: &Plan<'_>,
    job: Job<'_, '_>,
    groups: Groups,
    instr: &mut I,
    native: Option<RunnerFor<W, I>>,
) -> Result<(), Error> {
    // SAFETY: the caller's: the CPU has the features native runners need.
    unsafe { run_groups::<W, I>(w, plan, job, groups, instr, native) }
}

fn run_groups_plain<const W: usize>(
    w: &mut Worker,
    plan: &Plan<'_>,
    job: Job<'_, '_>,
    groups: Groups,
    instr: &mut Watch<'_>,
) -> Result<(), Error> {
    // SAFETY: no native runner.
    unsafe { run_groups::<W, Watch<'_>>(w, plan, job, groups, instr, None) }
}

/// Runs workgroups `groups`: the scheduler around [`Exec::run`], or around
/// the kernel's native runner when there is one.
///
/// # Safety
///
/// With a native runner, the CPU has the features it was built for.
#[inline(always)]
unsafe fn run_groups<const W: usize, I: Instrument>(
    m: &mut Worker,
    plan: &Plan<'_>,
    job: Job<'_, '_>,
    groups: Groups,
    instr: &mut I,
    native: Option<RunnerFor<W, I>>,
) -> Result<(), Error> {
    let Job {
        slots,
        stats,
        remaining,
        team,
    } = job;
    let program = plan.program;
    let config = plan.config;
    let nwaves = plan.nwaves;
    let size = config.workgroup.count() as usize;
    let grid = config.grid.to_array();
    let wg = config.workgroup.to_array();
    let prepared = &plan.decoded.prepared;
    // On the heap: kept in memory as arrays, which the lane loops read as vectors
    // (a stack copy may be split into scalars by the optimizer). The last
    // launch's, when it had this width: every use writes the scratch before
    // reading it.
    let mut scratch = m
        .scratch
        .take()
        .and_then(|s| s.downcast::<Scratch<W>>().ok())
        .unwrap_or_else(|| Box::new(Scratch::<W>::new()));
    scratch.mem.avx2 = plan.fast;
    let quantum = match config.schedule {
        Schedule::UntilBarrier => u64::MAX,
        Schedule::RoundRobin => 1,
    };
    let units = u64::from(config.model.compute_units.max(1));
    let wave_order = plan.order.of(nwaves);
    let (gx_count, gy_count) = (u64::from(grid[0]), u64::from(grid[1]));
    for linear in groups {
        if team.is_some_and(|t| t.stopped()) {
            return Ok(());
        }
        let before = *remaining;
        // Exact: the grid's count fits in a u64, so `gx_count * gy_count` does.
        let (gx, gy, gz) = (
            (linear % gx_count) as u32,
            (linear / gx_count % gy_count) as u32,
            (linear / (gx_count * gy_count)) as u32,
        );
        let group = [gx, gy, gz];
        // Workgroup `g` (x fastest) runs on compute unit `g % units`.
        let unit = (linear % units) as usize;
        m.caches.set_group(linear);
        instr.workgroup_begin(linear, group, nwaves);
        stats.prints.log.begin_group(linear, group);
        m.reset_group::<W>(size);
        let mut exec = Exec {
            program,
            ops: &plan.decoded.ops,
            prepared,
            slots: &mut *slots,
            scalars: plan.scalars,
            geo: plan.geo,
            u: Uniforms {
                group,
                size: wg,
                groups: grid,
                global_base: [
                    gx.wrapping_mul(wg[0]),
                    gy.wrapping_mul(wg[1]),
                    gz.wrapping_mul(wg[2]),
                ],
                wave: 0,
                width: W as u32,
            },
            local: &m.local,
            regs: Regs::per_wave(
                &mut m.vregs,
                &mut m.sregs,
                &mut m.mregs,
                [prepared.vregs + 1, prepared.sregs + 1, prepared.mregs + 1],
                std::mem::take(&mut m.views),
            ),
            cur: Regs::default(),
            ids: m.local.first().unwrap_or(&[[0; 64]; 3]),
            waves: &mut m.waves,
            lds: &mut m.lds.0,
            table: BankTable {
                stamps: &mut m.stamps,
                gen: &mut m.gen,
            },
            caches: m.caches.unit(unit),
            counters: &mut stats.per_instruction,
            runs: &mut m.runs,
            prints: &mut stats.prints.log,
            hist: &mut stats.active_lanes_histogram,
            skips: SkipLog(&mut m.skips),
            instr: &mut *instr,
            s: &mut scratch,
            wave: 0,
            pc: 0,
            exec: 0,
            launch: 0,
            lm: [0; W],
            active: 0,
            divergent: 0,
            seen: 0,
            stepped: 0,
        };
        let mut done = 0;
        let mut waiting = 0u32;
        while done < nwaves {
            for &w in &wave_order {
                if exec.waves[w].status != Status::Ready {
                    continue;
                }
                let fault =
                    |pc: usize, trap: Trap| super::fault(program, config, group, w, pc, trap);
                let turn = match native {
                    // SAFETY: the caller's.
                    Some(run) => unsafe { exec.run_native(run, w, remaining, quantum) },
                    None => exec.run(w, remaining, quantum),
                };
                match turn {
                    Err((pc, trap)) => return Err(fault(pc, *trap)),
                    Ok(Exit::Done(pc)) => {
                        exec.waves[w].status = Status::Done;
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
                            exec.instr.barrier();
                            for wave in exec.waves.iter_mut() {
                                wave.status = Status::Ready;
                            }
                        }
                    }
                }
            }
        }
        m.views = Regs::relabel(std::mem::take(&mut exec.regs));
        stats.workgroups += 1;
        stats.waves += nwaves as u64;
        if let Some(t) = team {
            t.issued(before - *remaining);
        }
    }
    m.scratch = Some(scratch);
    Ok(())
}

impl Worker {
    /// Zeroes the registers and the LDS and puts each wave at its start,
    /// for a workgroup of `size` work-items.
    #[inline(always)]
    fn reset_group<const W: usize>(&mut self, size: usize) {
        // Lanes past `W` are never read: zero only the wave's lanes (in
        // one pass when that is the whole register).
        if W >= 64 {
            self.vregs.fill([0; 64]);
        } else {
            for r in self.vregs.iter_mut() {
                r[..W].fill(0);
            }
        }
        self.sregs.fill(0);
        self.mregs.fill(0);
        self.lds.0.zero();
        for (w, wave) in self.waves.iter_mut().enumerate() {
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
    }
}

fn stranded(waiting: u32) -> Trap {
    Trap {
        kind: FaultKind::BarrierStranded { waiting },
        lane: None,
        address: None,
    }
}
