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

/// Why a wave waits, the field of [`Stalls`] it is charged to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    Global,
    Lds,
    LdsThrottle,
    MemoryThrottle,
    Barrier,
    Dependency,
}

impl Reason {
    fn charge(self, s: &mut Stalls, cycles: f64) {
        let field = match self {
            Reason::Global => &mut s.global,
            Reason::Lds => &mut s.lds,
            Reason::LdsThrottle => &mut s.lds_throttle,
            Reason::MemoryThrottle => &mut s.memory_throttle,
            Reason::Barrier => &mut s.barrier,
            Reason::Dependency => &mut s.dependency,
        };
        *field += cycles;
    }
}

/// What the replay needs of one instruction.
#[derive(Clone, Debug)]
struct Info {
    class: Class,
    /// Register slots read and written (a written one is waited for too).
    regs: Vec<u32>,
    written: Vec<u32>,
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

fn infos(program: &Program) -> Vec<Info> {
    let (v, s) = (u32::from(program.vregs), u32::from(program.sregs));
    let slot = |r: Reg| match r {
        Reg::V(r) => u32::from(r.0),
        Reg::S(r) => v + u32::from(r.0),
        Reg::M(r) => v + s + u32::from(r.0),
    };
    program
        .insts
        .iter()
        .map(|inst| {
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
            let written: Vec<u32> = fields.written().map(slot).collect();
            let mut regs: Vec<u32> = fields.read().map(slot).collect();
            regs.extend(&written);
            Info {
                class,
                regs,
                written,
            }
        })
        .collect()
}

/// What happens at a time: a scheduler looks for a wave to issue, or a
/// workgroup ends and frees its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Happening {
    Poll { unit: usize, sched: usize },
    Retire { group: usize },
}

/// The event queue: earliest first, then polls before retirements, each in
/// order of unit and scheduler or of workgroup. An entry is a time's bits (a
/// time is finite and not negative, so its bits order as it does) and the
/// happening in one word: scheduler `unit * schedulers + sched`, or a
/// workgroup with [`RETIRE`] set. Plain integers keep the heap's
/// comparisons cheap.
#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    schedulers: usize,
}

const RETIRE: u64 = 1 << 63;

impl Queue {
    fn push(&mut self, t: f64, happening: Happening) {
        let word = match happening {
            Happening::Poll { unit, sched } => (unit * self.schedulers + sched) as u64,
            Happening::Retire { group } => RETIRE | group as u64,
        };
        self.heap.push(Reverse((t.to_bits(), word)));
    }

    fn pop(&mut self) -> Option<(f64, Happening)> {
        let Reverse((bits, word)) = self.heap.pop()?;
        let happening = if word & RETIRE != 0 {
            Happening::Retire {
                group: (word & !RETIRE) as usize,
            }
        } else {
            let k = word as usize;
            Happening::Poll {
                unit: k / self.schedulers,
                sched: k % self.schedulers,
            }
        };
        Some((f64::from_bits(bits), happening))
    }
}

struct Wave<'s> {
    events: &'s [Event],
    next: usize,
    group: usize,
    /// Per register slot, when its value is ready and what produces it.
    ready: Vec<(f64, Reason)>,
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
    /// wave issues and is released, so that a scheduler's look at its waves
    /// costs a comparison each.
    due: (f64, Option<Reason>),
    /// Its next instruction's class (`Scalar` when it has none).
    due_class: Class,
}

impl Wave<'_> {
    /// Recomputes [`Wave::due`] for its next instruction.
    fn plan(&mut self, infos: &[Info]) {
        let Some(event) = self.events.get(self.next) else {
            self.due = (f64::INFINITY, None);
            self.due_class = Class::Scalar;
            return;
        };
        let info = &infos[event.pc as usize];
        let mut at = (self.released, Some(Reason::Barrier));
        for &r in &info.regs {
            if let Some(&(t, why)) = self.ready.get(r as usize) {
                if t > at.0 {
                    at = (t, Some(why));
                }
            }
        }
        self.due = at;
        self.due_class = info.class;
    }
}

#[derive(Default)]
struct Sched {
    /// Its waves, oldest first.
    waves: Vec<usize>,
    /// The wave it issued last, which it keeps issuing while it can.
    last: Option<usize>,
    busy: f64,
    /// The time of its one pending poll (infinite when none).
    poll_at: f64,
}

struct UnitState {
    scheds: Vec<Sched>,
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
    /// Per atomic address: when its last update ends, and its updates' cycles.
    atomic_busy: HashMap<u64, (f64, f64)>,
    l1_cycles: f64,
    lds_cycles: f64,
    l2_bytes: f64,
    dram_bytes: f64,
    issue_cycles: f64,
}

/// The wave a scheduler picked: wave `w`, the `k`th of the scheduler's, which
/// could issue from `at` and waited for `reason` before that.
#[derive(Clone, Copy, Debug)]
struct Pick {
    k: usize,
    w: usize,
    at: f64,
    reason: Option<Reason>,
}

/// A replay in progress.
struct Replay<'s> {
    streams: &'s Streams,
    part: &'s Part,
    infos: Vec<Info>,
    /// Register slots per wave.
    slots: usize,
    nsched: usize,
    /// Issue cycles of a vector instruction.
    vector_issue: f64,
    /// Workgroups not yet dispatched, in dispatch order.
    pending: VecDeque<usize>,
    groups: Vec<GroupState>,
    waves: Vec<Wave<'s>>,
    units: Vec<UnitState>,
    chip: Chip,
    stalls: Vec<Stalls>,
    queue: Queue,
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
        infos: infos(program),
        slots: usize::from(program.vregs) + usize::from(program.sregs) + usize::from(program.mregs),
        nsched,
        vector_issue: f64::from(wave_width.div_ceil(c.simd_lanes.max(1)).max(1)),
        pending: order.into(),
        groups: Vec::with_capacity(streams.groups.len()),
        waves: Vec::new(),
        units: (0..units)
            .map(|_| UnitState {
                scheds: (0..nsched)
                    .map(|_| Sched {
                        poll_at: f64::INFINITY,
                        ..Sched::default()
                    })
                    .collect(),
                lds_busy: 0.0,
                l1_busy: 0.0,
                placed: 0,
            })
            .collect(),
        chip: Chip::default(),
        stalls: vec![Stalls::default(); program.insts.len()],
        queue: Queue {
            heap: BinaryHeap::new(),
            schedulers: nsched,
        },
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
    while let Some((t, happening)) = r.queue.pop() {
        match happening {
            Happening::Retire { group } => {
                r.end = r.end.max(t);
                r.dispatch(r.groups[group].unit, t);
            }
            Happening::Poll { unit, sched } => r.step(unit, sched, t),
        }
    }

    let cycles = r.end.max(1.0);
    let unit_cycles = cycles * units as f64;
    let hw = &part.hardware;
    let max_waves = f64::from(hw.max_waves_per_unit()) * f64::from(hw.wave_width)
        / f64::from(wave_width.max(1));
    let mut total = Stalls::default();
    for s in &r.stalls {
        total.add(s);
    }
    let chip = &r.chip;
    let atomics = chip.atomic_busy.values().map(|v| v.1).fold(0.0, f64::max);
    Timing {
        part: part.name.to_string(),
        cycles,
        microseconds: cycles / f64::from(c.clock_mhz.max(1)),
        utilization: Utilization {
            dram: chip.dram_bytes / (c.dram_bytes_per_cycle() * cycles),
            l2: chip.l2_bytes / (f64::from(c.l2_bytes_per_cycle.max(1)) * cycles),
            l1: chip.l1_cycles / unit_cycles,
            lds: chip.lds_cycles / unit_cycles,
            issue: chip.issue_cycles / (unit_cycles * nsched as f64),
            atomics: (atomics / cycles).min(1.0),
        },
        achieved_occupancy: r.resident_wave_cycles / (unit_cycles * max_waves.max(1.0)),
        theoretical_occupancy: occ.occupancy,
        workgroups_per_unit: occ.workgroups_per_unit,
        dram_bytes: chip.dram_bytes,
        issue_cycles: chip.issue_cycles,
        peak_issue: (units * nsched) as f64,
        peak_dram_bytes: c.dram_bytes_per_cycle(),
        stalls: total,
        per_instruction: r.stalls,
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
            self.waves.push(Wave {
                events,
                next: 0,
                group: gi,
                ready: vec![(0.0, Reason::Dependency); self.slots],
                since: t,
                at_barrier: false,
                released: 0.0,
                outstanding: t,
                start: t,
                due: (t, None),
                due_class: Class::Scalar,
            });
            self.waves[w].plan(&self.infos);
            members.push(w);
            if events.is_empty() {
                continue;
            }
            live += 1;
            let u = &mut self.units[unit];
            let s = u.placed % self.nsched;
            u.placed += 1;
            u.scheds[s].waves.push(w);
            poll(&mut self.queue, &mut u.scheds[s], unit, s, t);
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
            self.queue.push(t, Happening::Retire { group: gi });
        }
    }

    /// Scheduler `sched` of `unit` at `t`: issues the wave it issued last if
    /// that one is ready, else its oldest ready wave, or waits for the
    /// earliest.
    fn step(&mut self, unit: usize, sched: usize, t: f64) {
        let s = &mut self.units[unit].scheds[sched];
        if s.poll_at != t {
            return;
        }
        s.poll_at = f64::INFINITY;
        if s.busy > t {
            let at = s.busy;
            poll(&mut self.queue, s, unit, sched, at);
            return;
        }
        let (lds_busy, l1_busy) = (self.units[unit].lds_busy, self.units[unit].l1_busy);
        let mut pick = None;
        let mut earliest = f64::INFINITY;
        // Greedy, then oldest: the wave issued last while it can issue,
        // else the oldest that can.
        let s = &self.units[unit].scheds[sched];
        let last = s.last.and_then(|w| s.waves.iter().position(|&x| x == w));
        let order = last.into_iter().chain(0..s.waves.len());
        for k in order {
            let w = s.waves[k];
            let wave = &self.waves[w];
            let (at, reason) = constraint(wave, lds_busy, l1_busy);
            let at = at.max(wave.since);
            if at <= t {
                pick = Some(Pick { k, w, at, reason });
                break;
            }
            earliest = earliest.min(at);
        }
        match pick {
            Some(pick) => self.issue(unit, sched, pick, t),
            None if earliest.is_finite() => poll(
                &mut self.queue,
                &mut self.units[unit].scheds[sched],
                unit,
                sched,
                earliest,
            ),
            None => {}
        }
    }

    /// The wave `pick` names issues on scheduler `sched` of `unit` at `t`.
    fn issue(&mut self, unit: usize, sched: usize, pick: Pick, t: f64) {
        let Pick { k, w, at, reason } = pick;
        let c = &self.part.clocks;
        let wave = &mut self.waves[w];
        let event = wave.events[wave.next];
        let pc = event.pc as usize;
        let info = &self.infos[pc];
        let st = &mut self.stalls[pc];
        if let Some(reason) = reason {
            reason.charge(st, at - wave.since);
        }
        st.not_selected += t - at;
        let cycles = match info.class {
            Class::Vector | Class::Global | Class::Lds => self.vector_issue,
            Class::Scalar | Class::Barrier => 1.0,
        };
        st.issuing += cycles;
        self.chip.issue_cycles += cycles;
        let issued = t + cycles;
        wave.since = issued;
        let u = &mut self.units[unit];
        u.scheds[sched].busy = issued;
        u.scheds[sched].last = Some(w);
        let cost = self
            .streams
            .costs
            .get(event.cost as usize)
            .filter(|_| event.cost != NO_COST)
            .copied()
            .unwrap_or_default();
        let result = match info.class {
            Class::Vector | Class::Scalar => {
                Some((issued.max(t + f64::from(c.alu_latency)), Reason::Dependency))
            }
            Class::Lds => {
                let busy = f64::from(cost.lds_cycles);
                u.lds_busy = t.max(u.lds_busy) + busy;
                self.chip.lds_cycles += busy;
                let done = u.lds_busy + f64::from(c.lds_latency);
                wave.outstanding = wave.outstanding.max(done);
                Some((done, Reason::Lds))
            }
            Class::Global => {
                let done = global(&mut self.chip, &mut u.l1_busy, t, &cost, self.part);
                wave.outstanding = wave.outstanding.max(done);
                Some((done, Reason::Global))
            }
            Class::Barrier => None,
        };
        if let Some(ready) = result {
            for &r in &info.written {
                if let Some(slot) = wave.ready.get_mut(r as usize) {
                    *slot = ready;
                }
            }
        }
        wave.next += 1;
        wave.plan(&self.infos);
        let g = wave.group;
        let gs = &mut self.groups[g];
        if info.class == Class::Barrier {
            wave.at_barrier = true;
            gs.arrived += 1;
            gs.last_arrival = gs.last_arrival.max(issued);
        }
        if wave.next == wave.events.len() {
            let wave_end = issued.max(wave.outstanding);
            self.stalls[pc].drain += wave_end - issued;
            self.resident_wave_cycles += wave_end - wave.start;
            self.units[unit].scheds[sched].waves.remove(k);
            gs.left -= 1;
            gs.end = gs.end.max(wave_end);
            if gs.left == 0 {
                self.queue.push(gs.end, Happening::Retire { group: g });
            }
        }
        self.release(g);
        let busy = self.units[unit].scheds[sched].busy;
        poll(
            &mut self.queue,
            &mut self.units[unit].scheds[sched],
            unit,
            sched,
            busy,
        );
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
                wave.plan(&self.infos);
            }
        }
        let unit = gs.unit;
        for s in 0..self.nsched {
            poll(
                &mut self.queue,
                &mut self.units[unit].scheds[s],
                unit,
                s,
                at,
            );
        }
    }
}

/// Schedules `sched`'s poll at `t` unless one is due sooner.
fn poll(queue: &mut Queue, sched: &mut Sched, unit: usize, index: usize, t: f64) {
    if t < sched.poll_at {
        sched.poll_at = t;
        queue.push(t, Happening::Poll { unit, sched: index });
    }
}

/// When `wave`'s next instruction can issue, as far as its registers, a
/// barrier and its unit's queues say, and the reason for the wait (`None`
/// when nothing holds it).
fn constraint(wave: &Wave<'_>, lds_busy: f64, l1_busy: f64) -> (f64, Option<Reason>) {
    if wave.at_barrier {
        return (f64::INFINITY, Some(Reason::Barrier));
    }
    let mut at = wave.due;
    let queued = match wave.due_class {
        Class::Lds => Some((lds_busy - QUEUE_CYCLES, Reason::LdsThrottle)),
        Class::Global => Some((l1_busy - QUEUE_CYCLES, Reason::MemoryThrottle)),
        _ => None,
    };
    if let Some((t, why)) = queued {
        if t > at.0 {
            at = (t, Some(why));
        }
    }
    at
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
        chip.dram_busy = start.max(chip.dram_busy) + bytes / c.dram_bytes_per_cycle();
        chip.dram_bytes += bytes;
        if !cost.written {
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
