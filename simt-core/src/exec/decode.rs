//! The decoded program: what the dispatch loop runs.
//!
//! A validated [`Program`] is the printable, user-visible form; the interpreter
//! runs its decoding, made once per program (a [`Machine`](super::Machine)
//! keeps the last one and decodes again only for a different program). Each
//! operand's kind is resolved into one flat [`Src`] (a register, a wave-uniform
//! value, a per-lane special), a memory operand's offset into the uniform it
//! adds, atomics into one shape with their update, and the program's facts
//! (register counts, LDS areas, whether it has global atomics) are computed
//! here instead of per launch.

use super::bind::{self, Prepared};
use super::memory::atomic::Update;
use crate::ir::{
    Addressing, ElemType, GlobalRef, LdsDecl, LdsRef, MReg, Operand, Program, SReg, Special, VReg,
};
use crate::isa::{BinOp, CmpOp, CmpType, Inst, MaskOp, ShuffleOp, TernOp, UnOp, WaveOp};

/// A source operand with its kind resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Src {
    /// A vector register.
    V(u16),
    /// A scalar register.
    S(u16),
    /// A scalar argument, by parameter index.
    Arg(u16),
    /// An immediate (and any register past the program's counts, which
    /// validation rules out, reads as 0).
    Imm(u32),
    /// The lane's index in its wave.
    LaneId,
    /// The local id along an axis.
    Local(u8),
    /// The global id along an axis.
    Global(u8),
    /// The workgroup's id along an axis.
    GroupId(u8),
    /// The workgroup size along an axis.
    GroupSize(u8),
    /// Workgroups in the grid along an axis.
    NumGroups(u8),
    /// The wave's index in its workgroup.
    WaveId,
    /// The wave width.
    WaveWidth,
}

/// A memory operand: where the lanes' indices come from and what they address.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mem {
    /// The buffer parameter (global) or LDS array index.
    pub(super) target: u16,
    /// The per-lane index.
    pub(super) index: Src,
    /// The wave-uniform offset added to it (`None` for none).
    pub(super) offset: Option<Src>,
    /// How the index is scaled.
    pub(super) addressing: Addressing,
}

/// `dst = op(a, b)`, vector or scalar.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bin {
    pub(super) op: BinOp,
    pub(super) dst: u16,
    pub(super) a: Src,
    pub(super) b: Src,
}

/// `dst = op(a)`, vector or scalar.
#[derive(Clone, Copy, Debug)]
pub(super) struct Un {
    pub(super) op: UnOp,
    pub(super) dst: u16,
    pub(super) a: Src,
}

/// `dst = op(a, b, c)`, vector or scalar.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tern {
    pub(super) op: TernOp,
    pub(super) dst: u16,
    pub(super) a: Src,
    pub(super) b: Src,
    pub(super) c: Src,
}

/// A compare into mask register `dst`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cmp {
    pub(super) op: CmpOp,
    pub(super) ty: CmpType,
    pub(super) dst: u16,
    pub(super) a: Src,
    pub(super) b: Src,
}

/// `dst = mask ? t : e` per lane.
#[derive(Clone, Copy, Debug)]
pub(super) struct Select {
    pub(super) dst: u16,
    pub(super) mask: u16,
    pub(super) t: Src,
    pub(super) e: Src,
}

/// A lane exchange, or a read of one lane into a scalar register.
#[derive(Clone, Copy, Debug)]
pub(super) struct Exchange {
    /// The shuffle (unused by the lane reads).
    pub(super) op: ShuffleOp,
    pub(super) dst: u16,
    pub(super) src: Src,
    /// The lane (unused by `v_readfirstlane`).
    pub(super) lane: Src,
}

/// A scalar reduction of a mask register.
#[derive(Clone, Copy, Debug)]
pub(super) struct Wave {
    pub(super) op: WaveOp,
    pub(super) dst: u16,
    pub(super) mask: u16,
}

/// A mask operation (`not` ignores `b`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Masks {
    pub(super) op: MaskOp,
    pub(super) dst: u16,
    pub(super) a: u16,
    pub(super) b: u16,
}

/// A load of one element per lane into `reg`, or a store of `src`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Access {
    pub(super) ty: ElemType,
    pub(super) at: Mem,
    /// The register loaded (loads).
    pub(super) reg: u16,
    /// The value stored (stores).
    pub(super) src: Src,
}

/// A load or store of `n` consecutive 32-bit elements per lane, to or from the
/// registers from `reg` on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Wide {
    pub(super) n: u8,
    pub(super) reg: u16,
    pub(super) at: Mem,
}

/// An atomic: `update` with `src` (and `cmp`), old values into `dst` if any.
#[derive(Clone, Copy, Debug)]
pub(super) struct Atomic {
    pub(super) update: Update,
    pub(super) dst: Option<u16>,
    pub(super) at: Mem,
    pub(super) src: Src,
    pub(super) cmp: Src,
}

/// A control instruction: its mask register and jump target, where it has them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Jump {
    pub(super) mask: u16,
    pub(super) target: u32,
}

/// One decoded instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
    VBinary(Bin),
    VUnary(Un),
    VTernary(Tern),
    VCmp(Cmp),
    VSelect(Select),
    VShuffle(Exchange),
    VReadFirstLane(Exchange),
    VReadLane(Exchange),
    SBinary(Bin),
    SUnary(Un),
    STernary(Tern),
    SCmp(Cmp),
    SWave(Wave),
    SActiveLanes(u16),
    MaskBinary(Masks),
    MaskNot(Masks),
    GlobalLoad(Access),
    GlobalStore(Access),
    LdsLoad(Access),
    LdsStore(Access),
    GlobalLoadWide(Wide),
    GlobalStoreWide(Wide),
    LdsLoadWide(Wide),
    LdsStoreWide(Wide),
    GlobalAtomic(Atomic),
    LdsAtomic(Atomic),
    If(Jump),
    Else(Jump),
    EndIf,
    Loop(Jump),
    EndLoop(Jump),
    Break(Jump),
    Continue(Jump),
    Barrier,
    WaveBarrier,
    End,
}

/// A program as the interpreter runs it.
#[derive(Debug)]
pub(super) struct Decoded {
    /// One op per instruction, same indices.
    pub(super) ops: Vec<Op>,
    /// The facts the interpreter sizes its state by.
    pub(super) prepared: Prepared,
    /// What it was decoded from, to tell whether a program is the same.
    insts: Vec<Inst>,
    lds: Vec<LdsDecl>,
    counts: [u32; 4],
}

impl Decoded {
    /// Decodes `program`, which validation has accepted.
    pub(super) fn new(program: &Program) -> Self {
        let prepared = bind::prepare(program);
        let d = Decoder {
            vregs: prepared.vregs,
            sregs: prepared.sregs,
            mregs: prepared.mregs,
        };
        Decoded {
            ops: program.insts.iter().map(|i| d.op(i)).collect(),
            prepared,
            insts: program.insts.to_vec(),
            lds: program.lds.to_vec(),
            counts: counts(program),
        }
    }

    /// Whether this is the decoding of `program`.
    pub(super) fn is_of(&self, program: &Program) -> bool {
        self.counts == counts(program) && *self.insts == *program.insts && *self.lds == *program.lds
    }
}

fn counts(p: &Program) -> [u32; 4] {
    [
        u32::from(p.vregs),
        u32::from(p.sregs),
        u32::from(p.mregs),
        p.lds_bytes,
    ]
}

/// Register counts, to resolve registers past them (which validation rules
/// out) to what the interpreter read for them before: zeros.
struct Decoder {
    vregs: usize,
    sregs: usize,
    mregs: usize,
}

impl Decoder {
    fn src(&self, op: Operand) -> Src {
        match op {
            Operand::V(VReg(r)) if (r as usize) < self.vregs => Src::V(r),
            Operand::S(SReg(r)) if (r as usize) < self.sregs => Src::S(r),
            Operand::V(_) | Operand::S(_) => Src::Imm(0),
            Operand::Arg(p) => Src::Arg(p.0),
            Operand::Imm(v) => Src::Imm(v),
            Operand::Special(s) => match s {
                Special::LaneId => Src::LaneId,
                Special::LocalId(a) => Src::Local(a.index() as u8),
                Special::GlobalId(a) => Src::Global(a.index() as u8),
                Special::GroupId(a) => Src::GroupId(a.index() as u8),
                Special::GroupSize(a) => Src::GroupSize(a.index() as u8),
                Special::NumGroups(a) => Src::NumGroups(a.index() as u8),
                Special::WaveId => Src::WaveId,
                Special::WaveWidth => Src::WaveWidth,
            },
        }
    }

    /// A destination register, or one past the registers (whose writes are
    /// dropped) for a register past the counts.
    fn v(&self, r: VReg) -> u16 {
        r.0.min(self.vregs as u16)
    }

    fn s(&self, r: SReg) -> u16 {
        r.0.min(self.sregs as u16)
    }

    fn m(&self, r: MReg) -> u16 {
        r.0.min(self.mregs as u16)
    }

    fn mem(&self, target: u16, index: Operand, offset: Operand, addressing: Addressing) -> Mem {
        Mem {
            target,
            index: self.src(index),
            offset: match offset {
                Operand::Imm(0) => None,
                off => Some(self.src(off)),
            },
            addressing,
        }
    }

    fn global(&self, r: GlobalRef) -> Mem {
        self.mem(r.buffer.0, r.index, r.offset, r.addressing)
    }

    fn lds(&self, r: LdsRef) -> Mem {
        self.mem(r.lds.0, r.index, r.offset, r.addressing)
    }

    fn op(&self, inst: &Inst) -> Op {
        let s = |o| self.src(o);
        let none = Src::Imm(0);
        match *inst {
            Inst::VBinary { op, dst, a, b } => Op::VBinary(Bin {
                op,
                dst: self.v(dst),
                a: s(a),
                b: s(b),
            }),
            Inst::VUnary { op, dst, a } => Op::VUnary(Un {
                op,
                dst: self.v(dst),
                a: s(a),
            }),
            Inst::VTernary { op, dst, a, b, c } => Op::VTernary(Tern {
                op,
                dst: self.v(dst),
                a: s(a),
                b: s(b),
                c: s(c),
            }),
            Inst::VCmp { op, ty, dst, a, b } => Op::VCmp(Cmp {
                op,
                ty,
                dst: self.m(dst),
                a: s(a),
                b: s(b),
            }),
            Inst::VSelect {
                dst,
                mask,
                on_true,
                on_false,
            } => Op::VSelect(Select {
                dst: self.v(dst),
                mask: self.m(mask),
                t: s(on_true),
                e: s(on_false),
            }),
            Inst::VShuffle { op, dst, src, lane } => Op::VShuffle(Exchange {
                op,
                dst: self.v(dst),
                src: s(src),
                lane: s(lane),
            }),
            Inst::VReadFirstLane { dst, src } => Op::VReadFirstLane(Exchange {
                op: ShuffleOp::Index,
                dst: self.s(dst),
                src: s(src),
                lane: none,
            }),
            Inst::VReadLane { dst, src, lane } => Op::VReadLane(Exchange {
                op: ShuffleOp::Index,
                dst: self.s(dst),
                src: s(src),
                lane: s(lane),
            }),
            Inst::SBinary { op, dst, a, b } => Op::SBinary(Bin {
                op,
                dst: self.s(dst),
                a: s(a),
                b: s(b),
            }),
            Inst::SUnary { op, dst, a } => Op::SUnary(Un {
                op,
                dst: self.s(dst),
                a: s(a),
            }),
            Inst::STernary { op, dst, a, b, c } => Op::STernary(Tern {
                op,
                dst: self.s(dst),
                a: s(a),
                b: s(b),
                c: s(c),
            }),
            Inst::SCmp { op, ty, dst, a, b } => Op::SCmp(Cmp {
                op,
                ty,
                dst: self.m(dst),
                a: s(a),
                b: s(b),
            }),
            Inst::SWave { op, dst, mask } => Op::SWave(Wave {
                op,
                dst: self.s(dst),
                mask: self.m(mask),
            }),
            Inst::SActiveLanes { dst } => Op::SActiveLanes(self.s(dst)),
            Inst::MaskBinary { op, dst, a, b } => Op::MaskBinary(Masks {
                op,
                dst: self.m(dst),
                a: self.m(a),
                b: self.m(b),
            }),
            Inst::MaskNot { dst, a } => Op::MaskNot(Masks {
                op: MaskOp::And,
                dst: self.m(dst),
                a: self.m(a),
                b: self.m(a),
            }),
            Inst::GlobalLoad { ty, dst, src } => Op::GlobalLoad(Access {
                ty,
                at: self.global(src),
                reg: self.v(dst),
                src: none,
            }),
            Inst::GlobalStore { ty, dst, src } => Op::GlobalStore(Access {
                ty,
                at: self.global(dst),
                reg: 0,
                src: s(src),
            }),
            Inst::LdsLoad { ty, dst, src } => Op::LdsLoad(Access {
                ty,
                at: self.lds(src),
                reg: self.v(dst),
                src: none,
            }),
            Inst::LdsStore { ty, dst, src } => Op::LdsStore(Access {
                ty,
                at: self.lds(dst),
                reg: 0,
                src: s(src),
            }),
            Inst::GlobalLoadWide { width, dst, src } => Op::GlobalLoadWide(Wide {
                n: width.count() as u8,
                reg: dst.0,
                at: self.global(src),
            }),
            Inst::GlobalStoreWide { width, dst, src } => Op::GlobalStoreWide(Wide {
                n: width.count() as u8,
                reg: src.0,
                at: self.global(dst),
            }),
            Inst::LdsLoadWide { width, dst, src } => Op::LdsLoadWide(Wide {
                n: width.count() as u8,
                reg: dst.0,
                at: self.lds(src),
            }),
            Inst::LdsStoreWide { width, dst, src } => Op::LdsStoreWide(Wide {
                n: width.count() as u8,
                reg: src.0,
                at: self.lds(dst),
            }),
            Inst::GlobalAtomic { op, dst, mem, src } => Op::GlobalAtomic(Atomic {
                update: Update::Rmw(op),
                dst: dst.map(|d| self.v(d)),
                at: self.global(mem),
                src: s(src),
                cmp: none,
            }),
            Inst::GlobalCmpSwap { dst, mem, cmp, src } => Op::GlobalAtomic(Atomic {
                update: Update::CmpSwap,
                dst: dst.map(|d| self.v(d)),
                at: self.global(mem),
                src: s(src),
                cmp: s(cmp),
            }),
            Inst::LdsAtomic { op, dst, mem, src } => Op::LdsAtomic(Atomic {
                update: Update::Rmw(op),
                dst: dst.map(|d| self.v(d)),
                at: self.lds(mem),
                src: s(src),
                cmp: none,
            }),
            Inst::LdsCmpSwap { dst, mem, cmp, src } => Op::LdsAtomic(Atomic {
                update: Update::CmpSwap,
                dst: dst.map(|d| self.v(d)),
                at: self.lds(mem),
                src: s(src),
                cmp: s(cmp),
            }),
            Inst::If { mask, next } => Op::If(Jump {
                mask: self.m(mask),
                target: next.0,
            }),
            Inst::Else { end } => Op::Else(Jump {
                mask: 0,
                target: end.0,
            }),
            Inst::EndIf => Op::EndIf,
            Inst::Loop { end } => Op::Loop(Jump {
                mask: 0,
                target: end.0,
            }),
            Inst::EndLoop { mask, start } => Op::EndLoop(Jump {
                mask: self.m(mask),
                target: start.0,
            }),
            Inst::Break { mask, .. } => Op::Break(Jump {
                mask: self.m(mask),
                target: 0,
            }),
            Inst::Continue { mask, .. } => Op::Continue(Jump {
                mask: self.m(mask),
                target: 0,
            }),
            Inst::Barrier => Op::Barrier,
            Inst::WaveBarrier => Op::WaveBarrier,
            Inst::End => Op::End,
        }
    }
}
