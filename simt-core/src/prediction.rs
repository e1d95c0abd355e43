//! The static facts beside a launch's measured counters: for each memory
//! instruction, what the facts predict a fully active phase costs and what the
//! launch measured, and whether the two agree.
//!
//! The counters are per instruction, summed over its phases. A phase is fully
//! active when all its lanes are; the instruction's phases all were exactly when
//! its active lanes equal its phases times the phase's lanes (a counted phase
//! has at least one active lane and at most that many). Then an exact fact `n`
//! must give a total of `phases · n`, and a range `lo..=hi` a total between
//! `phases · lo` and `phases · hi`; the costliest phase, where the launch
//! recorded it, must be inside the fact too. Launches with a partial phase are
//! not compared: the facts speak of full phases only.

use crate::facts::{Degree, Fact, Facts, What};
use crate::ir::Program;
use crate::model::MemoryModel;
use crate::stats::Stats;

/// A fact and what one launch measured for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    /// The instruction.
    pub inst: usize,
    /// What is counted.
    pub what: What,
    /// The fact.
    pub fact: Fact,
    /// The launch's phases of the instruction (LDS or global accesses).
    pub phases: u64,
    /// The launch's total of the counted cost over those phases.
    pub total: u64,
    /// Whether every phase was fully active.
    pub full: bool,
    /// The costliest phase's cost, where the launch recorded it.
    pub worst: Option<u64>,
}

impl Prediction {
    /// Whether the measurement agrees with the fact; `None` when nothing can be
    /// compared (no phase ran, one was partial, or the fact is unknown or
    /// symbolic).
    pub fn agrees(&self) -> Option<bool> {
        if self.phases == 0 || !self.full {
            return None;
        }
        let (lo, hi) = match self.fact.value {
            Degree::Exact(n) => (n, n),
            Degree::Range(lo, hi) => (lo, hi),
            _ => return None,
        };
        let total_ok = (self.phases * lo..=self.phases * hi).contains(&self.total);
        let worst_ok = self.worst.is_none_or(|w| (lo..=hi).contains(&w));
        Some(total_ok && worst_ok)
    }

    /// The measured cost per phase, as a mean (0 when no phase ran).
    pub fn per_phase(&self) -> f64 {
        if self.phases == 0 {
            0.0
        } else {
            self.total as f64 / self.phases as f64
        }
    }
}

/// The prediction of every memory instruction of `program` for a launch that
/// gave `stats` under `model`, from `facts` (decided for the launch's
/// workgroup shape). Global instructions give two: lines and sectors.
pub fn predictions(
    program: &Program,
    facts: &Facts,
    stats: &Stats,
    model: &MemoryModel,
) -> Vec<Prediction> {
    let geo = model.geometry();
    let width = stats.wave_width;
    let lanes = u64::from(geo.lanes(width));
    let mut out = Vec::new();
    for inst in 0..program.insts.len() {
        let Some(c) = stats.per_instruction.get(inst) else {
            continue;
        };
        let worst = stats
            .worst_phases
            .get(inst)
            .filter(|w| w.is_recorded() && w.active.count_ones() as u64 == lanes);
        let mut push = |what: What, fact: Option<Fact>, phases: u64, total: u64, w: Option<u64>| {
            if let Some(fact) = fact {
                out.push(Prediction {
                    inst,
                    what,
                    fact,
                    phases,
                    total,
                    full: c.active_lanes == phases * lanes,
                    worst: w,
                });
            }
        };
        push(
            What::LdsCycles,
            facts.lds_conflicts(inst, &geo, width),
            c.lds_accesses,
            c.lds_conflict_cycles,
            worst.map(|w| w.cost),
        );
        push(
            What::Lines,
            facts.global_lines(inst, &geo, width),
            c.global_accesses,
            c.global_transactions,
            worst.map(|w| w.cost),
        );
        push(
            What::Sectors,
            facts.global_sectors(inst, &geo, width),
            c.global_accesses,
            c.global_sectors,
            worst.map(|w| w.sectors),
        );
    }
    out
}
