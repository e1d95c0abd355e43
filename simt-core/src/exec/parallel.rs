//! Launches on several threads, with the results of one.
//!
//! Workgroup 0 runs first on the calling thread's worker (a fault there is the
//! launch's, as on one thread); with
//! [`Threads::Auto`](crate::Threads::Auto), the instructions it issued decide
//! whether the rest is worth spreading. The rest is dealt to the workers: with
//! caches, by compute unit (worker `k` runs the units `u` with
//! `u % workers == k`, each unit's workgroups in order, so every L1 sees what it
//! sees on one thread); without, workgroup `g` goes to worker `g % workers`.
//! Workers are rayon tasks; the calling thread's worker works on the real
//! buffers, the others on private copies made after workgroup 0, and each
//! records which bytes of the writable buffers it read and wrote ([`Marks`]).
//!
//! Afterwards, a byte written by one worker and read or written by another is
//! a race between workgroups whose outcome depends on timing; then, as when a
//! worker faults or the launch issued more than its budget, the buffers, the
//! statistics and the caches go back to where workgroup 0 left them, and the
//! other workgroups run again on one thread, which decides the outcome (and
//! the fault) as a one-thread launch does. Otherwise each worker's written
//! bytes are copied into the real buffers, the statistics are summed, and the
//! DRAM first touches the workers logged are counted in workgroup order, so that
//! each sector's first touch is the one a single thread would have seen.

use super::bind::{self, Slot};
use super::groups::Groups;
use super::instrument::Watch;
use super::marks::{conflicting, merge_written, Marks};
use super::memory::DramEvent;
use super::native::Runner;
use super::worker::{Job, Worker};
use super::Plan;
use crate::cache::DramSectors;
use crate::error::Error;
use crate::launch::{Order, Threads};
use crate::stats::Stats;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Wave instructions the workgroups after the first must be expected to issue
/// (the first one's count times their number) before [`Threads::Auto`] spreads
/// them: below it, waking the pool and merging cost more than a second thread
/// saves. Measured on a 2-vCPU machine: a second worker costs up to 130 µs per
/// launch (mostly waking a sleeping pool thread), about 13,000 instructions,
/// and saves at most half the work.
const AUTO_MIN_INSTRUCTIONS: u64 = 1 << 15;

/// Bytes of writable buffers [`Threads::Auto`] accepts copying per wave
/// instruction it expects to spread: copying and marking a byte costs well
/// under a nanosecond per worker, an instruction about ten.
const AUTO_BYTES_PER_INSTRUCTION: u64 = 16;

/// What the workers of a launch share while they run.
#[derive(Debug)]
pub(super) struct Team {
    /// Set when a worker faulted or the workers together went past the
    /// budget: the others stop at their next workgroup, and the launch runs
    /// again on one thread.
    stop: AtomicBool,
    /// Instructions issued by all workers, counted at the end of each workgroup.
    issued: AtomicU64,
    /// The launch's instruction budget.
    budget: u64,
}

impl Team {
    /// Whether the workers should stop.
    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// A worker finished a workgroup that issued `n` instructions.
    pub(super) fn issued(&self, n: u64) {
        let total = self
            .issued
            .fetch_add(n, Ordering::Relaxed)
            .saturating_add(n);
        if total > self.budget {
            self.stop();
        }
    }

    /// A worker faulted.
    pub(super) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// What one of the other workers brings back.
struct Outcome {
    stats: Stats,
    marks: Marks,
    events: Vec<DramEvent>,
}

thread_local! {
    /// Each pool thread's worker, reused across launches.
    static WORKER: RefCell<Worker> = RefCell::new(Worker::default());
}

/// Runs every workgroup of the launch, spread over up to `plan.threads`
/// workers, into `stats` (which starts empty), and returns how many workers'
/// results it kept; `main` has been set up.
pub(super) fn run<const W: usize>(
    main: &mut Worker,
    plan: &Plan<'_>,
    slots: &mut [Slot<'_>],
    stats: &mut Stats,
    native: Option<Runner<W>>,
) -> Result<usize, Error> {
    let mut remaining = plan.config.instruction_budget;
    let first = Groups::ordered(Order::Normal, plan.total, 0..1);
    main.run_groups::<W>(plan, job(slots, stats, &mut remaining), first, None, native)?;
    let rest = plan.total - 1;
    let expected = issued(stats).saturating_mul(rest);
    let units = plan.cache_units.max(1);
    let mut workers = plan
        .threads
        .min(usize::try_from(rest).unwrap_or(usize::MAX));
    if main.caches.enabled() {
        // Workers take whole compute units.
        workers = workers.min(units);
    }
    if plan.config.threads == Threads::Auto {
        let copied = writable_bytes(slots).saturating_mul(workers as u64);
        if expected < AUTO_MIN_INSTRUCTIONS
            || copied > expected.saturating_mul(AUTO_BYTES_PER_INSTRUCTION)
        {
            workers = 1;
        }
    }
    if workers > 1 {
        // Where one thread would go on from, should the workers disagree.
        let buffers = bind::writable(slots);
        let counted = stats.clone();
        let checkpoint = main.checkpoint();
        if let Some(ran) = spread::<W>(main, plan, slots, stats, remaining, workers) {
            return Ok(ran);
        }
        // A race between workers, a fault or the budget: one thread decides.
        bind::restore(slots, &buffers);
        *stats = counted;
        main.restore(checkpoint);
    }
    let rest = Groups::ordered(Order::Normal, plan.total, 1..plan.total);
    main.run_groups::<W>(plan, job(slots, stats, &mut remaining), rest, None, native)?;
    Ok(1)
}

/// A job on the calling thread alone.
fn job<'j, 'b>(
    slots: &'j mut [Slot<'b>],
    stats: &'j mut Stats,
    remaining: &'j mut u64,
) -> Job<'j, 'b> {
    Job {
        slots,
        stats,
        remaining,
        team: None,
    }
}

/// Bytes of the writable buffers.
fn writable_bytes(slots: &[Slot<'_>]) -> u64 {
    slots
        .iter()
        .map(|s| match s {
            Slot::BufferMut { data, .. } => data.len() as u64,
            _ => 0,
        })
        .sum()
}

/// Wave instructions issued so far.
fn issued(stats: &Stats) -> u64 {
    stats.per_instruction.iter().map(|c| c.instructions).sum()
}

/// Runs workgroups `1..` on `workers` workers and merges their results into
/// `slots` and `stats`, returning how many workers ran; `None` when the launch
/// must run again on one thread.
fn spread<const W: usize>(
    main: &mut Worker,
    plan: &Plan<'_>,
    slots: &mut [Slot<'_>],
    stats: &mut Stats,
    remaining: u64,
    workers: usize,
) -> Option<usize> {
    // With caches, whole compute units (`workers <= units`); without, workgroups
    // in turn.
    let units = match main.caches.enabled() {
        true => plan.cache_units.max(1) as u64,
        false => u64::MAX,
    };
    let share = |k: usize| Groups::dealt(k as u64, workers as u64, units, plan.total);
    let team = Team {
        stop: AtomicBool::new(false),
        issued: AtomicU64::new(plan.config.instruction_budget - remaining),
        budget: plan.config.instruction_budget,
    };
    let mut touched: Option<DramSectors> = main.caches.dram().cloned();
    main.caches.start_log(None);
    let mut copies: Vec<Vec<Vec<u8>>> = (1..workers).map(|_| bind::writable(slots)).collect();
    let mut privates: Vec<Vec<Slot<'_>>> =
        copies.iter_mut().map(|c| bind::private(slots, c)).collect();
    let mut outcomes: Vec<Option<Outcome>> = (1..workers).map(|_| None).collect();
    let mut main_marks = Marks::new(slots);
    let mut main_remaining = remaining;
    rayon::scope(|s| {
        let (touched, team) = (touched.as_ref(), &team);
        for (k, (private, out)) in privates.iter_mut().zip(outcomes.iter_mut()).enumerate() {
            let groups = share(k + 1);
            s.spawn(move |_| {
                *out = Some(work::<W>(plan, groups, private, touched, remaining, team))
            });
        }
        let job = Job {
            slots: &mut *slots,
            stats: &mut *stats,
            remaining: &mut main_remaining,
            team: Some(team),
        };
        if main
            .run_groups::<W>(
                plan,
                job,
                share(0),
                Some(&mut Watch {
                    marks: Some(&mut main_marks),
                    ..Watch::default()
                }),
                None,
            )
            .is_err()
        {
            team.stop();
        }
    });
    drop(privates);
    let mut events = main.caches.take_log();
    // A worker that stopped early (or, were rayon to lose a task, never ran)
    // leaves the results incomplete.
    let outcomes: Vec<Outcome> = outcomes.into_iter().flatten().collect();
    if team.stopped() || outcomes.len() + 1 != workers {
        return None;
    }
    let mut all_marks: Vec<&Marks> = vec![&main_marks];
    all_marks.extend(outcomes.iter().map(|o| &o.marks));
    if conflicting(&all_marks) {
        return None;
    }
    for (o, copy) in outcomes.iter().zip(&copies) {
        merge_written(slots, &o.marks, copy);
    }
    for o in &outcomes {
        merge_stats(stats, &o.stats);
    }
    for o in outcomes {
        events.extend(o.events);
    }
    // Each workgroup's events come from one worker, in the order it ran them;
    // the sort is stable.
    events.sort_by_key(|e| e.group);
    if let Some(dram) = touched.as_mut() {
        for e in events {
            if let Some(c) = stats.per_instruction.get_mut(e.pc as usize) {
                c.dram_sectors += u64::from(e.count(dram));
            }
        }
    }
    // Every worker had a workgroup: worker `k >= 1` runs workgroup `k`, as
    // `workers` is at most the workgroups after the first (and the units).
    Some(workers)
}

/// One of the other workers: runs `groups` on this thread's worker.
fn work<const W: usize>(
    plan: &Plan<'_>,
    groups: Groups,
    slots: &mut [Slot<'_>],
    touched: Option<&DramSectors>,
    remaining: u64,
    team: &Team,
) -> Outcome {
    let mut body = |w: &mut Worker| {
        w.setup::<W>(plan);
        let mut stats = plan.stats::<W>();
        let mut marks = Marks::new(slots);
        let result = plan.reset_caches(&mut w.caches).and_then(|()| {
            w.caches.start_log(touched);
            let job = Job {
                slots: &mut *slots,
                stats: &mut stats,
                remaining: &mut remaining.clone(),
                team: Some(team),
            };
            w.run_groups::<W>(
                plan,
                job,
                groups,
                Some(&mut Watch {
                    marks: Some(&mut marks),
                    ..Watch::default()
                }),
                None,
            )
        });
        if result.is_err() {
            team.stop();
        }
        w.finish(plan.decoded, &mut stats);
        Outcome {
            events: w.caches.take_log(),
            stats,
            marks,
        }
    };
    let reused = WORKER.try_with(|cell| cell.try_borrow_mut().ok().map(|mut w| body(&mut w)));
    match reused {
        Ok(Some(outcome)) => outcome,
        _ => body(&mut Worker::default()),
    }
}

/// Adds a worker's statistics to the launch's.
fn merge_stats(into: &mut Stats, from: &Stats) {
    into.workgroups += from.workgroups;
    into.waves += from.waves;
    into.prints.log.merge(&from.prints.log);
    for (a, b) in into.per_instruction.iter_mut().zip(&from.per_instruction) {
        a.add(b);
    }
    for (a, b) in into
        .active_lanes_histogram
        .iter_mut()
        .zip(&from.active_lanes_histogram)
    {
        *a += b;
    }
}
