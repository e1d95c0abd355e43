//! Race verdicts: for each pair of accesses to one LDS array that may run in one
//! barrier interval (at least one a write), and each pair of accesses to one
//! global buffer (at least one a write), whether two work-items the sanitizer
//! would not order can touch the same bytes.
//!
//! Races are what the run-time sanitizer reports: accesses by two workgroups,
//! by two waves of a workgroup between the same two barriers, or, with
//! [`LaneOrder::Independent`], by two lanes of one wave; two lanes of one
//! store writing one word disagree when their values differ, whatever the
//! lane order; two atomics never race.
//!
//! - **Free** is proved on the affine forms for every launch (`proof.rs`), or,
//!   given a workgroup shape, by trying every pair of work-items (`search.rs`).
//!   A proof that holds only when the lanes of a wave run in lockstep carries
//!   [`RaceAssumption::LockstepLanes`].
//! - **Race** needs a workgroup shape: a pair of work-items the search finds
//!   touching one byte unordered (lanes in lockstep), every guard evaluated,
//!   is the witness.
//! - Otherwise the verdict is **unknown**, left to the run-time sanitizer.

mod intervals;
mod proof;
mod search;

pub use search::{split_wave, wave_uniform};

use super::access::{Access, AccessKind, Memory};
use super::Facts;
use crate::ir::Program;
use crate::isa::Inst;
use crate::validate::UniformityInfo;
use intervals::Intervals;
use proof::Prover;
use search::{Query, Run, Search, Searcher};
use serde::Serialize;

/// How the lanes of one wave are ordered, for the race check and the
/// proofs. The interpreter runs them in lockstep either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum LaneOrder {
    /// The lanes of a wave run in lockstep, so an access by one lane is
    /// ordered before every later access of its wave (AMD hardware, and NVIDIA
    /// hardware before Volta).
    #[default]
    Lockstep,
    /// Independent thread scheduling (NVIDIA since Volta): lanes of one wave
    /// are ordered only by program order within a lane, by a `barrier`, or by
    /// a `wave_barrier` both took part in (CUDA's `__syncwarp`), so one lane
    /// reading what another lane of its wave wrote without one is a race.
    Independent,
}

/// A work-item of a witness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct WorkItem {
    /// Its workgroup's id.
    pub group: [u32; 3],
    /// Its id within the workgroup.
    pub local: [u32; 3],
}

/// Two work-items that touch one byte without an order between them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Witness {
    /// The wave width the two are unordered at.
    pub width: u32,
    /// The work-item running the pair's first instruction, and the one running
    /// its second.
    pub items: [WorkItem; 2],
    /// The first byte both touch: from the buffer's start, or the workgroup's
    /// LDS start.
    pub address: u64,
}

impl Witness {
    /// Whether the two work-items are lanes of one wave of one workgroup
    /// (then the pair is one store whose lanes write different values, or
    /// two accesses unordered only with independent lanes).
    pub fn one_wave(&self, shape: [u32; 3]) -> bool {
        let [p, q] = &self.items;
        p.group == q.group
            && search::linear(p, shape) / self.width == search::linear(q, shape) / self.width
    }
}

/// A hypothesis a verdict holds under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum RaceAssumption {
    /// Workgroups are one-dimensional (`group_size.y == group_size.z == 1`).
    OneDimensionalGroups,
    /// The grid is one-dimensional (`num_groups.y == num_groups.z == 1`).
    OneDimensionalGrid,
    /// No address wraps past 2^32 (every access that runs is in bounds).
    NoWrap,
    /// Workgroups of this shape, at wave32 and wave64: every pair of
    /// work-items was tried.
    Shape([u32; 3]),
    /// The lanes of a wave run in lockstep ([`LaneOrder::Lockstep`]): the
    /// proof orders two lanes of one wave by issue.
    LockstepLanes,
}

/// What the analysis decided for a pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// No two unordered work-items touch one byte, under these assumptions.
    Free(Vec<RaceAssumption>),
    /// These two do, whatever the lane order.
    Race(Witness),
    /// Left to the run-time sanitizer.
    Unknown,
}

/// A pair of accesses and its verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pair {
    /// The first instruction.
    pub a: u32,
    /// The second instruction (equal to `a` for one instruction in two work-items).
    pub b: u32,
    /// The memory both access.
    pub space: Memory,
    /// Whether two work-items of one workgroup may run the two in one
    /// barrier interval (always, for an LDS pair).
    pub within: bool,
    /// Whether two work-items of one workgroup that run the two certainly
    /// run them in one barrier interval (no barrier between them).
    pub same_interval: bool,
    /// The verdict.
    pub verdict: Verdict,
}

/// The verdict of every pair that may race.
pub(super) fn pairs(
    program: &Program,
    uniformity: &UniformityInfo,
    accesses: &[Option<Access>],
    shape: Option<[u32; 3]>,
) -> Vec<Pair> {
    let intervals = Intervals::of(program);
    let prover = Prover::new(program, uniformity, &intervals);
    let searcher = Searcher::new(false);
    let wave_barriers = has_wave_barriers(program);
    let mut out = Vec::new();
    let list: Vec<(usize, &Access)> = accesses
        .iter()
        .enumerate()
        .filter_map(|(i, a)| Some((i, a.as_ref()?)))
        .collect();
    // The scratch buffer holds each work-item's private words: its accesses
    // are left out (a kernel that indexes past its own words is caught by
    // the run-time sanitizer, as any race).
    let scratch = (program.scratch_words > 0)
        .then(|| program.params.len().checked_sub(1))
        .flatten()
        .and_then(|k| u16::try_from(k).ok())
        .map(|k| Memory::Global(crate::ir::ParamIdx(k)));
    for (n, &(i, a)) in list.iter().enumerate() {
        if Some(a.space) == scratch {
            continue;
        }
        for &(j, b) in &list[n..] {
            if a.space != b.space {
                continue;
            }
            let writes = a.kind != AccessKind::Load || b.kind != AccessKind::Load;
            let both_atomic = a.kind == AccessKind::Atomic && b.kind == AccessKind::Atomic;
            if !writes || both_atomic {
                continue;
            }
            let lds = matches!(a.space, Memory::Lds(_));
            let within = intervals.share(i, j);
            if lds && !within {
                continue;
            }
            let loops: Vec<u32> = a.loops.iter().chain(&b.loops).copied().collect();
            let ends: Vec<usize> = loops
                .iter()
                .filter_map(|&l| match program.insts.get(l as usize) {
                    Some(Inst::Loop { end }) => Some(end.get()),
                    _ => None,
                })
                .collect();
            let same_interval = within && intervals.always_share(i, j, &loops, &ends);
            let query = Query {
                a: (i, a),
                b: (j, b),
                lds,
                within,
                same_interval,
                wave_barriers,
            };
            let verdict = decide(&prover, &searcher, &query, shape);
            out.push(Pair {
                a: i as u32,
                b: j as u32,
                space: a.space,
                within,
                same_interval,
                verdict,
            });
        }
    }
    out
}

pub(super) fn has_wave_barriers(program: &Program) -> bool {
    program.insts.iter().any(|i| matches!(i, Inst::WaveBarrier))
}

/// A proof for every launch; else, given a shape, what trying every pair of
/// work-items shows.
fn decide(
    prover: &Prover<'_>,
    searcher: &Searcher,
    q: &Query<'_>,
    shape: Option<[u32; 3]>,
) -> Verdict {
    if let Some(free) = prover.prove(q.a, q.b, q.lds, shape) {
        return Verdict::Free(free);
    }
    let Some(shape) = shape else {
        return Verdict::Unknown;
    };
    let run = |lanes| Run {
        shape,
        widths: &[32, 64],
        lanes,
        other: Some([1, 0, 0]),
    };
    match searcher.search(q, &run(LaneOrder::Lockstep)) {
        Search::Found(w) => Verdict::Race(w),
        Search::Exhausted { grid_x } => {
            let mut assumptions = vec![RaceAssumption::Shape(shape)];
            if grid_x {
                assumptions.push(RaceAssumption::OneDimensionalGrid);
            }
            if !matches!(
                searcher.search(q, &run(LaneOrder::Independent)),
                Search::Exhausted { .. }
            ) {
                assumptions.push(RaceAssumption::LockstepLanes);
            }
            Verdict::Free(assumptions)
        }
        Search::Undecided => Verdict::Unknown,
    }
}

/// A race certain for one launch: two of its work-items touch one byte.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaunchRace {
    /// The pair's index in [`Facts::pairs`].
    pub pair: usize,
    /// Two work-items of the launch that race, at its wave width.
    pub witness: Witness,
}

impl std::fmt::Display for RaceAssumption {
    /// The assumption as a proof is said to hold under it: "for
    /// one-dimensional grids".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RaceAssumption::OneDimensionalGroups => f.write_str("for one-dimensional workgroups"),
            RaceAssumption::OneDimensionalGrid => f.write_str("for one-dimensional grids"),
            RaceAssumption::NoWrap => f.write_str("for addresses that do not wrap past 2^32"),
            RaceAssumption::Shape([x, y, z]) => write!(f, "for workgroups of {x}x{y}x{z}"),
            RaceAssumption::LockstepLanes => {
                f.write_str("for the lanes of a wave running in lockstep")
            }
        }
    }
}

impl RaceAssumption {
    /// Whether the assumption holds for a launch of `grid` workgroups of
    /// `shape` with lanes ordered as `lanes` says (`NoWrap` is about the
    /// inputs, which a launch's shape does not decide: taken to hold).
    pub fn holds(&self, grid: [u32; 3], shape: [u32; 3], lanes: LaneOrder) -> bool {
        match *self {
            RaceAssumption::OneDimensionalGroups => shape[1] == 1 && shape[2] == 1,
            RaceAssumption::OneDimensionalGrid => grid[1] == 1 && grid[2] == 1,
            RaceAssumption::NoWrap => true,
            RaceAssumption::Shape(s) => s == shape,
            RaceAssumption::LockstepLanes => lanes == LaneOrder::Lockstep,
        }
    }
}

impl Facts {
    /// The races certain for a launch of `grid` workgroups of `shape` at wave
    /// width `width` with lanes ordered as `lanes` says, should it run both
    /// instructions of a pair: the pairs not proved free under assumptions
    /// this launch meets, searched under its shape, width and lane order,
    /// taking the workgroup-uniform `if`s whose conditions the inputs decide
    /// as taken. Two work-items of different workgroups race only where the
    /// grid has two. Pure data: no input is read.
    pub fn races_at(
        &self,
        grid: [u32; 3],
        shape: [u32; 3],
        width: u32,
        lanes: LaneOrder,
    ) -> Vec<LaunchRace> {
        self.races_among(grid, shape, width, lanes, |_| true)
    }

    /// [`Facts::races_at`] for the pairs (by index in [`Facts::pairs`])
    /// `among` keeps.
    pub fn races_among(
        &self,
        grid: [u32; 3],
        shape: [u32; 3],
        width: u32,
        lanes: LaneOrder,
        among: impl Fn(usize) -> bool,
    ) -> Vec<LaunchRace> {
        self.races_searched(Searcher::new(true), grid, shape, width, lanes, among)
    }

    /// The races every launch of one workgroup of `shape` at wave width
    /// `width` has, whatever its inputs, lanes in lockstep: of the pairs the
    /// facts prove racing ([`Verdict::Race`], found at one width), those
    /// [`Facts::races_among`] finds at `width` with a guard on a
    /// workgroup-uniform condition the facts do not decide not taken as
    /// holding: an access the inputs may skip is left to the sanitizer, as
    /// the facts leave it.
    pub fn races_certain(
        &self,
        shape: [u32; 3],
        width: u32,
        among: impl Fn(usize) -> bool,
    ) -> Vec<LaunchRace> {
        let proved = |n: usize| {
            among(n)
                && self
                    .pairs
                    .get(n)
                    .is_some_and(|p| matches!(p.verdict, Verdict::Race(_)))
        };
        self.races_searched(
            Searcher::new(false),
            [1, 1, 1],
            shape,
            width,
            LaneOrder::Lockstep,
            proved,
        )
    }

    fn races_searched(
        &self,
        searcher: Searcher,
        grid: [u32; 3],
        shape: [u32; 3],
        width: u32,
        lanes: LaneOrder,
        among: impl Fn(usize) -> bool,
    ) -> Vec<LaunchRace> {
        let other = if grid[0] > 1 {
            Some([1, 0, 0])
        } else if grid[1] > 1 {
            Some([0, 1, 0])
        } else if grid[2] > 1 {
            Some([0, 0, 1])
        } else {
            None
        };
        let mut out = Vec::new();
        for (n, pair) in self.pairs.iter().enumerate() {
            if !among(n) {
                continue;
            }
            match &pair.verdict {
                Verdict::Free(assumptions)
                    if assumptions.iter().all(|a| a.holds(grid, shape, lanes)) =>
                {
                    continue
                }
                // A witness the facts found for this shape and width is one
                // for the launch, whose grid holds its workgroups.
                Verdict::Race(w)
                    if self.shape == Some(shape)
                        && w.width == width
                        && w.items.iter().all(|i| (0..3).all(|d| i.group[d] < grid[d])) =>
                {
                    out.push(LaunchRace {
                        pair: n,
                        witness: w.clone(),
                    });
                    continue;
                }
                _ => {}
            }
            let lds = matches!(pair.space, Memory::Lds(_));
            let access = |i: u32| self.accesses.get(i as usize).and_then(Option::as_ref);
            let (Some(a), Some(b)) = (access(pair.a), access(pair.b)) else {
                continue;
            };
            // Two arms of one workgroup-uniform `if` never both run in a
            // workgroup; across workgroups the two may take different arms.
            let exclusive = a
                .guards
                .iter()
                .any(|g| g.uniform && b.guards.iter().any(|h| h.at == g.at && h.holds != g.holds));
            if lds && exclusive {
                continue;
            }
            let query = Query {
                a: (pair.a as usize, a),
                b: (pair.b as usize, b),
                lds,
                within: pair.within && !exclusive,
                same_interval: pair.same_interval && !exclusive,
                wave_barriers: self.wave_barriers,
            };
            let run = Run {
                shape,
                widths: &[width],
                lanes,
                other,
            };
            if let Search::Found(witness) = searcher.search(&query, &run) {
                out.push(LaunchRace { pair: n, witness });
            }
        }
        out
    }
}
