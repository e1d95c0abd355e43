//! What each instruction writes, as the walk's domain follows it: one method
//! per instruction of the table ([`InstVisitor`]), so that a new instruction
//! does not compile until the facts know it.

use super::{Cond, State, Walk};
use crate::facts::affine::{Affine, Lin, Sym, Val};
use crate::ir::{GlobalRef, InstIdx, LdsRef, MReg, Operand, PrintFormat, Reg, SReg, VReg};
use crate::isa::{
    Atomic64Op, AtomicOp, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, InstVisitor, MaskOp, NarrowOp,
    ShuffleOp, Tern64Op, TernOp, Un64Op, UnOp, WaveOp, WidenOp, Width,
};
use crate::ElemType;

/// What an instruction writes, as [`Walk::transfer`] applies it.
pub(super) enum Written {
    /// One register, this value.
    Value(Reg, Val),
    /// A mask, from this comparison when known.
    Mask(MReg, Option<Cond>),
    /// Vector words the domain does not follow (the 64-bit operations'):
    /// opaque, uniform when every value read is.
    Words,
    /// Its scalar results, one opaque value per wave; its vector results unknown.
    Opaque,
    /// A memory access: its site is recorded.
    Memory,
    /// Nothing the walk follows.
    Nothing,
}

/// The visitor that says what an instruction writes: the walk, its state
/// before the instruction, and the name a uniform result the domain cannot
/// express gets.
pub(super) struct Writes<'w, 'a> {
    pub(super) walk: &'w Walk<'a>,
    pub(super) st: &'w State,
    pub(super) named: Option<Sym>,
}

impl Writes<'_, '_> {
    fn val(&self, op: Operand) -> Val {
        self.walk.operand(self.st, op)
    }

    /// A per-lane value read into a scalar: known only when it is uniform.
    fn uniform_only(&self, src: Operand) -> Val {
        let v = self.val(src);
        if v.affine().is_some_and(Affine::is_uniform) {
            v
        } else {
            Val::Unknown
        }
    }

    /// A compare's mask, with its condition when both sides are affine.
    fn compare(&self, op: CmpOp, ty: CmpType, dst: MReg, a: Operand, b: Operand) -> Written {
        let cond = match (self.val(a).affine(), self.val(b).affine()) {
            (Some(a), Some(b)) => Some(Cond {
                op,
                ty,
                a: a.clone(),
                b: b.clone(),
            }),
            _ => None,
        };
        Written::Mask(dst, cond)
    }
}

impl InstVisitor for Writes<'_, '_> {
    type Output = Written;

    fn v_binary(&mut self, op: BinOp, dst: VReg, a: Operand, b: Operand) -> Written {
        Written::Value(
            Reg::V(dst),
            binary(op, &self.val(a), &self.val(b), self.named),
        )
    }

    fn v_unary(&mut self, op: UnOp, dst: VReg, a: Operand) -> Written {
        Written::Value(Reg::V(dst), unary(op, &self.val(a)))
    }

    fn v_ternary(&mut self, op: TernOp, dst: VReg, a: Operand, b: Operand, c: Operand) -> Written {
        let (a, b, c) = (self.val(a), self.val(b), self.val(c));
        Written::Value(Reg::V(dst), ternary(op, &a, &b, &c, self.named))
    }

    fn v_cmp(&mut self, op: CmpOp, ty: CmpType, dst: MReg, a: Operand, b: Operand) -> Written {
        self.compare(op, ty, dst, a, b)
    }

    fn v_select(&mut self, dst: VReg, _mask: MReg, on_true: Operand, on_false: Operand) -> Written {
        let (t, f) = (self.val(on_true), self.val(on_false));
        Written::Value(Reg::V(dst), if t == f { t } else { Val::Unknown })
    }

    fn v_shuffle(&mut self, _op: ShuffleOp, dst: VReg, src: Operand, _lane: Operand) -> Written {
        Written::Value(Reg::V(dst), self.uniform_only(src))
    }

    fn v_read_first_lane(&mut self, dst: SReg, src: Operand) -> Written {
        Written::Value(Reg::S(dst), self.uniform_only(src))
    }

    fn v_read_lane(&mut self, dst: SReg, src: Operand, _lane: Operand) -> Written {
        Written::Value(Reg::S(dst), self.uniform_only(src))
    }

    // The domain follows 32-bit values only: a pair's words are opaque, and
    // a comparison of pairs gives no condition.
    fn v_binary64(&mut self, _op: Bin64Op, _dst: VReg, _a: VReg, _b: VReg) -> Written {
        Written::Words
    }

    fn v_unary64(&mut self, _op: Un64Op, _dst: VReg, _a: VReg) -> Written {
        Written::Words
    }

    fn v_ternary64(&mut self, _op: Tern64Op, _dst: VReg, _a: VReg, _b: VReg, _c: VReg) -> Written {
        Written::Words
    }

    fn v_cmp64(&mut self, _op: CmpOp, _ty: Cmp64Type, dst: MReg, _a: VReg, _b: VReg) -> Written {
        Written::Mask(dst, None)
    }

    fn v_widen(&mut self, _op: WidenOp, _dst: VReg, _a: Operand) -> Written {
        Written::Words
    }

    fn v_narrow(&mut self, _op: NarrowOp, _dst: VReg, _a: VReg) -> Written {
        Written::Words
    }

    fn s_binary(&mut self, op: BinOp, dst: SReg, a: Operand, b: Operand) -> Written {
        Written::Value(
            Reg::S(dst),
            binary(op, &self.val(a), &self.val(b), self.named),
        )
    }

    fn s_unary(&mut self, op: UnOp, dst: SReg, a: Operand) -> Written {
        Written::Value(Reg::S(dst), unary(op, &self.val(a)))
    }

    fn s_ternary(&mut self, op: TernOp, dst: SReg, a: Operand, b: Operand, c: Operand) -> Written {
        let (a, b, c) = (self.val(a), self.val(b), self.val(c));
        Written::Value(Reg::S(dst), ternary(op, &a, &b, &c, self.named))
    }

    fn s_cmp(&mut self, op: CmpOp, ty: CmpType, dst: MReg, a: Operand, b: Operand) -> Written {
        self.compare(op, ty, dst, a, b)
    }

    // Ballots and lane counts: one value per wave the domain does not follow.
    fn s_wave(&mut self, _op: WaveOp, _dst: SReg, _mask: MReg) -> Written {
        Written::Opaque
    }

    fn s_active_lanes(&mut self, _dst: SReg) -> Written {
        Written::Opaque
    }

    fn mask_binary(&mut self, _op: MaskOp, dst: MReg, _a: MReg, _b: MReg) -> Written {
        Written::Mask(dst, None)
    }

    fn mask_not(&mut self, dst: MReg, _a: MReg) -> Written {
        Written::Mask(dst, None)
    }

    fn global_load(&mut self, _ty: ElemType, _dst: VReg, _src: GlobalRef) -> Written {
        Written::Memory
    }

    fn global_store(&mut self, _ty: ElemType, _dst: GlobalRef, _src: Operand) -> Written {
        Written::Memory
    }

    fn global_load_wide(&mut self, _width: Width, _dst: VReg, _src: GlobalRef) -> Written {
        Written::Memory
    }

    fn global_store_wide(&mut self, _width: Width, _dst: GlobalRef, _src: VReg) -> Written {
        Written::Memory
    }

    fn global_atomic(
        &mut self,
        _op: AtomicOp,
        _dst: Option<VReg>,
        _mem: GlobalRef,
        _src: Operand,
    ) -> Written {
        Written::Memory
    }

    fn global_cmp_swap(
        &mut self,
        _dst: Option<VReg>,
        _mem: GlobalRef,
        _cmp: Operand,
        _src: Operand,
    ) -> Written {
        Written::Memory
    }

    fn lds_load(&mut self, _ty: ElemType, _dst: VReg, _src: LdsRef) -> Written {
        Written::Memory
    }

    fn lds_store(&mut self, _ty: ElemType, _dst: LdsRef, _src: Operand) -> Written {
        Written::Memory
    }

    fn lds_load_wide(&mut self, _width: Width, _dst: VReg, _src: LdsRef) -> Written {
        Written::Memory
    }

    fn lds_store_wide(&mut self, _width: Width, _dst: LdsRef, _src: VReg) -> Written {
        Written::Memory
    }

    fn lds_atomic(
        &mut self,
        _op: AtomicOp,
        _dst: Option<VReg>,
        _mem: LdsRef,
        _src: Operand,
    ) -> Written {
        Written::Memory
    }

    fn lds_cmp_swap(
        &mut self,
        _dst: Option<VReg>,
        _mem: LdsRef,
        _cmp: Operand,
        _src: Operand,
    ) -> Written {
        Written::Memory
    }

    fn global_atomic64(
        &mut self,
        _op: Atomic64Op,
        _dst: VReg,
        _mem: GlobalRef,
        _src: VReg,
    ) -> Written {
        Written::Memory
    }

    fn global_cmp_swap64(
        &mut self,
        _width: Width,
        _dst: VReg,
        _mem: GlobalRef,
        _cmp: VReg,
        _src: VReg,
    ) -> Written {
        Written::Memory
    }

    fn lds_atomic64(&mut self, _op: Atomic64Op, _dst: VReg, _mem: LdsRef, _src: VReg) -> Written {
        Written::Memory
    }

    fn lds_cmp_swap64(
        &mut self,
        _width: Width,
        _dst: VReg,
        _mem: LdsRef,
        _cmp: VReg,
        _src: VReg,
    ) -> Written {
        Written::Memory
    }

    // Control flow is the walk's own (`block`): here it writes nothing.
    fn if_then(&mut self, _mask: MReg, _next: InstIdx) -> Written {
        Written::Nothing
    }

    fn if_else(&mut self, _end: InstIdx) -> Written {
        Written::Nothing
    }

    fn end_if(&mut self) -> Written {
        Written::Nothing
    }

    fn loop_begin(&mut self, _end: InstIdx) -> Written {
        Written::Nothing
    }

    fn end_loop(&mut self, _mask: MReg, _start: InstIdx) -> Written {
        Written::Nothing
    }

    fn loop_break(&mut self, _mask: MReg, _end: InstIdx) -> Written {
        Written::Nothing
    }

    fn loop_continue(&mut self, _mask: MReg, _end: InstIdx) -> Written {
        Written::Nothing
    }

    fn barrier(&mut self) -> Written {
        Written::Nothing
    }

    fn wave_barrier(&mut self) -> Written {
        Written::Nothing
    }

    // `print` reads its values and writes nothing.
    fn print(
        &mut self,
        _format: PrintFormat,
        _a: Operand,
        _b: Operand,
        _c: Operand,
        _d: Operand,
    ) -> Written {
        Written::Nothing
    }

    fn end(&mut self) -> Written {
        Written::Nothing
    }
}

fn binary(op: BinOp, a: &Val, b: &Val, named: Option<Sym>) -> Val {
    let (Some(x), Some(y)) = (a.affine(), b.affine()) else {
        return Val::Unknown;
    };
    let r = match op {
        BinOp::AddU32 => Some(x.add(y)),
        BinOp::SubU32 => Some(x.add(&y.scale(-1))),
        BinOp::MulU32 => x.mul(y, named),
        BinOp::Shl => y
            .is_uniform()
            .then(|| y.uni.as_const())
            .flatten()
            .map(|k| x.scale(1i64 << (k & 31))),
        _ => None,
    };
    r.map_or(Val::Unknown, Val::Known)
}

fn unary(op: UnOp, a: &Val) -> Val {
    let Some(x) = a.affine() else {
        return Val::Unknown;
    };
    match op {
        UnOp::Mov => Val::Known(x.clone()),
        UnOp::NegI32 => Val::Known(x.scale(-1)),
        // !x = -x - 1 on 32 bits.
        UnOp::Not => Val::Known(x.scale(-1).add(&Affine::uniform(Lin::constant(-1)))),
        _ => Val::Unknown,
    }
}

fn ternary(op: TernOp, a: &Val, b: &Val, c: &Val, named: Option<Sym>) -> Val {
    match op {
        TernOp::MadU32 => match (binary(BinOp::MulU32, a, b, named), c.affine()) {
            (Val::Known(p), Some(c)) => Val::Known(p.add(c)),
            _ => Val::Unknown,
        },
        TernOp::FmaF32
        | TernOp::FmaF16
        | TernOp::FmaBf16
        | TernOp::FmaRmF32
        | TernOp::FmaRzF32
        | TernOp::FmaRpF32
        | TernOp::FmsF32 => Val::Unknown,
    }
}
