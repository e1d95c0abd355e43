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
    phase_cost, Access, AccessKind, Assumption, Condition, Degree, Fact, Geometry, Memory, What,
    Why,
};
pub use affine::{launch_values, Affine, AxisSym, Lin, SpecialSym, Sym, SymNames, Val};
pub use race::{
    split_wave, wave_uniform, LaneOrder, LaunchRace, Pair, RaceAssumption, Verdict, Witness,
    WorkItem,
};
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
    /// Per instruction, for an `if`, the comparison its mask came from, when
    /// the walk could follow it.
    pub conds: Vec<Option<Cond>>,
    /// Whether the program has wave barriers (which order lanes of one wave
    /// when they are independent, and which the race search does not follow).
    pub wave_barriers: bool,
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
            conds: vec![None; program.insts.len()],
            wave_barriers: race::has_wave_barriers(program),
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
            // What an index counts: bytes, or the buffer's or array's
            // elements (a 64-bit one is two of a wide access's words).
            let (space, addressing, scale, origin) = match mem {
                MemRef::Global(g) => (
                    Memory::Global(g.buffer),
                    g.addressing,
                    program
                        .params
                        .get(usize::from(g.buffer.0))
                        .map_or(size, |p| p.kind.elem_size()),
                    0,
                ),
                MemRef::Lds(l) => {
                    let decl = program.lds.get(usize::from(l.lds.0));
                    (
                        Memory::Lds(l.lds),
                        l.addressing,
                        decl.map_or(size, |d| d.elem.size()),
                        decl.map_or(0, |d| d.offset),
                    )
                }
            };
            let unit = match addressing {
                Addressing::Element => scale,
                Addressing::Byte => 1,
            };
            Some(Access::new(site, space, kind, size, elems, unit, origin))
        })
        .collect();
    let pairs = race::pairs(program, &uniformity, &accesses, shape);
    Facts {
        shape,
        accesses,
        pairs,
        conds: walk.conds,
        wave_barriers: race::has_wave_barriers(program),
    }
}

impl Facts {
    fn query(&self, inst: usize, what: What, geo: &Geometry, width: u32) -> Option<Fact> {
        let access = self.accesses.get(inst)?.as_ref()?;
        let lds = matches!(access.space, Memory::Lds(_));
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

    /// The byte distance between neighbouring lanes of a phase of memory
    /// instruction `inst` in waves of `width` lanes, when it is a constant
    /// (lanes of a phase differ only in `lane_id` and `local_id.x`).
    pub fn lane_stride(&self, inst: usize, width: u32) -> Option<i64> {
        let access = self.accesses.get(inst)?.as_ref()?;
        let a = access
            .addr
            .affine()?
            .substitute(&affine::launch_values(self.shape, Some(width)));
        a.per_lane[0].add(&a.per_lane[1]).as_const()
    }

    /// The bytes to pad an LDS pitch by so that lanes `stride` bytes apart,
    /// each accessing `lane_bytes`, stop meeting in one bank: one access's
    /// width (a word, at least), when the stride is an even number of them;
    /// `None` when padding by it would not help. A lane of `f64`s pads by
    /// eight bytes, since its array's index cannot pad by a word.
    pub fn pitch_padding(stride: u64, lane_bytes: u32, bank_bytes: u32) -> Option<u64> {
        let unit = u64::from(lane_bytes.max(bank_bytes).max(1));
        let units = stride / unit;
        (stride.is_multiple_of(unit) && units > 0 && units.is_multiple_of(2)).then_some(unit)
    }

    /// The verdicts of the pairs instruction `inst` belongs to.
    pub fn pairs_of(&self, inst: usize) -> impl Iterator<Item = &Pair> {
        self.pairs
            .iter()
            .filter(move |p| p.a as usize == inst || p.b as usize == inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Axis, ElemType, GlobalRef, LdsRef, Operand, ScalarType, Special, VReg};
    use crate::isa::{BinOp, Inst};
    use crate::ProgramBuilder;

    const LANE: Operand = Operand::Special(Special::LaneId);
    const X: Operand = Operand::Special(Special::LocalId(Axis::X));
    const GID: Operand = Operand::Special(Special::GlobalId(Axis::X));

    /// `lds_load v1, tile[a * b]`: the facts and the load's index.
    fn lds_product(a: Operand, b: impl Fn(&mut ProgramBuilder) -> Operand) -> (Facts, usize) {
        let mut pb = ProgramBuilder::new("k");
        let k = b(&mut pb);
        let tile = pb.lds("tile", ElemType::U32, 4096);
        pb.push(Inst::VBinary {
            op: BinOp::MulU32,
            dst: VReg(0),
            a,
            b: k,
        });
        pb.push(Inst::LdsLoad {
            ty: ElemType::U32,
            dst: VReg(1),
            src: LdsRef::element(tile, Operand::V(VReg(0))),
        });
        let kernel = pb.build().expect("valid");
        (facts(kernel.program(), None), 1)
    }

    #[test]
    fn a_lane_stride_of_32_words_is_a_32_way_conflict_and_33_is_free() {
        let g = Geometry::REFERENCE;
        for (k, cycles) in [(32, 31), (33, 0), (16, 15), (1, 0)] {
            let (f, at) = lds_product(LANE, |_| Operand::Imm(k));
            let fact = f.lds_conflicts(at, &g, 32).expect("an LDS access");
            // Stride k words on 32 banks: gcd(k, 32)-way, gcd - 1 extra cycles.
            assert_eq!(fact.value, Degree::Exact(cycles), "stride {k}");
            assert!(fact.assumptions.is_empty(), "lane_id needs no shape");
        }
    }

    #[test]
    fn a_symbolic_pitch_gives_a_condition_on_its_value() {
        let (f, at) = lds_product(X, |pb| Operand::Arg(pb.scalar("pitch", ScalarType::U32)));
        let fact = f
            .lds_conflicts(at, &Geometry::REFERENCE, 32)
            .expect("an LDS access");
        assert_eq!(fact.assumptions, [Assumption::GroupXMultipleOf(32)]);
        let Degree::Condition(c) = &fact.value else {
            panic!("{fact:?}");
        };
        // gcd(pitch, 32)-way: odd pitches are conflict-free, multiples of 32
        // put every lane on one bank.
        for (pitch, cycles) in [
            (1, 0),
            (3, 0),
            (33, 0),
            (2, 1),
            (48, 15),
            (32, 31),
            (64, 31),
        ] {
            assert_eq!(
                c.at(|_| Some(pitch)),
                Some(Degree::Exact(cycles)),
                "{pitch}"
            );
        }
    }

    /// `global_load v0, x[global_id.x + off]` under the NVIDIA geometry.
    fn contiguous(off: impl Fn(&mut ProgramBuilder) -> Operand, shape: Option<[u32; 3]>) -> Fact {
        let mut pb = ProgramBuilder::new("k");
        let x = pb.buffer::<u32>("x");
        let offset = off(&mut pb);
        pb.push(Inst::GlobalLoad {
            ty: ElemType::U32,
            dst: VReg(0),
            src: GlobalRef {
                offset,
                ..GlobalRef::element(x, GID)
            },
        });
        let kernel = pb.build().expect("valid");
        let geo = Geometry {
            line_bytes: 128,
            sector_bytes: 32,
            ..Geometry::REFERENCE
        };
        facts(kernel.program(), shape)
            .global_sectors(0, &geo, 32)
            .expect("a global access")
    }

    #[test]
    fn contiguous_lanes_touch_four_or_five_sectors_by_their_alignment() {
        // 32 lanes x 4 bytes = 128 bytes: 4 sectors of 32 when the phase starts
        // on a 128-byte boundary (a multiple of 32 work-items per row), 5 when
        // it starts one element later, either when the offset is unknown.
        let aligned = contiguous(|_| Operand::Imm(0), None);
        assert_eq!(aligned.value, Degree::Exact(4));
        assert_eq!(aligned.assumptions, [Assumption::GroupXMultipleOf(32)]);
        assert_eq!(
            contiguous(|_| Operand::Imm(1), None).value,
            Degree::Exact(5)
        );
        let unknown = contiguous(|pb| Operand::Arg(pb.scalar("n", ScalarType::U32)), None);
        assert_eq!(unknown.value, Degree::Range(4, 5));
        // A shape decides the assumption: 48 work-items a row put a phase on
        // two rows.
        let decided = contiguous(|_| Operand::Imm(0), Some([64, 2, 1]));
        assert_eq!(decided.value, Degree::Exact(4));
        assert!(decided.assumptions.is_empty());
        // 48 work-items a row: the second phase is x 32..47 of row 0 and x
        // 0..15 of row 1, two runs of 64 bytes, each two sectors from a
        // 32-byte boundary; the third, x 16..47 of row 1, four.
        let split = contiguous(|_| Operand::Imm(0), Some([48, 2, 1]));
        assert_eq!(split.value, Degree::Exact(4));
    }

    /// A 16x16 tile with a 33-word pitch at wave32: a phase of 32 lanes is
    /// two rows, lane `x` of the second row a word past lane `x + 1` of
    /// the first, modulo the 32 banks: a 2-way conflict (one extra cycle),
    /// counted with the rows placed, not unknown.
    #[test]
    fn a_phase_over_two_rows_is_counted_with_its_rows() {
        let mut pb = ProgramBuilder::new("k");
        let tile = pb.lds("tile", ElemType::U32, 16 * 33);
        pb.push(Inst::VTernary {
            op: crate::isa::TernOp::MadU32,
            dst: VReg(0),
            a: Operand::Special(Special::LocalId(Axis::Y)),
            b: Operand::Imm(33),
            c: X,
        });
        pb.push(Inst::LdsLoad {
            ty: ElemType::U32,
            dst: VReg(1),
            src: LdsRef::element(tile, Operand::V(VReg(0))),
        });
        let kernel = pb.build().expect("valid");
        let f = facts(kernel.program(), Some([16, 16, 1]));
        let fact = f
            .lds_conflicts(1, &Geometry::REFERENCE, 32)
            .expect("an LDS access");
        assert_eq!(fact.value, Degree::Exact(1));
        assert!(fact.assumptions.is_empty());
    }

    /// Forty nested loops: each walk of a loop walks the loops inside it
    /// again, so without the walk's budget this would take 2^40 walks. Past
    /// the budget a loop takes what its body writes as unknown, so what it
    /// does not write stays known.
    #[test]
    fn deeply_nested_loops_are_walked_within_a_budget() {
        const DEPTH: usize = 40;
        let mut pb = ProgramBuilder::new("k");
        let x = pb.buffer::<u32>("x");
        let unlinked = crate::ir::InstIdx::UNLINKED;
        for _ in 0..DEPTH {
            pb.push(Inst::Loop { end: unlinked });
            pb.push(Inst::VBinary {
                op: BinOp::AddU32,
                dst: VReg(1),
                a: Operand::V(VReg(1)),
                b: Operand::Imm(1),
            });
        }
        let load = |index| Inst::GlobalLoad {
            ty: ElemType::U32,
            dst: VReg(0),
            src: GlobalRef::element(x, index),
        };
        pb.push(load(GID));
        pb.push(load(Operand::V(VReg(1))));
        for _ in 0..DEPTH {
            pb.push(Inst::EndLoop {
                mask: crate::ir::MReg(0),
                start: unlinked,
            });
        }
        let kernel = pb.build().expect("valid");
        let f = facts(kernel.program(), Some([64, 1, 1]));
        let geo = Geometry::REFERENCE;
        let at = 2 * DEPTH;
        let by_id = f.global_sectors(at, &geo, 32).expect("a global access");
        assert!(
            !matches!(by_id.value, Degree::Unknown(_)),
            "{:?}",
            by_id.value
        );
        let by_counter = f.global_sectors(at + 1, &geo, 32).expect("a global access");
        assert!(
            matches!(by_counter.value, Degree::Unknown(_)),
            "{:?}",
            by_counter.value
        );
    }
}
