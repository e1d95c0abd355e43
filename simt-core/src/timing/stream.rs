//! What a timed launch records for the timing model: each wave's issues in
//! order, and for each memory access which level served its sectors.
//!
//! The functional run decides the levels (its L1s see a unit's workgroups
//! one after another), recording through the instrument [`Streams`]; the
//! replay then runs the streams concurrently.

use crate::exec::instrument::{Access, Instrument};
use crate::facts::AccessKind;
use crate::ir::Program;
use crate::isa::Inst;
use crate::stats::Counters;

/// An event's `cost` when the issue made no memory access.
pub(crate) const NO_COST: u32 = u32::MAX;

/// One issue of one wave.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    /// The instruction.
    pub(crate) pc: u32,
    /// Its access's cost in [`Streams::costs`], or [`NO_COST`].
    pub(crate) cost: u32,
}

/// What one memory access asks of the memory levels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Cost {
    /// Phases with an active lane.
    pub(crate) phases: u32,
    /// LDS cycles: one per phase, one per conflict cycle, one per further
    /// lane at a contended LDS atomic address.
    pub(crate) lds_cycles: u32,
    /// Global sectors the access asks of the L1.
    pub(crate) l1_sectors: u32,
    /// Global sectors that go on to the L2 (load misses, stores, atomics).
    pub(crate) l2_sectors: u32,
    /// Sectors DRAM serves (first touches in the launch).
    pub(crate) dram_sectors: u32,
    /// A global atomic's busiest address and how many active lanes update
    /// it: updates of one address serialize.
    pub(crate) atomic: Option<(u64, u32)>,
    /// A store or an atomic: done when the L2 takes it (the L2 writes back
    /// to DRAM later, taking DRAM's bandwidth but not the wave's time).
    pub(crate) written: bool,
}

/// One workgroup's streams.
#[derive(Debug, Default)]
pub(crate) struct Group {
    /// Numbered x fastest.
    pub(crate) linear: u64,
    /// Per wave, its issues in order.
    pub(crate) waves: Vec<Vec<Event>>,
}

/// A timed launch's recording.
#[derive(Debug, Default)]
pub(crate) struct Streams {
    /// The workgroups, in the order they ran.
    pub(crate) groups: Vec<Group>,
    /// The memory accesses' costs, which events name by index.
    pub(crate) costs: Vec<Cost>,
}

impl Streams {
    /// Workgroup `linear` of `waves` waves starts.
    pub(crate) fn begin(&mut self, linear: u64, waves: usize) {
        // Each wave's stream starts as long as the same wave's in the
        // workgroup before: most kernels' workgroups issue alike, and a
        // stream then never grows by copying.
        let before = self.groups.last().map(|g| &g.waves[..]).unwrap_or_default();
        let waves = (0..waves)
            .map(|w| Vec::with_capacity(before.get(w).map_or(0, Vec::len)))
            .collect();
        self.groups.push(Group { linear, waves });
    }

    /// Wave `wave` of the running workgroup issues `pc`.
    pub(crate) fn push(&mut self, pc: usize, wave: usize) {
        if let Some(w) = self.groups.last_mut().and_then(|g| g.waves.get_mut(wave)) {
            w.push(Event {
                pc: pc as u32,
                cost: NO_COST,
            });
        }
    }

    /// Wave `wave`'s last issue made an access that `counted` (what it
    /// added to its instruction's counters). `global` says whether it went
    /// to global memory, `atomic` gives a global atomic's busiest address
    /// and its lanes.
    pub(crate) fn access(
        &mut self,
        wave: usize,
        counted: &Counters,
        global: bool,
        store_or_atomic: bool,
        atomic: Option<(u64, u32)>,
    ) {
        let n = |x: u64| x as u32;
        let cost = if global {
            let sectors = n(counted.global_sectors);
            Cost {
                phases: n(counted.global_accesses),
                l1_sectors: sectors,
                l2_sectors: if store_or_atomic {
                    sectors
                } else {
                    n(counted.l1_miss_sectors)
                },
                dram_sectors: n(counted.dram_sectors),
                atomic,
                written: store_or_atomic,
                ..Cost::default()
            }
        } else {
            let phases = n(counted.lds_accesses);
            Cost {
                phases,
                lds_cycles: phases + n(counted.lds_conflict_cycles) + n(counted.atomic_contention),
                ..Cost::default()
            }
        };
        let index = self.costs.len() as u32;
        if let Some(e) = self
            .groups
            .last_mut()
            .and_then(|g| g.waves.get_mut(wave))
            .and_then(|w| w.last_mut())
        {
            self.costs.push(cost);
            e.cost = index;
        }
    }
}

/// A timed launch's recording: every issue but `print`'s (which takes no
/// time on a GPU), and what each access cost.
impl Instrument for Streams {
    const COSTS: bool = true;
    fn workgroup_begin(&mut self, linear: u64, _group: [u32; 3], waves: usize) {
        self.begin(linear, waves);
    }
    fn issue(&mut self, program: &Program, pc: usize, wave: usize, _exec: u64) {
        if !matches!(program.insts.get(pc), Some(Inst::Print { .. })) {
            self.push(pc, wave);
        }
    }
    fn memory(&mut self, _program: &Program, _pc: usize, wave: usize, a: &Access<'_>) {
        let global = a.buffer.is_some();
        let atomic = matches!(a.kind, AccessKind::Atomic);
        let busiest = (global && atomic).then(|| busiest_address(a)).flatten();
        let load = matches!(a.kind, AccessKind::Load);
        self.access(wave, a.cost, global, !load, busiest);
    }
}

/// The address most active lanes of `a` update, and how many do.
fn busiest_address(a: &Access<'_>) -> Option<(u64, u32)> {
    let mut addrs: Vec<u64> = (0..a.offs.len().min(64))
        .filter(|&l| a.exec >> l & 1 == 1)
        .map(|l| a.base + u64::from(a.offs[l]))
        .collect();
    addrs.sort_unstable();
    addrs
        .chunk_by(|x, y| x == y)
        .map(|run| (run[0], run.len() as u32))
        .max_by_key(|&(_, n)| n)
}
