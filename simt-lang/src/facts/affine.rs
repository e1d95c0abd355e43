//! The abstract domain of the facts: a value is an affine form over the per-lane
//! bases (`lane_id`, `local_id.x/y/z`) whose coefficients, and whose uniform
//! remainder, are linear in wave-uniform symbols; anything else is unknown.
//!
//! Arithmetic is that of the machine, modulo 2^32: coefficients are kept
//! reduced to `i32` range so that `x - 1` and `x + 0xffff_ffff` are one form.

use crate::ir::{Axis, ParamIdx, Special};
use serde::Serialize;
use std::fmt;

/// A wave-uniform quantity the analysis cannot evaluate, named.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Sym {
    /// A scalar kernel parameter.
    Arg(ParamIdx),
    /// A uniform special value (`group_id.x`, `group_size.y`, `wave_id`, ...).
    Special(SpecialSym),
    /// `group_id * group_size` along an axis: the uniform part of `global_id`.
    GroupBase(AxisSym),
    /// The value of register slot `slot` as instruction `inst` leaves it: an
    /// opaque uniform result (a product of two symbols, a load from a uniform
    /// address), or a value merged where control flow joins (`endif`, a loop's head).
    Value {
        /// The instruction.
        inst: u32,
        /// The register slot (vector registers first, then scalar).
        slot: u16,
    },
}

/// An axis, ordered (for sorting symbols).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct AxisSym(pub u8);

/// A uniform special value, ordered (for sorting symbols).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum SpecialSym {
    /// `group_id` along an axis.
    GroupId(AxisSym),
    /// `group_size` along an axis.
    GroupSize(AxisSym),
    /// `num_groups` along an axis.
    NumGroups(AxisSym),
    /// `wave_id`.
    WaveId,
    /// `wave_width`.
    WaveWidth,
}

impl AxisSym {
    pub(crate) fn of(a: Axis) -> Self {
        AxisSym(a.index() as u8)
    }

    fn name(self) -> &'static str {
        ["x", "y", "z"][usize::from(self.0).min(2)]
    }
}

/// Reduces `v` modulo 2^32 into `i32` range.
pub(crate) fn wrap(v: i64) -> i64 {
    i64::from(v as i32)
}

/// A linear form in symbols: `c + Σ k·sym`, modulo 2^32.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Lin {
    /// The constant term.
    pub c: i64,
    /// The symbolic terms, sorted by symbol, none with a zero coefficient.
    pub terms: Vec<(Sym, i64)>,
}

impl Lin {
    /// The constant `c`.
    pub fn constant(c: i64) -> Self {
        Lin {
            c: wrap(c),
            terms: Vec::new(),
        }
    }

    /// `1·sym`.
    pub fn sym(s: Sym) -> Self {
        Lin {
            c: 0,
            terms: vec![(s, 1)],
        }
    }

    /// The constant, when the form has no symbol.
    pub fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.c)
    }

    /// Whether the form is the constant 0.
    pub fn is_zero(&self) -> bool {
        self.c == 0 && self.terms.is_empty()
    }

    /// `self + other`.
    pub fn add(&self, other: &Lin) -> Lin {
        let mut terms = self.terms.clone();
        for &(s, k) in &other.terms {
            match terms.binary_search_by(|t| t.0.cmp(&s)) {
                Ok(i) => {
                    terms[i].1 = wrap(terms[i].1 + k);
                    if terms[i].1 == 0 {
                        terms.remove(i);
                    }
                }
                Err(i) => terms.insert(i, (s, k)),
            }
        }
        Lin {
            c: wrap(self.c + other.c),
            terms,
        }
    }

    /// `k · self`.
    pub fn scale(&self, k: i64) -> Lin {
        let k = wrap(k);
        Lin {
            c: wrap(self.c.wrapping_mul(k)),
            terms: self
                .terms
                .iter()
                .map(|&(s, m)| (s, wrap(m.wrapping_mul(k))))
                .filter(|&(_, m)| m != 0)
                .collect(),
        }
    }

    /// `self · other` when one side is a constant.
    pub fn mul(&self, other: &Lin) -> Option<Lin> {
        match (self.as_const(), other.as_const()) {
            (Some(a), _) => Some(other.scale(a)),
            (_, Some(b)) => Some(self.scale(b)),
            _ => None,
        }
    }

    /// The symbols the form reads.
    pub fn syms(&self) -> impl Iterator<Item = Sym> + '_ {
        self.terms.iter().map(|&(s, _)| s)
    }

    /// The form with each symbol `f` knows replaced by its form.
    pub fn substitute(&self, f: &impl Fn(Sym) -> Option<Lin>) -> Lin {
        let mut out = Lin::constant(self.c);
        for &(s, k) in &self.terms {
            let term = f(s).unwrap_or_else(|| Lin::sym(s));
            out = out.add(&term.scale(k));
        }
        out
    }
}

/// The per-lane bases of a form, in [`Affine::per_lane`] order.
pub const BASES: [&str; 4] = ["lane_id", "local_id.x", "local_id.y", "local_id.z"];

/// `Σ coef_b · base_b + uni`: a value known as an affine form.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Affine {
    /// The coefficient of each per-lane base (see [`BASES`]).
    pub per_lane: [Lin; 4],
    /// The uniform remainder.
    pub uni: Lin,
}

impl Affine {
    /// A uniform form.
    pub fn uniform(uni: Lin) -> Self {
        Affine {
            per_lane: Default::default(),
            uni,
        }
    }

    /// Whether no per-lane base appears: every lane holds the same value.
    pub fn is_uniform(&self) -> bool {
        self.per_lane.iter().all(Lin::is_zero)
    }

    /// `self + other`.
    pub fn add(&self, other: &Affine) -> Affine {
        Affine {
            per_lane: std::array::from_fn(|b| self.per_lane[b].add(&other.per_lane[b])),
            uni: self.uni.add(&other.uni),
        }
    }

    /// `k · self`.
    pub fn scale(&self, k: i64) -> Affine {
        self.scale_lin(&Lin::constant(k), None).unwrap_or_default()
    }

    /// `self · k` for a uniform linear `k`, when every per-lane coefficient
    /// stays linear; a uniform part that does not is named `opaque`.
    fn scale_lin(&self, k: &Lin, opaque: Option<Sym>) -> Option<Affine> {
        let mut per_lane: [Lin; 4] = Default::default();
        for (dst, src) in per_lane.iter_mut().zip(&self.per_lane) {
            *dst = src.mul(k)?;
        }
        let uni = self.uni.mul(k).or_else(|| opaque.map(Lin::sym))?;
        Some(Affine { per_lane, uni })
    }

    /// `self · other`, when it stays affine: one side uniform, and the products
    /// of per-lane coefficients linear. A product of two symbolic uniform parts
    /// (`group_id.x * stride`) is uniform but not linear: it is named `opaque`
    /// when given.
    pub fn mul(&self, other: &Affine, opaque: Option<Sym>) -> Option<Affine> {
        if other.is_uniform() {
            self.scale_lin(&other.uni, opaque)
        } else if self.is_uniform() {
            other.scale_lin(&self.uni, opaque)
        } else {
            None
        }
    }

    /// The form with each symbol `f` knows replaced by its form.
    pub fn substitute(&self, f: &impl Fn(Sym) -> Option<Lin>) -> Affine {
        Affine {
            per_lane: std::array::from_fn(|b| self.per_lane[b].substitute(f)),
            uni: self.uni.substitute(f),
        }
    }

    /// The symbols the form reads.
    pub fn syms(&self) -> impl Iterator<Item = Sym> + '_ {
        self.per_lane
            .iter()
            .chain(std::iter::once(&self.uni))
            .flat_map(Lin::syms)
    }
}

/// What the analysis knows of a value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Val {
    /// An affine form.
    Known(Affine),
    /// Anything: data from memory, masks mixed in, a non-linear operation.
    #[default]
    Unknown,
}

impl Val {
    /// The uniform value `c`.
    pub fn constant(c: i64) -> Val {
        Val::Known(Affine::uniform(Lin::constant(c)))
    }

    /// The form, when known.
    pub fn affine(&self) -> Option<&Affine> {
        match self {
            Val::Known(a) => Some(a),
            Val::Unknown => None,
        }
    }
}

/// The form of a special value.
pub(crate) fn special(s: Special) -> Affine {
    let base = |b: usize| {
        let mut a = Affine::default();
        a.per_lane[b] = Lin::constant(1);
        a
    };
    let uni = |s: SpecialSym| Affine::uniform(Lin::sym(Sym::Special(s)));
    match s {
        Special::LaneId => base(0),
        Special::LocalId(a) => base(1 + a.index()),
        Special::GlobalId(a) => {
            let mut f = base(1 + a.index());
            f.uni = Lin::sym(Sym::GroupBase(AxisSym::of(a)));
            f
        }
        Special::GroupId(a) => uni(SpecialSym::GroupId(AxisSym::of(a))),
        Special::GroupSize(a) => uni(SpecialSym::GroupSize(AxisSym::of(a))),
        Special::NumGroups(a) => uni(SpecialSym::NumGroups(AxisSym::of(a))),
        Special::WaveId => uni(SpecialSym::WaveId),
        Special::WaveWidth => uni(SpecialSym::WaveWidth),
    }
}

/// What a launch's workgroup shape and wave width say of the uniform symbols:
/// `group_size` and `wave_width` are constants, `group_id * group_size` a
/// multiple of the size.
pub fn launch_values(shape: Option<[u32; 3]>, width: Option<u32>) -> impl Fn(Sym) -> Option<Lin> {
    move |s| match s {
        Sym::Special(SpecialSym::GroupSize(a)) => {
            shape.map(|sh| Lin::constant(i64::from(sh[usize::from(a.0).min(2)])))
        }
        Sym::Special(SpecialSym::WaveWidth) => width.map(|w| Lin::constant(i64::from(w))),
        Sym::GroupBase(a) => shape.map(|sh| {
            Lin::sym(Sym::Special(SpecialSym::GroupId(a)))
                .scale(i64::from(sh[usize::from(a.0).min(2)]))
        }),
        _ => None,
    }
}

/// How a symbol is spelled, given the kernel's parameter and register names.
#[derive(Clone, Copy, Debug, Default)]
pub struct SymNames<'a> {
    /// The kernel's parameters.
    pub params: &'a [crate::ir::Param],
    /// The names the kernel gave its registers.
    pub regs: &'a [crate::ir::RegName],
    /// Its vector registers: register slots past them are scalar.
    pub vregs: u16,
}

impl<'a> SymNames<'a> {
    /// The names of `program`'s parameters and registers.
    pub fn of(program: &'a crate::ir::Program) -> Self {
        SymNames {
            params: &program.params,
            regs: &program.reg_names,
            vregs: program.vregs,
        }
    }
}

impl SymNames<'_> {
    /// The register of slot `slot` (vector registers first, then scalar), by
    /// the name the kernel gave it or its number.
    fn register(&self, slot: u16) -> String {
        use crate::ir::{Reg, SReg, VReg};
        let reg = if slot < self.vregs {
            Reg::V(VReg(slot))
        } else {
            Reg::S(SReg(slot - self.vregs))
        };
        self.regs.iter().find(|n| n.reg == reg).map_or_else(
            || {
                let (class, n) = reg.parts();
                format!("{class}{n}")
            },
            |n| n.name.to_string(),
        )
    }

    /// `sym` as written in a fact.
    pub fn sym(&self, s: Sym) -> String {
        match s {
            Sym::Arg(p) => self
                .params
                .get(usize::from(p.0))
                .map_or_else(|| format!("arg{}", p.0), |p| p.name.to_string()),
            Sym::Special(SpecialSym::GroupId(a)) => format!("group_id.{}", a.name()),
            Sym::Special(SpecialSym::GroupSize(a)) => format!("group_size.{}", a.name()),
            Sym::Special(SpecialSym::NumGroups(a)) => format!("num_groups.{}", a.name()),
            Sym::Special(SpecialSym::WaveId) => "wave_id".to_owned(),
            Sym::Special(SpecialSym::WaveWidth) => "wave_width".to_owned(),
            Sym::GroupBase(a) => format!("group_id.{0}*group_size.{0}", a.name()),
            Sym::Value { slot, .. } => self.register(slot),
        }
    }

    /// `lin` as written in a fact (`2*pitch + 1`).
    pub fn lin(&self, lin: &Lin) -> String {
        let mut parts: Vec<String> = lin
            .terms
            .iter()
            .map(|&(s, k)| match k {
                1 => self.sym(s),
                -1 => format!("-{}", self.sym(s)),
                k => format!("{k}*{}", self.sym(s)),
            })
            .collect();
        if lin.c != 0 || parts.is_empty() {
            parts.push(lin.c.to_string());
        }
        parts.join(" + ").replace("+ -", "- ")
    }
}

impl fmt::Display for Lin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&SymNames::default().lin(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_wraps_modulo_two_to_the_32() {
        let x = Lin::sym(Sym::Arg(ParamIdx(0)));
        // x + 0xffff_ffff is x - 1 on 32 bits.
        let a = x.add(&Lin::constant(0xffff_ffff));
        assert_eq!(a, x.add(&Lin::constant(-1)));
        // x - x is 0: the term disappears.
        assert!(x.add(&x.scale(-1)).is_zero());
    }

    #[test]
    fn products_stay_affine_only_with_a_uniform_side() {
        let lane = special(Special::LaneId);
        let pitch = Affine::uniform(Lin::sym(Sym::Arg(ParamIdx(1))));
        let p = lane.mul(&pitch, None).expect("lane * pitch is affine");
        assert_eq!(p.per_lane[0], Lin::sym(Sym::Arg(ParamIdx(1))));
        assert!(lane.mul(&lane, None).is_none());
        // (lane * pitch) * pitch is quadratic in the symbol.
        assert!(p.mul(&pitch, None).is_none());
    }
}
