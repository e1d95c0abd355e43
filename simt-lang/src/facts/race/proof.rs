//! Symbolic proofs that a pair of accesses is free for every launch (under
//! stated assumptions), on the affine forms of the addresses and the bounds
//! the `if`s around each access put on `local_id.x`.
//!
//! A proof reads `local_id.x` as the work-item, so it needs one-dimensional
//! workgroups. Every symbol it relies on, in an address or in a bound, must
//! take one value for both work-items of a pair: a symbol that may differ
//! between them (`wave_id`, a value a loop changes with no barrier between
//! the two accesses, a value read from memory others write) makes what it
//! says about one work-item say nothing about the other. A symbol in a bound
//! drops that bound; a symbol in an address drops the proof.

use super::intervals::Intervals;
use super::RaceAssumption;
use crate::facts::access::{Access, AccessKind};
use crate::facts::affine::{Affine, AxisSym, Lin, SpecialSym, Sym, Val};
use crate::facts::walk::{Cond, Guard};
use crate::ir::{Program, Reg, Uniformity};
use crate::isa::{CmpOp, CmpType, Inst};
use crate::validate::UniformityInfo;
use std::cell::OnceCell;

/// The bytes of a wave's worth of lanes at the narrower width: a work-item
/// below it and one at or past it are in different waves at either width.
const NARROW: i64 = 32;

pub(super) struct Prover<'a> {
    program: &'a Program,
    intervals: &'a Intervals,
    /// Per register slot (vector registers, then scalar), whether every write
    /// of it is a workgroup-uniform value under workgroup-uniform control.
    uniform_slots: Vec<bool>,
    /// Per instruction, once asked, the instructions reachable from it
    /// before a barrier.
    reach: Vec<OnceCell<Vec<bool>>>,
}

/// Bounds a work-item's `local_id.x` may take: any lower bound and any upper
/// bound listed hold (the `if`s around the access each add some).
#[derive(Clone, Debug, Default)]
struct Bounds {
    lo: Vec<Lin>,
    hi: Vec<Lin>,
}

impl Bounds {
    /// Whether a constant upper bound below `n` holds.
    fn below(&self, n: i64) -> bool {
        self.hi
            .iter()
            .any(|h| h.as_const().is_some_and(|c| (0..n).contains(&c)))
    }
}

impl<'a> Prover<'a> {
    pub(super) fn new(
        program: &'a Program,
        uniformity: &UniformityInfo,
        intervals: &'a Intervals,
    ) -> Self {
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
        Prover {
            program,
            intervals,
            uniform_slots,
            reach: (0..program.insts.len()).map(|_| OnceCell::new()).collect(),
        }
    }

    /// Whether symbol `s` has one value for both work-items of a pair of
    /// accesses at `i` and `j`: in one workgroup and one barrier interval
    /// (LDS), or in any two work-items of the launch (global).
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
                for pc in self.intervals.reach(from) {
                    seen[pc] = true;
                }
                seen
            });
            reach.get(point).copied().unwrap_or(false)
        })
    }

    /// A proof that the pair is free, with its assumptions, or `None`. A
    /// proof that needs the lanes of a wave in lockstep says so
    /// ([`RaceAssumption::LockstepLanes`]).
    pub(super) fn prove(
        &self,
        (i, a): (usize, &Access),
        (j, b): (usize, &Access),
        lds: bool,
        shape: Option<[u32; 3]>,
    ) -> Option<Vec<RaceAssumption>> {
        let (Val::Known(fa), Val::Known(fb)) = (&a.addr, &b.addr) else {
            return None;
        };
        if apart_by_residue(fa, fb, i64::from(a.bytes()), i64::from(b.bytes())) {
            return Some(vec![RaceAssumption::NoWrap]);
        }
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
        let keep = |s: Sym| self.shared(s, i, j, lds);
        let ba = bounds(&a.guards, &keep);
        let bb = bounds(&b.guards, &keep);
        // One store in two lanes of one wave: they disagree unless the store
        // writes one value in every lane.
        let one_store = i == j;
        let one_value =
            a.kind == AccessKind::Store && a.value.affine().is_some_and(Affine::is_uniform);
        // What lockstep adds: lanes of one wave are ordered, but for the
        // lanes of one store, which with one value do not disagree; and
        // independent lanes of one store in a loop meet at different
        // iterations.
        let lockstep_only = |assumptions: &mut Vec<RaceAssumption>| -> Option<()> {
            if one_store && !one_value {
                return None;
            }
            if !one_store || !a.loops.is_empty() {
                assumptions.push(RaceAssumption::LockstepLanes);
            }
            Some(())
        };
        if lds {
            if !fa.uni.syms().chain(fb.uni.syms()).all(keep) {
                return None;
            }
            // t = addr_a - addr_b = ca·x1 - cb·x2 - d; `a`'s bytes
            // [addr_a, addr_a + bytes_a) meet `b`'s iff t is in
            // [-(bytes_a - 1), bytes_b - 1].
            let d = fb.uni.add(&fa.uni.scale(-1));
            // One form, injective: only a work-item meets itself.
            let injective = ca == cb && d.is_zero() && ca.abs() >= bytes_a.max(bytes_b);
            if injective || range_excludes(ca, &ba, cb, &bb, &d, bytes_a, bytes_b) {
                return Some(assumptions);
            }
            // Two waves: when one work-item is in the first 32 lanes, the
            // other is past them (a wave has 32 or 64 lanes).
            let (mut ba2, mut bb2) = (ba.clone(), bb.clone());
            if ba.below(NARROW) {
                bb2.lo.push(Lin::constant(NARROW));
            }
            if bb.below(NARROW) {
                ba2.lo.push(Lin::constant(NARROW));
            }
            if range_excludes(ca, &ba2, cb, &bb2, &d, bytes_a, bytes_b) {
                lockstep_only(&mut assumptions)?;
                return Some(assumptions);
            }
            return None;
        }
        // Global: `c·global_id.x + u` (or `c·group_id.x + u` with no lane
        // part), u shared by every workgroup.
        let base = Sym::GroupBase(AxisSym(0));
        let gid = Sym::Special(SpecialSym::GroupId(AxisSym(0)));
        let split = |f: &Affine, c: i64| -> Option<(i64, Lin)> {
            let sym = if c != 0 { base } else { gid };
            let k = coef(&f.uni, sym);
            if c != 0 && k != c {
                return None;
            }
            Some((k, f.uni.add(&Lin::sym(sym).scale(-k))))
        };
        let (ka, ua) = split(fa, ca)?;
        let (kb, ub) = split(fb, cb)?;
        if !ua.syms().chain(ub.syms()).all(keep) {
            return None;
        }
        let injective =
            ka == kb && ca == cb && ua == ub && ka.abs() >= bytes_a.max(bytes_b) && ka != 0;
        if !injective {
            return None;
        }
        assumptions.push(RaceAssumption::OneDimensionalGrid);
        if ca != 0 {
            // Distinct global ids, distinct bytes.
            return Some(assumptions);
        }
        // One element per workgroup: within it, only work-item 0 touches it,
        // or only the first 32 (one wave, ordered by issue).
        if ba.below(1) && bb.below(1) {
            return Some(assumptions);
        }
        if ba.below(NARROW) && bb.below(NARROW) {
            lockstep_only(&mut assumptions)?;
            return Some(assumptions);
        }
        None
    }
}

/// Whether the two addresses never overlap because their difference keeps
/// one residue: every term of either form (a per-lane base times a constant,
/// a symbol times a constant) is a multiple of `g`, the largest power of two
/// dividing every coefficient, whatever values the bases and symbols take
/// in either work-item, so `addr_a - addr_b` is `c_a - c_b` plus a multiple
/// of `g`, and no such number lies in the window `[-(bytes_a - 1),
/// bytes_b - 1]` where the accesses would share a byte. No work-item, lane
/// order or workgroup shape enters, only integers (so: no wrapping).
fn apart_by_residue(fa: &Affine, fb: &Affine, bytes_a: i64, bytes_b: i64) -> bool {
    let mut g: u64 = 0;
    for f in [fa, fb] {
        for lane in &f.per_lane {
            let Some(c) = lane.as_const() else {
                return false;
            };
            g = gcd(g, c.unsigned_abs());
        }
        for &(_, k) in &f.uni.terms {
            g = gcd(g, k.unsigned_abs());
        }
    }
    // The forms are taken modulo 2^32 where a register wraps (`NoWrap`
    // speaks of the accesses' bytes, not of every product on the way):
    // only a power of two that divides 2^32 keeps its residues through a
    // wrap, so the proof uses the largest one dividing `g`.
    let g = (g & g.wrapping_neg()).min(1 << 32);
    let (Ok(g), Some(c)) = (i64::try_from(g), fa.uni.c.checked_sub(fb.uni.c)) else {
        return false;
    };
    let (lo, hi) = (-(bytes_a - 1), bytes_b - 1);
    if g == 0 {
        // Both addresses constant: they differ by `c`.
        return !(lo..=hi).contains(&c);
    }
    // The least `t >= lo` with `t = c (mod g)`, past the window.
    let t = lo + (c - lo).rem_euclid(g);
    t > hi
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn coef(lin: &Lin, s: Sym) -> i64 {
    lin.terms
        .iter()
        .find(|&&(t, _)| t == s)
        .map_or(0, |&(_, k)| k)
}

/// The bounds the guards put on `local_id.x`: comparisons of `local_id.x`
/// itself with a uniform value, read as unsigned, whose symbols `keep` says
/// both work-items share.
fn bounds(guards: &[Guard], keep: &impl Fn(Sym) -> bool) -> Bounds {
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
        if !bound.syms().all(keep) {
            continue;
        }
        // A constant is compared unsigned, and a form's constants are kept
        // modulo 2^32 as signed: one past the largest workgroup says
        // nothing a proof can use.
        if bound
            .as_const()
            .is_some_and(|c| !(0..=MAX_BOUND).contains(&c))
        {
            continue;
        }
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

/// The largest constant bound on `local_id.x` a proof uses.
const MAX_BOUND: i64 = 1 << 20;

/// `k·l`, unless a coefficient leaves `i32` range (the forms would wrap).
fn scaled(l: &Lin, k: i64) -> Option<Lin> {
    let fits = |v: i64| i32::try_from(v.checked_mul(k)?).ok();
    fits(l.c)?;
    for &(_, m) in &l.terms {
        fits(m)?;
    }
    Some(l.scale(k))
}

/// `a + b`, unless a coefficient leaves `i32` range.
fn summed(a: &Lin, b: &Lin) -> Option<Lin> {
    i32::try_from(a.c + b.c).ok()?;
    for &(s, k) in &b.terms {
        i32::try_from(coef(a, s) + k).ok()?;
    }
    Some(a.add(b))
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
    // The extremes of c·x over [lo, hi]: (min, max) for each choice of
    // bounds whose products stay exact.
    let ends = |c: i64, bo: &Bounds| -> Vec<(Lin, Lin)> {
        let mut v = Vec::new();
        for lo in &bo.lo {
            for hi in &bo.hi {
                if let (Some(l), Some(h)) = (scaled(lo, c), scaled(hi, c)) {
                    v.push(if c >= 0 { (l, h) } else { (h, l) });
                }
            }
        }
        v
    };
    let Some(nd) = scaled(d, -1) else {
        return false;
    };
    let sum = |x: &Lin, y: &Lin| summed(x, y).and_then(|s| summed(&s, &nd));
    for (amin, amax) in ends(ca, ba) {
        for (bmin, bmax) in ends(-cb, bb) {
            let max = sum(&amax, &bmax).and_then(|m| m.as_const());
            let min = sum(&amin, &bmin).and_then(|m| m.as_const());
            if max.is_some_and(|m| m < -(bytes_a - 1)) || min.is_some_and(|m| m > bytes_b - 1) {
                return true;
            }
        }
    }
    false
}
