//! Vector, scalar and mask arithmetic and compares.

use super::super::alu;
use super::super::decode::{Bin, Cmp, Masks, Select, Src, Tern, Un, Wave};
use super::super::instrument::Instrument;
use super::{lanes, lanes_mut, Exec, Flow, Parts, Reads};
use crate::isa::{MaskOp, UnOp, WaveOp};

/// Register `d` (mutably) and the registers below and above it (shared), so that
/// an instruction can read its sources while it writes its destination.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn split_dst(
    vr: &mut [[u32; 64]],
    d: usize,
) -> Option<(&mut [u32; 64], &[[u32; 64]], &[[u32; 64]])> {
    let (lo, rest) = vr.split_at_mut_checked(d)?;
    let (dreg, hi) = rest.split_first_mut()?;
    Some((dreg, lo, hi))
}

/// Vector registers around a destination, and where operands come from.
struct Around<'r> {
    d: usize,
    lo: &'r [[u32; 64]],
    hi: &'r [[u32; 64]],
    rd: Reads<'r>,
}

impl<'r> Around<'r> {
    /// A source operand of an instruction writing register `d`.
    #[inline(always)]
    fn source<const W: usize>(&self, src: Src, tmp: &'r mut [u32; W]) -> alu::Src<'r, W> {
        match src {
            Src::V(r) => {
                let r = r as usize;
                let reg = if r < self.d {
                    self.lo.get(r)
                } else if r > self.d {
                    self.hi.get(r - self.d - 1)
                } else {
                    return alu::Src::Dst;
                };
                match reg {
                    Some(reg) => alu::Src::Lanes(lanes(reg)),
                    None => {
                        *tmp = [0; W];
                        alu::Src::Lanes(tmp)
                    }
                }
            }
            _ => alu::Src::Lanes(self.rd.fetch(src, &[], tmp)),
        }
    }
}

impl<const W: usize, I: Instrument> Exec<'_, '_, W, I> {
    // The native runner's forms of the vector arithmetic, whose lane loop
    // is the caller's (see `native.rs`): the same steps as `v_binary`,
    // `v_unary`, `v_ternary` and `v_cmp` below, written again because the
    // interpreter's dispatch loop, calling its loops through a closure,
    // issued 1.5% more machine instructions per launch (callgrind, the
    // report's rows). They leave the issue count to the runner, which keeps
    // it per block (`Turn::ran`).

    /// `v_binary` whose lane loop is `each`, which applies `x.op`.
    #[inline(always)]
    pub(in crate::exec) fn v_binary_by(
        &mut self,
        x: Bin,
        each: impl FnOnce(&mut [u32; W], [alu::Src<'_, W>; 2], &[u32; W]),
    ) -> Flow {
        self.unstep(x.dst);
        let Parts { vr, rd, s, lm } = self.parts();
        let d = x.dst as usize;
        if let Some((dreg, lo, hi)) = split_dst(vr, d) {
            let at = Around { d, lo, hi, rd };
            let a = at.source(x.a, &mut s.a);
            let b = at.source(x.b, &mut s.b);
            each(lanes_mut::<W>(dreg), [a, b], lm);
        }
        self.next()
    }

    /// `v_unary` whose lane loop is `each`, which applies `x.op`.
    #[inline(always)]
    pub(in crate::exec) fn v_unary_by(
        &mut self,
        x: Un,
        each: impl FnOnce(&mut [u32; W], alu::Src<'_, W>, &[u32; W]),
    ) -> Flow {
        // A copy of every lane of a stepped value steps too.
        let stepped = x.op == UnOp::Mov && self.all_lanes() && self.is_stepped(x.a);
        self.set_stepped(x.dst, stepped);
        let Parts { vr, rd, s, lm } = self.parts();
        let d = x.dst as usize;
        if let Some((dreg, lo, hi)) = split_dst(vr, d) {
            let a = Around { d, lo, hi, rd }.source(x.a, &mut s.a);
            each(lanes_mut::<W>(dreg), a, lm);
        }
        self.next()
    }

    /// `v_ternary` whose lane loop is `each`, which applies `x.op`.
    #[inline(always)]
    pub(in crate::exec) fn v_ternary_by(
        &mut self,
        x: Tern,
        each: impl FnOnce(&mut [u32; W], [alu::Src<'_, W>; 3], &[u32; W]),
    ) -> Flow {
        self.unstep(x.dst);
        let Parts { vr, rd, s, lm } = self.parts();
        let d = x.dst as usize;
        if let Some((dreg, lo, hi)) = split_dst(vr, d) {
            let at = Around { d, lo, hi, rd };
            let a = at.source(x.a, &mut s.a);
            let b = at.source(x.b, &mut s.b);
            let c = at.source(x.c, &mut s.c);
            each(lanes_mut::<W>(dreg), [a, b, c], lm);
        }
        self.next()
    }

    /// `v_cmp` whose lane loop is `each`, which compares as `x` says.
    #[inline(always)]
    pub(in crate::exec) fn v_cmp_by(
        &mut self,
        x: Cmp,
        each: impl FnOnce(&[u32; W], alu::CmpRhs<'_, W>) -> u64,
    ) -> Flow {
        let exec = self.exec;
        let Parts { vr, rd, s, .. } = self.parts();
        let a = rd.fetch(x.a, vr, &mut s.a);
        let bits = match rd.uniform(x.b) {
            Some(y) => each(a, alu::CmpRhs::Uniform(y)),
            None => each(a, alu::CmpRhs::Lanes(rd.fetch(x.b, vr, &mut s.b))),
        };
        if let Some(d) = self.mreg_mut(x.dst) {
            *d = (*d & !exec) | (bits & exec);
        }
        self.next()
    }

    #[inline(always)]
    pub(in crate::exec) fn v_binary(&mut self, x: Bin) -> Flow {
        self.vector_issue();
        self.unstep(x.dst);
        let Parts { vr, rd, s, lm } = self.parts();
        let d = x.dst as usize;
        if let Some((dreg, lo, hi)) = split_dst(vr, d) {
            let at = Around { d, lo, hi, rd };
            let a = at.source(x.a, &mut s.a);
            let b = at.source(x.b, &mut s.b);
            alu::binary_into(x.op, lanes_mut::<W>(dreg), [a, b], lm);
        }
        self.next()
    }

    #[inline(always)]
    pub(in crate::exec) fn v_unary(&mut self, x: Un) -> Flow {
        self.vector_issue();
        // A copy of every lane of a stepped value steps too.
        let stepped = x.op == UnOp::Mov && self.all_lanes() && self.is_stepped(x.a);
        self.set_stepped(x.dst, stepped);
        let Parts { vr, rd, s, lm } = self.parts();
        let d = x.dst as usize;
        if let Some((dreg, lo, hi)) = split_dst(vr, d) {
            let a = Around { d, lo, hi, rd }.source(x.a, &mut s.a);
            alu::unary_into(x.op, lanes_mut::<W>(dreg), a, lm);
        }
        self.next()
    }

    #[inline(always)]
    pub(in crate::exec) fn v_ternary(&mut self, x: Tern) -> Flow {
        self.vector_issue();
        self.unstep(x.dst);
        let Parts { vr, rd, s, lm } = self.parts();
        let d = x.dst as usize;
        if let Some((dreg, lo, hi)) = split_dst(vr, d) {
            let at = Around { d, lo, hi, rd };
            let a = at.source(x.a, &mut s.a);
            let b = at.source(x.b, &mut s.b);
            let c = at.source(x.c, &mut s.c);
            alu::ternary_into(x.op, lanes_mut::<W>(dreg), [a, b, c], lm);
        }
        self.next()
    }

    #[inline(always)]
    pub(in crate::exec) fn v_cmp(&mut self, x: Cmp) -> Flow {
        self.vector_issue();
        let exec = self.exec;
        let Parts { vr, rd, s, .. } = self.parts();
        let a = rd.fetch(x.a, vr, &mut s.a);
        let bits = match rd.uniform(x.b) {
            Some(y) => alu::vcmp(x.op, x.ty, a, alu::CmpRhs::Uniform(y)),
            None => alu::vcmp(
                x.op,
                x.ty,
                a,
                alu::CmpRhs::Lanes(rd.fetch(x.b, vr, &mut s.b)),
            ),
        };
        if let Some(d) = self.mreg_mut(x.dst) {
            *d = (*d & !exec) | (bits & exec);
        }
        self.next()
    }

    #[inline(always)]
    pub(in crate::exec) fn v_select(&mut self, x: Select) -> Flow {
        self.vector_issue();
        self.v_select_lanes(x)
    }

    /// `v_select` past its issue count: a native runner counts the issue of
    /// the instructions it runs inline per block.
    #[inline(always)]
    pub(in crate::exec) fn v_select_lanes(&mut self, x: Select) -> Flow {
        self.unstep(x.dst);
        let mask = self.mreg(x.mask);
        let Parts { vr, rd, s, lm } = self.parts();
        alu::expand(mask, &mut s.sel);
        let d = x.dst as usize;
        if let Some((dreg, lo, hi)) = split_dst(vr, d) {
            let at = Around { d, lo, hi, rd };
            let t = at.source(x.t, &mut s.a);
            let e = at.source(x.e, &mut s.b);
            alu::select_into(lanes_mut::<W>(dreg), t, e, &s.sel, lm);
        }
        self.next()
    }

    /// Reads a scalar instruction's operand.
    #[inline(always)]
    fn scalar(&mut self, src: Src) -> u32 {
        let exec = self.exec;
        let Parts { vr, rd, s, .. } = self.parts();
        rd.scalar(src, vr, exec, &mut s.a)
    }

    /// Writes scalar register `dst`.
    #[inline(always)]
    fn set_s(&mut self, dst: u16, v: u32) -> Flow {
        if let Some(d) = self.sreg_mut(dst) {
            *d = v;
        }
        self.next()
    }

    /// Writes mask register `dst`.
    #[inline(always)]
    fn set_m(&mut self, dst: u16, v: u64) -> Flow {
        if let Some(d) = self.mreg_mut(dst) {
            *d = v;
        }
        self.next()
    }

    #[inline(always)]
    pub(in crate::exec) fn s_binary(&mut self, x: Bin) -> Flow {
        let (a, b) = (self.scalar(x.a), self.scalar(x.b));
        self.set_s(x.dst, alu::bin(x.op, a, b))
    }

    #[inline(always)]
    pub(in crate::exec) fn s_unary(&mut self, x: Un) -> Flow {
        let a = self.scalar(x.a);
        self.set_s(x.dst, alu::un(x.op, a))
    }

    #[inline(always)]
    pub(in crate::exec) fn s_ternary(&mut self, x: Tern) -> Flow {
        let (a, b, c) = (self.scalar(x.a), self.scalar(x.b), self.scalar(x.c));
        self.set_s(x.dst, alu::tern(x.op, a, b, c))
    }

    #[inline(always)]
    pub(in crate::exec) fn s_cmp(&mut self, x: Cmp) -> Flow {
        let (a, b) = (self.scalar(x.a), self.scalar(x.b));
        self.set_m(x.dst, 0u64.wrapping_sub(alu::cmp(x.op, x.ty, a, b) as u64))
    }

    #[inline(always)]
    pub(super) fn s_wave(&mut self, x: Wave) -> Flow {
        let m = self.mreg(x.mask) & self.exec;
        let v = match x.op {
            WaveOp::BallotLo => m as u32,
            WaveOp::BallotHi => (m >> 32) as u32,
            WaveOp::Count => m.count_ones(),
        };
        self.set_s(x.dst, v)
    }

    #[inline(always)]
    pub(super) fn s_active_lanes(&mut self, dst: u16) -> Flow {
        self.set_s(dst, self.exec.count_ones())
    }

    #[inline(always)]
    pub(in crate::exec) fn mask_binary(&mut self, x: Masks) -> Flow {
        let (a, b) = (self.mreg(x.a), self.mreg(x.b));
        let v = match x.op {
            MaskOp::And => a & b,
            MaskOp::Or => a | b,
            MaskOp::AndN => a & !b,
            MaskOp::Xor => a ^ b,
        };
        self.set_m(x.dst, v)
    }

    #[inline(always)]
    pub(in crate::exec) fn mask_not(&mut self, x: Masks) -> Flow {
        let a = self.mreg(x.a);
        self.set_m(x.dst, !a)
    }
}
