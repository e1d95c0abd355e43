//! What each instruction does to a wave: one method per instruction of the
//! table ([`InstVisitor`]), so that an instruction the oracle has no
//! semantics for does not compile; and what each counts as
//! ([`counts_as_vector`]).
//!
//! The methods are written from the documented semantics, apart from the
//! interpreter's handlers; the differential tests run both.

use super::{bit, signed_min_max_negative, skip, Frame, Move, Step, Wave};
use crate::{alu, pairs, Fault, FaultKind, Shared};
use simt_lang::{
    Atomic64Op, AtomicOp, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, ElemType, GlobalRef, Inst,
    InstIdx, InstVisitor, LdsRef, MReg, MaskOp, NarrowOp, Operand, PrintFormat, SReg, ShuffleOp,
    Tern64Op, TernOp, Un64Op, UnOp, VReg, WaveOp, WidenOp, Width,
};

/// One issue of the instruction at `pc` by a wave: the wave, what its
/// workgroup shares, and the lanes active at the issue.
pub(super) struct Issue<'i, 's, 'a> {
    pub(super) wave: &'i mut Wave,
    pub(super) sh: &'i mut Shared<'s>,
    pub(super) pc: usize,
    pub(super) lanes: &'a [usize],
}

/// What an issue did: go on, park, end, or a fault.
type Outcome = Result<Step, Fault>;

impl<'s> Issue<'_, 's, '_> {
    /// A lane-by-lane write of `f(lane)` into vector register `dst`'s active
    /// lanes.
    fn vector(&mut self, dst: VReg, f: impl Fn(&Wave, &mut Shared<'s>, usize) -> u32) -> Outcome {
        let mut out = vec![0; self.wave.width];
        for &l in self.lanes {
            out[l] = f(self.wave, self.sh, l);
        }
        self.wave.write(dst.0, &out);
        Ok(Step::Next)
    }

    /// A lane-by-lane write of `f(lane)` into the pair from `dst`.
    fn pair(&mut self, dst: VReg, f: impl Fn(&Wave, &mut Shared<'s>, usize) -> u64) -> Outcome {
        let mut out = vec![0; self.wave.width];
        for &l in self.lanes {
            out[l] = f(self.wave, self.sh, l);
        }
        self.wave.write_pairs(dst.0, &out);
        Ok(Step::Next)
    }

    /// The active lanes' bits of mask register `dst` set to `f(lane)`.
    fn compare(&mut self, dst: MReg, f: impl Fn(&Wave, &mut Shared<'s>, usize) -> bool) -> Outcome {
        let mut m = self.wave.m[dst.0 as usize];
        for &l in self.lanes {
            let r = f(self.wave, self.sh, l);
            m = (m & !(1 << l)) | (u64::from(r) << l);
        }
        self.wave.m[dst.0 as usize] = m;
        Ok(Step::Next)
    }

    /// Scalar register `dst` set to `v`.
    fn scalar(&mut self, dst: SReg, v: u32) -> Outcome {
        self.wave.s[dst.0 as usize] = v;
        Ok(Step::Next)
    }

    /// Mask register `dst` set to `v`.
    fn mask(&mut self, dst: MReg, v: u64) -> Outcome {
        self.wave.m[dst.0 as usize] = v;
        Ok(Step::Next)
    }

    fn uniform(&self, op: Operand) -> u32 {
        self.wave.uniform(self.sh, op)
    }

    /// A global access of `moved` at `at`.
    fn global(&mut self, at: GlobalRef, moved: Move) -> Outcome {
        let place = Wave::global_place(self.sh, &at);
        self.wave
            .memory(self.sh, self.pc, (&place, at.index, at.offset), moved)?;
        Ok(Step::Next)
    }

    /// An LDS access of `moved` at `at`.
    fn lds(&mut self, at: LdsRef, moved: Move) -> Outcome {
        let place = Wave::lds_place(self.sh, &at);
        self.wave
            .memory(self.sh, self.pc, (&place, at.index, at.offset), moved)?;
        Ok(Step::Next)
    }

    /// `break` (`continuing` false) or `continue`: the active lanes whose bit
    /// in `mask` is set leave the iteration.
    fn exit(&mut self, mask: MReg, continuing: bool) -> Outcome {
        let w = &mut *self.wave;
        let leaving = w.exec & w.m[mask.0 as usize];
        if leaving != 0 {
            w.exec &= !leaving;
            // The leaving lanes are gone from every `if` up to the loop,
            // so that no `endif` brings them back.
            for frame in w.stack.iter_mut().rev() {
                match frame {
                    Frame::If {
                        saved, else_lanes, ..
                    } => {
                        *saved &= !leaving;
                        *else_lanes &= !leaving;
                    }
                    Frame::Loop { continued, .. } => {
                        if continuing {
                            *continued |= leaving;
                        }
                        break;
                    }
                }
            }
            if w.exec == 0 {
                w.leave_empty(self.sh, self.pc);
            }
        }
        Ok(Step::Next)
    }
}

impl InstVisitor for Issue<'_, '_, '_> {
    type Output = Outcome;

    fn v_binary(&mut self, op: BinOp, dst: VReg, a: Operand, b: Operand) -> Outcome {
        self.vector(dst, |w, sh, l| {
            let (x, y) = (w.value(sh, a, l), w.value(sh, b, l));
            sh.report.paths.signed_min_max_negative += u64::from(signed_min_max_negative(op, x, y));
            alu::binary(op, x, y)
        })
    }

    fn v_unary(&mut self, op: UnOp, dst: VReg, a: Operand) -> Outcome {
        self.vector(dst, |w, sh, l| alu::unary(op, w.value(sh, a, l)))
    }

    fn v_ternary(&mut self, op: TernOp, dst: VReg, a: Operand, b: Operand, c: Operand) -> Outcome {
        self.vector(dst, |w, sh, l| {
            let (x, y, z) = (w.value(sh, a, l), w.value(sh, b, l), w.value(sh, c, l));
            alu::ternary(op, x, y, z)
        })
    }

    fn v_cmp(&mut self, op: CmpOp, ty: CmpType, dst: MReg, a: Operand, b: Operand) -> Outcome {
        self.compare(dst, |w, sh, l| {
            alu::compare(op, ty, w.value(sh, a, l), w.value(sh, b, l))
        })
    }

    fn v_select(&mut self, dst: VReg, mask: MReg, on_true: Operand, on_false: Operand) -> Outcome {
        let m = self.wave.m[mask.0 as usize];
        self.vector(dst, |w, sh, l| {
            w.value(sh, if bit(m, l) { on_true } else { on_false }, l)
        })
    }

    fn v_shuffle(&mut self, op: ShuffleOp, dst: VReg, src: Operand, lane: Operand) -> Outcome {
        let width = self.wave.width as u64;
        self.vector(dst, |w, sh, l| {
            let n = u64::from(w.value(sh, lane, l));
            let l64 = l as u64;
            let from = match op {
                ShuffleOp::Index => Some(n % width),
                ShuffleOp::Xor => Some(l64 ^ n).filter(|&f| f < width),
                ShuffleOp::Up => l64.checked_sub(n),
                ShuffleOp::Down => Some(l64 + n).filter(|&f| f < width),
            };
            // An inactive or missing source lane: the lane keeps its own.
            match from {
                Some(f) if bit(w.exec, f as usize) => w.value(sh, src, f as usize),
                Some(_) => {
                    sh.report.paths.shuffle_from_inactive += 1;
                    w.value(sh, src, l)
                }
                None => {
                    sh.report.paths.shuffle_from_outside += 1;
                    w.value(sh, src, l)
                }
            }
        })
    }

    fn v_read_first_lane(&mut self, dst: SReg, src: Operand) -> Outcome {
        let first = self.lanes.first().copied().unwrap_or(0);
        let v = self.wave.value(self.sh, src, first);
        self.scalar(dst, v)
    }

    fn v_read_lane(&mut self, dst: SReg, src: Operand, lane: Operand) -> Outcome {
        let l = self.uniform(lane) as usize % self.wave.width;
        self.sh.report.paths.readlane_of_inactive += u64::from(!bit(self.wave.exec, l));
        let v = self.wave.value(self.sh, src, l);
        self.scalar(dst, v)
    }

    fn v_binary64(&mut self, op: Bin64Op, dst: VReg, a: VReg, b: VReg) -> Outcome {
        self.pair(dst, |w, _, l| pairs::binary(op, w.pair(a, l), w.pair(b, l)))
    }

    fn v_unary64(&mut self, op: Un64Op, dst: VReg, a: VReg) -> Outcome {
        self.pair(dst, |w, _, l| pairs::unary(op, w.pair(a, l)))
    }

    fn v_ternary64(&mut self, op: Tern64Op, dst: VReg, a: VReg, b: VReg, c: VReg) -> Outcome {
        self.pair(dst, |w, _, l| {
            pairs::ternary(op, w.pair(a, l), w.pair(b, l), w.pair(c, l))
        })
    }

    fn v_cmp64(&mut self, op: CmpOp, ty: Cmp64Type, dst: MReg, a: VReg, b: VReg) -> Outcome {
        self.compare(dst, |w, _, l| {
            pairs::compare(op, ty, w.pair(a, l), w.pair(b, l))
        })
    }

    fn v_widen(&mut self, op: WidenOp, dst: VReg, a: Operand) -> Outcome {
        self.pair(dst, |w, sh, l| pairs::widen(op, w.value(sh, a, l)))
    }

    fn v_narrow(&mut self, op: NarrowOp, dst: VReg, a: VReg) -> Outcome {
        self.vector(dst, |w, _, l| pairs::narrow(op, w.pair(a, l)))
    }

    fn s_binary(&mut self, op: BinOp, dst: SReg, a: Operand, b: Operand) -> Outcome {
        let (x, y) = (self.uniform(a), self.uniform(b));
        self.sh.report.paths.signed_min_max_negative +=
            u64::from(signed_min_max_negative(op, x, y));
        self.scalar(dst, alu::binary(op, x, y))
    }

    fn s_unary(&mut self, op: UnOp, dst: SReg, a: Operand) -> Outcome {
        let x = self.uniform(a);
        self.scalar(dst, alu::unary(op, x))
    }

    fn s_ternary(&mut self, op: TernOp, dst: SReg, a: Operand, b: Operand, c: Operand) -> Outcome {
        let (x, y, z) = (self.uniform(a), self.uniform(b), self.uniform(c));
        self.scalar(dst, alu::ternary(op, x, y, z))
    }

    fn s_cmp(&mut self, op: CmpOp, ty: CmpType, dst: MReg, a: Operand, b: Operand) -> Outcome {
        let r = alu::compare(op, ty, self.uniform(a), self.uniform(b));
        self.mask(dst, if r { u64::MAX } else { 0 })
    }

    fn s_wave(&mut self, op: WaveOp, dst: SReg, mask: MReg) -> Outcome {
        let (all, exec) = (self.wave.m[mask.0 as usize], self.wave.exec);
        self.sh.report.paths.wave_op_mask_beyond_exec += u64::from(all & !exec != 0);
        let m = all & exec;
        self.scalar(
            dst,
            match op {
                WaveOp::BallotLo => (m & 0xffff_ffff) as u32,
                WaveOp::BallotHi => (m >> 32) as u32,
                WaveOp::Count => m.count_ones(),
            },
        )
    }

    fn s_active_lanes(&mut self, dst: SReg) -> Outcome {
        self.scalar(dst, self.lanes.len() as u32)
    }

    fn mask_binary(&mut self, op: MaskOp, dst: MReg, a: MReg, b: MReg) -> Outcome {
        let (x, y) = (self.wave.m[a.0 as usize], self.wave.m[b.0 as usize]);
        self.mask(
            dst,
            match op {
                MaskOp::And => x & y,
                MaskOp::Or => x | y,
                MaskOp::AndN => x & !y,
                MaskOp::Xor => x ^ y,
            },
        )
    }

    fn mask_not(&mut self, dst: MReg, a: MReg) -> Outcome {
        self.mask(dst, !self.wave.m[a.0 as usize])
    }

    fn global_load(&mut self, ty: ElemType, dst: VReg, src: GlobalRef) -> Outcome {
        self.global(src, Move::Load(ty, dst))
    }

    fn global_store(&mut self, ty: ElemType, dst: GlobalRef, src: Operand) -> Outcome {
        self.global(dst, Move::Store(ty, src))
    }

    fn global_load_wide(&mut self, width: Width, dst: VReg, src: GlobalRef) -> Outcome {
        self.global(src, Move::LoadRun(width.count(), dst))
    }

    fn global_store_wide(&mut self, width: Width, dst: GlobalRef, src: VReg) -> Outcome {
        self.global(dst, Move::StoreRun(width.count(), src))
    }

    fn global_atomic(
        &mut self,
        op: AtomicOp,
        dst: Option<VReg>,
        mem: GlobalRef,
        src: Operand,
    ) -> Outcome {
        self.global(mem, Move::Atomic(Some(op), dst, src, Operand::Imm(0)))
    }

    fn global_cmp_swap(
        &mut self,
        dst: Option<VReg>,
        mem: GlobalRef,
        cmp: Operand,
        src: Operand,
    ) -> Outcome {
        self.global(mem, Move::Atomic(None, dst, src, cmp))
    }

    fn lds_load(&mut self, ty: ElemType, dst: VReg, src: LdsRef) -> Outcome {
        self.lds(src, Move::Load(ty, dst))
    }

    fn lds_store(&mut self, ty: ElemType, dst: LdsRef, src: Operand) -> Outcome {
        self.lds(dst, Move::Store(ty, src))
    }

    fn lds_load_wide(&mut self, width: Width, dst: VReg, src: LdsRef) -> Outcome {
        self.lds(src, Move::LoadRun(width.count(), dst))
    }

    fn lds_store_wide(&mut self, width: Width, dst: LdsRef, src: VReg) -> Outcome {
        self.lds(dst, Move::StoreRun(width.count(), src))
    }

    fn lds_atomic(
        &mut self,
        op: AtomicOp,
        dst: Option<VReg>,
        mem: LdsRef,
        src: Operand,
    ) -> Outcome {
        self.lds(mem, Move::Atomic(Some(op), dst, src, Operand::Imm(0)))
    }

    fn lds_cmp_swap(
        &mut self,
        dst: Option<VReg>,
        mem: LdsRef,
        cmp: Operand,
        src: Operand,
    ) -> Outcome {
        self.lds(mem, Move::Atomic(None, dst, src, cmp))
    }

    fn global_atomic64(&mut self, op: Atomic64Op, dst: VReg, mem: GlobalRef, src: VReg) -> Outcome {
        self.global(mem, Move::Atomic64(Some(op), dst, src, None))
    }

    fn global_cmp_swap64(
        &mut self,
        _width: Width,
        dst: VReg,
        mem: GlobalRef,
        cmp: VReg,
        src: VReg,
    ) -> Outcome {
        self.global(mem, Move::Atomic64(None, dst, src, Some(cmp)))
    }

    fn lds_atomic64(&mut self, op: Atomic64Op, dst: VReg, mem: LdsRef, src: VReg) -> Outcome {
        self.lds(mem, Move::Atomic64(Some(op), dst, src, None))
    }

    fn lds_cmp_swap64(
        &mut self,
        _width: Width,
        dst: VReg,
        mem: LdsRef,
        cmp: VReg,
        src: VReg,
    ) -> Outcome {
        self.lds(mem, Move::Atomic64(None, dst, src, Some(cmp)))
    }

    fn if_then(&mut self, mask: MReg, _next: InstIdx) -> Outcome {
        let (w, pc) = (&mut *self.wave, self.pc);
        let next = self.sh.structure.target[pc];
        let m = w.m[mask.0 as usize];
        w.stack.push(Frame::If {
            saved: w.exec,
            else_lanes: w.exec & !m,
            next,
        });
        w.exec &= m;
        if w.exec == 0 {
            skip(self.sh, pc, next);
            w.pc = next;
        }
        Ok(Step::Next)
    }

    fn if_else(&mut self, _end: InstIdx) -> Outcome {
        let (w, pc) = (&mut *self.wave, self.pc);
        let end = self.sh.structure.target[pc];
        if let Some(Frame::If {
            else_lanes, next, ..
        }) = w.stack.last_mut()
        {
            w.exec = *else_lanes;
            *else_lanes = 0;
            *next = end;
        }
        if w.exec == 0 {
            skip(self.sh, pc, end);
            w.pc = end;
        }
        Ok(Step::Next)
    }

    fn end_if(&mut self) -> Outcome {
        let w = &mut *self.wave;
        if let Some(Frame::If { saved, .. }) = w.stack.pop() {
            w.exec = saved;
        }
        if w.exec == 0 {
            w.leave_empty(self.sh, self.pc);
        }
        Ok(Step::Next)
    }

    fn loop_begin(&mut self, _end: InstIdx) -> Outcome {
        let end = self.sh.structure.target[self.pc];
        let w = &mut *self.wave;
        w.stack.push(Frame::Loop {
            entry: w.exec,
            continued: 0,
            end,
        });
        Ok(Step::Next)
    }

    fn end_loop(&mut self, mask: MReg, _start: InstIdx) -> Outcome {
        let (w, pc) = (&mut *self.wave, self.pc);
        let start = self.sh.structure.target[pc];
        let m = w.m[mask.0 as usize];
        if let Some(Frame::Loop {
            entry, continued, ..
        }) = w.stack.last_mut()
        {
            let again = (w.exec | *continued) & m;
            *continued = 0;
            if again != 0 {
                w.exec = again;
                w.pc = start + 1;
                return Ok(Step::Next);
            }
            w.exec = *entry;
            w.stack.pop();
        }
        if w.exec == 0 {
            w.leave_empty(self.sh, pc);
        }
        Ok(Step::Next)
    }

    fn loop_break(&mut self, mask: MReg, _end: InstIdx) -> Outcome {
        self.exit(mask, false)
    }

    fn loop_continue(&mut self, mask: MReg, _end: InstIdx) -> Outcome {
        self.exit(mask, true)
    }

    fn barrier(&mut self) -> Outcome {
        let pc = self.pc;
        self.sh.report.per_instruction[pc].barriers += 1;
        if self.wave.exec != self.wave.launch {
            return Err(self.wave.fault(self.sh, pc, FaultKind::BarrierPartialMask));
        }
        Ok(Step::Parked(pc))
    }

    // Lanes run in lockstep, so a wave-level sync orders nothing more: it is
    // one issue and nothing else.
    fn wave_barrier(&mut self) -> Outcome {
        Ok(Step::Next)
    }

    fn print(
        &mut self,
        format: PrintFormat,
        a: Operand,
        b: Operand,
        c: Operand,
        d: Operand,
    ) -> Outcome {
        let n = usize::from(format.values).min(4);
        for &l in self.lanes {
            let values = [a, b, c, d][..n]
                .iter()
                .map(|&op| self.wave.value(self.sh, op, l))
                .collect();
            self.sh.report.prints.push(crate::Printed {
                workgroup: self.sh.group,
                wave: self.wave.index,
                lane: l,
                inst: self.pc,
                values,
            });
        }
        Ok(Step::Next)
    }

    fn end(&mut self) -> Outcome {
        self.wave.pc = self.pc;
        Ok(Step::Done(self.pc))
    }
}

/// Whether the instruction is issued to the vector units (ALU, compare,
/// select, lane exchange, memory), as `vector_instructions` counts: every
/// instruction is listed, so a new one does not compile until the oracle
/// says.
pub(super) fn counts_as_vector(inst: &Inst) -> bool {
    match inst {
        Inst::VBinary { .. }
        | Inst::VUnary { .. }
        | Inst::VTernary { .. }
        | Inst::VCmp { .. }
        | Inst::VBinary64 { .. }
        | Inst::VUnary64 { .. }
        | Inst::VTernary64 { .. }
        | Inst::VCmp64 { .. }
        | Inst::VWiden { .. }
        | Inst::VNarrow { .. }
        | Inst::VSelect { .. }
        | Inst::VShuffle { .. }
        | Inst::VReadFirstLane { .. }
        | Inst::VReadLane { .. } => true,
        Inst::SBinary { .. }
        | Inst::STernary { .. }
        | Inst::SUnary { .. }
        | Inst::SCmp { .. }
        | Inst::SWave { .. }
        | Inst::SActiveLanes { .. }
        | Inst::MaskBinary { .. }
        | Inst::MaskNot { .. } => false,
        Inst::GlobalLoad { .. }
        | Inst::LdsLoad { .. }
        | Inst::GlobalLoadWide { .. }
        | Inst::LdsLoadWide { .. }
        | Inst::GlobalStore { .. }
        | Inst::LdsStore { .. }
        | Inst::GlobalStoreWide { .. }
        | Inst::LdsStoreWide { .. }
        | Inst::GlobalAtomic { .. }
        | Inst::LdsAtomic { .. }
        | Inst::GlobalCmpSwap { .. }
        | Inst::LdsCmpSwap { .. }
        | Inst::GlobalAtomic64 { .. }
        | Inst::LdsAtomic64 { .. }
        | Inst::GlobalCmpSwap64 { .. }
        | Inst::LdsCmpSwap64 { .. } => true,
        Inst::If { .. }
        | Inst::Else { .. }
        | Inst::EndIf
        | Inst::Loop { .. }
        | Inst::EndLoop { .. }
        | Inst::Break { .. }
        | Inst::Continue { .. } => false,
        Inst::Barrier | Inst::WaveBarrier | Inst::Print { .. } | Inst::End => false,
    }
}
