//! Lane exchange: shuffles, and reads of one lane into a scalar register.

use super::super::alu;
use super::super::decode::Exchange;
use super::super::instrument::Instrument;
use super::super::lanes::shuffle;
use super::{lanes_mut, Exec, Flow, Parts};

impl<const W: usize, I: Instrument> Exec<'_, '_, W, I> {
    #[inline(always)]
    pub(super) fn v_shuffle(&mut self, x: Exchange) -> Flow {
        self.vector_issue();
        self.unstep(x.dst);
        let exec = self.exec;
        let Parts { vr, rd, s, lm } = self.parts();
        s.b = *rd.fetch(x.src, vr, &mut s.b);
        let lane = rd.fetch(x.lane, vr, &mut s.c);
        shuffle::<W>(x.op, &s.b, lane, exec, &mut s.out);
        if let Some(d) = vr.get_mut(x.dst as usize) {
            alu::blend(lanes_mut::<W>(d), &s.out, lm);
        }
        self.next()
    }

    #[inline(always)]
    pub(super) fn v_read_first_lane(&mut self, x: Exchange) -> Flow {
        self.vector_issue();
        let exec = self.exec;
        let Parts { vr, rd, s, .. } = self.parts();
        let v = rd.fetch(x.src, vr, &mut s.a);
        let first = (exec.trailing_zeros() as usize).min(W - 1);
        let value = if exec == 0 { 0 } else { v[first] };
        if let Some(d) = self.sreg_mut(x.dst) {
            *d = value;
        }
        self.next()
    }

    #[inline(always)]
    pub(super) fn v_read_lane(&mut self, x: Exchange) -> Flow {
        self.vector_issue();
        let exec = self.exec;
        let Parts { vr, rd, s, .. } = self.parts();
        let l = rd.scalar(x.lane, vr, exec, &mut s.c) as usize;
        let value = rd.fetch(x.src, vr, &mut s.a)[l & (W - 1)];
        if let Some(d) = self.sreg_mut(x.dst) {
            *d = value;
        }
        self.next()
    }
}
