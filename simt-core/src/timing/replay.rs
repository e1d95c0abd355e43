//! The replay: a launch's recorded streams run on a part's units,
//! schedulers and memory levels.

use super::stream::{Cost, Event, Streams, NO_COST};
use super::{Stalls, Timing, Utilization};
use crate::ir::Program;
use crate::ir::Reg;
use crate::isa::{Inst, Role, Unit};
use crate::occupancy::{occupancy, Usage};
use crate::part::Part;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// An LDS or global access waits to issue while its unit's LDS (or L1) has
/// more than this many cycles of work queued: the model's queue depth
/// (vendors do not publish theirs).
const QUEUE_CYCLES: f64 = 32.0;

/// Cycles the L2 takes per update of one atomic address: updates of one
/// address serialize. Vendors publish no such figure; this one was measured
/// (`calibration/h200/timings.csv`): 2^24 work-items adding to one counter
/// took 29,455 us on an H200 at up to 1,980 MHz, 3.5 cycles per update
/// (2^20 of them: 3.5 too).
const ATOMIC_CYCLES: f64 = 3.5;

/// Why a wave waits: the index of the [`Stalls`] field it is charged to, in
/// the order of [`Stalls::NCU`] (an index, so that charging a reason is an
/// addition, not a branch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    Global = 1,
    Lds = 2,
    LdsThrottle = 3,
    MemoryThrottle = 4,
    Barrier = 5,
    Dependency = 6,
}

/// Indices of the [`Stalls`] fields that are not a [`Reason`].
const ISSUING: usize = 0;
const NOT_SELECTED: usize = 7;
const DRAIN: usize = 8;

/// What the replay needs of one instruction.
#[derive(Clone, Copy, Debug)]
struct Info {
    class: Class,
    /// Issue cycles per pass of the SIMD: more than one where the
    /// instruction reads more vector registers than a cycle reads (three
    /// at two a cycle: two, as a third read waits for a port).
    passes: f64,
    /// Its register slots in [`Infos::slots`]: `start..written` are read,
    /// `written..end` written (a written one is waited for too).
    start: u32,
    written: u32,
    end: u32,
}

impl Info {
    /// What a wave with no instruction left plans.
    const NONE: Info = Info {
        class: Class::Scalar,
        passes: 1.0,
        start: 0,
        written: 0,
        end: 0,
    };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// Vector ALU: the wave's issue cycles, the ALU latency.
    Vector,
    /// Scalar, mask and control: one issue cycle.
    Scalar,
    Global,
    Lds,
    Barrier,
}

/// Every instruction's [`Info`], their register slots in one pool.
struct Infos {
    infos: Vec<Info>,
    slots: Vec<u32>,
}

impl Infos {
    fn of(program: &Program, operand_reads_per_cycle: u32) -> Infos {
        let (v, s) = (u32::from(program.vregs), u32::from(program.sregs));
        let slot = |r: Reg| match r {
            Reg::V(r) => u32::from(r.0),
            Reg::S(r) => v + u32::from(r.0),
            Reg::M(r) => v + s + u32::from(r.0),
        };
        let mut slots = Vec::new();
        let mut infos = Vec::with_capacity(program.insts.len());
        for inst in program.insts.iter() {
            let fields = inst.fields();
            let class = match (inst.opcode().unit(), fields.memory()) {
                (_, Some((Role::GlobalLoad | Role::GlobalStore | Role::GlobalAtomic, _))) => {
                    Class::Global
                }
                (_, Some(_)) => Class::Lds,
                _ if matches!(inst, Inst::Barrier) => Class::Barrier,
                (Unit::Vector, _) => Class::Vector,
                _ => Class::Scalar,
            };
            let start = slots.len() as u32;
            slots.extend(fields.read().map(slot));
            let written = slots.len() as u32;
            slots.extend(fields.written().map(slot));
            let mut vregs: Vec<Reg> = fields.read().filter(|r| matches!(r, Reg::V(_))).collect();
            vregs.sort_unstable();
            vregs.dedup();
            let passes = match (class, operand_reads_per_cycle) {
                (Class::Vector, n) if n > 0 => f64::from((vregs.len() as u32).div_ceil(n).max(1)),
                _ => 1.0,
            };
            infos.push(Info {
                class,
                passes,
                start,
                written,
                end: slots.len() as u32,
            });
        }
        Infos { infos, slots }
    }

    fn read_and_written(&self, info: &Info) -> &[u32] {
        &self.slots[info.start as usize..info.end as usize]
    }

    fn written(&self, info: &Info) -> &[u32] {
        &self.slots[info.written as usize..info.end as usize]
    }
}

/// The schedulers' pending polls, earliest first and then by scheduler
/// (`unit * schedulers + sched`): a tournament tree over one time per
/// scheduler (infinite when it has none), so that moving a poll is a walk
/// up the tree and the next one is its root.
///
/// Times are kept as their bits, which order as the times do (they are
/// never negative): each level of a walk is an integer comparison.
struct Polls {
    /// Per node, its subtree's earliest time; leaves from `leaves` on.
    times: Vec<u64>,
    /// Per node, the scheduler whose time that is (the lower one of equal
    /// times: a left subtree holds the lower schedulers).
    who: Vec<u32>,
    leaves: usize,
}

impl Polls {
    fn new(schedulers: usize) -> Polls {
        let leaves = schedulers.next_power_of_two().max(2);
        let mut who: Vec<u32> = vec![0; 2 * leaves];
        for (s, w) in who[leaves..].iter_mut().enumerate() {
            *w = s as u32;
        }
        for i in (1..leaves).rev() {
            who[i] = who[2 * i];
        }
        Polls {
            times: vec![f64::INFINITY.to_bits(); 2 * leaves],
            who,
            leaves,
        }
    }

    fn next(&self) -> (f64, usize) {
        (f64::from_bits(self.times[1]), self.who[1] as usize)
    }

    fn time(&self, sched: usize) -> f64 {
        f64::from_bits(self.times[self.leaves + sched])
    }

    fn set(&mut self, sched: usize, t: f64) {
        let mut i = self.leaves + sched;
        let (times, who) = (&mut self.times[..], &mut self.who[..]);
        let (mut best, mut by) = (t.to_bits(), sched as u32);
        times[i] = best;
        who[i] = by;
        while i > 1 {
            let sibling = i ^ 1;
            let (other, other_by) = (times[sibling], who[sibling]);
            // The right one of two equal times loses.
            let take = if sibling > i {
                other < best
            } else {
                other <= best
            };
            if take {
                (best, by) = (other, other_by);
            }
            i /= 2;
            times[i] = best;
            who[i] = by;
        }
    }
}

struct Wave<'s> {
    events: &'s [Event],
    next: usize,
    group: usize,
    /// Where its register slots start in [`Replay::ready`].
    base: usize,
    /// When the wave could next have issued (after its last issue).
    since: f64,
    /// Waiting at a barrier, not yet released.
    at_barrier: bool,
    /// When the last barrier released it.
    released: f64,
    /// The latest completion of its accesses.
    outstanding: f64,
    start: f64,
    /// When its next instruction's registers are ready and it is past its
    /// last barrier, and why it waits until then: kept up to date as the
    /// wave issues and is released.
    due: (f64, Reason),
    /// Its next issue and that instruction's [`Info`] (a `Scalar` one
    /// with no registers when it has none), kept so that the issue need not
    /// look them up again.
    event: Event,
    info: Info,
    /// The later of `due` and `since`, infinite at a barrier: what a
    /// scheduler's look compares, so that it costs a comparison per wave
    /// (and one more for an access, against its queue).
    key: f64,
}

impl Wave<'_> {
    /// Recomputes [`Wave::due`] and [`Wave::key`] for its next instruction.
    /// `ready` is the pool, `slots` each wave's share of it.
    fn plan(&mut self, infos: &Infos, ready: &[(f64, Reason)], slots: usize) {
        let next = self.events.get(self.next);
        let Some((&event, info)) = next.and_then(|e| Some((e, infos.infos.get(e.pc as usize)?)))
        else {
            // Nothing left to issue (a recorded instruction is always one
            // of the program's).
            self.due = (f64::INFINITY, Reason::Barrier);
            self.info = Info::NONE;
            self.key = f64::INFINITY;
            return;
        };
        let mut at = (self.released, Reason::Barrier);
        let ready = ready.get(self.base..self.base + slots).unwrap_or_default();
        for &r in infos.read_and_written(info) {
            if let Some(&(t, why)) = ready.get(r as usize) {
                if t > at.0 {
                    at = (t, why);
                }
            }
        }
        self.due = at;
        self.event = event;
        self.info = *info;
        self.rekey();
    }

    fn rekey(&mut self) {
        self.key = if self.at_barrier {
            f64::INFINITY
        } else {
            later(self.due.0, self.since)
        };
    }
}

/// The later of two times (neither is NaN).
fn later(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

#[derive(Default)]
struct Sched {
    /// Its unit.
    unit: usize,
    /// Its waves, oldest first.
    waves: Vec<usize>,
    /// The wave it issued last, which it keeps issuing while it can.
    last: Option<usize>,
    busy: f64,
}

struct UnitState {
    lds_busy: f64,
    l1_busy: f64,
    /// Waves placed so far, to spread them over the schedulers.
    placed: usize,
}

struct GroupState {
    unit: usize,
    waves: Vec<usize>,
    left: usize,
    arrived: usize,
    last_arrival: f64,
    end: f64,
}

/// The chip's state: the memory levels' queues and the totals for the
/// utilization figures.
#[derive(Default)]
struct Chip {
    l2_busy: f64,
    dram_busy: f64,
    /// Written-back sectors' bus cycles not yet spent: the L2 holds dirty
    /// lines and writes them while no read waits.
    dram_pending: f64,
    /// Since when those are held: the bus idle before it wrote none of them.
    dram_pending_since: f64,
    /// Per atomic address: when its last update ends, and its updates' cycles.
    atomic_busy: HashMap<u64, (f64, f64)>,
    l1_cycles: f64,
    lds_cycles: f64,
    l2_bytes: f64,
    dram_bytes: f64,
    /// DRAM bus cycles used (a written byte weighs more than a read one).
    dram_cycles: f64,
    issue_cycles: f64,
}

/// The wave a scheduler picked: wave `w`, which could issue from `at` and
/// waited for `reason` before that.
#[derive(Clone, Copy, Debug)]
struct Pick {
    w: usize,
    at: f64,
    reason: Reason,
}

/// A replay in progress.
struct Replay<'s> {
    streams: &'s Streams,
    part: &'s Part,
    infos: Infos,
    /// Register slots per wave.
    slots: usize,
    nsched: usize,
    /// Issue cycles of a vector instruction.
    vector_issue: f64,
    /// Workgroups not yet dispatched, in dispatch order.
    pending: VecDeque<usize>,
    groups: Vec<GroupState>,
    waves: Vec<Wave<'s>>,
    /// Per resident wave's register slot, when its value is ready and what
    /// produces it; an ended wave's slots go to the next one dispatched.
    ready: Vec<(f64, Reason)>,
    free: Vec<usize>,
    units: Vec<UnitState>,
    /// Every unit's schedulers, `unit * nsched + sched`.
    scheds: Vec<Sched>,
    chip: Chip,
    /// Per instruction, [`Stalls`]'s fields in the order of
    /// [`Stalls::values`].
    stalls: Vec<[f64; 9]>,
    polls: Polls,
    /// The scheduler taking a step, and its next poll so far.
    stepping: (usize, f64),
    /// Workgroups' ends, earliest first, then by workgroup; at one time the
    /// schedulers' polls go first.
    retires: BinaryHeap<Reverse<(u64, usize)>>,
    resident_wave_cycles: f64,
    end: f64,
}

/// Runs `streams` on `part`: the launch's estimate. `wave_width` is the
/// launch's; `workgroup_size` its work-items per workgroup.
pub(crate) fn replay(
    program: &Program,
    part: &Part,
    wave_width: u32,
    workgroup_size: u32,
    streams: &Streams,
) -> Timing {
    let c = &part.clocks;
    let occ = occupancy(&part.hardware, &Usage::of(program, workgroup_size));
    let per_unit = occ.workgroups_per_unit.max(1) as usize;
    let units = part.memory.compute_units.max(1) as usize;
    let nsched = part.hardware.simds_per_unit.max(1) as usize;
    let mut order: Vec<usize> = (0..streams.groups.len()).collect();
    order.sort_by_key(|&g| streams.groups[g].linear);
    let mut r = Replay {
        streams,
        part,
        infos: Infos::of(program, c.operand_reads_per_cycle),
        slots: usize::from(program.vregs) + usize::from(program.sregs) + usize::from(program.mregs),
        nsched,
        vector_issue: f64::from(wave_width.div_ceil(c.simd_lanes.max(1)).max(1)),
        pending: order.into(),
        groups: Vec::with_capacity(streams.groups.len()),
        waves: Vec::new(),
        ready: Vec::new(),
        free: Vec::new(),
        units: (0..units)
            .map(|_| UnitState {
                lds_busy: 0.0,
                l1_busy: 0.0,
                placed: 0,
            })
            .collect(),
        scheds: (0..units * nsched)
            .map(|s| Sched {
                unit: s / nsched,
                ..Sched::default()
            })
            .collect(),
        chip: Chip::default(),
        stalls: vec![[0.0; 9]; program.insts.len()],
        polls: Polls::new(units * nsched),
        stepping: (usize::MAX, 0.0),
        retires: BinaryHeap::new(),
        resident_wave_cycles: 0.0,
        end: 0.0,
    };
    // Workgroups go to the units in turn, as many as a unit holds; each
    // later one to the unit whose workgroup ended.
    for _ in 0..per_unit {
        for unit in 0..units {
            r.dispatch(unit, 0.0);
        }
    }
    loop {
        let (t, sched) = r.polls.next();
        match r.retires.peek() {
            Some(&Reverse((bits, group))) if f64::from_bits(bits) < t => {
                r.retires.pop();
                let t = f64::from_bits(bits);
                r.end = r.end.max(t);
                r.dispatch(r.groups[group].unit, t);
            }
            _ if t.is_finite() => {
                // The scheduler's own next poll is set once, when the step
                // is over.
                r.stepping = (sched, f64::INFINITY);
                r.step(sched, t);
                let (sched, next) = std::mem::replace(&mut r.stepping, (usize::MAX, 0.0));
                r.polls.set(sched, next);
            }
            _ => break,
        }
    }

    // The launch's fixed cost comes on top of its waves' time.
    // Dirty lines still held are written before the launch ends.
    let written = r.chip.dram_busy.max(r.chip.dram_pending_since) + r.chip.dram_pending;
    let work = r.end.max(written).max(1.0);
    let cycles = work + f64::from(c.launch_cycles);
    // Shares of the peaks over the waves' time, the launch's cost aside.
    let unit_cycles = work * units as f64;
    let hw = &part.hardware;
    let max_waves = f64::from(hw.max_waves_per_unit()) * f64::from(hw.wave_width)
        / f64::from(wave_width.max(1));
    let per_instruction: Vec<Stalls> = r.stalls.iter().map(Stalls::from_values).collect();
    let mut total = Stalls::default();
    for s in &per_instruction {
        total.add(s);
    }
    let chip = &r.chip;
    let atomics = chip.atomic_busy.values().map(|v| v.1).fold(0.0, f64::max);
    Timing {
        part: part.name.to_string(),
        cycles,
        launch_cycles: f64::from(c.launch_cycles),
        microseconds: cycles / f64::from(c.clock_mhz.max(1)),
        utilization: Utilization {
            dram: chip.dram_cycles / work,
            l2: chip.l2_bytes / (f64::from(c.l2_bytes_per_cycle.max(1)) * work),
            l1: chip.l1_cycles / unit_cycles,
            lds: chip.lds_cycles / unit_cycles,
            issue: chip.issue_cycles / (unit_cycles * nsched as f64),
            atomics: (atomics / work).min(1.0),
        },
        achieved_occupancy: r.resident_wave_cycles / (unit_cycles * max_waves.max(1.0)),
        theoretical_occupancy: occ.occupancy,
        workgroups_per_unit: occ.workgroups_per_unit,
        dram_bytes: chip.dram_bytes,
        issue_cycles: chip.issue_cycles,
        peak_issue: (units * nsched) as f64,
        peak_dram_bytes: c.dram_bytes_per_cycle(),
        stalls: total,
        per_instruction,
    }
}

impl<'s> Replay<'s> {
    /// Places the next pending workgroup on `unit` at `t`.
    fn dispatch(&mut self, unit: usize, t: f64) {
        let Some(g) = self.pending.pop_front() else {
            return;
        };
        let recorded = &self.streams.groups[g];
        let gi = self.groups.len();
        let mut members = Vec::with_capacity(recorded.waves.len());
        let mut live = 0;
        for events in &recorded.waves {
            let w = self.waves.len();
            let base = match self.free.pop() {
                Some(base) => {
                    self.ready[base..base + self.slots].fill((0.0, Reason::Dependency));
                    base
                }
                None => {
                    let base = self.ready.len();
                    self.ready
                        .resize(base + self.slots, (0.0, Reason::Dependency));
                    base
                }
            };
            let mut wave = Wave {
                events,
                next: 0,
                group: gi,
                base,
                since: t,
                at_barrier: false,
                released: 0.0,
                outstanding: t,
                start: t,
                due: (t, Reason::Barrier),
                event: Event {
                    pc: 0,
                    cost: NO_COST,
                },
                info: Info::NONE,
                key: t,
            };
            wave.plan(&self.infos, &self.ready, self.slots);
            self.waves.push(wave);
            members.push(w);
            if events.is_empty() {
                self.free.push(base);
                continue;
            }
            live += 1;
            let u = &mut self.units[unit];
            let s = unit * self.nsched + u.placed % self.nsched;
            u.placed += 1;
            self.scheds[s].waves.push(w);
            self.poll(s, t);
        }
        self.groups.push(GroupState {
            unit,
            waves: members,
            left: live,
            arrived: 0,
            last_arrival: t,
            end: t,
        });
        if live == 0 {
            self.retires.push(Reverse((t.to_bits(), gi)));
        }
    }

    /// Scheduler `sched` at `t`: issues the wave it issued last if that one
    /// is ready, else its oldest ready wave, or waits for the earliest.
    fn step(&mut self, sched: usize, t: f64) {
        let s = &self.scheds[sched];
        if s.busy > t {
            self.poll(sched, s.busy);
            return;
        }
        let unit = &self.units[s.unit];
        let lds_queue = unit.lds_busy - QUEUE_CYCLES;
        let l1_queue = unit.l1_busy - QUEUE_CYCLES;
        let waves = &self.waves;
        // When wave `w`'s next instruction could issue.
        let ready_at = |w: usize| {
            let wave = &waves[w];
            match wave.info.class {
                Class::Lds => later(wave.key, lds_queue),
                Class::Global => later(wave.key, l1_queue),
                _ => wave.key,
            }
        };
        // Greedy, then oldest: the wave issued last while it can issue,
        // else the oldest that can.
        let mut earliest = f64::INFINITY;
        let mut pick = s.last.filter(|&w| ready_at(w) <= t);
        if pick.is_none() {
            for &w in &s.waves {
                let at = ready_at(w);
                if at <= t {
                    pick = Some(w);
                    break;
                }
                if at < earliest {
                    earliest = at;
                }
            }
        }
        match pick {
            Some(w) => {
                let wave = &self.waves[w];
                let (mut at, mut reason) = wave.due;
                let queue = match wave.info.class {
                    Class::Lds => Some((lds_queue, Reason::LdsThrottle)),
                    Class::Global => Some((l1_queue, Reason::MemoryThrottle)),
                    _ => None,
                };
                if let Some((q, why)) = queue {
                    if q > at {
                        (at, reason) = (q, why);
                    }
                }
                let at = at.max(wave.since);
                self.issue(sched, Pick { w, at, reason }, t);
                self.run_ahead(sched, w);
            }
            None if earliest.is_finite() => self.poll(sched, earliest),
            None => {}
        }
    }

    /// After scheduler `sched` issued wave `w`, issues `w` again at each of
    /// its polls for as long as nothing another scheduler does could change
    /// the issue and the issue could change nothing another scheduler sees,
    /// so that the steps need not wait for the others' turns.
    ///
    /// That holds while `w` is the wave the scheduler keeps issuing, its next
    /// instruction is a vector or scalar one (no queue, barrier or unit
    /// shared), its registers are ready by the poll, and it is not the
    /// wave's last (whose end charges time). Such an issue charges its
    /// instruction exactly zero cycles of waiting and whole issue cycles,
    /// sums that come out the same in any order; a poll another scheduler
    /// sets for `sched` meanwhile finds it busy, as it would have.
    fn run_ahead(&mut self, sched: usize, w: usize) {
        loop {
            let t = self.stepping.1;
            let wave = &self.waves[w];
            let alu = matches!(wave.info.class, Class::Vector | Class::Scalar);
            let more = wave.next + 1 < wave.events.len();
            let s = &self.scheds[sched];
            if !(alu && more && wave.key <= t && s.last == Some(w) && s.busy == t) {
                return;
            }
            let reason = wave.due.1;
            self.stepping.1 = f64::INFINITY;
            self.issue(sched, Pick { w, at: t, reason }, t);
        }
    }

    /// The wave `pick` names issues on scheduler `sched` at `t`.
    fn issue(&mut self, sched: usize, pick: Pick, t: f64) {
        let Pick { w, at, reason } = pick;
        let unit = self.scheds[sched].unit;
        let c = &self.part.clocks;
        let wave = &mut self.waves[w];
        let (event, info) = (wave.event, wave.info);
        let pc = event.pc as usize;
        let st = &mut self.stalls[pc];
        st[reason as usize] += at - wave.since;
        st[NOT_SELECTED] += t - at;
        let cycles = match info.class {
            Class::Vector | Class::Global | Class::Lds => self.vector_issue * info.passes,
            Class::Scalar | Class::Barrier => 1.0,
        };
        st[ISSUING] += cycles;
        self.chip.issue_cycles += cycles;
        let issued = t + cycles;
        wave.since = issued;
        let s = &mut self.scheds[sched];
        s.busy = issued;
        s.last = Some(w);
        let u = &mut self.units[unit];
        let result = match info.class {
            Class::Vector | Class::Scalar => Some((
                later(issued, t + f64::from(c.alu_latency)),
                Reason::Dependency,
            )),
            Class::Lds => {
                let busy = f64::from(cost(self.streams, event).lds_cycles);
                u.lds_busy = t.max(u.lds_busy) + busy;
                self.chip.lds_cycles += busy;
                let done = u.lds_busy + f64::from(c.lds_latency);
                wave.outstanding = wave.outstanding.max(done);
                Some((done, Reason::Lds))
            }
            Class::Global => {
                let cost = cost(self.streams, event);
                let done = global(&mut self.chip, &mut u.l1_busy, t, &cost, self.part);
                wave.outstanding = wave.outstanding.max(done);
                Some((done, Reason::Global))
            }
            Class::Barrier => None,
        };
        if let Some(ready) = result {
            let slots = &mut self.ready[wave.base..wave.base + self.slots];
            for &r in self.infos.written(&info) {
                if let Some(slot) = slots.get_mut(r as usize) {
                    *slot = ready;
                }
            }
        }
        wave.next += 1;
        let g = wave.group;
        let gs = &mut self.groups[g];
        if info.class == Class::Barrier {
            wave.at_barrier = true;
            gs.arrived += 1;
            gs.last_arrival = gs.last_arrival.max(issued);
        }
        wave.plan(&self.infos, &self.ready, self.slots);
        if wave.next == wave.events.len() {
            let wave_end = issued.max(wave.outstanding);
            self.stalls[pc][DRAIN] += wave_end - issued;
            self.resident_wave_cycles += wave_end - wave.start;
            self.free.push(wave.base);
            let s = &mut self.scheds[sched];
            s.waves.retain(|&x| x != w);
            s.last = None;
            gs.left -= 1;
            gs.end = gs.end.max(wave_end);
            if gs.left == 0 {
                self.retires.push(Reverse((gs.end.to_bits(), g)));
            }
        }
        self.release(g);
        self.poll(sched, issued);
    }

    /// Releases workgroup `g`'s waves from a barrier once every wave that has
    /// not ended arrived.
    fn release(&mut self, g: usize) {
        let gs = &mut self.groups[g];
        if gs.arrived == 0 || gs.arrived < gs.left {
            return;
        }
        let at = gs.last_arrival + f64::from(self.part.clocks.barrier_latency);
        gs.arrived = 0;
        for &w in &gs.waves {
            let wave = &mut self.waves[w];
            if wave.at_barrier {
                wave.at_barrier = false;
                wave.released = at;
                wave.plan(&self.infos, &self.ready, self.slots);
            }
        }
        let first = gs.unit * self.nsched;
        for s in first..first + self.nsched {
            self.poll(s, at);
        }
    }

    /// Schedules scheduler `sched`'s poll at `t` unless one is due sooner.
    fn poll(&mut self, sched: usize, t: f64) {
        if sched == self.stepping.0 {
            self.stepping.1 = self.stepping.1.min(t);
        } else if t < self.polls.time(sched) {
            self.polls.set(sched, t);
        }
    }
}

/// What `event`'s access asks of the memory levels.
fn cost(streams: &Streams, event: Event) -> Cost {
    streams
        .costs
        .get(event.cost as usize)
        .filter(|_| event.cost != NO_COST)
        .copied()
        .unwrap_or_default()
}

/// A global access issued at `t`: through the unit's L1, then the chip's L2,
/// DRAM and atomic units as its cost asks; returns when its result is ready.
fn global(chip: &mut Chip, l1_busy: &mut f64, t: f64, cost: &Cost, part: &Part) -> f64 {
    let c = &part.clocks;
    let sector = f64::from(part.memory.sector_bytes);
    let l1_bytes = f64::from(cost.l1_sectors) * sector;
    let l1 = f64::from(cost.phases).max(l1_bytes / f64::from(c.l1_bytes_per_cycle.max(1)));
    let start = t.max(*l1_busy);
    *l1_busy = start + l1;
    chip.l1_cycles += l1;
    let mut done = *l1_busy + f64::from(c.l1_latency);
    if cost.l2_sectors > 0 {
        let bytes = f64::from(cost.l2_sectors) * sector;
        chip.l2_busy = start.max(chip.l2_busy) + bytes / f64::from(c.l2_bytes_per_cycle.max(1));
        chip.l2_bytes += bytes;
        done = done.max(chip.l2_busy + f64::from(c.l2_latency));
    }
    if cost.dram_sectors > 0 {
        let bytes = f64::from(cost.dram_sectors) * sector;
        // Written-back sectors take longer on the bus than read ones.
        let weight = if cost.written {
            c.dram_write_cost()
        } else {
            1.0
        };
        let busy = bytes * weight / c.dram_bytes_per_cycle();
        chip.dram_cycles += busy;
        chip.dram_bytes += bytes;
        if cost.written {
            if chip.dram_pending <= 0.0 {
                chip.dram_pending_since = start;
            }
            chip.dram_pending += busy;
        } else {
            // The bus idled before this read, with dirty lines held: they
            // were written then.
            let idle = (start - chip.dram_busy.max(chip.dram_pending_since)).max(0.0);
            chip.dram_pending = (chip.dram_pending - idle).max(0.0);
            chip.dram_pending_since = chip.dram_pending_since.max(start);
            chip.dram_busy = start.max(chip.dram_busy) + busy;
            done = done.max(chip.dram_busy + f64::from(c.dram_latency));
        }
    }
    if let Some((address, lanes)) = cost.atomic {
        // The update happens at the L2: half the L2 latency there, half back.
        let half = f64::from(c.l2_latency) / 2.0;
        let (busy, total) = chip.atomic_busy.entry(address).or_insert((0.0, 0.0));
        let serial = f64::from(lanes) * ATOMIC_CYCLES;
        *busy = (start + half).max(*busy) + serial;
        *total += serial;
        done = done.max(*busy + half);
    }
    done
}

#[cfg(test)]
mod tests {
    use super::Polls;
    use proptest::prelude::*;

    proptest! {
        /// After any moves, the tree's root is the earliest poll, and of
        /// equal ones the lowest scheduler's, as a scan of every scheduler
        /// finds it.
        #[test]
        fn the_root_is_the_earliest_then_lowest_poll(
            schedulers in 1usize..40,
            moves in prop::collection::vec((0usize..40, 0u8..6), 1..80),
        ) {
            let mut polls = Polls::new(schedulers);
            let mut times = vec![f64::INFINITY; schedulers];
            for (sched, t) in moves {
                let sched = sched % schedulers;
                // Few distinct times, so that ties are common.
                let t = if t == 5 { f64::INFINITY } else { f64::from(t) * 0.5 };
                polls.set(sched, t);
                times[sched] = t;
                let earliest = times.iter().copied().fold(f64::INFINITY, f64::min);
                let lowest = times.iter().position(|&x| x == earliest).unwrap_or(0);
                let (t, s) = polls.next();
                prop_assert_eq!(t, earliest);
                if earliest.is_finite() {
                    prop_assert_eq!(s, lowest);
                }
                prop_assert_eq!(polls.time(sched), times[sched]);
            }
        }
    }
}
