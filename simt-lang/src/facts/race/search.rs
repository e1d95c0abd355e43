//! The witness search: the work-items of a launch of one workgroup shape,
//! tried against each other with every guard, address and stored value
//! evaluated. It finds a race with two work-items that certainly touch one
//! byte unordered, or shows that none do (when it can evaluate everything and
//! what it tried stands for every workgroup), or gives up.

use super::{LaneOrder, Witness, WorkItem};
use crate::facts::access::Access;
use crate::facts::affine::{Affine, Lin, SpecialSym, Sym};
use crate::facts::walk::{Cond, Guard};
use crate::isa::{CmpOp, CmpType};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

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
        v = v.wrapping_add(k.wrapping_mul(symbol(s, item, shape, width)?));
    }
    Some(v)
}

/// A work-item's linear index in its workgroup (x fastest), which decides its wave.
pub(super) fn linear(item: &WorkItem, shape: [u32; 3]) -> u32 {
    item.local[0] + shape[0] * (item.local[1] + shape[1] * item.local[2])
}

/// The work-item of linear index `n` in workgroup `group` of `shape`.
fn item(group: [u32; 3], n: u32, shape: [u32; 3]) -> WorkItem {
    let (x, y) = (shape[0].max(1), shape[1].max(1));
    WorkItem {
        group,
        local: [n % x, n / x % y, n / (x * y)],
    }
}

/// The form's value for `item`, modulo 2^32 as the machine computes it.
pub(super) fn eval(f: &Affine, item: &WorkItem, shape: [u32; 3], width: u32) -> Option<u32> {
    let lin = linear(item, shape);
    let bases = [lin % width, item.local[0], item.local[1], item.local[2]];
    let mut v = eval_lin(&f.uni, item, shape, width)?;
    for (c, &base) in f.per_lane.iter().zip(&bases) {
        v = v.wrapping_add(eval_lin(c, item, shape, width)?.wrapping_mul(i64::from(base)));
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
pub(crate) fn compare(cond: &Cond, item: &WorkItem, shape: [u32; 3], width: u32) -> Option<bool> {
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
    let first = compare(cond, &item([0; 3], 0, shape), shape, width)?;
    (1..width.min(total)).find_map(|n| {
        let other = item([0; 3], n, shape);
        (compare(cond, &other, shape, width)? != first).then(|| [item([0; 3], 0, shape), other])
    })
}

/// Whether `cond` takes one value in every lane of every wave of a workgroup
/// of `shape` at wave width `width`: `None` when the launch does not decide
/// it for some work-item.
pub fn wave_uniform(cond: &Cond, shape: [u32; 3], width: u32) -> Option<bool> {
    let total = shape[0].saturating_mul(shape[1]).saturating_mul(shape[2]);
    let mut first = None;
    for n in 0..total {
        if n % width == 0 {
            first = None;
        }
        let v = compare(cond, &item([0; 3], n, shape), shape, width)?;
        match first {
            None => first = Some(v),
            Some(f) if f != v => return Some(false),
            Some(_) => {}
        }
    }
    Some(true)
}

/// What the search found.
pub(super) enum Search {
    /// Two work-items that race.
    Found(Witness),
    /// Every pair was tried, with every guard, address and value decided,
    /// and what was tried stands for every workgroup: none races.
    Exhausted,
    /// The search could not decide (loops, unknown values, its budget spent).
    Undecided,
}

/// A pair of accesses to search.
pub(super) struct Query<'a> {
    /// The first access, and its instruction.
    pub(super) a: (usize, &'a Access),
    /// The second.
    pub(super) b: (usize, &'a Access),
    /// Whether the memory is the workgroup's LDS.
    pub(super) lds: bool,
    /// Whether two work-items of one workgroup may run the two in one
    /// barrier interval.
    pub(super) within: bool,
    /// Whether the program has wave barriers, which may order two lanes of
    /// one wave when they are independent.
    pub(super) wave_barriers: bool,
}

/// The launch a search runs for.
pub(super) struct Run<'a> {
    pub(super) shape: [u32; 3],
    pub(super) widths: &'a [u32],
    pub(super) lanes: LaneOrder,
    /// A workgroup other than the first, for global pairs across workgroups.
    pub(super) other: Option<[u32; 3]>,
}

/// One work-item running an access: its linear id, first byte and the value
/// it stores (for a store whose value the launch decides).
#[derive(Clone, Copy, Debug)]
struct Hit {
    item: u32,
    addr: u32,
    value: Option<u32>,
}

/// The work-items running an access in one workgroup at one width: in id
/// order, and by address.
struct Hits {
    by_item: Vec<Hit>,
    by_addr: Vec<Hit>,
}

/// How two work-items' accesses of a searched pair are related.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Relation {
    Ordered,
    Races,
    /// A race unless something the launch does not decide orders them.
    Maybe,
}

/// The most work-items (and pair steps) the searches of one program take in
/// all: past it, verdicts are unknown rather than a slow build.
const SEARCH_BUDGET: u64 = 1 << 22;

/// An access's instruction, the workgroup, its shape and the wave width.
type HitsKey = (usize, [u32; 3], [u32; 3], u32);

/// Searches pairs, keeping each access's evaluated work-items.
pub(super) struct Searcher {
    budget: Cell<u64>,
    /// With `reached`, guards [`guards_hold`] cannot decide on a uniform
    /// condition are taken as holding.
    reached: bool,
    hits: RefCell<HashMap<HitsKey, Option<Rc<Hits>>>>,
}

impl Searcher {
    pub(super) fn new(reached: bool) -> Self {
        Searcher {
            budget: Cell::new(SEARCH_BUDGET),
            reached,
            hits: Default::default(),
        }
    }

    fn charge(&self, cost: u64) -> Option<()> {
        let left = self.budget.get().checked_sub(cost)?;
        self.budget.set(left);
        Some(())
    }

    /// The work-items of `group` that run `access` (instruction `inst`) at
    /// `width`, or `None` when a guard, address or the budget stops it.
    fn hits(
        &self,
        inst: usize,
        access: &Access,
        group: [u32; 3],
        shape: [u32; 3],
        width: u32,
    ) -> Option<Rc<Hits>> {
        let key = (inst, group, shape, width);
        if let Some(h) = self.hits.borrow().get(&key) {
            return h.clone();
        }
        let computed = self.evaluate(access, group, shape, width).map(Rc::new);
        self.hits.borrow_mut().insert(key, computed.clone());
        computed
    }

    fn evaluate(
        &self,
        access: &Access,
        group: [u32; 3],
        shape: [u32; 3],
        width: u32,
    ) -> Option<Hits> {
        let f = access.addr.affine()?;
        let total = shape[0].checked_mul(shape[1])?.checked_mul(shape[2])?;
        self.charge(u64::from(total))?;
        let mut by_item = Vec::new();
        for n in 0..total {
            let it = item(group, n, shape);
            if !guards_hold(&access.guards, &it, shape, width, self.reached)? {
                continue;
            }
            let addr = eval(f, &it, shape, width)?;
            let value = access
                .value
                .affine()
                .and_then(|v| eval(v, &it, shape, width));
            by_item.push(Hit {
                item: n,
                addr,
                value,
            });
        }
        let mut by_addr = by_item.clone();
        by_addr.sort_by_key(|h| (h.addr, h.item));
        Some(Hits { by_item, by_addr })
    }

    /// Searches `q` for a launch `run`.
    pub(super) fn search(&self, q: &Query<'_>, run: &Run<'_>) -> Search {
        let ((ia, a), (ib, b)) = (q.a, q.b);
        // Outside loops each access runs once per work-item, so the pairs
        // tried are every pair that can run.
        if !a.loops.is_empty() || !b.loops.is_empty() {
            return Search::Undecided;
        }
        let first = [0u32; 3];
        let mut groups = Vec::new();
        if q.lds || q.within {
            groups.push((first, first));
        }
        if let (false, Some(other)) = (q.lds, run.other) {
            groups.push((first, other));
            groups.push((other, first));
        }
        let mut maybe = false;
        for &width in run.widths {
            for &(ga, gb) in &groups {
                let (Some(ha), Some(hb)) = (
                    self.hits(ia, a, ga, run.shape, width),
                    self.hits(ib, b, gb, run.shape, width),
                ) else {
                    return Search::Undecided;
                };
                let pair = Pair {
                    q,
                    same_group: ga == gb,
                    width,
                    lanes: run.lanes,
                };
                match self.sweep(&pair, &ha, &hb, &mut maybe) {
                    Some(Some((p, r, address))) => {
                        return Search::Found(Witness {
                            width,
                            items: [item(ga, p, run.shape), item(gb, r, run.shape)],
                            address: u64::from(address),
                        })
                    }
                    Some(None) => {}
                    None => return Search::Undecided,
                }
            }
        }
        // What group 0 (and 1) do stands for every workgroup only when
        // nothing the search evaluated reads the workgroup's id.
        if maybe || [a, b].iter().any(|x| reads_group(x)) {
            Search::Undecided
        } else {
            Search::Exhausted
        }
    }

    /// The first work-item running `a` (by id) with one running `b` it
    /// races with, the smallest such, and the first byte both touch;
    /// `Some(None)` when there is none; `None` when the budget ran out.
    fn sweep(
        &self,
        pair: &Pair<'_, '_>,
        ha: &Hits,
        hb: &Hits,
        maybe: &mut bool,
    ) -> Option<Option<(u32, u32, u32)>> {
        // Within a workgroup, accesses in different barrier intervals are
        // ordered.
        if pair.same_group && !pair.q.within && !pair.q.lds {
            return Some(None);
        }
        let (bytes_a, bytes_b) = (i64::from(pair.q.a.1.bytes()), i64::from(pair.q.b.1.bytes()));
        let sorted = &hb.by_addr;
        for p in &ha.by_item {
            let lo = i64::from(p.addr) - bytes_b + 1;
            let hi = i64::from(p.addr) + bytes_a - 1;
            let mut k = sorted.partition_point(|h| i64::from(h.addr) < lo);
            let mut best: Option<Hit> = None;
            while let Some(first) = sorted.get(k).filter(|h| i64::from(h.addr) <= hi) {
                // The work-items at this address, by id: the first that races
                // with `p` is the smallest.
                let end = k + sorted[k..].partition_point(|h| h.addr == first.addr);
                for r in &sorted[k..end] {
                    self.charge(1)?;
                    match pair.relation(p, r) {
                        Relation::Races => {
                            if best.is_none_or(|b| r.item < b.item) {
                                best = Some(*r);
                            }
                            break;
                        }
                        Relation::Maybe => *maybe = true,
                        Relation::Ordered => {}
                    }
                }
                k = end;
            }
            if let Some(r) = best {
                return Some(Some((p.item, r.item, p.addr.max(r.addr))));
            }
        }
        Some(None)
    }
}

/// A searched pair at one width, between two given workgroups.
struct Pair<'q, 'a> {
    q: &'q Query<'a>,
    same_group: bool,
    width: u32,
    lanes: LaneOrder,
}

impl Pair<'_, '_> {
    /// How `p` running the first access and `r` running the second, both
    /// touching one byte, are ordered.
    fn relation(&self, p: &Hit, r: &Hit) -> Relation {
        if !self.same_group {
            return Relation::Races;
        }
        if p.item == r.item {
            // One work-item: program order.
            return Relation::Ordered;
        }
        if p.item / self.width != r.item / self.width {
            return Relation::Races;
        }
        if self.q.a.0 == self.q.b.0 {
            // Two lanes of one store: they disagree when their values do.
            return match (p.value, r.value) {
                (Some(x), Some(y)) if x != y => Relation::Races,
                (Some(_), Some(_)) => Relation::Ordered,
                _ => Relation::Maybe,
            };
        }
        match self.lanes {
            LaneOrder::Lockstep => Relation::Ordered,
            LaneOrder::Independent if self.q.wave_barriers => Relation::Maybe,
            LaneOrder::Independent => Relation::Races,
        }
    }
}

/// Whether an access's address, guards or stored value read a workgroup's
/// id or the grid's size.
fn reads_group(x: &Access) -> bool {
    let per_group = |s: Sym| {
        matches!(
            s,
            Sym::Special(SpecialSym::GroupId(_) | SpecialSym::NumGroups(_)) | Sym::GroupBase(_)
        )
    };
    let guards = x.guards.iter().filter_map(|g| g.cond.as_ref());
    let forms = x
        .addr
        .affine()
        .into_iter()
        .chain(x.value.affine())
        .chain(guards.flat_map(|c| [&c.a, &c.b]));
    forms.flat_map(Affine::syms).any(per_group)
}
