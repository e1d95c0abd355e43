//! The witness search: the work-items of a launch of one workgroup shape,
//! tried against each other with every guard, address and stored value
//! evaluated. It finds a race with two work-items that certainly touch one
//! byte unordered, or shows that none do (when it can evaluate everything and
//! what it tried stands for every workgroup), or gives up.

use super::{LaneOrder, Witness, WorkItem};
use crate::facts::access::Access;
use crate::facts::affine::{Affine, AxisSym, Lin, SpecialSym, Sym};
use crate::facts::walk::Cond;
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
fn eval(f: &Affine, item: &WorkItem, shape: [u32; 3], width: u32) -> Option<u32> {
    Some(Flat::of(f, item.group, shape, width)?.at(&Flat::bases(item, shape, width)))
}

/// The comparison `cond` for `item`, when the launch decides it.
pub(crate) fn compare(cond: &Cond, item: &WorkItem, shape: [u32; 3], width: u32) -> Option<bool> {
    if cond.ty == CmpType::F32 {
        return None;
    }
    Some(cond.holds(
        eval(&cond.a, item, shape, width)?,
        eval(&cond.b, item, shape, width)?,
    ))
}

impl Cond {
    /// The comparison of two integer values as its type reads them (a
    /// float comparison reads them as `u32`; callers decide those apart).
    fn holds(&self, x: u32, y: u32) -> bool {
        let (x, y) = match self.ty {
            CmpType::I32 => (i64::from(x as i32), i64::from(y as i32)),
            _ => (i64::from(x), i64::from(y)),
        };
        match self.op {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
        }
    }
}

/// A form with the workgroup's symbols given their values: `c + k·wave_id
/// + Σ coef·base`, evaluated per work-item with a few products.
#[derive(Clone, Copy, Debug)]
struct Flat {
    c: i64,
    wave: i64,
    bases: [i64; 4],
}

impl Flat {
    /// `f` in workgroup `group` of `shape` at `width`; `None` when a symbol
    /// is not the launch's to decide, or a per-lane coefficient reads the
    /// wave.
    fn of(f: &Affine, group: [u32; 3], shape: [u32; 3], width: u32) -> Option<Flat> {
        // Any work-item of the workgroup: only the wave's id differs.
        let anyone = WorkItem {
            group,
            local: [0; 3],
        };
        let split = |l: &Lin| -> Option<(i64, i64)> {
            let mut c = l.c;
            let mut wave = 0i64;
            for &(s, k) in &l.terms {
                if s == Sym::Special(SpecialSym::WaveId) {
                    wave = wave.wrapping_add(k);
                } else {
                    c = c.wrapping_add(k.wrapping_mul(symbol(s, &anyone, shape, width)?));
                }
            }
            Some((c, wave))
        };
        let (c, wave) = split(&f.uni)?;
        let mut bases = [0i64; 4];
        for (b, coef) in bases.iter_mut().zip(&f.per_lane) {
            let (k, w) = split(coef)?;
            if w != 0 {
                return None;
            }
            *b = k;
        }
        Some(Flat { c, wave, bases })
    }

    /// The wave id and bases of `item`, as [`Flat::at`] takes them.
    fn bases(item: &WorkItem, shape: [u32; 3], width: u32) -> [i64; 5] {
        let lin = linear(item, shape);
        [
            i64::from(lin / width),
            i64::from(lin % width),
            i64::from(item.local[0]),
            i64::from(item.local[1]),
            i64::from(item.local[2]),
        ]
    }

    /// The value for the work-item of `bases`, modulo 2^32.
    fn at(&self, bases: &[i64; 5]) -> u32 {
        let mut v = self.c.wrapping_add(self.wave.wrapping_mul(bases[0]));
        for (k, b) in self.bases.iter().zip(&bases[1..]) {
            v = v.wrapping_add(k.wrapping_mul(*b));
        }
        v as u32
    }
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
    /// Every pair was tried, with every address and value decided and every
    /// work-item that may run an access taken to run it, and what was tried
    /// stands for every workgroup: none races. With `grid_x`, only in a
    /// one-dimensional grid: the addresses step by workgroup along x alone.
    Exhausted { grid_x: bool },
    /// The search could not decide (unknown addresses, a race that needs
    /// what the launch does not decide, its budget spent).
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
    /// Whether, running the two, they certainly do so in one interval.
    pub(super) same_interval: bool,
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

/// One work-item that may run an access: its linear id, first byte, the
/// value it stores (for a store whose value the launch decides), and
/// whether it certainly runs it in this workgroup.
#[derive(Clone, Copy, Debug)]
struct Hit {
    item: u32,
    addr: u32,
    value: Option<u32>,
    must: bool,
}

/// The work-items that may run an access in one workgroup at one width: in
/// id order, and by address.
struct Hits {
    by_item: Vec<Hit>,
    by_addr: Vec<Hit>,
}

/// How two work-items' accesses of a searched pair are related.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Relation {
    Ordered,
    Races,
    /// A race should something the launch does not decide happen (a second
    /// iteration, a wave barrier not taken).
    Maybe,
}

/// The most work-items (and pair steps) the searches of one program take in
/// all: past it, verdicts are unknown rather than a slow build.
const SEARCH_BUDGET: u64 = 1 << 20;

/// An access's instruction, the workgroup, its shape and the wave width.
type HitsKey = (usize, [u32; 3], [u32; 3], u32);

/// Searches pairs, keeping each access's evaluated work-items.
pub(super) struct Searcher {
    budget: Cell<u64>,
    /// With `reached`, a guard on a workgroup-uniform condition the launch
    /// does not decide is taken as holding (see [`Facts::races_at`](crate::facts::Facts::races_at)).
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

    /// The work-items of `group` that may run `access` (instruction `inst`)
    /// at `width`, or `None` when an address or the budget stops it.
    fn hits(
        &self,
        (inst, access): (usize, &Access),
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
        let total = shape[0].checked_mul(shape[1])?.checked_mul(shape[2])?;
        self.charge(u64::from(total))?;
        let flat = |f: &Affine| Flat::of(f, group, shape, width);
        let addr = flat(access.addr.affine()?)?;
        let value = access.value.affine().and_then(flat);
        // Each guard: its two sides, how they compare, which arm the access
        // is in and whether it reads the workgroup.
        let guards: Vec<_> = access
            .guards
            .iter()
            .map(|g| {
                let sides = g.cond.as_ref().and_then(|c| {
                    let sides = (flat(&c.a)?, flat(&c.b)?);
                    (c.ty != CmpType::F32).then_some((sides, c))
                });
                (sides, g, g.cond.as_ref().is_some_and(reads_group))
            })
            .collect();
        let mut by_item = Vec::new();
        'items: for n in 0..total {
            let it = item(group, n, shape);
            let bases = Flat::bases(&it, shape, width);
            let mut must = access.certain;
            for (sides, g, group_reading) in &guards {
                let holds = sides.map(|((a, b), c)| c.holds(a.at(&bases), b.at(&bases)));
                match holds {
                    Some(r) if r == g.holds => {}
                    // Another workgroup may take the other arm: it stands
                    // for them when the search stands for every workgroup.
                    Some(_) if *group_reading => must = false,
                    Some(_) => continue 'items,
                    None if self.reached && g.uniform => {}
                    None => must = false,
                }
            }
            let addr = addr.at(&bases);
            let value = value.map(|v| v.at(&bases));
            by_item.push(Hit {
                item: n,
                addr,
                value,
                must,
            });
        }
        let mut by_addr = by_item.clone();
        by_addr.sort_by_key(|h| (h.addr, h.item));
        Some(Hits { by_item, by_addr })
    }

    /// Searches `q` for a launch `run`.
    pub(super) fn search(&self, q: &Query<'_>, run: &Run<'_>) -> Search {
        let (a, b) = (q.a.1, q.b.1);
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
        let mut spans_fit = true;
        for &width in run.widths {
            if !q.lds {
                let (Some(ha), Some(hb)) = (
                    self.hits(q.a, first, run.shape, width),
                    self.hits(q.b, first, run.shape, width),
                ) else {
                    return Search::Undecided;
                };
                spans_fit &= fits_one_step(q, &ha, &hb, run.shape, width);
            }
            for &(ga, gb) in &groups {
                let (Some(ha), Some(hb)) = (
                    self.hits(q.a, ga, run.shape, width),
                    self.hits(q.b, gb, run.shape, width),
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
        if maybe {
            return Search::Undecided;
        }
        match stands_for_every_group(a, b, q.lds) {
            Stands::Every => Search::Exhausted { grid_x: false },
            Stands::AlongX if spans_fit => Search::Exhausted { grid_x: true },
            _ => Search::Undecided,
        }
    }

    /// The first work-item certainly running `a` (by id) with one certainly
    /// running `b` it races with, the smallest such, and the first byte both
    /// touch; `Some(None)` when there is none (`maybe` set when a pair of
    /// work-items that may run them would race); `None` when the budget ran
    /// out.
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
                // The work-items at this address, by id: the first that
                // certainly races with `p` is the smallest.
                let end = k + sorted[k..].partition_point(|h| h.addr == first.addr);
                for r in &sorted[k..end] {
                    self.charge(1)?;
                    match pair.relation(p, r) {
                        Relation::Races if p.must && r.must => {
                            if best.is_none_or(|b| r.item < b.item) {
                                best = Some(*r);
                            }
                            break;
                        }
                        Relation::Races | Relation::Maybe => *maybe = true,
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
        // Within a workgroup, a race needs one interval, which a barrier
        // between the two may not leave them in.
        let unordered = if self.q.same_interval {
            Relation::Races
        } else {
            Relation::Maybe
        };
        if p.item / self.width != r.item / self.width {
            return unordered;
        }
        let in_loop = !self.q.a.1.loops.is_empty();
        if self.q.a.0 == self.q.b.0 {
            // Two lanes of one store in one iteration disagree when their
            // values do; independent lanes at two iterations race.
            if self.lanes == LaneOrder::Independent && in_loop {
                return Relation::Maybe;
            }
            return match (p.value, r.value) {
                (Some(x), Some(y)) if x != y => unordered,
                (Some(_), Some(_)) => Relation::Ordered,
                _ => Relation::Maybe,
            };
        }
        match self.lanes {
            LaneOrder::Lockstep => Relation::Ordered,
            LaneOrder::Independent if self.q.wave_barriers => Relation::Maybe,
            LaneOrder::Independent => unordered,
        }
    }
}

/// Whether a condition reads a workgroup's id or the grid's size.
fn reads_group(c: &Cond) -> bool {
    c.a.syms().chain(c.b.syms()).any(per_group)
}

fn per_group(s: Sym) -> bool {
    matches!(
        s,
        Sym::Special(SpecialSym::GroupId(_) | SpecialSym::NumGroups(_)) | Sym::GroupBase(_)
    )
}

/// Whether what one workgroup's work-items may touch, with both accesses,
/// spans no more bytes than the addresses step from one workgroup to the
/// next along x: then two workgroups never touch one byte.
fn fits_one_step(q: &Query<'_>, ha: &Hits, hb: &Hits, shape: [u32; 3], width: u32) -> bool {
    let (a, b) = (q.a.1, q.b.1);
    let (Some(fa), Some(fb)) = (a.addr.affine(), b.addr.affine()) else {
        return false;
    };
    let step = |f: &Affine| -> Option<i64> {
        let at = |g: u32| eval(f, &item([g, 0, 0], 0, shape), shape, width);
        Some(i64::from(at(1)?.wrapping_sub(at(0)?) as i32))
    };
    let (Some(k), Some(kb)) = (step(fa), step(fb)) else {
        return false;
    };
    let ends = |h: &Hits, bytes: u32| {
        let first = h.by_addr.first().map(|x| i64::from(x.addr));
        let last = h
            .by_addr
            .last()
            .map(|x| i64::from(x.addr) + i64::from(bytes));
        first.zip(last)
    };
    match (ends(ha, a.bytes()), ends(hb, b.bytes())) {
        (Some((s1, e1)), Some((s2, e2))) => k == kb && e1.max(e2) - s1.min(s2) <= k.abs(),
        // One access runs nowhere: nothing to meet.
        _ => true,
    }
}

/// What the first workgroup (and, across workgroups, the second) stand for.
enum Stands {
    /// Every workgroup.
    Every,
    /// Every workgroup of a one-dimensional grid, should what one workgroup
    /// touches fit in one step of the addresses from workgroup to workgroup.
    AlongX,
    /// Only themselves.
    Themselves,
}

/// Whether the first workgroup (and, across workgroups, the second) stand
/// for every one: within a workgroup, the two addresses move alike with the
/// workgroup's id and no lane's value depends on it (the guards that read it
/// took every work-item as may-run); across workgroups, nothing reads it, or
/// only the id along x does, alike in both.
fn stands_for_every_group(a: &Access, b: &Access, lds: bool) -> Stands {
    let group_part = |f: &Affine| -> Option<Vec<(Sym, i64)>> {
        if f.per_lane.iter().flat_map(Lin::syms).any(per_group) {
            return None;
        }
        Some(
            f.uni
                .terms
                .iter()
                .copied()
                .filter(|&(s, _)| per_group(s))
                .collect(),
        )
    };
    let (Some(fa), Some(fb)) = (a.addr.affine(), b.addr.affine()) else {
        return Stands::Themselves;
    };
    let values_plain = [a, b].iter().all(|x| {
        x.value
            .affine()
            .is_none_or(|v| !v.per_lane.iter().flat_map(Lin::syms).any(per_group))
    });
    let along_x = |s: &(Sym, i64)| {
        matches!(
            s.0,
            Sym::Special(SpecialSym::GroupId(AxisSym(0))) | Sym::GroupBase(AxisSym(0))
        )
    };
    match (group_part(fa), group_part(fb)) {
        (Some(ga), Some(gb)) if values_plain && ga == gb => {
            if lds || ga.is_empty() {
                Stands::Every
            } else if ga.iter().all(along_x) {
                Stands::AlongX
            } else {
                Stands::Themselves
            }
        }
        _ => Stands::Themselves,
    }
}
