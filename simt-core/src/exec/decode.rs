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
    Addressing, ElemType, GlobalRef, InstIdx, LdsDecl, LdsRef, MReg, Operand, PrintFormat, Program,
    SReg, Special, VReg,
};
use crate::isa::{
    Atomic64Op, AtomicOp, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, Inst, MaskOp, NarrowOp,
    ShuffleOp, Tern64Op, TernOp, Un64Op, UnOp, WaveOp, WidenOp, Width,
};
use simt_lang::inst_dispatch;

/// A source operand with its kind resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
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
pub struct Mem {
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
pub struct Bin {
    pub(super) op: BinOp,
    pub(super) dst: u16,
    pub(super) a: Src,
    pub(super) b: Src,
}

/// `dst = op(a)`, vector or scalar.
#[derive(Clone, Copy, Debug)]
pub struct Un {
    pub(super) op: UnOp,
    pub(super) dst: u16,
    pub(super) a: Src,
}

/// `dst = op(a, b, c)`, vector or scalar.
#[derive(Clone, Copy, Debug)]
pub struct Tern {
    pub(super) op: TernOp,
    pub(super) dst: u16,
    pub(super) a: Src,
    pub(super) b: Src,
    pub(super) c: Src,
}

/// A compare into mask register `dst`.
#[derive(Clone, Copy, Debug)]
pub struct Cmp {
    pub(super) op: CmpOp,
    pub(super) ty: CmpType,
    pub(super) dst: u16,
    pub(super) a: Src,
    pub(super) b: Src,
}

/// `dst = mask ? t : e` per lane.
#[derive(Clone, Copy, Debug)]
pub struct Select {
    pub(super) dst: u16,
    pub(super) mask: u16,
    pub(super) t: Src,
    pub(super) e: Src,
}

/// A 64-bit operation's kind and operation.
#[derive(Clone, Copy, Debug)]
pub enum PairOp {
    /// `dst = op(a, b)`.
    Bin(Bin64Op),
    /// `dst = op(a)`.
    Un(Un64Op),
    /// `dst = op(a, b, c)`.
    Tern(Tern64Op),
    /// A compare of `a` and `b` into mask register `dst`.
    Cmp(CmpOp, Cmp64Type),
    /// The 32-bit `src` converted into the pair `dst`.
    Widen(WidenOp),
    /// The pair `a` converted into the 32-bit register `dst`.
    Narrow(NarrowOp),
}

/// A vector operation on 64-bit values, each in a pair of registers (the
/// low word in the first): the pairs are named by their first register.
#[derive(Clone, Copy, Debug)]
pub struct Pairs {
    pub(super) op: PairOp,
    /// The destination: a pair, a vector register (narrowing) or a mask
    /// register (compares).
    pub(super) dst: u16,
    /// The source pairs the operation reads (the others are 0).
    pub(super) a: u16,
    pub(super) b: u16,
    pub(super) c: u16,
    /// The 32-bit source of a widening conversion.
    pub(super) src: Src,
}

/// A lane exchange, or a read of one lane into a scalar register.
#[derive(Clone, Copy, Debug)]
pub struct Exchange {
    /// The shuffle (unused by the lane reads).
    pub(super) op: ShuffleOp,
    pub(super) dst: u16,
    pub(super) src: Src,
    /// The lane (unused by `v_readfirstlane`).
    pub(super) lane: Src,
}

/// A scalar reduction of a mask register.
#[derive(Clone, Copy, Debug)]
pub struct Wave {
    pub(super) op: WaveOp,
    pub(super) dst: u16,
    pub(super) mask: u16,
}

/// A mask operation (`not` ignores `b`).
#[derive(Clone, Copy, Debug)]
pub struct Masks {
    pub(super) op: MaskOp,
    pub(super) dst: u16,
    pub(super) a: u16,
    pub(super) b: u16,
}

/// A load of one element per lane into `reg`, or a store of `src`.
#[derive(Clone, Copy, Debug)]
pub struct Access {
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
pub struct Wide {
    pub(super) n: u8,
    pub(super) reg: u16,
    pub(super) at: Mem,
}

/// An atomic: `update` with `src` (and `cmp`), old values into `dst` if any.
#[derive(Clone, Copy, Debug)]
pub struct Atomic {
    pub(super) update: Update<AtomicOp>,
    pub(super) dst: Option<u16>,
    pub(super) at: Mem,
    pub(super) src: Src,
    pub(super) cmp: Src,
}

/// A 64-bit atomic: `update` with the pair `src` (and `cmp`), old values
/// into the pair `dst`.
#[derive(Clone, Copy, Debug)]
pub struct Atomic64 {
    pub(super) update: Update<Atomic64Op>,
    pub(super) dst: u16,
    pub(super) at: Mem,
    pub(super) src: u16,
    pub(super) cmp: u16,
}

/// A control instruction: its mask register and jump target, where it has them.
#[derive(Clone, Copy, Debug)]
pub struct Jump {
    pub(super) mask: u16,
    pub(super) target: u32,
}

/// A `print`: its values (the format reads the first few).
#[derive(Clone, Copy, Debug)]
pub struct Print {
    pub(super) values: [Src; crate::ir::MAX_PRINT_VALUES],
}

/// The decoded ops: calls `$then! { rows }` with one row per op, its doc,
/// its payload, its handler call (`x` is the payload) and, for an op a
/// native runner issues inline, how (`native([lanes] how)`, `lanes` where it
/// counts its active lanes; see `native::issue!`). [`Op`], the
/// interpreter's dispatch (`Exec::dispatch`, the one `match` from ops to
/// handlers) and the native runners' inline kinds (`Op::kind`,
/// `Op::counts_lanes`, `Exec::issue_inline`) are generated from it, so an op
/// is declared, dispatched and inlined in one row.
macro_rules! for_each_decoded_op {
    ($then:ident) => {
        $then! {
            /// A vector binary operation (`v_add_i32`, ...).
            VBinary(x: Bin) => v_binary(x)
                native([lanes] by_number(v_binary_by, binary, |d, s, l|)),
            /// A vector unary operation.
            VUnary(x: Un) => v_unary(x)
                native([lanes] by_number(v_unary_by, unary, |d, s, l|)),
            /// A vector ternary operation (`v_fma_f32`, ...).
            VTernary(x: Tern) => v_ternary(x)
                native([lanes] by_number(v_ternary_by, ternary, |d, s, l|)),
            /// A vector compare into a mask register.
            VCmp(x: Cmp) => v_cmp(x)
                native([lanes] by_number(v_cmp_by, compare, |a, b|)),
            /// A per-lane select by a mask.
            VSelect(x: Select) => v_select(x)
                native([lanes] inline(v_select_lanes)),
            /// A vector operation on 64-bit values (register pairs).
            VPairs(x: Pairs) => v_pairs(x),
            /// A lane exchange.
            VShuffle(x: Exchange) => v_shuffle(x),
            /// The first active lane of a vector value, into a scalar register.
            VReadFirstLane(x: Exchange) => v_read_first_lane(x),
            /// One lane of a vector value, into a scalar register.
            VReadLane(x: Exchange) => v_read_lane(x),
            /// A scalar binary operation.
            SBinary(x: Bin) => s_binary(x)
                native([] inline(s_binary)),
            /// A scalar unary operation.
            SUnary(x: Un) => s_unary(x)
                native([] inline(s_unary)),
            /// A scalar ternary operation.
            STernary(x: Tern) => s_ternary(x)
                native([] inline(s_ternary)),
            /// A scalar compare into a mask register (every lane alike).
            SCmp(x: Cmp) => s_cmp(x)
                native([] inline(s_cmp)),
            /// A scalar reduction of a mask register.
            SWave(x: Wave) => s_wave(x),
            /// The number of active lanes, into a scalar register.
            SActiveLanes(x: u16) => s_active_lanes(x),
            /// A mask operation of two masks.
            MaskBinary(x: Masks) => mask_binary(x)
                native([] inline(mask_binary)),
            /// A mask complement.
            MaskNot(x: Masks) => mask_not(x)
                native([] inline(mask_not)),
            /// A global load of one element per lane.
            GlobalLoad(x: Access) => access(x, false, false)
                native([lanes] access(false, false)),
            /// A global store of one element per lane.
            GlobalStore(x: Access) => access(x, true, false)
                native([lanes] access(true, false)),
            /// An LDS load of one element per lane.
            LdsLoad(x: Access) => access(x, false, true)
                native([lanes] access(false, true)),
            /// An LDS store of one element per lane.
            LdsStore(x: Access) => access(x, true, true)
                native([lanes] access(true, true)),
            /// A global load of 2 or 4 consecutive words per lane.
            GlobalLoadWide(x: Wide) => wide(x, false, false),
            /// A global store of 2 or 4 consecutive words per lane.
            GlobalStoreWide(x: Wide) => wide(x, true, false),
            /// An LDS load of 2 or 4 consecutive words per lane.
            LdsLoadWide(x: Wide) => wide(x, false, true),
            /// An LDS store of 2 or 4 consecutive words per lane.
            LdsStoreWide(x: Wide) => wide(x, true, true),
            /// A global atomic.
            GlobalAtomic(x: Atomic) => atomic(x, false),
            /// An LDS atomic.
            LdsAtomic(x: Atomic) => atomic(x, true),
            /// A global atomic on 64-bit elements.
            GlobalAtomic64(x: Atomic64) => atomic64(x, false),
            /// An LDS atomic on 64-bit elements.
            LdsAtomic64(x: Atomic64) => atomic64(x, true),
            /// `if`: narrows exec to the mask, or jumps past an empty branch.
            If(x: Jump) => op_if(x)
                native([] inline(op_if)),
            /// `else`: swaps to the other lanes.
            Else(x: Jump) => op_else(x)
                native([] inline(op_else)),
            /// `endif`: restores exec.
            EndIf => op_endif()
                native([] unit(op_endif)),
            /// `loop`: opens a loop frame.
            Loop(x: Jump) => op_loop(x)
                native([] inline(op_loop)),
            /// `endloop`: jumps back while lanes remain.
            EndLoop(x: Jump) => op_endloop(x)
                native([] inline(op_endloop)),
            /// `break`: retires lanes from the loop.
            Break(x: Jump) => op_exit(x, false)
                native([] exit(false)),
            /// `continue`: parks lanes until the next iteration.
            Continue(x: Jump) => op_exit(x, true)
                native([] exit(true)),
            /// A workgroup barrier.
            Barrier => barrier(),
            /// A wave barrier.
            WaveBarrier => wave_barrier(),
            /// A `print`.
            Print(x: Print) => print(x),
            /// The end of the kernel.
            End => end(),
        }
    };
}
pub(super) use for_each_decoded_op;

/// Generates [`Op`] from the rows of [`for_each_decoded_op!`].
macro_rules! define_op {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $(($x:ident : $payload:ty))? => $handler:ident($($arg:expr),*)
        $(native $native:tt)?,
    )*) => {
        /// One decoded instruction.
        #[derive(Clone, Copy, Debug)]
        pub enum Op {$(
            $(#[doc = $doc])*
            $variant $(($payload))?,
        )*}
    };
}

for_each_decoded_op!(define_op);

/// A program as the interpreter runs it.
#[derive(Debug)]
pub(super) struct Decoded {
    /// One op per instruction, same indices.
    pub(super) ops: Vec<Op>,
    /// The facts the interpreter sizes its state by.
    pub(super) prepared: Prepared,
    /// The straight-line blocks a native runner runs whole, whose issue
    /// counts it keeps per block ([`crate::ir::straight_blocks`]).
    pub(super) blocks: Vec<(usize, usize)>,
    /// What it was decoded from, to tell whether a program is the same.
    insts: Vec<Inst>,
    lds: Vec<LdsDecl>,
    counts: [u32; 4],
}

impl Decoded {
    /// Decodes `program`, which validation has accepted.
    pub(super) fn new(program: &Program) -> Self {
        let prepared = bind::prepare(program);
        let d = Decoder::of([program.vregs, program.sregs, program.mregs]);
        Decoded {
            ops: program.insts.iter().map(|i| d.op(i)).collect(),
            prepared,
            blocks: crate::ir::straight_blocks(&program.insts),
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
    vregs: u16,
    sregs: u16,
    mregs: u16,
}

/// Decodes `inst`, an instruction of a validated program with `counts`
/// vector, scalar and mask registers, during constant evaluation: the native
/// runner `simt_kernel!` writes for a kernel runs its ops as constants.
pub const fn decode_op(inst: &Inst, counts: [u16; 3]) -> Op {
    Decoder::of(counts).op(inst)
}

/// `a.min(b)`, in a `const fn`.
const fn min(a: u16, b: u16) -> u16 {
    if a < b {
        a
    } else {
        b
    }
}

impl Decoder {
    /// The decoder of a program with `counts` registers (at least one of each
    /// class is sized, as [`bind::prepare`] does).
    const fn of(counts: [u16; 3]) -> Self {
        const fn at_least_one(n: u16) -> u16 {
            if n == 0 {
                1
            } else {
                n
            }
        }
        Decoder {
            vregs: at_least_one(counts[0]),
            sregs: at_least_one(counts[1]),
            mregs: at_least_one(counts[2]),
        }
    }

    const fn src(&self, op: Operand) -> Src {
        match op {
            Operand::V(VReg(r)) if r < self.vregs => Src::V(r),
            Operand::S(SReg(r)) if r < self.sregs => Src::S(r),
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
    const fn v(&self, r: VReg) -> u16 {
        min(r.0, self.vregs)
    }

    const fn v_opt(&self, r: Option<VReg>) -> Option<u16> {
        match r {
            Some(r) => Some(self.v(r)),
            None => None,
        }
    }

    const fn s(&self, r: SReg) -> u16 {
        min(r.0, self.sregs)
    }

    const fn m(&self, r: MReg) -> u16 {
        min(r.0, self.mregs)
    }

    const fn mem(
        &self,
        target: u16,
        index: Operand,
        offset: Operand,
        addressing: Addressing,
    ) -> Mem {
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

    const fn global(&self, r: GlobalRef) -> Mem {
        self.mem(r.buffer.0, r.index, r.offset, r.addressing)
    }

    const fn lds(&self, r: LdsRef) -> Mem {
        self.mem(r.lds.0, r.index, r.offset, r.addressing)
    }

    /// A 64-bit operation reading the pairs from `src`'s registers on.
    const fn pairs(&self, op: PairOp, dst: u16, src: [VReg; 3]) -> Op {
        Op::VPairs(Pairs {
            op,
            dst,
            a: src[0].0,
            b: src[1].0,
            c: src[2].0,
            src: Src::Imm(0),
        })
    }

    /// The decoded form of `inst`: the method below named after its kind,
    /// one per instruction of the table (a new instruction is a compile error
    /// here until it has one).
    const fn op(&self, inst: &Inst) -> Op {
        simt_lang::for_each_inst!(inst_dispatch self *inst)
    }

    const fn v_binary(&self, op: BinOp, dst: VReg, a: Operand, b: Operand) -> Op {
        Op::VBinary(Bin {
            op,
            dst: self.v(dst),
            a: self.src(a),
            b: self.src(b),
        })
    }

    const fn v_unary(&self, op: UnOp, dst: VReg, a: Operand) -> Op {
        Op::VUnary(Un {
            op,
            dst: self.v(dst),
            a: self.src(a),
        })
    }

    const fn v_ternary(&self, op: TernOp, dst: VReg, a: Operand, b: Operand, c: Operand) -> Op {
        Op::VTernary(Tern {
            op,
            dst: self.v(dst),
            a: self.src(a),
            b: self.src(b),
            c: self.src(c),
        })
    }

    const fn v_cmp(&self, op: CmpOp, ty: CmpType, dst: MReg, a: Operand, b: Operand) -> Op {
        Op::VCmp(Cmp {
            op,
            ty,
            dst: self.m(dst),
            a: self.src(a),
            b: self.src(b),
        })
    }

    const fn v_select(&self, dst: VReg, mask: MReg, on_true: Operand, on_false: Operand) -> Op {
        Op::VSelect(Select {
            dst: self.v(dst),
            mask: self.m(mask),
            t: self.src(on_true),
            e: self.src(on_false),
        })
    }

    const fn v_shuffle(&self, op: ShuffleOp, dst: VReg, src: Operand, lane: Operand) -> Op {
        Op::VShuffle(Exchange {
            op,
            dst: self.v(dst),
            src: self.src(src),
            lane: self.src(lane),
        })
    }

    const fn v_read_first_lane(&self, dst: SReg, src: Operand) -> Op {
        Op::VReadFirstLane(Exchange {
            op: ShuffleOp::Index,
            dst: self.s(dst),
            src: self.src(src),
            lane: Src::Imm(0),
        })
    }

    const fn v_read_lane(&self, dst: SReg, src: Operand, lane: Operand) -> Op {
        Op::VReadLane(Exchange {
            op: ShuffleOp::Index,
            dst: self.s(dst),
            src: self.src(src),
            lane: self.src(lane),
        })
    }

    const fn v_binary64(&self, op: Bin64Op, dst: VReg, a: VReg, b: VReg) -> Op {
        self.pairs(PairOp::Bin(op), self.v(dst), [a, b, a])
    }

    const fn v_unary64(&self, op: Un64Op, dst: VReg, a: VReg) -> Op {
        self.pairs(PairOp::Un(op), self.v(dst), [a, a, a])
    }

    const fn v_ternary64(&self, op: Tern64Op, dst: VReg, a: VReg, b: VReg, c: VReg) -> Op {
        self.pairs(PairOp::Tern(op), self.v(dst), [a, b, c])
    }

    const fn v_cmp64(&self, op: CmpOp, ty: Cmp64Type, dst: MReg, a: VReg, b: VReg) -> Op {
        self.pairs(PairOp::Cmp(op, ty), self.m(dst), [a, b, a])
    }

    const fn v_widen(&self, op: WidenOp, dst: VReg, a: Operand) -> Op {
        Op::VPairs(Pairs {
            op: PairOp::Widen(op),
            dst: self.v(dst),
            a: 0,
            b: 0,
            c: 0,
            src: self.src(a),
        })
    }

    const fn v_narrow(&self, op: NarrowOp, dst: VReg, a: VReg) -> Op {
        self.pairs(PairOp::Narrow(op), self.v(dst), [a, a, a])
    }

    const fn s_binary(&self, op: BinOp, dst: SReg, a: Operand, b: Operand) -> Op {
        Op::SBinary(Bin {
            op,
            dst: self.s(dst),
            a: self.src(a),
            b: self.src(b),
        })
    }

    const fn s_unary(&self, op: UnOp, dst: SReg, a: Operand) -> Op {
        Op::SUnary(Un {
            op,
            dst: self.s(dst),
            a: self.src(a),
        })
    }

    const fn s_ternary(&self, op: TernOp, dst: SReg, a: Operand, b: Operand, c: Operand) -> Op {
        Op::STernary(Tern {
            op,
            dst: self.s(dst),
            a: self.src(a),
            b: self.src(b),
            c: self.src(c),
        })
    }

    const fn s_cmp(&self, op: CmpOp, ty: CmpType, dst: MReg, a: Operand, b: Operand) -> Op {
        Op::SCmp(Cmp {
            op,
            ty,
            dst: self.m(dst),
            a: self.src(a),
            b: self.src(b),
        })
    }

    const fn s_wave(&self, op: WaveOp, dst: SReg, mask: MReg) -> Op {
        Op::SWave(Wave {
            op,
            dst: self.s(dst),
            mask: self.m(mask),
        })
    }

    const fn s_active_lanes(&self, dst: SReg) -> Op {
        Op::SActiveLanes(self.s(dst))
    }

    const fn mask_binary(&self, op: MaskOp, dst: MReg, a: MReg, b: MReg) -> Op {
        Op::MaskBinary(Masks {
            op,
            dst: self.m(dst),
            a: self.m(a),
            b: self.m(b),
        })
    }

    const fn mask_not(&self, dst: MReg, a: MReg) -> Op {
        Op::MaskNot(Masks {
            op: MaskOp::And,
            dst: self.m(dst),
            a: self.m(a),
            b: self.m(a),
        })
    }

    const fn global_load(&self, ty: ElemType, dst: VReg, src: GlobalRef) -> Op {
        Op::GlobalLoad(Access {
            ty,
            at: self.global(src),
            reg: self.v(dst),
            src: Src::Imm(0),
        })
    }

    const fn global_store(&self, ty: ElemType, dst: GlobalRef, src: Operand) -> Op {
        Op::GlobalStore(Access {
            ty,
            at: self.global(dst),
            reg: 0,
            src: self.src(src),
        })
    }

    const fn global_load_wide(&self, width: Width, dst: VReg, src: GlobalRef) -> Op {
        Op::GlobalLoadWide(Wide {
            n: width.count() as u8,
            reg: dst.0,
            at: self.global(src),
        })
    }

    const fn global_store_wide(&self, width: Width, dst: GlobalRef, src: VReg) -> Op {
        Op::GlobalStoreWide(Wide {
            n: width.count() as u8,
            reg: src.0,
            at: self.global(dst),
        })
    }

    const fn global_atomic(
        &self,
        op: AtomicOp,
        dst: Option<VReg>,
        mem: GlobalRef,
        src: Operand,
    ) -> Op {
        Op::GlobalAtomic(Atomic {
            update: Update::Rmw(op),
            dst: self.v_opt(dst),
            at: self.global(mem),
            src: self.src(src),
            cmp: Src::Imm(0),
        })
    }

    const fn global_cmp_swap(
        &self,
        dst: Option<VReg>,
        mem: GlobalRef,
        cmp: Operand,
        src: Operand,
    ) -> Op {
        Op::GlobalAtomic(Atomic {
            update: Update::CmpSwap,
            dst: self.v_opt(dst),
            at: self.global(mem),
            src: self.src(src),
            cmp: self.src(cmp),
        })
    }

    const fn lds_load(&self, ty: ElemType, dst: VReg, src: LdsRef) -> Op {
        Op::LdsLoad(Access {
            ty,
            at: self.lds(src),
            reg: self.v(dst),
            src: Src::Imm(0),
        })
    }

    const fn lds_store(&self, ty: ElemType, dst: LdsRef, src: Operand) -> Op {
        Op::LdsStore(Access {
            ty,
            at: self.lds(dst),
            reg: 0,
            src: self.src(src),
        })
    }

    const fn lds_load_wide(&self, width: Width, dst: VReg, src: LdsRef) -> Op {
        Op::LdsLoadWide(Wide {
            n: width.count() as u8,
            reg: dst.0,
            at: self.lds(src),
        })
    }

    const fn lds_store_wide(&self, width: Width, dst: LdsRef, src: VReg) -> Op {
        Op::LdsStoreWide(Wide {
            n: width.count() as u8,
            reg: src.0,
            at: self.lds(dst),
        })
    }

    const fn lds_atomic(&self, op: AtomicOp, dst: Option<VReg>, mem: LdsRef, src: Operand) -> Op {
        Op::LdsAtomic(Atomic {
            update: Update::Rmw(op),
            dst: self.v_opt(dst),
            at: self.lds(mem),
            src: self.src(src),
            cmp: Src::Imm(0),
        })
    }

    const fn lds_cmp_swap(&self, dst: Option<VReg>, mem: LdsRef, cmp: Operand, src: Operand) -> Op {
        Op::LdsAtomic(Atomic {
            update: Update::CmpSwap,
            dst: self.v_opt(dst),
            at: self.lds(mem),
            src: self.src(src),
            cmp: self.src(cmp),
        })
    }

    const fn global_atomic64(&self, op: Atomic64Op, dst: VReg, mem: GlobalRef, src: VReg) -> Op {
        Op::GlobalAtomic64(Atomic64 {
            update: Update::Rmw(op),
            dst: dst.0,
            at: self.global(mem),
            src: src.0,
            cmp: src.0,
        })
    }

    const fn global_cmp_swap64(
        &self,
        _width: Width,
        dst: VReg,
        mem: GlobalRef,
        cmp: VReg,
        src: VReg,
    ) -> Op {
        Op::GlobalAtomic64(Atomic64 {
            update: Update::CmpSwap,
            dst: dst.0,
            at: self.global(mem),
            src: src.0,
            cmp: cmp.0,
        })
    }

    const fn lds_atomic64(&self, op: Atomic64Op, dst: VReg, mem: LdsRef, src: VReg) -> Op {
        Op::LdsAtomic64(Atomic64 {
            update: Update::Rmw(op),
            dst: dst.0,
            at: self.lds(mem),
            src: src.0,
            cmp: src.0,
        })
    }

    const fn lds_cmp_swap64(
        &self,
        _width: Width,
        dst: VReg,
        mem: LdsRef,
        cmp: VReg,
        src: VReg,
    ) -> Op {
        Op::LdsAtomic64(Atomic64 {
            update: Update::CmpSwap,
            dst: dst.0,
            at: self.lds(mem),
            src: src.0,
            cmp: cmp.0,
        })
    }

    const fn if_then(&self, mask: MReg, next: InstIdx) -> Op {
        Op::If(Jump {
            mask: self.m(mask),
            target: next.0,
        })
    }

    const fn if_else(&self, end: InstIdx) -> Op {
        Op::Else(Jump {
            mask: 0,
            target: end.0,
        })
    }

    const fn end_if(&self) -> Op {
        Op::EndIf
    }

    const fn loop_begin(&self, end: InstIdx) -> Op {
        Op::Loop(Jump {
            mask: 0,
            target: end.0,
        })
    }

    const fn end_loop(&self, mask: MReg, start: InstIdx) -> Op {
        Op::EndLoop(Jump {
            mask: self.m(mask),
            target: start.0,
        })
    }

    const fn loop_break(&self, mask: MReg, _end: InstIdx) -> Op {
        Op::Break(Jump {
            mask: self.m(mask),
            target: 0,
        })
    }

    const fn loop_continue(&self, mask: MReg, _end: InstIdx) -> Op {
        Op::Continue(Jump {
            mask: self.m(mask),
            target: 0,
        })
    }

    const fn barrier(&self) -> Op {
        Op::Barrier
    }

    const fn wave_barrier(&self) -> Op {
        Op::WaveBarrier
    }

    const fn print(
        &self,
        _format: PrintFormat,
        a: Operand,
        b: Operand,
        c: Operand,
        d: Operand,
    ) -> Op {
        Op::Print(Print {
            values: [self.src(a), self.src(b), self.src(c), self.src(d)],
        })
    }

    const fn end(&self) -> Op {
        Op::End
    }
}
