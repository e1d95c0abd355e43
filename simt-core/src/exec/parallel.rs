//! Launches on several threads, with the results of one.
//!
//! Workgroup 0 runs first on the calling thread's worker; with
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
//! worker faults or the launch issued more than its budget, the buffers are
//! restored and the launch runs again on one thread, which decides the outcome
//! (and the fault) as a one-thread launch does. Otherwise each worker's written
//! bytes are copied into the real buffers, the statistics are summed, and the
//! DRAM first touches the workers logged are counted in workgroup order, so that
//! each sector's first touch is the one a single thread would have seen.

use super::bind::{self, Slot};
use super::memory::{each_lane, DramEvent};
use super::worker::{Job, Worker};
use super::Plan;
use crate::cache::DramSectors;
use crate::error::Error;
use crate::launch::Threads;
use crate::stats::Stats;
use std::cell::RefCell;

/// The most workers a launch uses, so that per-byte counts fit a byte.
pub(super) const MAX_WORKERS: usize = 64;

/// Wave instructions the workgroups after the first must be expected to issue
/// (the first one's count times their number) before [`Threads::Auto`] spreads
/// them: below it, waking the pool and merging cost more than a second thread
/// saves.
const AUTO_MIN_INSTRUCTIONS: u64 = 1 << 14;

/// A byte was read.
const READ: u8 = 1;
/// A byte was written.
const WRITTEN: u8 = 2;

/// Which bytes of each writable buffer a worker read and wrote, by parameter
/// (empty for read-only buffers and scalars).
#[derive(Debug)]
pub(super) struct Marks {
    bufs: Vec<Vec<u8>>,
}

impl Marks {
    fn new(slots: &[Slot<'_>]) -> Self {
        Marks {
            bufs: slots
                .iter()
                .map(|s| match s {
                    Slot::BufferMut { data, .. } => vec![0; data.len()],
                    _ => Vec::new(),
                })
                .collect(),
        }
    }

    /// Records an access of `bytes` bytes per lane at the byte offsets `offs`
    /// of the active lanes of `exec`, to buffer parameter `buffer`.
    #[inline]
    pub(super) fn record(
        &mut self,
        buffer: usize,
        store: bool,
        exec: u64,
        offs: &[u32],
        bytes: u32,
    ) {
        let Some(marks) = self.bufs.get_mut(buffer) else {
            return;
        };
        if marks.is_empty() {
            return;
        }
        let bit = if store { WRITTEN } else { READ };
        each_lane(exec, |l| {
            let o = offs.get(l).map_or(usize::MAX, |&o| o as usize);
            if let Some(span) = marks.get_mut(o..o.saturating_add(bytes as usize)) {
                for m in span {
                    *m |= bit;
                }
            }
        });
    }
}

/// What one of the other workers brings back.
struct Outcome {
    stats: Stats,
    marks: Marks,
    events: Vec<DramEvent>,
    result: Result<(), Error>,
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
) -> Result<usize, Error> {
    let budget = plan.config.instruction_budget;
    let initial = bind::writable(slots);
    let mut remaining = budget;
    main.run_groups::<W>(plan, job(slots, stats, &mut remaining), &[0])?;
    if plan.total <= 1 {
        return Ok(1);
    }
    let later = plan.total.saturating_sub(1) as u64;
    let workers = match plan.config.threads {
        Threads::Auto if issued(stats).saturating_mul(later) < AUTO_MIN_INSTRUCTIONS => 1,
        _ => plan.threads.min(later as usize),
    };
    if workers <= 1 {
        let rest: Vec<usize> = (1..plan.total).collect();
        main.run_groups::<W>(plan, job(slots, stats, &mut remaining), &rest)?;
        return Ok(1);
    }
    if spread::<W>(main, plan, slots, stats, remaining, workers) {
        return Ok(workers);
    }
    // A race between workers, a fault or the budget: one thread decides.
    bind::restore(slots, &initial);
    plan.reset_caches(&mut main.caches)?;
    main.setup::<W>(plan);
    *stats = plan.stats::<W>();
    let all: Vec<usize> = (0..plan.total).collect();
    main.run_groups::<W>(plan, job(slots, stats, &mut budget.clone()), &all)?;
    Ok(1)
}

/// A job without sanitizers or marks.
fn job<'j, 'b>(
    slots: &'j mut [Slot<'b>],
    stats: &'j mut Stats,
    remaining: &'j mut u64,
) -> Job<'j, 'b> {
    Job {
        slots,
        stats,
        remaining,
        san: None,
        marks: None,
    }
}

/// Wave instructions issued so far.
fn issued(stats: &Stats) -> u64 {
    stats.per_instruction.iter().map(|c| c.instructions).sum()
}

/// Runs workgroups `1..` on `workers` workers and merges their results into
/// `slots` and `stats`; false when the launch must run again on one thread.
fn spread<const W: usize>(
    main: &mut Worker,
    plan: &Plan<'_>,
    slots: &mut [Slot<'_>],
    stats: &mut Stats,
    remaining: u64,
    workers: usize,
) -> bool {
    let units = plan.config.model.compute_units.max(1) as usize;
    let by_unit = main.caches.enabled();
    let mut lists = vec![Vec::new(); workers];
    for g in 1..plan.total {
        let key = if by_unit { g % units } else { g };
        lists[key % workers].push(g);
    }
    let mut touched: Option<DramSectors> = main.caches.dram().cloned();
    main.caches.start_log(None);
    let mut copies: Vec<Vec<Vec<u8>>> = (1..workers).map(|_| bind::writable(slots)).collect();
    let mut privates: Vec<Vec<Slot<'_>>> =
        copies.iter_mut().map(|c| bind::private(slots, c)).collect();
    let mut outcomes: Vec<Option<Outcome>> = (1..workers).map(|_| None).collect();
    let mut main_marks = Marks::new(slots);
    let mut main_remaining = remaining;
    let mut main_result = Ok(());
    rayon::scope(|s| {
        let touched = touched.as_ref();
        for ((groups, private), out) in lists[1..]
            .iter()
            .zip(privates.iter_mut())
            .zip(outcomes.iter_mut())
        {
            s.spawn(move |_| *out = Some(work::<W>(plan, groups, private, touched, remaining)));
        }
        let job = Job {
            slots: &mut *slots,
            stats: &mut *stats,
            remaining: &mut main_remaining,
            san: None,
            marks: Some(&mut main_marks),
        };
        main_result = main.run_groups::<W>(plan, job, &lists[0]);
    });
    drop(privates);
    let mut events = main.caches.take_log();
    let outcomes: Vec<Outcome> = outcomes.into_iter().flatten().collect();
    if main_result.is_err()
        || outcomes.len() + 1 != workers
        || outcomes.iter().any(|o| o.result.is_err())
    {
        return false;
    }
    let total = issued(stats) + outcomes.iter().map(|o| issued(&o.stats)).sum::<u64>();
    if total > plan.config.instruction_budget {
        return false;
    }
    let mut all_marks: Vec<&Marks> = vec![&main_marks];
    all_marks.extend(outcomes.iter().map(|o| &o.marks));
    if conflicting(&all_marks) {
        return false;
    }
    for (o, copy) in outcomes.iter().zip(&copies) {
        merge_bytes(slots, &o.marks, copy);
    }
    for o in &outcomes {
        merge_stats(stats, &o.stats);
    }
    for o in outcomes {
        events.extend(o.events);
    }
    // Each workgroup's events come from one worker, in the order it ran them.
    events.sort_by_key(|e| e.group);
    if let Some(dram) = touched.as_mut() {
        for e in events {
            if let Some(c) = stats.per_instruction.get_mut(e.pc as usize) {
                c.dram_sectors += u64::from(dram.touch(e.line, e.sectors));
            }
        }
    }
    true
}

/// One of the other workers: runs `groups` on this thread's worker.
fn work<const W: usize>(
    plan: &Plan<'_>,
    groups: &[usize],
    slots: &mut [Slot<'_>],
    touched: Option<&DramSectors>,
    remaining: u64,
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
                san: None,
                marks: Some(&mut marks),
            };
            w.run_groups::<W>(plan, job, groups)
        });
        w.finish(&mut stats);
        Outcome {
            events: w.caches.take_log(),
            stats,
            marks,
            result,
        }
    };
    let reused = WORKER.try_with(|cell| cell.try_borrow_mut().ok().map(|mut w| body(&mut w)));
    match reused {
        Ok(Some(outcome)) => outcome,
        _ => body(&mut Worker::default()),
    }
}

/// Whether a byte was written by one worker and read or written by another.
fn conflicting(marks: &[&Marks]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let Some(first) = marks.first() else {
        return false;
    };
    for p in 0..first.bufs.len() {
        let len = first.bufs[p].len();
        let mut at = 0;
        while at < len {
            let end = (at + 8).min(len);
            // Per byte of the chunk: how many workers wrote it, and how many
            // touched it at all (at most MAX_WORKERS: no carry between bytes).
            let (mut writers, mut users) = (0u64, 0u64);
            for m in marks {
                let mut chunk = [0u8; 8];
                if let Some(src) = m.bufs.get(p).and_then(|b| b.get(at..end)) {
                    chunk[..src.len()].copy_from_slice(src);
                }
                let x = u64::from_le_bytes(chunk);
                writers += (x >> 1) & ONES;
                users += (x | (x >> 1)) & ONES;
            }
            if writers != 0 && users & !ONES != 0 {
                let (w, u) = (writers.to_le_bytes(), users.to_le_bytes());
                if w.iter().zip(u).any(|(&w, u)| w > 0 && u > 1) {
                    return true;
                }
            }
            at = end;
        }
    }
    false
}

/// Copies the bytes a worker wrote from its private `copy` into `slots`.
fn merge_bytes(slots: &mut [Slot<'_>], marks: &Marks, copy: &[Vec<u8>]) {
    for ((slot, marks), copy) in slots.iter_mut().zip(&marks.bufs).zip(copy) {
        if let Slot::BufferMut { data, .. } = slot {
            for ((d, &m), &c) in data.iter_mut().zip(marks).zip(copy) {
                if m & WRITTEN != 0 {
                    *d = c;
                }
            }
        }
    }
}

/// Adds a worker's statistics to the launch's.
fn merge_stats(into: &mut Stats, from: &Stats) {
    into.workgroups += from.workgroups;
    into.waves += from.waves;
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
