//! Facts per memory instruction: how many LDS conflict cycles, global lines and
//! sectors a fully active phase costs, from the affine form of its address.
//!
//! Within a phase of `p` lanes the address is `base + i·stride` (lane `i` of the
//! phase), where `stride` is the sum of the `lane_id` and `local_id.x`
//! coefficients and `base` is uniform in the phase. That needs the lanes of a
//! phase to differ only in `local_id.x` when a `local_id` appears, which holds
//! when the workgroup's x size is a multiple of `p` (a phase then never spans
//! two rows): the fact's assumption. The base is known only modulo what its
//! unknown parts leave fixed (`16·group_id + 4` is 4 modulo 16); the cost is
//! evaluated for every base the known residue allows, giving an exact count
//! when all agree and a range when they do not.

use super::affine::{launch_values, wrap, AxisSym, Lin, Sym, Val};
use super::walk::{Guard, Site};
use crate::ir::{LdsIdx, ParamIdx};
use serde::Serialize;
use std::fmt;

/// The memory geometry a fact is evaluated under: the fields of a memory model
/// that decide the counters of one phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Geometry {
    /// Lanes per memory phase.
    pub phase_lanes: u32,
    /// Bytes per global line (a transaction); a power of two.
    pub line_bytes: u32,
    /// Bytes per global sector; a power of two.
    pub sector_bytes: u32,
    /// LDS banks; a power of two.
    pub lds_banks: u32,
    /// Bytes per LDS bank word; a power of two.
    pub lds_bank_bytes: u32,
}

impl Geometry {
    /// The reference model's geometry: 32-lane phases, 64-byte lines and
    /// sectors, 32 banks of 4 bytes.
    pub const REFERENCE: Geometry = Geometry {
        phase_lanes: 32,
        line_bytes: 64,
        sector_bytes: 64,
        lds_banks: 32,
        lds_bank_bytes: 4,
    };

    /// Lanes of one phase of a wave of `width` lanes.
    pub fn lanes(&self, width: u32) -> u32 {
        self.phase_lanes.min(width).max(1)
    }
}

/// The buffer or LDS array an access names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Memory {
    /// A global buffer parameter.
    Global(ParamIdx),
    /// An LDS array.
    Lds(LdsIdx),
}

impl Memory {
    /// Its space.
    pub const fn space(self) -> crate::ir::Space {
        match self {
            Memory::Global(_) => crate::ir::Space::Global,
            Memory::Lds(_) => crate::ir::Space::Lds,
        }
    }
}

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum AccessKind {
    /// Reads.
    Load,
    /// Writes.
    Store,
    /// Reads and writes one word atomically.
    Atomic,
}

/// A memory instruction as the facts see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Access {
    /// Where it goes.
    pub space: Memory,
    /// What it does.
    pub kind: AccessKind,
    /// Bytes per element.
    pub size: u32,
    /// Elements per lane (2 or 4 for the wide forms).
    pub elems: u32,
    /// The byte offset each lane accesses: from the buffer's start (global, whose
    /// buffers start on a line), or from the workgroup's LDS start (LDS).
    pub addr: Val,
    /// What a store writes, when every element has this one form.
    pub value: Val,
    /// The `if`s around it.
    pub guards: Vec<Guard>,
    /// The loops around it.
    pub loops: Vec<u32>,
    /// Whether a lane whose guards hold runs it on every iteration of its
    /// loops (no `break` or `continue` before it in their bodies).
    pub certain: bool,
}

impl Access {
    pub(super) fn new(
        site: &Site,
        space: Memory,
        kind: AccessKind,
        size: u32,
        elems: u32,
        unit: u32,
        origin: u32,
    ) -> Self {
        let addr = match &site.index {
            Val::Known(a) => {
                let mut a = a.scale(i64::from(unit));
                a.uni = a.uni.add(&Lin::constant(i64::from(origin)));
                Val::Known(a)
            }
            Val::Unknown => Val::Unknown,
        };
        Access {
            space,
            kind,
            size,
            elems,
            addr,
            value: site.value.clone(),
            guards: site.guards.clone(),
            loops: site.loops.clone(),
            certain: site.certain,
        }
    }

    /// Bytes each lane moves.
    pub fn bytes(&self) -> u32 {
        self.size * self.elems
    }
}

/// What a fact says a fully active phase costs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Degree {
    /// Exactly this much in every fully active phase.
    Exact(u64),
    /// Between these, inclusive, depending on the base's alignment.
    Range(u64, u64),
    /// Depends on the value of a uniform symbol in the lane stride.
    Condition(Condition),
    /// The analysis cannot tell.
    Unknown(Why),
}

/// Why a fact is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Why {
    /// The address is not an affine form (loaded data, a non-linear operation,
    /// values merged from lanes that diverged).
    NotAffine,
    /// The launch's workgroup shape puts lanes of one phase on different rows.
    PhaseSpansRows,
    /// The lane stride is not linear in known terms.
    StrideUnknown,
}

/// A fact that depends on the lane stride's symbolic value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Condition {
    /// The lane stride in bytes.
    pub stride: Lin,
    /// What the cost is measured in.
    pub what: What,
    /// The base's known residue and the step of its unknown part (see [`Residues`]).
    pub base: Residues,
    /// The access's bytes per element and elements per lane.
    pub size: u32,
    /// Elements per lane.
    pub elems: u32,
    /// The geometry and phase lanes it was evaluated under.
    pub geometry: Geometry,
    /// Lanes per phase.
    pub lanes: u32,
}

impl Condition {
    /// The cost once the stride's symbols have values (`None` when one is missing).
    pub fn at(&self, value: impl Fn(Sym) -> Option<i64>) -> Option<Degree> {
        let mut s = self.stride.c;
        for &(sym, k) in &self.stride.terms {
            s = wrap(s + k.wrapping_mul(value(sym)?));
        }
        Some(evaluate(
            self.what,
            s,
            &self.base,
            self.size,
            self.elems,
            &self.geometry,
            self.lanes,
        ))
    }

    /// Two telling cases, for a listing: the cost with the stride's symbols at
    /// 1 and at the bank count (32 on every preset).
    pub fn cases(&self) -> [(i64, Option<Degree>); 2] {
        let m = i64::from(self.geometry.lds_banks.max(1));
        [1, m].map(|v| (v, self.at(|_| Some(v))))
    }
}

impl fmt::Display for Degree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Degree::Exact(n) => write!(f, "{n}"),
            Degree::Range(a, b) => write!(f, "{a}..={b}"),
            Degree::Condition(c) => {
                write!(f, "depends on the lane stride {} bytes", c.stride)
            }
            Degree::Unknown(_) => f.write_str("unknown"),
        }
    }
}

impl Degree {
    /// Whether a measured per-phase value agrees with the fact; `None` when the
    /// fact states nothing (unknown or symbolic).
    pub fn admits(&self, measured: u64) -> Option<bool> {
        match *self {
            Degree::Exact(n) => Some(measured == n),
            Degree::Range(a, b) => Some((a..=b).contains(&measured)),
            _ => None,
        }
    }
}

/// A hypothesis a fact holds under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Assumption {
    /// The workgroup's x size is a multiple of this many lanes, so that the
    /// lanes of one phase differ only in `local_id.x`.
    GroupXMultipleOf(u32),
}

impl fmt::Display for Assumption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Assumption::GroupXMultipleOf(n) => {
                write!(f, "workgroup x size a multiple of {n}")
            }
        }
    }
}

impl Assumption {
    /// Whether the assumption holds for a workgroup of `shape`.
    pub fn holds(&self, shape: [u32; 3]) -> bool {
        match *self {
            Assumption::GroupXMultipleOf(n) => n != 0 && shape[0].is_multiple_of(n),
        }
    }
}

/// A fact and the assumptions it holds under.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fact {
    /// The cost of a fully active phase.
    pub value: Degree,
    /// What must hold for it.
    pub assumptions: Vec<Assumption>,
}

/// What a cost counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum What {
    /// LDS conflict cycles: the worst bank's distinct words minus one.
    LdsCycles,
    /// Distinct global lines.
    Lines,
    /// Distinct global sectors.
    Sectors,
}

/// The bases a phase may start at, modulo `modulus`: `residue + k·step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Residues {
    /// The known part of the base, modulo `modulus`.
    pub residue: u32,
    /// The step of the unknown part (a divisor of `modulus`).
    pub step: u32,
    /// The period after which the cost repeats.
    pub modulus: u32,
    /// The alignment every lane's address has (misaligned bases fault).
    pub align: u32,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The gcd of a linear form's coefficients with `m`: every value it takes is
/// `c` plus a multiple of this.
fn lin_gcd(lin: &Lin, m: u64) -> u64 {
    lin.terms
        .iter()
        .fold(m, |g, &(_, k)| gcd(g, (k as u64) & 0xffff_ffff))
}

/// The fact of `access` for `what` under `geo`, in waves of `width` lanes, for
/// a workgroup of `shape` when known.
pub fn fact(
    access: &Access,
    what: What,
    geo: &Geometry,
    width: u32,
    shape: Option<[u32; 3]>,
) -> Fact {
    let lanes = geo.lanes(width);
    let unknown = |why| Fact {
        value: Degree::Unknown(why),
        assumptions: Vec::new(),
    };
    let Val::Known(a) = &access.addr else {
        return unknown(Why::NotAffine);
    };
    let a = &a.substitute(&launch_values(shape, Some(width)));
    let mut assumptions = Vec::new();
    if a.per_lane[1..].iter().any(|c| !c.is_zero()) {
        let assumption = Assumption::GroupXMultipleOf(lanes);
        match shape {
            Some(s) if !assumption.holds(s) => {
                return Fact {
                    value: across_rows(a, access, what, geo, width, s)
                        .unwrap_or(Degree::Unknown(Why::PhaseSpansRows)),
                    assumptions,
                }
            }
            Some(_) => {}
            None => assumptions.push(assumption),
        }
    }
    let stride = a.per_lane[0].add(&a.per_lane[1]);
    let modulus = match what {
        What::LdsCycles => geo.lds_banks.saturating_mul(geo.lds_bank_bytes),
        What::Lines | What::Sectors => geo.line_bytes,
    }
    .max(1);
    let m = u64::from(modulus);
    // The unknown parts of the base: its symbols, the phase's first lane
    // (a multiple of `lanes`), its first `local_id.x` (likewise) and its y and z.
    // `group_id.x * group_size.x` is a multiple of `lanes` too when the x size is.
    let group_base = Sym::GroupBase(AxisSym(0));
    let mut step = m;
    for &(sym, k) in &a.uni.terms {
        let n = if sym == group_base {
            let assumption = Assumption::GroupXMultipleOf(lanes);
            if !assumptions.contains(&assumption) {
                assumptions.push(assumption);
            }
            lanes
        } else {
            1
        };
        step = gcd(step, phase_step(&Lin::constant(k), n, m));
    }
    if width > lanes {
        step = gcd(step, phase_step(&a.per_lane[0], lanes, m));
    }
    step = gcd(step, phase_step(&a.per_lane[1], lanes, m));
    for c in &a.per_lane[2..] {
        step = gcd(step, phase_step(c, 1, m));
    }
    let base = Residues {
        residue: (a.uni.c as u64 % m) as u32,
        step: step.max(1) as u32,
        modulus,
        align: if access.elems > 1 { 4 } else { access.size },
    };
    let value = match stride.as_const() {
        Some(s) => evaluate(what, s, &base, access.size, access.elems, geo, lanes),
        None => Degree::Condition(Condition {
            stride,
            what,
            base,
            size: access.size,
            elems: access.elems,
            geometry: *geo,
            lanes,
        }),
    };
    Fact { value, assumptions }
}

/// The cost of the phases of a workgroup of `shape` whose lanes span rows:
/// each phase's lanes placed by their ids, over every base the form's
/// unknown uniform part allows; `None` when a per-lane coefficient is not a
/// constant.
fn across_rows(
    a: &super::affine::Affine,
    access: &Access,
    what: What,
    geo: &Geometry,
    width: u32,
    shape: [u32; 3],
) -> Option<Degree> {
    let coefs: Vec<i64> = a
        .per_lane
        .iter()
        .map(|c| c.as_const())
        .collect::<Option<_>>()?;
    let lanes = geo.lanes(width);
    let total = shape[0].checked_mul(shape[1])?.checked_mul(shape[2])?;
    let modulus = match what {
        What::LdsCycles => geo.lds_banks.saturating_mul(geo.lds_bank_bytes),
        What::Lines | What::Sectors => geo.line_bytes,
    }
    .max(1);
    let m = u64::from(modulus);
    // The uniform part's unknown symbols leave its residue modulo `m` known
    // up to this step.
    let step = a
        .uni
        .terms
        .iter()
        .fold(m, |g, &(_, k)| gcd(g, phase_step(&Lin::constant(k), 1, m)));
    let align = if access.elems > 1 { 4 } else { access.size }.max(1);
    let (mut lo, mut hi) = (u64::MAX, 0);
    // Every phase of the workgroup, at most once per lane layout and first
    // address modulo `m` (phases repeat once the rows do).
    let mut seen: Vec<(u64, Vec<u32>)> = Vec::new();
    let mut first = 0;
    while first < total {
        let end = (first + lanes).min(total).min((first / width + 1) * width);
        let offsets: Vec<u32> = (first..end)
            .map(|n| {
                let (x, y, z) = (
                    n % shape[0],
                    n / shape[0] % shape[1],
                    n / (shape[0] * shape[1]),
                );
                let bases = [
                    i64::from(n % width),
                    i64::from(x),
                    i64::from(y),
                    i64::from(z),
                ];
                coefs.iter().zip(bases).map(|(k, b)| k * b).sum::<i64>() as u32
            })
            .collect();
        first = end;
        // Offsets from the phase's first lane: the cost moves only with the
        // base's residue.
        let start = offsets[0];
        let relative: Vec<u32> = offsets.iter().map(|o| o.wrapping_sub(start)).collect();
        let layout = (u64::from(start) % m, relative);
        if offsets.len() < lanes as usize || seen.contains(&layout) {
            continue;
        }
        let relative = &layout.1;
        let mut r = (a.uni.c as u64).wrapping_add(u64::from(start));
        for _ in 0..(m / step.max(1)).max(1) {
            let base = (r % m) as u32;
            r = r.wrapping_add(step);
            if !base.is_multiple_of(align) {
                continue;
            }
            let cost = cost_of(what, base, relative, access.size, access.elems, geo);
            lo = lo.min(cost);
            hi = hi.max(cost);
        }
        seen.push(layout);
    }
    Some(match (lo, hi) {
        (u64::MAX, _) => Degree::Unknown(Why::PhaseSpansRows),
        (a, b) if a == b => Degree::Exact(a),
        (a, b) => Degree::Range(a, b),
    })
}

/// The step modulo `m` of `coef · k·n` over integers `k`.
fn phase_step(coef: &Lin, n: u32, m: u64) -> u64 {
    let g = gcd(lin_gcd(coef, m), (coef.c as u64) & 0xffff_ffff);
    gcd((g * u64::from(n)) % m, m)
}

/// The cost of a fully active phase with lane stride `stride` bytes over every
/// base `base` allows.
fn evaluate(
    what: What,
    stride: i64,
    base: &Residues,
    size: u32,
    elems: u32,
    geo: &Geometry,
    lanes: u32,
) -> Degree {
    let (mut lo, mut hi) = (u64::MAX, 0);
    let mut r = u64::from(base.residue);
    for _ in 0..(base.modulus / base.step.max(1)).max(1) {
        let b = (r % u64::from(base.modulus)) as u32;
        r += u64::from(base.step);
        let align = base.align.max(1);
        if !b.is_multiple_of(align) || !(stride as u32).is_multiple_of(align) {
            continue;
        }
        let cost = phase_cost(what, b, stride as u32, size, elems, geo, lanes);
        lo = lo.min(cost);
        hi = hi.max(cost);
    }
    match (lo, hi) {
        (u64::MAX, _) => Degree::Unknown(Why::StrideUnknown),
        (a, b) if a == b => Degree::Exact(a),
        (a, b) => Degree::Range(a, b),
    }
}

/// The cost of one fully active phase whose lane `i` accesses `base + i·stride`,
/// counted as the memory model defines it (see `simt_core::MemoryModel`).
pub fn phase_cost(
    what: What,
    base: u32,
    stride: u32,
    size: u32,
    elems: u32,
    geo: &Geometry,
    lanes: u32,
) -> u64 {
    let offsets: Vec<u32> = (0..lanes).map(|i| i.wrapping_mul(stride)).collect();
    cost_of(what, base, &offsets, size, elems, geo)
}

/// The cost of one fully active phase whose lane `i` accesses
/// `base + offsets[i]`.
fn cost_of(what: What, base: u32, offsets: &[u32], size: u32, elems: u32, geo: &Geometry) -> u64 {
    let lanes = offsets.len() as u32;
    let addr = |i: u32| base.wrapping_add(offsets[i as usize]);
    match what {
        What::LdsCycles => {
            let shift = geo.lds_bank_bytes.max(1).trailing_zeros();
            let banks = geo.lds_banks.max(1);
            // A wide access is served in sub-phases of `phase_lanes / elems` lanes.
            let sub = (geo.phase_lanes / elems.max(1)).max(1);
            let mut total = 0;
            let mut first = 0;
            while first < lanes {
                let mut words: Vec<u32> = (first..(first + sub).min(lanes))
                    .flat_map(|i| (0..elems).map(move |e| addr(i).wrapping_add(4 * e) >> shift))
                    .collect();
                words.sort_unstable();
                words.dedup();
                let mut per_bank = vec![0u64; banks as usize];
                for w in words {
                    per_bank[(w % banks) as usize] += 1;
                }
                total += per_bank.into_iter().max().unwrap_or(1).saturating_sub(1);
                first += sub;
            }
            total
        }
        What::Lines | What::Sectors => {
            let unit = if what == What::Lines {
                geo.line_bytes
            } else {
                geo.sector_bytes
            }
            .max(1);
            let shift = unit.trailing_zeros();
            let mut keys: Vec<u32> = (0..lanes)
                .flat_map(|i| {
                    let a = addr(i);
                    let last = (size * elems).max(1) - 1;
                    [a >> shift, a.wrapping_add(last) >> shift]
                })
                .collect();
            keys.sort_unstable();
            keys.dedup();
            keys.len() as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nvidia() -> Geometry {
        Geometry {
            line_bytes: 128,
            sector_bytes: 32,
            ..Geometry::REFERENCE
        }
    }

    #[test]
    fn bank_conflicts_of_a_word_stride_are_its_gcd_with_the_banks() {
        let g = Geometry::REFERENCE;
        // 32 lanes, stride s words: gcd(s, 32) lanes share each busy bank.
        for (s, ways) in [(1u32, 1u64), (2, 2), (32, 32), (33, 1), (48, 16), (0, 1)] {
            let cycles = phase_cost(What::LdsCycles, 0, 4 * s, 4, 1, &g, 32);
            assert_eq!(cycles + 1, ways, "stride {s}");
        }
    }

    #[test]
    fn contiguous_words_touch_four_or_five_sectors_by_alignment() {
        // 32 lanes of 4 bytes: 128 bytes, 4 sectors of 32 from a 128-byte
        // boundary, 5 from any other 4-byte boundary; 1 or 2 lines of 128.
        let base = Residues {
            residue: 0,
            step: 4,
            modulus: 128,
            align: 4,
        };
        let g = nvidia();
        let sectors = evaluate(What::Sectors, 4, &base, 4, 1, &g, 32);
        assert_eq!(sectors, Degree::Range(4, 5));
        let aligned = Residues { step: 128, ..base };
        assert_eq!(
            evaluate(What::Sectors, 4, &aligned, 4, 1, &g, 32),
            Degree::Exact(4)
        );
        assert_eq!(
            evaluate(What::Lines, 4, &base, 4, 1, &g, 32),
            Degree::Range(1, 2)
        );
    }
}
