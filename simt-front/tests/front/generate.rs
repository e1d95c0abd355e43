//! Valid kernels as IR: terminating, in bounds, with barriers only where every
//! wave of a workgroup reaches them with its whole launch mask, spread over the
//! whole mnemonic table, then printed as kernel text with some registers named
//! and some numbered.
//!
//! Registers fall in two groups. The general ones (`v0..v11`, `s0..s5`,
//! `m0..m5`) are what random instructions write and read. The others are kept
//! for the generator's own bookkeeping and only read by random instructions: the
//! memory index register, a vector and a scalar trip counter and a loop mask per
//! nesting depth, and a mask per depth for workgroup-uniform `if`s. So a loop
//! runs at most three times per entry, an index is always masked into its
//! array, and a barrier's control flow is workgroup-uniform by construction.

use crate::roundtrip::Picks;
use simt_lang::isa::{lookup, Field, ImmType, MemRef, Mnemonic, Op, Role, MNEMONICS};
use simt_lang::{
    Addressing, Atomic64Op, AtomicOp, Axis, ElemType, GlobalRef, Inst, LdsIdx, LdsRef, MReg,
    Opcode, Operand, ParamIdx, Program, ProgramBuilder, Reg, SReg, ScalarType, Special, VReg,
};
use std::collections::BTreeSet;

/// (name, element type, writable, elements): the buffer parameters, in order.
pub(crate) const BUFFERS: &[(&str, ElemType, bool, u32)] = &[
    ("bu8", ElemType::U8, false, 256),
    ("wu8", ElemType::U8, true, 256),
    ("wi16", ElemType::I16, true, 128),
    ("bu32", ElemType::U32, false, 128),
    ("wu32", ElemType::U32, true, 128),
    ("wi32", ElemType::I32, true, 128),
    ("bf32", ElemType::F32, false, 128),
    ("wf32", ElemType::F32, true, 128),
    ("wf16", ElemType::F16, true, 128),
    ("wbf16", ElemType::BF16, true, 128),
    ("wu64", ElemType::U64, true, 64),
    ("wf64", ElemType::F64, true, 64),
];

/// The scalar parameters, after the buffers.
pub(crate) const SCALARS: &[(&str, ScalarType)] = &[
    ("n", ScalarType::U32),
    ("k", ScalarType::I32),
    ("a", ScalarType::F32),
];

/// (name, element type, elements): the LDS arrays.
const LDS: &[(&str, ElemType, u32)] = &[
    ("tu32", ElemType::U32, 512),
    ("tf32", ElemType::F32, 256),
    ("ti16", ElemType::I16, 64),
    ("tu8", ElemType::U8, 16),
    ("th16", ElemType::F16, 64),
    ("tb16", ElemType::BF16, 64),
    ("tu64", ElemType::U64, 32),
    ("tf64", ElemType::F64, 32),
];

/// Vector registers that appear only in the register lists of wide loads and
/// stores, numbered below the others: a front end that does not reserve a
/// numbered register written only in a list (`[v0, v1]`) puts a named register
/// on it, and what the wide access moves then shows in that register.
const LISTED: u16 = 6;
/// The general vector registers, `LISTED..GENERAL_V`.
const GENERAL_V: u16 = LISTED + 12;
const GENERAL_S: u16 = 6;
const GENERAL_M: u16 = 6;
/// The memory index register.
const ADDR: u16 = GENERAL_V;
/// Per depth: a loop's vector trip counter, scalar trip counter, loop mask and
/// uniform `if` mask.
const VCOUNT: u16 = GENERAL_V + 1;
const SCOUNT: u16 = GENERAL_S;
const MLOOP: u16 = GENERAL_M;
const MIF: u16 = GENERAL_M + 3;
const ALL_V: u16 = VCOUNT + 3;
const ALL_S: u16 = SCOUNT + 3;
const ALL_M: u16 = MIF + 3;
const MAX_DEPTH: usize = 3;

/// A generated kernel: its IR and how each instruction is spelled.
pub(crate) struct Generated {
    /// The program the generator built (registers in its own numbering), with
    /// `end` last; its targets are unlinked.
    pub(crate) program: Program,
    /// The mnemonic of each instruction but the final `end`.
    pub(crate) spellings: Vec<&'static Mnemonic>,
}

impl Generated {
    /// The kernel as text: the disassembler's, with each instruction spelled
    /// with the mnemonic the generator chose (a synonym such as `v_add_i32`, or
    /// the typed form of a load).
    pub(crate) fn text(&self) -> String {
        let printed = self.program.display().to_string();
        let mut k = 0;
        let mut out = String::new();
        for line in printed.lines() {
            let body = line.trim_start();
            let is_inst = line.starts_with("    ")
                && !["lds ", "vreg ", "sreg ", "mreg "]
                    .iter()
                    .any(|d| body.starts_with(d));
            if is_inst && k < self.spellings.len() {
                let indent = &line[..line.len() - body.len()];
                let rest = body.split_once(' ').map_or("", |(_, r)| r);
                let name = self.spellings[k].name;
                out.push_str(indent);
                out.push_str(name);
                if !rest.is_empty() {
                    out.push(' ');
                    out.push_str(rest);
                }
                k += 1;
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
        out
    }
}

/// Where the generator stands in the nesting.
#[derive(Clone, Copy)]
struct Context {
    depth: usize,
    /// Every construct around is workgroup-uniform and no lane can have left:
    /// a barrier is reached by every wave with its launch mask.
    barrier: bool,
    /// The innermost loop may be left by `break` and `continue`.
    exits: bool,
}

struct Gen<'p> {
    p: Picks<'p>,
    insts: Vec<Inst>,
    spellings: Vec<&'static Mnemonic>,
    /// Whether a memory index may now and then be left unmasked, so that the
    /// kernel may fault out of bounds or misaligned.
    faulty: bool,
}

fn mnemonic(name: &str) -> &'static Mnemonic {
    lookup(name).unwrap_or_else(|| panic!("no mnemonic {name}"))
}

fn is_control(m: &Mnemonic) -> bool {
    // Barriers go only where the generator knows the mask is workgroup-uniform.
    crate::roundtrip::is_control(m) || m.opcode == Opcode::Barrier
}

const INTS: &[u32] = &[
    0,
    1,
    2,
    3,
    5,
    7,
    16,
    31,
    32,
    33,
    64,
    255,
    65535,
    65536,
    0x7fff_ffff,
    0x8000_0000,
    u32::MAX,
    -2i32 as u32,
    -7i32 as u32,
    -33i32 as u32,
];

const FLOATS: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1.5,
    2.0,
    3.0,
    -2.5,
    100.0,
    0.1,
    1e30,
    -1e-30,
    16_777_216.0,
    f32::MAX,
    f32::MIN_POSITIVE,
    1e-40,
];

const PER_LANE: &[Special] = &[
    Special::LaneId,
    Special::LocalId(Axis::X),
    Special::LocalId(Axis::Y),
    Special::LocalId(Axis::Z),
    Special::GlobalId(Axis::X),
    Special::GlobalId(Axis::Y),
    Special::GlobalId(Axis::Z),
];

/// Workgroup-uniform special values.
const GROUP_UNIFORM: &[Special] = &[
    Special::GroupId(Axis::X),
    Special::GroupId(Axis::Y),
    Special::GroupId(Axis::Z),
    Special::GroupSize(Axis::X),
    Special::GroupSize(Axis::Y),
    Special::NumGroups(Axis::X),
    Special::NumGroups(Axis::Z),
    Special::WaveWidth,
];

impl Gen<'_> {
    fn emit(&mut self, inst: Inst, m: &'static Mnemonic) {
        self.insts.push(inst);
        self.spellings.push(m);
    }

    /// Emits `inst` spelled by the first mnemonic of its opcode and operations.
    fn emit_plain(&mut self, inst: Inst) {
        let m = simt_lang::isa::spelling(&inst).unwrap_or_else(|| panic!("no spelling {inst:?}"));
        self.emit(inst, m);
    }

    fn imm(&mut self, ty: ImmType) -> u32 {
        match ty {
            ImmType::Int => {
                if self.p.chance(3) {
                    INTS[self.p.below(INTS.len())]
                } else {
                    self.p.below(1 << 32) as u32
                }
            }
            ImmType::F32 => {
                if self.p.chance(3) {
                    FLOATS[self.p.below(FLOATS.len())].to_bits()
                } else {
                    // Finite: an infinity or NaN has no literal in an `f32`
                    // position.
                    let bits = self.p.below(1 << 32) as u32;
                    if f32::from_bits(bits).is_finite() {
                        bits
                    } else {
                        bits & !0x4000_0000
                    }
                }
            }
            ImmType::F16 | ImmType::Bf16 => {
                // Any finite value of the format, in the low 16 bits.
                let bits = self.p.below(1 << 16) as u32;
                let exp_field = if ty == ImmType::F16 { 0x7c00 } else { 0x7f80 };
                if bits & exp_field == exp_field {
                    bits & !0x4000
                } else {
                    bits
                }
            }
            ImmType::Bits | ImmType::Access => {
                if self.p.chance(2) {
                    self.imm(ImmType::Int)
                } else {
                    self.imm(ImmType::F32)
                }
            }
        }
    }

    /// A vector register to read: any but the listed ones.
    fn vreg(&mut self) -> VReg {
        VReg(LISTED + self.p.below((ALL_V - LISTED) as usize) as u16)
    }

    /// A general vector register to write.
    fn vdst(&mut self) -> VReg {
        VReg(LISTED + self.p.below((GENERAL_V - LISTED) as usize) as u16)
    }

    /// The first register of a list of `count`: listed registers or general ones.
    fn run(&mut self, count: u16) -> VReg {
        if self.p.chance(2) {
            VReg(self.p.below((LISTED - count + 1) as usize) as u16)
        } else {
            VReg(LISTED + self.p.below((GENERAL_V - LISTED - count + 1) as usize) as u16)
        }
    }

    fn arg(&mut self, ty: ImmType) -> Operand {
        let i = match ty {
            ImmType::F32 => 2,
            ImmType::Int => self.p.below(2),
            _ => self.p.below(3),
        };
        Operand::Arg(ParamIdx((BUFFERS.len() + i) as u16))
    }

    /// A value read per lane.
    fn value(&mut self, ty: ImmType) -> Operand {
        match self.p.below(10) {
            0..=3 => Operand::V(self.vreg()),
            4 => Operand::S(SReg(self.p.below(ALL_S as usize) as u16)),
            5 => Operand::Special(PER_LANE[self.p.below(PER_LANE.len())]),
            6 => self.uniform(ty),
            7 => self.arg(ty),
            _ => Operand::Imm(self.imm(ty)),
        }
    }

    /// A value read once per wave.
    fn uniform(&mut self, ty: ImmType) -> Operand {
        match self.p.below(6) {
            0 | 1 => Operand::S(SReg(self.p.below(ALL_S as usize) as u16)),
            2 => {
                if self.p.chance(1) {
                    Operand::Special(Special::WaveId)
                } else {
                    Operand::Special(GROUP_UNIFORM[self.p.below(GROUP_UNIFORM.len())])
                }
            }
            3 => self.arg(ty),
            _ => Operand::Imm(self.imm(ty)),
        }
    }

    /// A value that is the same in every wave of the workgroup.
    fn group_uniform(&mut self) -> Operand {
        match self.p.below(3) {
            0 => Operand::Special(GROUP_UNIFORM[self.p.below(GROUP_UNIFORM.len())]),
            1 => self.arg(ImmType::Int),
            _ => Operand::Imm(self.p.below(4) as u32),
        }
    }

    fn any_mask(&mut self) -> MReg {
        MReg(self.p.below(ALL_M as usize) as u16)
    }

    /// A mask register compared afresh, or one already written.
    fn divergent_mask(&mut self) -> MReg {
        let m = MReg(self.p.below(GENERAL_M as usize) as u16);
        if self.p.chance(3) {
            let cmps: Vec<&'static Mnemonic> = MNEMONICS
                .iter()
                .filter(|c| c.opcode == Opcode::VCmp)
                .collect();
            let c = cmps[self.p.below(cmps.len())];
            let ty = c.imm_type();
            let (a, b) = if ty == ImmType::Int && self.p.chance(2) {
                // Lanes split by their id: some in, some out.
                let id = Operand::Special(PER_LANE[self.p.below(2)]);
                (id, Operand::Imm(1 + self.p.below(48) as u32))
            } else {
                (self.value(ty), self.value(ty))
            };
            if let Some(Inst::VCmp { op, ty, .. }) = c.template() {
                self.emit(
                    Inst::VCmp {
                        op,
                        ty,
                        dst: m,
                        a,
                        b,
                    },
                    c,
                );
            }
        }
        m
    }

    /// One instruction of mnemonic `m` (not control flow), with the
    /// instructions that compute its memory index first.
    fn instruction(&mut self, m: &'static Mnemonic) {
        if m.opcode == simt_lang::isa::Opcode::Print {
            let n = self.p.below(FORMATS.len());
            let mut values = [Operand::Imm(0); 4];
            for v in values.iter_mut().take(n) {
                *v = self.value(ImmType::Bits);
            }
            let [a, b, c, d] = values;
            let format = simt_lang::PrintFormat {
                index: n as u16,
                values: n as u8,
            };
            self.emit(Inst::Print { format, a, b, c, d }, m);
            return;
        }
        let template = m.template().unwrap_or(Inst::End);
        let fields = template.fields();
        if let Some((role, _)) = fields.memory() {
            self.memory(m, role);
            return;
        }
        let ty = m.imm_type();
        let mut out = Vec::new();
        for f in fields.as_slice() {
            out.push(match f.role() {
                Role::VDst => Field::VDst(self.vdst()),
                Role::SDst => Field::SDst(SReg(self.p.below(GENERAL_S as usize) as u16)),
                Role::MDst => Field::MDst(MReg(self.p.below(GENERAL_M as usize) as u16)),
                Role::Mask => Field::Mask(self.any_mask()),
                Role::VDstRun => Field::VDstRun(self.run(fields.run_length())),
                Role::VSrcRun => Field::VSrcRun(self.run(fields.run_length())),
                Role::Src => Field::Src(self.value(ty)),
                Role::Uniform => Field::Uniform(self.uniform(ty)),
                Role::Index => Field::Index(self.index_value()),
                Role::UIndex => Field::UIndex(if self.p.chance(2) {
                    Operand::Imm(self.p.below(64) as u32)
                } else {
                    self.uniform(ImmType::Int)
                }),
                _ => *f,
            });
        }
        if ty == ImmType::Int && self.p.below(6) == 0 {
            // The edges of division, remainder, shifts and signed ranges:
            // `i32::MIN` and -1, and a zero divisor.
            let edges = [
                (i32::MIN as u32, u32::MAX),
                (i32::MIN as u32, 0),
                (7, 0),
                (1, 32),
            ];
            let (x, y) = edges[self.p.below(edges.len())];
            let mut srcs = 0;
            for f in out.iter_mut() {
                if let Field::Src(o) | Field::Uniform(o) = f {
                    *o = Operand::Imm(if srcs == 0 { x } else { y });
                    srcs += 1;
                }
            }
        }
        let inst = Inst::from_fields(m.opcode, &out).unwrap_or_else(|| panic!("{}", m.name));
        self.emit(inst, m);
    }

    /// A shuffle's lane operand: mostly small, so that it names lanes of the
    /// wave, now and then anything.
    fn index_value(&mut self) -> Operand {
        if self.p.chance(1) {
            self.value(ImmType::Int)
        } else {
            Operand::Imm(self.p.below(70) as u32)
        }
    }

    /// A memory instruction of mnemonic `m`, whose memory operand has `role`.
    fn memory(&mut self, m: &'static Mnemonic, role: Role) {
        let global = matches!(
            role,
            Role::GlobalLoad | Role::GlobalStore | Role::GlobalAtomic
        );
        let writes = !matches!(role, Role::GlobalLoad | Role::LdsLoad);
        let typed = m.ops.iter().find_map(|o| match o {
            Op::Access(t) => Some(*t),
            _ => None,
        });
        let count = m
            .ops
            .iter()
            .find_map(|o| match o {
                Op::Width(w) => Some(w.count()),
                _ => None,
            })
            .unwrap_or(1);
        let atomic_op = m.ops.iter().find_map(|o| match o {
            Op::Atomic(a) => Some(*a),
            _ => None,
        });
        let cmpswap = matches!(
            m.opcode,
            Opcode::GlobalCmpSwap
                | Opcode::LdsCmpSwap
                | Opcode::GlobalCmpSwap64
                | Opcode::LdsCmpSwap64
        );
        // A 64-bit atomic: one 8-byte element, pairs of registers.
        let atomic64 = m.ops.iter().find_map(|o| match o {
            Op::Atomic64(a) => Some(*a),
            _ => None,
        });
        let wide64 = atomic64.is_some()
            || matches!(m.opcode, Opcode::GlobalCmpSwap64 | Opcode::LdsCmpSwap64);
        let run = if wide64 { 2 } else { count };
        let count = if wide64 { 1 } else { count };
        let word = !wide64 && (count > 1 || atomic_op.is_some() || cmpswap);
        // Element types a 32-bit word access (or a 64-bit atomic) takes with
        // element indexing.
        let words: &[ElemType] = match atomic64 {
            _ if !wide64 => &[],
            Some(Atomic64Op::AddF64) => &[ElemType::F64],
            Some(
                Atomic64Op::AddU64
                | Atomic64Op::MinU64
                | Atomic64Op::MinI64
                | Atomic64Op::MaxU64
                | Atomic64Op::MaxI64,
            ) => &[ElemType::U64],
            _ => &[ElemType::U64, ElemType::F64],
        };
        let words: &[ElemType] = match atomic_op {
            _ if wide64 => words,
            Some(AtomicOp::AddF32) => &[ElemType::F32],
            Some(
                AtomicOp::AddU32
                | AtomicOp::SubU32
                | AtomicOp::MinU32
                | AtomicOp::MinI32
                | AtomicOp::MaxU32
                | AtomicOp::MaxI32
                | AtomicOp::IncU32,
            ) => &[ElemType::U32, ElemType::I32],
            _ => &[ElemType::U32, ElemType::I32, ElemType::F32],
        };
        // (index, elem, elements) of each base.
        let bases: Vec<(usize, ElemType, u32)> = if global {
            BUFFERS
                .iter()
                .enumerate()
                .filter(|(_, b)| b.2 || !writes)
                .map(|(i, b)| (i, b.1, b.3))
                .collect()
        } else {
            LDS.iter().enumerate().map(|(i, l)| (i, l.1, l.2)).collect()
        };
        let size_of = |elem: ElemType| -> u32 {
            if wide64 {
                8
            } else if word {
                4
            } else {
                typed.unwrap_or(elem).size()
            }
        };
        let fits = |&(_, elem, len): &(usize, ElemType, u32), bytes: bool| {
            // The 64-bit buffers and arrays are for the 64-bit atomics.
            if elem.size() > 4 && !wide64 {
                return false;
            }
            if bytes {
                len * elem.size() >= 2 * size_of(elem) * u32::from(count)
            } else if word || wide64 {
                words.contains(&elem)
            } else {
                typed.is_none_or(|t| t == elem)
            }
        };
        let mut bytes = self.p.chance(1) || (typed.is_some() && self.p.chance(2));
        let mut choice: Vec<_> = bases.iter().filter(|b| fits(b, bytes)).copied().collect();
        if choice.is_empty() {
            bytes = !bytes;
            choice = bases.iter().filter(|b| fits(b, bytes)).copied().collect();
        }
        let (base, elem, len) = choice[self.p.below(choice.len())];
        let size = size_of(elem);
        // Index units, and the granule an index is a multiple of: the whole
        // access, so that it is aligned to its size.
        let (units, granule) = if bytes {
            (len * elem.size(), size * u32::from(count))
        } else {
            (len, u32::from(count))
        };
        let slots = units / granule;
        let half = (slots / 2).max(1);
        let (index, offset) = self.index(half, granule, count > 1);
        let addressing = if bytes {
            Addressing::Byte
        } else {
            Addressing::Element
        };
        let mem = if global {
            MemRef::Global(GlobalRef {
                buffer: ParamIdx(base as u16),
                index,
                offset,
                addressing,
            })
        } else {
            MemRef::Lds(LdsRef {
                lds: LdsIdx(base as u16),
                index,
                offset,
                addressing,
            })
        };
        let access = if word {
            ElemType::U32
        } else {
            typed.unwrap_or(elem)
        };
        let ty = match m.imm_type() {
            ImmType::Access => {
                let moved = if word || typed.is_none() {
                    elem
                } else {
                    access
                };
                match moved {
                    ElemType::F32 => ImmType::F32,
                    ElemType::F16 => ImmType::F16,
                    ElemType::BF16 => ImmType::Bf16,
                    _ => ImmType::Int,
                }
            }
            t => t,
        };
        let template = m.template().unwrap_or(Inst::End);
        let mut out = Vec::new();
        let mut srcs = 0;
        for f in template.fields().as_slice() {
            out.push(match f.role() {
                Role::Op => match f {
                    Field::Op(Op::Access(_)) => Field::Op(Op::Access(access)),
                    f => *f,
                },
                Role::VDst => Field::VDst(self.vdst()),
                Role::VDstOpt => {
                    let d = self.vdst();
                    Field::VDstOpt(self.p.chance(2).then_some(d))
                }
                Role::VDstRun => Field::VDstRun(self.run(run)),
                Role::VSrcRun => Field::VSrcRun(self.run(run)),
                Role::Src => {
                    srcs += 1;
                    // A compare-exchange's `cmp` (its first value): often a
                    // small number, which the inputs often hold, so that both
                    // outcomes happen.
                    if cmpswap && srcs == 1 && self.p.chance(2) {
                        Field::Src(Operand::Imm(self.p.below(4) as u32))
                    } else {
                        Field::Src(self.value(ty))
                    }
                }
                Role::GlobalLoad
                | Role::GlobalStore
                | Role::GlobalAtomic
                | Role::LdsLoad
                | Role::LdsStore
                | Role::LdsAtomic => Field::Mem(role, mem),
                _ => *f,
            });
        }
        let inst = Inst::from_fields(m.opcode, &out).unwrap_or_else(|| panic!("{}", m.name));
        self.emit(inst, m);
    }

    /// A memory index and offset whose sum is a multiple of `granule` below
    /// `2 * half * granule`: a constant, or the index register computed from
    /// a per-lane value.
    fn index(&mut self, half: u32, granule: u32, wide: bool) -> (Operand, Operand) {
        let offset = if self.p.chance(2) {
            0
        } else {
            self.p.below(half as usize) as u32 * granule
        };
        if self.p.below(8) == 0 {
            let at = self.p.below(half as usize) as u32 * granule;
            return (Operand::Imm(at), Operand::Imm(offset));
        }
        let addr = VReg(ADDR);
        let source = if self.p.chance(2) {
            Operand::Special(PER_LANE[self.p.below(PER_LANE.len())])
        } else {
            Operand::V(self.vreg())
        };
        // Wide accesses stay aligned to their width: two lanes' lists that
        // overlap in part are stored in an order the documentation leaves
        // open (the interpreter stores element by element across the lanes).
        if self.faulty && !wide && self.p.below(6) == 0 {
            return (source, Operand::Imm(offset));
        }
        let mut from = source;
        if self.p.chance(2) {
            let strides = [1u32, 2, 3, 4, 8, 16, 32, 33];
            let stride = strides[self.p.below(strides.len())];
            self.emit_plain(Inst::VBinary {
                op: simt_lang::BinOp::MulU32,
                dst: addr,
                a: source,
                b: Operand::Imm(stride),
            });
            from = Operand::V(addr);
        }
        self.emit_plain(Inst::VBinary {
            op: simt_lang::BinOp::And,
            dst: addr,
            a: from,
            b: Operand::Imm(half - 1),
        });
        if granule > 1 {
            self.emit_plain(Inst::VBinary {
                op: simt_lang::BinOp::Shl,
                dst: addr,
                a: Operand::V(addr),
                b: Operand::Imm(granule.trailing_zeros()),
            });
        }
        if self.p.below(4) == 0 {
            // `x[i - k]` with `i` raised by `k`.
            let k = (1 + self.p.below(4) as u32) * granule;
            self.emit_plain(Inst::VBinary {
                op: simt_lang::BinOp::AddU32,
                dst: addr,
                a: Operand::V(addr),
                b: Operand::Imm(k + offset),
            });
            return (Operand::V(addr), Operand::Imm(k.wrapping_neg()));
        }
        (Operand::V(addr), Operand::Imm(offset))
    }

    fn block(&mut self, cx: Context) {
        let len = 1 + self.p.below(if cx.depth == 0 { 14 } else { 6 });
        let plain: Vec<&'static Mnemonic> = MNEMONICS.iter().filter(|m| !is_control(m)).collect();
        // Inside a branch or loop, a wave reduction now and then: a ballot
        // or count of a mask with bits beyond exec is a path of its own.
        let waves: Vec<&'static Mnemonic> = plain
            .iter()
            .copied()
            .filter(|m| m.opcode == Opcode::SWave)
            .collect();
        for _ in 0..len {
            if self.p.done() && !self.insts.is_empty() {
                return;
            }
            match self.p.below(24) {
                0..=2 if cx.depth < MAX_DEPTH => self.conditional(cx),
                3 | 4 if cx.depth < MAX_DEPTH => self.looped(cx),
                5 | 7 if cx.exits => {
                    let m = mnemonic(if self.p.chance(2) {
                        "break"
                    } else {
                        "continue"
                    });
                    let mask = self.any_mask();
                    let inst = with_fields(m, |f| match f {
                        Field::Mask(_) => Field::Mask(mask),
                        f => *f,
                    });
                    self.emit(inst, m);
                }
                6 if cx.barrier => self.emit(Inst::Barrier, mnemonic("barrier")),
                8 if cx.depth > 0 && self.p.chance(2) => {
                    let m = waves[self.p.below(waves.len())];
                    self.instruction(m);
                }
                _ => {
                    let m = plain[self.p.below(plain.len())];
                    self.instruction(m);
                }
            }
        }
    }

    fn conditional(&mut self, cx: Context) {
        let d = cx.depth;
        let (mask, barrier) = match self.p.below(4) {
            0 => {
                // Workgroup-uniform: every bit of the mask is one comparison of
                // values the waves share.
                let mask = MReg(MIF + d as u16);
                self.scalar_compare(mask, false);
                (mask, cx.barrier)
            }
            1 => {
                let mask = MReg(MIF + d as u16);
                self.scalar_compare(mask, true);
                (mask, false)
            }
            _ => (self.divergent_mask(), false),
        };
        self.emit(
            Inst::If {
                mask,
                next: simt_lang::InstIdx::UNLINKED,
            },
            mnemonic("if"),
        );
        let inner = Context {
            depth: d + 1,
            barrier,
            exits: cx.exits && !barrier,
        };
        self.block(inner);
        if self.p.chance(2) {
            self.emit(
                Inst::Else {
                    end: simt_lang::InstIdx::UNLINKED,
                },
                mnemonic("else"),
            );
            self.block(inner);
        }
        self.emit(Inst::EndIf, mnemonic("endif"));
    }

    /// `mask` = a comparison of workgroup-uniform values (or, with `wave`, of
    /// the wave id).
    fn scalar_compare(&mut self, mask: MReg, wave: bool) {
        let cmps: Vec<&'static Mnemonic> = MNEMONICS
            .iter()
            .filter(|c| c.opcode == Opcode::SCmp && c.imm_type() == ImmType::Int)
            .collect();
        let c = cmps[self.p.below(cmps.len())];
        let a = if wave {
            Operand::Special(Special::WaveId)
        } else {
            self.group_uniform()
        };
        let b = self.group_uniform();
        let inst = match c.template() {
            Some(Inst::SCmp { op, ty, .. }) => Inst::SCmp {
                op,
                ty,
                dst: mask,
                a,
                b,
            },
            _ => Inst::End,
        };
        self.emit(inst, c);
    }

    fn looped(&mut self, cx: Context) {
        let d = cx.depth as u16;
        let mask = MReg(MLOOP + d);
        let bound = Operand::Imm(1 + self.p.below(3) as u32);
        let uniform = self.p.chance(2);
        let add = mnemonic("v_add_u32");
        if uniform {
            let counter = SReg(SCOUNT + d);
            self.emit_plain(Inst::SUnary {
                op: simt_lang::UnOp::Mov,
                dst: counter,
                a: Operand::Imm(0),
            });
            self.emit(
                Inst::Loop {
                    end: simt_lang::InstIdx::UNLINKED,
                },
                mnemonic("loop"),
            );
            self.emit_plain(Inst::SBinary {
                op: simt_lang::BinOp::AddU32,
                dst: counter,
                a: Operand::S(counter),
                b: Operand::Imm(1),
            });
            self.emit(
                Inst::SCmp {
                    op: simt_lang::CmpOp::Lt,
                    ty: simt_lang::CmpType::U32,
                    dst: mask,
                    a: Operand::S(counter),
                    b: bound,
                },
                mnemonic("s_cmp_lt_u32"),
            );
        } else {
            let counter = VReg(VCOUNT + d);
            self.emit_plain(Inst::VUnary {
                op: simt_lang::UnOp::Mov,
                dst: counter,
                a: Operand::Imm(0),
            });
            self.emit(
                Inst::Loop {
                    end: simt_lang::InstIdx::UNLINKED,
                },
                mnemonic("loop"),
            );
            self.emit(
                Inst::VBinary {
                    op: simt_lang::BinOp::AddU32,
                    dst: counter,
                    a: Operand::V(counter),
                    b: Operand::Imm(1),
                },
                add,
            );
            self.emit_plain(Inst::VCmp {
                op: simt_lang::CmpOp::Lt,
                ty: simt_lang::CmpType::U32,
                dst: mask,
                a: Operand::V(counter),
                b: bound,
            });
            if self.p.chance(2) {
                let other = self.any_mask();
                self.emit_plain(Inst::MaskBinary {
                    op: simt_lang::MaskOp::And,
                    dst: mask,
                    a: mask,
                    b: other,
                });
            }
        }
        let barrier = uniform && cx.barrier;
        self.block(Context {
            depth: cx.depth + 1,
            barrier,
            exits: !barrier,
        });
        self.emit(
            Inst::EndLoop {
                mask,
                start: simt_lang::InstIdx::UNLINKED,
            },
            mnemonic("endloop"),
        );
    }

    /// Gives some general registers a first value.
    fn prologue(&mut self) {
        for r in LISTED..GENERAL_V {
            if self.p.chance(2) {
                let a = self.value(ImmType::Bits);
                self.emit_plain(Inst::VUnary {
                    op: simt_lang::UnOp::Mov,
                    dst: VReg(r),
                    a,
                });
            }
        }
        for r in 0..GENERAL_S {
            if self.p.chance(1) {
                let a = self.uniform(ImmType::Bits);
                self.emit_plain(Inst::SUnary {
                    op: simt_lang::UnOp::Mov,
                    dst: SReg(r),
                    a,
                });
            }
        }
        for _ in 0..GENERAL_M / 2 {
            self.divergent_mask();
        }
    }

    /// Folds every general register into one value per lane and stores it, so
    /// that what the kernel computed shows in the outputs.
    fn epilogue(&mut self) {
        let acc = VReg(ADDR);
        self.emit_plain(Inst::VUnary {
            op: simt_lang::UnOp::Mov,
            dst: acc,
            a: Operand::Imm(0),
        });
        let mix = |g: &mut Self, b: Operand| {
            g.emit_plain(Inst::VTernary {
                op: simt_lang::TernOp::MadU32,
                dst: acc,
                a: Operand::V(acc),
                b: Operand::Imm(0x9e37_79b1),
                c: b,
            });
        };
        for r in LISTED..ALL_V {
            if r != ADDR && self.p.below(8) != 0 {
                mix(self, Operand::V(VReg(r)));
            }
        }
        for r in 0..ALL_S {
            mix(self, Operand::S(SReg(r)));
        }
        let bit = VReg(ADDR + 1);
        for r in 0..ALL_M {
            self.emit_plain(Inst::VSelect {
                dst: bit,
                mask: MReg(r),
                on_true: Operand::Imm(1 << (r % 32)),
                on_false: Operand::Imm(0),
            });
            mix(self, Operand::V(bit));
        }
        let out = ParamIdx(4);
        self.emit_plain(Inst::VBinary {
            op: simt_lang::BinOp::And,
            dst: bit,
            a: Operand::Special(Special::GlobalId(Axis::X)),
            b: Operand::Imm(127),
        });
        self.emit(
            Inst::GlobalStore {
                ty: ElemType::U32,
                dst: GlobalRef::element(out, Operand::V(bit)),
                src: Operand::V(acc),
            },
            mnemonic("global_store"),
        );
    }
}

/// The template of `m` with its fields mapped by `f`.
fn with_fields(m: &Mnemonic, f: impl Fn(&Field) -> Field) -> Inst {
    let t = m.template().unwrap_or(Inst::End);
    let fields: Vec<Field> = t.fields().as_slice().iter().map(f).collect();
    Inst::from_fields(m.opcode, &fields).unwrap_or(t)
}

/// Renumbers each register class so that the registers used are `0..n` in
/// their old order (a run stays a run), so that named registers, which take the
/// lowest numbers the numbered ones leave free, get their numbers back.
fn compact(insts: &mut [Inst]) {
    let mut used: [BTreeSet<u16>; 3] = Default::default();
    let class = |r: Reg| match r {
        Reg::V(v) => (0, v.0),
        Reg::S(s) => (1, s.0),
        Reg::M(m) => (2, m.0),
    };
    for inst in insts.iter() {
        let f = inst.fields();
        for r in f.written().chain(f.read()) {
            let (c, n) = class(r);
            used[c].insert(n);
        }
    }
    let maps: Vec<std::collections::BTreeMap<u16, u16>> = used
        .iter()
        .map(|set| {
            set.iter()
                .enumerate()
                .map(|(i, &r)| (r, i as u16))
                .collect()
        })
        .collect();
    let v = |r: VReg| VReg(maps[0][&r.0]);
    let s = |r: SReg| SReg(maps[1][&r.0]);
    let m = |r: MReg| MReg(maps[2][&r.0]);
    let op = |o: Operand| match o {
        Operand::V(r) => Operand::V(v(r)),
        Operand::S(r) => Operand::S(s(r)),
        o => o,
    };
    for inst in insts.iter_mut() {
        let mut fields = inst.fields();
        for f in fields.as_mut_slice() {
            *f = match *f {
                Field::VDst(r) => Field::VDst(v(r)),
                Field::SDst(r) => Field::SDst(s(r)),
                Field::MDst(r) => Field::MDst(m(r)),
                Field::VDstOpt(r) => Field::VDstOpt(r.map(v)),
                Field::VDstRun(r) => Field::VDstRun(v(r)),
                Field::VSrcRun(r) => Field::VSrcRun(v(r)),
                Field::Mask(r) => Field::Mask(m(r)),
                Field::Src(o) => Field::Src(op(o)),
                Field::Uniform(o) => Field::Uniform(op(o)),
                Field::Index(o) => Field::Index(op(o)),
                Field::UIndex(o) => Field::UIndex(op(o)),
                Field::Mem(role, MemRef::Global(g)) => Field::Mem(
                    role,
                    MemRef::Global(GlobalRef {
                        index: op(g.index),
                        offset: op(g.offset),
                        ..g
                    }),
                ),
                Field::Mem(role, MemRef::Lds(l)) => Field::Mem(
                    role,
                    MemRef::Lds(LdsRef {
                        index: op(l.index),
                        offset: op(l.offset),
                        ..l
                    }),
                ),
                f => f,
            };
        }
        *inst = Inst::from_fields(inst.opcode(), fields.as_slice()).unwrap_or(*inst);
    }
}

/// The kernel that the choices in `picks` make.
pub(crate) fn generate(picks: &[u32]) -> Generated {
    build(picks, false)
}

/// As [`generate`], with now and then a memory index left unmasked: a kernel
/// that may fault.
pub(crate) fn generate_faulty(picks: &[u32]) -> Generated {
    build(picks, true)
}

fn build(picks: &[u32], faulty: bool) -> Generated {
    let mut g = Gen {
        p: Picks::new(picks),
        insts: Vec::new(),
        spellings: Vec::new(),
        faulty,
    };
    g.prologue();
    g.block(Context {
        depth: 0,
        barrier: true,
        exits: false,
    });
    g.epilogue();
    compact(&mut g.insts);
    let mut b = builder(&g.insts);
    // Name about half of the registers; the others stay numbered.
    let program = b.program();
    for (class, count) in [
        ('v', program.vregs),
        ('s', program.sregs),
        ('m', program.mregs),
    ] {
        for n in 0..count {
            if g.p.chance(2) {
                let (reg, name) = match class {
                    'v' => (Reg::V(VReg(n)), format!("x{n}")),
                    's' => (Reg::S(SReg(n)), format!("u{n}")),
                    _ => (Reg::M(MReg(n)), format!("p{n}")),
                };
                b.name_register(reg, &name);
            }
        }
    }
    Generated {
        program: b.program(),
        spellings: g.spellings,
    }
}

/// The formats of generated `print`s: the one at index `n` reads `n` values.
pub(crate) const FORMATS: &[&str] = &[
    "here",
    "a={}",
    "{i} {f}",
    "{x}|{u}|{}",
    "{} {{{i}}} {f} {x}",
];

/// A builder holding the generated kernels' parameters, LDS arrays and
/// `print` formats, and `insts`.
fn builder(insts: &[Inst]) -> ProgramBuilder {
    let mut b = ProgramBuilder::new("gen");
    for f in FORMATS {
        b.format(f).expect("a generated format");
    }
    for &(name, elem, writable, _) in BUFFERS {
        match (elem, writable) {
            (ElemType::U8, false) => b.buffer::<u8>(name),
            (ElemType::U8, true) => b.buffer_mut::<u8>(name),
            (ElemType::I16, true) => b.buffer_mut::<i16>(name),
            (ElemType::U32, false) => b.buffer::<u32>(name),
            (ElemType::U32, true) => b.buffer_mut::<u32>(name),
            (ElemType::I32, true) => b.buffer_mut::<i32>(name),
            (ElemType::F32, false) => b.buffer::<f32>(name),
            (ElemType::F32, true) => b.buffer_mut::<f32>(name),
            (ElemType::F16, true) => b.buffer_mut::<simt_lang::half::f16>(name),
            (ElemType::BF16, true) => b.buffer_mut::<simt_lang::half::bf16>(name),
            (ElemType::U64, true) => b.buffer_mut::<u64>(name),
            (ElemType::F64, true) => b.buffer_mut::<f64>(name),
            _ => panic!("no buffer of {elem:?}"),
        };
    }
    for &(name, ty) in SCALARS {
        b.scalar(name, ty);
    }
    for &(name, elem, len) in LDS {
        b.lds(name, elem, len);
    }
    b.extend(insts.iter().copied());
    b
}

/// A kernel of the generated kernels' header holding `insts` as written (each
/// spelled by its first mnemonic), with registers named as `names` says.
pub(crate) fn from_insts(insts: &[Inst], names: &[(Reg, &str)]) -> Generated {
    let mut b = builder(insts);
    for &(reg, name) in names {
        b.name_register(reg, name);
    }
    let spellings = insts
        .iter()
        .map(|i| simt_lang::isa::spelling(i).unwrap_or_else(|| panic!("no spelling {i:?}")))
        .collect();
    Generated {
        program: b.program(),
        spellings,
    }
}
