//! Race verdicts: for each pair of accesses to one LDS array that may run in one
//! barrier interval (at least one a write), and each pair of accesses to one
//! global buffer (at least one a write, by different workgroups), whether two
//! work-items the sanitizer would not order can touch the same bytes.
//!
//! Races are what the run-time sanitizer reports: accesses by two waves of a
//! workgroup between the same two barriers, or by two workgroups; lanes of one
//! wave are ordered by issue, and two atomics never race.
//!
//! - **Free** is proved on the affine forms: both addresses are `c·local_id.x`
//!   plus uniform parts the two work-items share, and the range the `if`s
//!   around each access leave for `local_id.x` (`local_id.x < stride` gives
//!   `0..=stride-1`) keeps the byte distance out of the overlap window. A
//!   symbol is shared when it is workgroup-uniform and cannot be redefined
//!   between either access and the end of its barrier interval.
//! - **Race** needs a workgroup shape: the work-items of one workgroup (or of
//!   two neighbouring workgroups, for global buffers) are tried pairwise, with
//!   every guard evaluated; a pair that touches one byte is the witness.
//! - Otherwise the verdict is **unknown**, left to the run-time sanitizer.

use super::access::{Access, AccessKind, Space};
use super::affine::{Affine, AxisSym, Lin, SpecialSym, Sym, Val};
use super::walk::{Cond, Guard};
use super::Facts;
use crate::ir::{Program, Reg, Uniformity};
use crate::isa::{CmpOp, CmpType, Inst};
use crate::validate::UniformityInfo;
use serde::Serialize;
use std::cell::{Cell, OnceCell};

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
    /// The wave width the two are in different waves at.
    pub width: u32,
    /// The work-item running the pair's first instruction, and the one running
    /// its second.
    pub items: [WorkItem; 2],
    /// The first byte both touch: from the buffer's start, or the workgroup's
    /// LDS start.
    pub address: u64,
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
}

/// What the analysis decided for a pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// No two unordered work-items touch one byte, under these assumptions.
    Free(Vec<RaceAssumption>),
    /// These two do.
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
    pub space: Space,
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
    let vregs = usize::from(program.vregs);
    let mut uniform_slots = vec![true; vregs + usize::from(program.sregs)];
    for (k, inst) in program.insts.iter().enumerate() {
        let uniform = uniformity.values.get(k) == Some(&Some(Uniformity::Workgroup))
            && uniformity.control.get(k) == Some(&Uniformity::Workgroup);
        for r in inst.fields().written() {
            let slot = match r {
                Reg::V(v) => usize::from(v.0),
                Reg::S(s) => vregs + usize::from(s.0),
                Reg::M(_) => continue,
            };
            if let Some(u) = uniform_slots.get_mut(slot) {
                *u &= uniform;
            }
        }
    }
    let ctx = Ctx {
        program,
        intervals: &intervals,
        uniform_slots,
        reach: (0..program.insts.len()).map(|_| OnceCell::new()).collect(),
        budget: Cell::new(SEARCH_BUDGET),
    };
    let mut out = Vec::new();
    let list: Vec<(usize, &Access)> = accesses
        .iter()
        .enumerate()
        .filter_map(|(i, a)| Some((i, a.as_ref()?)))
        .collect();
    for (n, &(i, a)) in list.iter().enumerate() {
        for &(j, b) in &list[n..] {
            if a.space != b.space {
                continue;
            }
            let writes = a.kind != AccessKind::Load || b.kind != AccessKind::Load;
            let both_atomic = a.kind == AccessKind::Atomic && b.kind == AccessKind::Atomic;
            if !writes || both_atomic {
                continue;
            }
            let lds = matches!(a.space, Space::Lds(_));
            if lds && !intervals.share(i, j) {
                continue;
            }
            let verdict = ctx.decide(i, a, j, b, lds, shape);
            out.push(Pair {
                a: i as u32,
                b: j as u32,
                space: a.space,
                verdict,
            });
        }
    }
    out
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
        }
    }
}

impl RaceAssumption {
    /// Whether the assumption holds for a launch of `grid` workgroups of `shape`
    /// (`NoWrap` is about the inputs, which a launch's shape does not decide:
    /// taken to hold).
    pub fn holds(&self, grid: [u32; 3], shape: [u32; 3]) -> bool {
        match *self {
            RaceAssumption::OneDimensionalGroups => shape[1] == 1 && shape[2] == 1,
            RaceAssumption::OneDimensionalGrid => grid[1] == 1 && grid[2] == 1,
            RaceAssumption::NoWrap => true,
            RaceAssumption::Shape(s) => s == shape,
        }
    }
}

impl Facts {
    /// The races certain for a launch of `grid` workgroups of `shape` at wave
    /// width `width`, should it run both instructions of a pair: the pairs
    /// not proved free under assumptions this launch meets, searched under
    /// its shape and width, taking an LDS pair's workgroup-uniform `if`s
    /// whose conditions the inputs decide as taken. Two work-items of
    /// different workgroups race only where the grid has two along x. Pure
    /// data: no input is read.
    pub fn races_at(&self, grid: [u32; 3], shape: [u32; 3], width: u32) -> Vec<LaunchRace> {
        let budget = Cell::new(SEARCH_BUDGET);
        let mut out = Vec::new();
        for (n, pair) in self.pairs.iter().enumerate() {
            if let Verdict::Free(assumptions) = &pair.verdict {
                if assumptions.iter().all(|a| a.holds(grid, shape)) {
                    continue;
                }
            }
            let lds = matches!(pair.space, Space::Lds(_));
            if !lds && grid[0] < 2 {
                continue;
            }
            let access = |i: u32| self.accesses.get(i as usize).and_then(Option::as_ref);
            let (Some(a), Some(b)) = (access(pair.a), access(pair.b)) else {
                continue;
            };
            // Two arms of one workgroup-uniform `if` never both run in a workgroup.
            let exclusive = a
                .guards
                .iter()
                .any(|g| g.uniform && b.guards.iter().any(|h| h.at == g.at && h.holds != g.holds));
            if lds && exclusive {
                continue;
            }
            // Across workgroups, a uniform guard may differ between the two:
            // only within one is it taken alike by both work-items.
            if let Some(Some(witness)) = try_search(a, b, lds, shape, &[width], lds, &budget) {
                out.push(LaunchRace { pair: n, witness });
            }
        }
        out
    }
}

/// Which barrier intervals each instruction may run in: the barriers (and the
/// entry) from which it is reachable without passing another barrier.
struct Intervals {
    /// Per instruction, the interval starts reaching it.
    starts: Vec<Vec<u32>>,
    /// Per instruction, where control may go next.
    succ: Vec<Vec<usize>>,
    /// Per instruction, whether it is a barrier.
    barrier: Vec<bool>,
}

impl Intervals {
    fn of(program: &Program) -> Self {
        let insts = &program.insts;
        let n = insts.len();
        let succ: Vec<Vec<usize>> = insts
            .iter()
            .enumerate()
            .map(|(pc, inst)| {
                let mut s = vec![pc + 1];
                match *inst {
                    Inst::If { next, .. } => s.push(next.get()),
                    Inst::Else { end } => s.push(end.get()),
                    Inst::EndLoop { start, .. } => s.push(start.get() + 1),
                    Inst::Break { end, .. } | Inst::Continue { end, .. } => s.push(end.get()),
                    Inst::End => s.clear(),
                    _ => {}
                }
                s.retain(|&t| t < n);
                s
            })
            .collect();
        let barrier: Vec<bool> = insts.iter().map(|i| matches!(i, Inst::Barrier)).collect();
        let mut starts = vec![Vec::new(); n];
        if n > 0 {
            starts[0].push(0);
            if !barrier[0] {
                for pc in reach_without(&succ, &barrier, 0) {
                    starts[pc].push(0);
                }
            }
        }
        for (o, _) in barrier.iter().enumerate().filter(|(_, &b)| b) {
            for pc in reach_without(&succ, &barrier, o) {
                if !starts[pc].contains(&(o as u32)) {
                    starts[pc].push(o as u32);
                }
            }
        }
        Intervals {
            starts,
            succ,
            barrier,
        }
    }

    fn share(&self, a: usize, b: usize) -> bool {
        let (sa, sb) = (&self.starts[a], &self.starts[b]);
        sa.iter().any(|s| sb.contains(s))
    }
}

struct Ctx<'a> {
    program: &'a Program,
    intervals: &'a Intervals,
    /// Per register slot (vector registers, then scalar), whether every write
    /// of it is a workgroup-uniform value under workgroup-uniform control.
    uniform_slots: Vec<bool>,
    /// Per instruction, once asked, the instructions reachable from it
    /// before a barrier.
    reach: Vec<OnceCell<Vec<bool>>>,
    /// Work-item pairs the witness searches may still try: a kernel with
    /// many accesses gets unknown verdicts rather than a slow build.
    budget: Cell<u64>,
}

/// Bounds a work-item's `local_id.x` may take: any lower bound and any upper
/// bound listed hold (the `if`s around the access each add some).
#[derive(Clone, Debug, Default)]
struct Bounds {
    lo: Vec<Lin>,
    hi: Vec<Lin>,
}

impl Ctx<'_> {
    fn decide(
        &self,
        i: usize,
        a: &Access,
        j: usize,
        b: &Access,
        lds: bool,
        shape: Option<[u32; 3]>,
    ) -> Verdict {
        if let Some(free) = self.prove_free(i, a, j, b, lds, shape) {
            return Verdict::Free(free);
        }
        match shape.map(|shape| (shape, search(a, b, lds, shape, &[32, 64], &self.budget))) {
            Some((_, Search::Found(w))) => Verdict::Race(w),
            Some((shape, Search::Exhausted)) => Verdict::Free(vec![RaceAssumption::Shape(shape)]),
            _ => Verdict::Unknown,
        }
    }

    /// Whether symbol `s` has one value for both work-items of a pair of
    /// accesses at `i` and `j` in one interval (LDS) or in two workgroups
    /// (global).
    fn shared(&self, s: Sym, i: usize, j: usize, lds: bool) -> bool {
        match s {
            Sym::Arg(_) => true,
            Sym::Special(SpecialSym::WaveId) => false,
            Sym::Special(SpecialSym::GroupId(_)) | Sym::GroupBase(_) => lds,
            Sym::Special(_) => true,
            Sym::Value { inst, slot } => lds && self.stable(inst as usize, slot, i, j),
        }
    }

    /// A value named at `at` is one for the whole workgroup in an interval when
    /// every write of its register is workgroup-uniform and `at` (or, for a
    /// loop's head, its back edge) cannot run between either access and the
    /// next barrier: then both work-items see its latest value before the
    /// interval began, or the same later one.
    fn stable(&self, at: usize, slot: u16, i: usize, j: usize) -> bool {
        if !self
            .uniform_slots
            .get(usize::from(slot))
            .copied()
            .unwrap_or(false)
        {
            return false;
        }
        let point = match self.program.insts.get(at) {
            Some(Inst::Loop { end }) => end.get(),
            _ => at,
        };
        ![i, j].iter().any(|&from| {
            let reach = self.reach[from].get_or_init(|| {
                let mut seen = vec![false; self.program.insts.len()];
                for pc in reach_without(&self.intervals.succ, &self.intervals.barrier, from) {
                    seen[pc] = true;
                }
                seen
            });
            reach.get(point).copied().unwrap_or(false)
        })
    }

    /// A proof that the pair is free, with its assumptions, or `None`.
    fn prove_free(
        &self,
        i: usize,
        a: &Access,
        j: usize,
        b: &Access,
        lds: bool,
        shape: Option<[u32; 3]>,
    ) -> Option<Vec<RaceAssumption>> {
        let (Val::Known(fa), Val::Known(fb)) = (&a.addr, &b.addr) else {
            return None;
        };
        // The proofs below read `local_id.x` as the work-item: a shape with
        // rows is left to the search.
        let mut assumptions = vec![RaceAssumption::NoWrap];
        match shape {
            Some(s) if s[1] != 1 || s[2] != 1 => return None,
            Some(_) => {}
            None => assumptions.push(RaceAssumption::OneDimensionalGroups),
        }
        // Forms `c·local_id.x + u`, with nothing else per lane.
        let x_coef = |f: &Affine| -> Option<i64> {
            (f.per_lane[0].is_zero() && f.per_lane[2].is_zero() && f.per_lane[3].is_zero())
                .then(|| f.per_lane[1].as_const())
                .flatten()
        };
        let (ca, cb) = (x_coef(fa)?, x_coef(fb)?);
        let (bytes_a, bytes_b) = (i64::from(a.bytes()), i64::from(b.bytes()));
        if lds {
            for s in fa.uni.syms().chain(fb.uni.syms()) {
                if !self.shared(s, i, j, true) {
                    return None;
                }
            }
            // t = addr_a - addr_b = ca·x1 - cb·x2 - d; overlap iff
            // t in [-(bytes_b - 1), bytes_a - 1].
            let d = fb.uni.add(&fa.uni.scale(-1));
            let ba = bounds(&a.guards);
            let mut bb = bounds(&b.guards);
            let mut ba2 = ba.clone();
            // Two waves: when one work-item is in the first 32 lanes, the
            // other is past them (a wave has 32 or 64 lanes).
            if ba.hi.iter().any(|h| h.as_const().is_some_and(|c| c < 32)) {
                bb.lo.push(Lin::constant(32));
            }
            if bb.hi.iter().any(|h| h.as_const().is_some_and(|c| c < 32)) {
                ba2.lo.push(Lin::constant(32));
            }
            let disjoint = range_excludes(ca, &ba2, cb, &bb, &d, bytes_a, bytes_b);
            // One form, injective: only a work-item meets itself.
            let injective = ca == cb && d.is_zero() && ca.abs() >= bytes_a.max(bytes_b);
            return (disjoint || injective).then_some(assumptions);
        }
        // Global, across workgroups: `c·global_id.x + u` (or `c·group_id.x + u`
        // with no lane part), u shared by every workgroup.
        let base = Sym::GroupBase(AxisSym(0));
        let gid = Sym::Special(SpecialSym::GroupId(AxisSym(0)));
        let split = |f: &Affine, c: i64| -> Option<(i64, Lin)> {
            let mut rest = f.uni.clone();
            let k = if c != 0 {
                let k = coef(&rest, base);
                (k == c).then_some(())?;
                rest = rest.add(&Lin::sym(base).scale(-k));
                k
            } else {
                let k = coef(&rest, gid);
                rest = rest.add(&Lin::sym(gid).scale(-k));
                k
            };
            Some((k, rest))
        };
        let (ka, ua) = split(fa, ca)?;
        let (kb, ub) = split(fb, cb)?;
        for s in ua.syms().chain(ub.syms()) {
            if !self.shared(s, i, j, false) {
                return None;
            }
        }
        let injective =
            ka == kb && ca == cb && ua == ub && ka.abs() >= bytes_a.max(bytes_b) && ka != 0;
        if !injective {
            return None;
        }
        // One word per workgroup: the workgroup's own work-items must not
        // race on it either, so both accesses must run in its first 32
        // work-items only (one wave, ordered by issue).
        let first_wave = |g: &[Guard]| {
            bounds(g)
                .hi
                .iter()
                .any(|h| h.as_const().is_some_and(|c| (0..32).contains(&c)))
        };
        if ca == 0 && !(first_wave(&a.guards) && first_wave(&b.guards)) {
            return None;
        }
        assumptions.push(RaceAssumption::OneDimensionalGrid);
        Some(assumptions)
    }
}

fn coef(lin: &Lin, s: Sym) -> i64 {
    lin.terms
        .iter()
        .find(|&&(t, _)| t == s)
        .map_or(0, |&(_, k)| k)
}

fn reach_without(succ: &[Vec<usize>], barrier: &[bool], from: usize) -> Vec<usize> {
    let mut seen = vec![false; succ.len()];
    let mut stack: Vec<usize> = succ.get(from).cloned().unwrap_or_default();
    let mut out = Vec::new();
    while let Some(pc) = stack.pop() {
        if pc >= succ.len() || seen[pc] {
            continue;
        }
        seen[pc] = true;
        out.push(pc);
        if barrier.get(pc) == Some(&true) {
            continue;
        }
        stack.extend(&succ[pc]);
    }
    out
}

/// The bounds the guards put on `local_id.x`: comparisons of `local_id.x`
/// itself with a uniform value, read as unsigned.
fn bounds(guards: &[Guard]) -> Bounds {
    let x = {
        let mut a = Affine::default();
        a.per_lane[1] = Lin::constant(1);
        a
    };
    let size = Sym::Special(SpecialSym::GroupSize(AxisSym(0)));
    let mut b = Bounds {
        lo: vec![Lin::constant(0)],
        hi: vec![Lin::sym(size).add(&Lin::constant(-1))],
    };
    for g in guards {
        let Some(Cond { op, ty, a, b: rhs }) = &g.cond else {
            continue;
        };
        if *ty != CmpType::U32 {
            continue;
        }
        let (op, bound) = if *a == x && rhs.is_uniform() {
            (*op, rhs.uni.clone())
        } else if *rhs == x && a.is_uniform() {
            (flip(*op), a.uni.clone())
        } else {
            continue;
        };
        let op = if g.holds { Some(op) } else { negate(op) };
        match op {
            Some(CmpOp::Lt) => b.hi.push(bound.add(&Lin::constant(-1))),
            Some(CmpOp::Le) => b.hi.push(bound),
            Some(CmpOp::Gt) => b.lo.push(bound.add(&Lin::constant(1))),
            Some(CmpOp::Ge) => b.lo.push(bound),
            Some(CmpOp::Eq) => {
                b.lo.push(bound.clone());
                b.hi.push(bound);
            }
            _ => {}
        }
    }
    b
}

/// `b op a` for `a op b`.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        o => o,
    }
}

/// `!(a op b)` as a comparison, when it is one bounds can use.
fn negate(op: CmpOp) -> Option<CmpOp> {
    match op {
        CmpOp::Lt => Some(CmpOp::Ge),
        CmpOp::Le => Some(CmpOp::Gt),
        CmpOp::Gt => Some(CmpOp::Le),
        CmpOp::Ge => Some(CmpOp::Lt),
        CmpOp::Ne => Some(CmpOp::Eq),
        CmpOp::Eq => None,
    }
}

/// Whether `t = ca·x1 - cb·x2 - d` stays out of `[-(bytes_b - 1), bytes_a - 1]`
/// for some choice of the listed bounds, decided when the extreme of `t` on the
/// side that matters is a constant.
fn range_excludes(
    ca: i64,
    ba: &Bounds,
    cb: i64,
    bb: &Bounds,
    d: &Lin,
    bytes_a: i64,
    bytes_b: i64,
) -> bool {
    // The extremes of c·x over [lo, hi]: (min, max) for each choice of bounds.
    let ends = |c: i64, bo: &Bounds| -> Vec<(Lin, Lin)> {
        let mut v = Vec::new();
        for lo in &bo.lo {
            for hi in &bo.hi {
                let (l, h) = (lo.scale(c), hi.scale(c));
                v.push(if c >= 0 { (l, h) } else { (h, l) });
            }
        }
        v
    };
    let nd = d.scale(-1);
    for (amin, amax) in ends(ca, ba) {
        for (bmin, bmax) in ends(-cb, bb) {
            let max = amax.add(&bmax).add(&nd);
            let min = amin.add(&bmin).add(&nd);
            if max.as_const().is_some_and(|m| m < -(bytes_b - 1))
                || min.as_const().is_some_and(|m| m > bytes_a - 1)
            {
                return true;
            }
        }
    }
    false
}

/// The value of a uniform symbol for a work-item of a launch with workgroups
/// of `shape`, when the launch alone decides it.
fn symbol(s: Sym, item: &WorkItem, shape: [u32; 3], width: u32) -> Option<i64> {
    let lin = linear(item, shape);
    Some(i64::from(match s {
        Sym::Special(SpecialSym::GroupId(a)) => item.group[usize::from(a.0)],
        Sym::Special(SpecialSym::GroupSize(a)) => shape[usize::from(a.0)],
        Sym::Special(SpecialSym::WaveId) => lin / width,
        Sym::Special(SpecialSym::WaveWidth) => width,
        Sym::GroupBase(a) => item.group[usize::from(a.0)] * shape[usize::from(a.0)],
        _ => return None,
    }))
}

fn eval_lin(l: &Lin, item: &WorkItem, shape: [u32; 3], width: u32) -> Option<i64> {
    let mut v = l.c;
    for &(s, k) in &l.terms {
        v += k * symbol(s, item, shape, width)?;
    }
    Some(v)
}

/// A work-item's linear index in its workgroup (x fastest), which decides its wave.
fn linear(item: &WorkItem, shape: [u32; 3]) -> u32 {
    item.local[0] + shape[0] * (item.local[1] + shape[1] * item.local[2])
}

fn eval(f: &Affine, item: &WorkItem, shape: [u32; 3], width: u32) -> Option<u32> {
    let lin = linear(item, shape);
    let bases = [lin % width, item.local[0], item.local[1], item.local[2]];
    let mut v = eval_lin(&f.uni, item, shape, width)?;
    for (c, &base) in f.per_lane.iter().zip(&bases) {
        v += eval_lin(c, item, shape, width)? * i64::from(base);
    }
    Some(v as u32)
}

/// Whether every guard is decided and holds for `item`; `None` when one cannot
/// be decided. With `reached`, a guard whose arm every work-item of a
/// workgroup takes alike, on a condition the launch alone does not decide,
/// is taken to hold: the question is then what happens should the inputs
/// lead the workgroup there.
fn guards_hold(
    guards: &[Guard],
    item: &WorkItem,
    shape: [u32; 3],
    width: u32,
    reached: bool,
) -> Option<bool> {
    for g in guards {
        match g.cond.as_ref().and_then(|c| compare(c, item, shape, width)) {
            Some(r) if r != g.holds => return Some(false),
            Some(_) => {}
            None if reached && g.uniform => {}
            None => return None,
        }
    }
    Some(true)
}

/// The comparison `cond` for `item`, when the launch decides it.
fn compare(cond: &Cond, item: &WorkItem, shape: [u32; 3], width: u32) -> Option<bool> {
    let (x, y) = (
        eval(&cond.a, item, shape, width)?,
        eval(&cond.b, item, shape, width)?,
    );
    let (x, y) = match cond.ty {
        CmpType::U32 => (i64::from(x), i64::from(y)),
        CmpType::I32 => (i64::from(x as i32), i64::from(y as i32)),
        CmpType::F32 => return None,
    };
    Some(match cond.op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
    })
}

/// Two work-items of the first wave of a workgroup of `shape`, at wave width
/// `width`, for which `cond` differs: lanes of one wave an `if` on it splits.
/// `None` when the launch alone does not decide it, or every lane agrees.
pub fn split_wave(cond: &Cond, shape: [u32; 3], width: u32) -> Option<[WorkItem; 2]> {
    let total = shape[0].saturating_mul(shape[1]).saturating_mul(shape[2]);
    let item = |n: u32| WorkItem {
        group: [0; 3],
        local: [
            n % shape[0].max(1),
            n / shape[0].max(1) % shape[1].max(1),
            n / (shape[0].max(1) * shape[1].max(1)),
        ],
    };
    let first = compare(cond, &item(0), shape, width)?;
    (1..width.min(total))
        .find_map(|n| (compare(cond, &item(n), shape, width)? != first).then(|| [item(0), item(n)]))
}

/// The most work-items of a workgroup the witness search tries pairwise.
const MAX_SEARCH: u32 = 512;

/// The most work-item pairs the searches of one program try in all (a few
/// tenths of a second).
const SEARCH_BUDGET: u64 = 1 << 24;

/// What the witness search found.
enum Search {
    /// Two work-items that race.
    Found(Witness),
    /// Every pair was tried, with every guard and address decided: none races.
    Exhausted,
    /// The search could not decide (loops, unknown values, too many work-items).
    Undecided,
}

/// Two work-items of a launch with workgroups of `shape` the sanitizer would not
/// order that touch one byte, trying each wave width of `widths`. The accesses must
/// sit in no loop (the search does not follow iterations: outside loops, each
/// runs once per work-item, so the pairs tried are every pair that can run).
///
/// Only a search over one workgroup's LDS whose addresses and guards do not
/// depend on the workgroup's id is exhaustive; across workgroups only the
/// first two along x are tried.
fn search(
    a: &Access,
    b: &Access,
    lds: bool,
    shape: [u32; 3],
    widths: &[u32],
    budget: &Cell<u64>,
) -> Search {
    let per_group = |s: Sym| {
        matches!(
            s,
            Sym::Special(SpecialSym::GroupId(_) | SpecialSym::NumGroups(_)) | Sym::GroupBase(_)
        )
    };
    let reads_group = [a, b].iter().any(|x| {
        let guards = x.guards.iter().filter_map(|g| g.cond.as_ref());
        let forms = x
            .addr
            .affine()
            .into_iter()
            .chain(guards.flat_map(|c| [&c.a, &c.b]));
        forms.flat_map(Affine::syms).any(per_group)
    });
    match try_search(a, b, lds, shape, widths, false, budget) {
        Some(Some(w)) => Search::Found(w),
        Some(None) if lds && !reads_group => Search::Exhausted,
        _ => Search::Undecided,
    }
}

fn try_search(
    a: &Access,
    b: &Access,
    lds: bool,
    shape: [u32; 3],
    widths: &[u32],
    reached: bool,
    budget: &Cell<u64>,
) -> Option<Option<Witness>> {
    let (Val::Known(fa), Val::Known(fb)) = (&a.addr, &b.addr) else {
        return None;
    };
    if !a.loops.is_empty() || !b.loops.is_empty() {
        return None;
    }
    let total = shape[0] * shape[1] * shape[2];
    let cost = 2 * u64::from(total) * u64::from(total);
    if total > MAX_SEARCH || cost > budget.get() {
        return None;
    }
    budget.set(budget.get() - cost);
    let items = |group: [u32; 3]| {
        (0..total).map(move |n| WorkItem {
            group,
            local: [
                n % shape[0],
                n / shape[0] % shape[1],
                n / (shape[0] * shape[1]),
            ],
        })
    };
    let groups: [[u32; 3]; 2] = if lds {
        [[0; 3], [0; 3]]
    } else {
        [[0; 3], [1, 0, 0]]
    };
    for &width in widths {
        for p in items(groups[0]) {
            if !guards_hold(&a.guards, &p, shape, width, reached)? {
                continue;
            }
            let pa = eval(fa, &p, shape, width)?;
            let wave_p = linear(&p, shape) / width;
            for q in items(groups[1]) {
                let wave_q = linear(&q, shape) / width;
                if lds && wave_p == wave_q {
                    continue;
                }
                if !guards_hold(&b.guards, &q, shape, width, reached)? {
                    continue;
                }
                let qb = eval(fb, &q, shape, width)?;
                let (pa, qb) = (u64::from(pa), u64::from(qb));
                let (lo, hi) = (
                    pa.max(qb),
                    (pa + u64::from(a.bytes())).min(qb + u64::from(b.bytes())),
                );
                if lo < hi {
                    return Some(Some(Witness {
                        width,
                        items: [p, q],
                        address: lo,
                    }));
                }
            }
        }
    }
    Some(None)
}
