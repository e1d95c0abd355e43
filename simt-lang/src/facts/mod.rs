//! Static facts about a kernel's memory accesses, proved for every launch (under
//! stated assumptions) from the program alone:
//!
//! - [`affine`]: the abstract domain, affine forms over the per-lane bases with
//!   uniform symbolic coefficients;
//! - [`access`]: per memory instruction, the LDS conflict cycles and the global
//!   lines and sectors of a fully active phase;
//! - [`race`]: per pair of accesses that may run in one barrier interval, whether
//!   two work-items can touch the same bytes, with a witness when they can.
//!
//! [`facts`] is a pure function of a validated program; the queries take the
//! memory geometry and the wave width, so a contract check is a query
//! (`facts.lds_conflicts(inst, &geometry, 32)`).

pub mod access;
pub mod affine;
pub mod race;
mod walk;

pub use access::{
    phase_cost, Access, AccessKind, Assumption, Condition, Degree, Fact, Geometry, Space, What,
    Why,
};
pub use affine::{Affine, Lin, Sym, SymNames, Val};
pub use race::{Pair, Verdict, Witness};
pub use walk::{Cond, Guard};

use crate::ir::{Addressing, Program};
use crate::isa::{MemRef, Role};
use serde::Serialize;

/// The facts of one program.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Facts {
    /// The workgroup shape the facts were decided under, when one was given.
    pub shape: Option<[u32; 3]>,
    /// Per instruction (indexed like [`Program::insts`]), its access when it is a
    /// memory instruction.
    pub accesses: Vec<Option<Access>>,
    /// The verdict of every pair of accesses that may race.
    pub pairs: Vec<Pair>,
}

/// The facts of `program`, which must have passed [`validate`](crate::validate),
/// for workgroups of `shape` when it is known (declared or launched), or for any
/// shape otherwise (facts then carry the assumptions they need).
pub fn facts(program: &Program, shape: Option<[u32; 3]>) -> Facts {
    let Some(uniformity) = crate::uniformity(program) else {
        return Facts {
            shape,
            accesses: vec![None; program.insts.len()],
            pairs: Vec::new(),
        };
    };
    let walk = walk::Walk::run(program, &uniformity);
    let accesses: Vec<Option<Access>> = program
        .insts
        .iter()
        .zip(&walk.sites)
        .map(|(inst, site)| {
            let site = site.as_ref()?;
            let fields = inst.fields();
            let (role, mem) = fields.memory()?;
            let elems = u32::from(fields.run_length());
            let size = fields.access().map_or(4, |t| t.size());
            let kind = match role {
                Role::GlobalLoad | Role::LdsLoad => AccessKind::Load,
                Role::GlobalStore | Role::LdsStore => AccessKind::Store,
                _ => AccessKind::Atomic,
            };
            let (space, addressing, origin) = match mem {
                MemRef::Global(g) => (Space::Global(g.buffer), g.addressing, 0),
                MemRef::Lds(l) => (
                    Space::Lds(l.lds),
                    l.addressing,
                    program.lds.get(usize::from(l.lds.0)).map_or(0, |d| d.offset),
                ),
            };
            let element = addressing == Addressing::Element;
            Some(Access::new(site, space, kind, size, elems, element, origin))
        })
        .collect();
    let pairs = race::pairs(program, &uniformity, &accesses, shape);
    Facts {
        shape,
        accesses,
        pairs,
    }
}

impl Facts {
    fn query(&self, inst: usize, what: What, geo: &Geometry, width: u32) -> Option<Fact> {
        let access = self.accesses.get(inst)?.as_ref()?;
        let lds = matches!(access.space, Space::Lds(_));
        (lds == (what == What::LdsCycles))
            .then(|| access::fact(access, what, geo, width, self.shape))
    }

    /// The LDS conflict cycles of a fully active phase of instruction `inst`
    /// (`n`-way conflicts cost `n - 1` cycles), or `None` when it is not an LDS access.
    pub fn lds_conflicts(&self, inst: usize, geo: &Geometry, width: u32) -> Option<Fact> {
        self.query(inst, What::LdsCycles, geo, width)
    }

    /// The distinct lines a fully active phase of global access `inst` touches.
    pub fn global_lines(&self, inst: usize, geo: &Geometry, width: u32) -> Option<Fact> {
        self.query(inst, What::Lines, geo, width)
    }

    /// The distinct sectors a fully active phase of global access `inst` touches.
    pub fn global_sectors(&self, inst: usize, geo: &Geometry, width: u32) -> Option<Fact> {
        self.query(inst, What::Sectors, geo, width)
    }

    /// The verdicts of the pairs instruction `inst` belongs to.
    pub fn pairs_of(&self, inst: usize) -> impl Iterator<Item = &Pair> {
        self.pairs
            .iter()
            .filter(move |p| p.a as usize == inst || p.b as usize == inst)
    }
}
