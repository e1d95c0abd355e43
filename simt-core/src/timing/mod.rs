//! The timing model: how long a launch takes on a [`Part`](crate::Part),
//! what limits it, and where its waves wait.
//!
//! A timed launch ([`LaunchConfig::timing`](crate::LaunchConfig::timing))
//! runs as usual and records each wave's issues, and for every memory access
//! which level served its sectors (see [`stream`]). The replay ([`replay`])
//! then runs those streams on the part, cycle-approximately: workgroups are
//! dispatched to units as the occupancy calculator allows, each scheduler
//! issues its ready waves in order, a dependent instruction waits for its
//! producer (a scoreboard per register), the LDS and the L1 of each unit and
//! the chip's L2 and DRAM serve requests at their bandwidths in arrival
//! order, updates of one atomic address serialize, and a barrier waits for
//! the workgroup's last wave. Latency is hidden only by the other waves a
//! scheduler holds, so occupancy shows in the time.
//!
//! Trace-driven rather than event-driven during the run: the functional run
//! stays the one every launch shares (its counters and faults do not depend
//! on timing), and the replay can run the workgroups of a unit concurrently,
//! which the functional run never does.

mod replay;
pub(crate) mod stream;

pub(crate) use replay::replay;

use serde::Serialize;

/// Cycles the waves spent not issuing, by reason, summed over waves. Each
/// reason is one of ncu's warp states (`smsp__pcsamp_warps_issue_stalled_*`),
/// named in [`Stalls::NCU`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Stalls {
    /// Cycles spent issuing.
    pub issuing: f64,
    /// Waiting on a global load's or atomic's result.
    pub global: f64,
    /// Waiting on an LDS load's or atomic's result.
    pub lds: f64,
    /// An LDS access waiting for room in the unit's LDS queue (conflicts
    /// fill it).
    pub lds_throttle: f64,
    /// A global access waiting for room in the unit's L1 queue.
    pub memory_throttle: f64,
    /// Waiting at a barrier for the rest of the workgroup.
    pub barrier: f64,
    /// Waiting on an ALU result.
    pub dependency: f64,
    /// Ready, while the scheduler issued another wave.
    pub not_selected: f64,
    /// Done issuing, waiting for its last accesses to complete.
    pub drain: f64,
}

impl Stalls {
    /// Each field's name and the ncu warp state it corresponds to.
    pub const NCU: [(&'static str, &'static str); 9] = [
        ("issuing", "selected"),
        ("global", "long_scoreboard"),
        ("lds", "short_scoreboard"),
        ("lds_throttle", "mio_throttle"),
        ("memory_throttle", "lg_throttle"),
        ("barrier", "barrier"),
        ("dependency", "wait"),
        ("not_selected", "not_selected"),
        ("drain", "drain"),
    ];

    /// The fields' values, in the order of [`Stalls::NCU`].
    pub fn values(&self) -> [f64; 9] {
        [
            self.issuing,
            self.global,
            self.lds,
            self.lds_throttle,
            self.memory_throttle,
            self.barrier,
            self.dependency,
            self.not_selected,
            self.drain,
        ]
    }

    /// The fields from their values in the order of [`Stalls::NCU`].
    pub fn from_values(v: &[f64; 9]) -> Stalls {
        let [issuing, global, lds, lds_throttle, memory_throttle, barrier, dependency, not_selected, drain] =
            *v;
        Stalls {
            issuing,
            global,
            lds,
            lds_throttle,
            memory_throttle,
            barrier,
            dependency,
            not_selected,
            drain,
        }
    }

    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &Stalls) {
        self.issuing += other.issuing;
        self.global += other.global;
        self.lds += other.lds;
        self.lds_throttle += other.lds_throttle;
        self.memory_throttle += other.memory_throttle;
        self.barrier += other.barrier;
        self.dependency += other.dependency;
        self.not_selected += other.not_selected;
        self.drain += other.drain;
    }

    /// Every cycle counted, issuing included.
    pub fn total(&self) -> f64 {
        self.values().iter().sum()
    }

    /// The largest reason other than issuing, with its field name, if any
    /// cycle was spent waiting.
    pub fn largest(&self) -> Option<(&'static str, f64)> {
        Self::NCU
            .iter()
            .zip(self.values())
            .skip(1)
            .filter(|(_, v)| *v > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|((name, _), v)| (*name, v))
    }
}

/// What limits a timed launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Bound {
    /// DRAM bandwidth.
    Dram,
    /// L2 bandwidth.
    L2,
    /// The units' L1 bandwidth.
    L1,
    /// The units' LDS bandwidth (conflicts included).
    Lds,
    /// The schedulers' issue slots.
    Issue,
    /// Updates of one atomic address, one after another.
    Atomics,
    /// No resource is busy most of the time: too few waves to hide latency
    /// (or too little work to fill the part).
    Latency,
}

impl Bound {
    /// A resource at this share of its peak or more is the limiter.
    pub const THRESHOLD: f64 = 0.6;

    /// The limiter's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Bound::Dram => "DRAM",
            Bound::L2 => "L2",
            Bound::L1 => "L1",
            Bound::Lds => "LDS",
            Bound::Issue => "issue",
            Bound::Atomics => "atomics",
            Bound::Latency => "latency",
        }
    }
}

/// Each resource's busy share of the launch's time, from 0 to 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Utilization {
    /// DRAM bytes over what DRAM could move in the time.
    pub dram: f64,
    /// L2 bytes over what the L2 could move.
    pub l2: f64,
    /// L1 busy cycles over the units' cycles.
    pub l1: f64,
    /// LDS busy cycles over the units' cycles.
    pub lds: f64,
    /// Issue cycles over the schedulers' cycles.
    pub issue: f64,
    /// The busiest atomic address's serialized updates over the time.
    pub atomics: f64,
}

impl Utilization {
    /// The limiter: the busiest resource at [`Bound::THRESHOLD`] or more,
    /// else [`Bound::Latency`].
    pub fn bound(&self) -> Bound {
        [
            (Bound::Dram, self.dram),
            (Bound::L2, self.l2),
            (Bound::L1, self.l1),
            (Bound::Lds, self.lds),
            (Bound::Issue, self.issue),
            (Bound::Atomics, self.atomics),
        ]
        .into_iter()
        .filter(|(_, share)| *share >= Bound::THRESHOLD)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(Bound::Latency, |(b, _)| b)
    }
}

/// A timed launch's estimate on one part.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timing {
    /// The part's name.
    pub part: String,
    /// Core cycles from the launch to its end: the waves' time and the
    /// part's fixed launch cost.
    pub cycles: f64,
    /// The part's fixed launch cost, included in `cycles`.
    pub launch_cycles: f64,
    /// The same in microseconds at the part's clock.
    pub microseconds: f64,
    /// Each resource's share of its peak.
    pub utilization: Utilization,
    /// Resident waves averaged over the time and the units, over the units'
    /// wave slots (0 to 1).
    pub achieved_occupancy: f64,
    /// The occupancy calculator's figure for the kernel on the part.
    pub theoretical_occupancy: f64,
    /// Workgroups a unit holds at once.
    pub workgroups_per_unit: u32,
    /// Bytes DRAM moved.
    pub dram_bytes: f64,
    /// Issue cycles used, over all schedulers.
    pub issue_cycles: f64,
    /// The part's issue cycles per cycle: its units' schedulers.
    pub peak_issue: f64,
    /// The part's DRAM bytes per cycle.
    pub peak_dram_bytes: f64,
    /// Summed over the launch.
    pub stalls: Stalls,
    /// Per instruction, charged to the instruction the wave waited to issue
    /// (or, for `drain`, its last).
    pub per_instruction: Vec<Stalls>,
}

impl Timing {
    /// What limits the launch.
    pub fn bound(&self) -> Bound {
        self.utilization.bound()
    }
}
