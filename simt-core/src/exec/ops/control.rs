//! Structured control flow, barriers and `end`: the divergence stack's
//! handlers in `flow.rs`, run on the wave's state.

use super::super::decode::Jump;
use super::super::flow;
use super::super::instrument::Instrument;
use super::super::memory::full;
use super::super::wave::{Exit, Status};
use super::{Exec, Flow, Step};
use crate::error::FaultKind;

impl<const W: usize, I: Instrument> Exec<'_, '_, W, I> {
    /// Goes on at `pc`, with exec as control flow left it.
    #[inline(always)]
    fn jump(&mut self, pc: usize) -> Flow {
        self.pc = pc;
        self.exec_changed();
        Ok(Step::Go)
    }

    /// The last instruction, where a wave with nowhere else to go ends.
    #[inline(always)]
    fn last(&self) -> usize {
        self.ops.len().saturating_sub(1)
    }

    #[inline(always)]
    pub(in crate::exec) fn op_if(&mut self, x: Jump) -> Flow {
        let mask = self.mreg(x.mask);
        let stack = &mut self.waves[self.wave].stack;
        let pc = flow::op_if(
            stack,
            &mut self.exec,
            mask,
            self.pc,
            x.target,
            &mut self.skips,
        );
        self.jump(pc)
    }

    #[inline(always)]
    pub(in crate::exec) fn op_else(&mut self, x: Jump) -> Flow {
        let stack = &mut self.waves[self.wave].stack;
        let pc = flow::op_else(stack, &mut self.exec, self.pc, x.target, &mut self.skips);
        self.jump(pc)
    }

    #[inline(always)]
    pub(in crate::exec) fn op_endif(&mut self) -> Flow {
        let last = self.last();
        let stack = &mut self.waves[self.wave].stack;
        let pc = flow::op_endif(stack, &mut self.exec, self.pc, last, &mut self.skips);
        self.jump(pc)
    }

    #[inline(always)]
    pub(in crate::exec) fn op_loop(&mut self, x: Jump) -> Flow {
        let stack = &mut self.waves[self.wave].stack;
        self.pc = flow::op_loop(stack, self.exec, self.pc, x.target);
        Ok(Step::Go)
    }

    #[inline(always)]
    pub(in crate::exec) fn op_endloop(&mut self, x: Jump) -> Flow {
        let (mask, last) = (self.mreg(x.mask), self.last());
        let stack = &mut self.waves[self.wave].stack;
        let (exec, skips) = (&mut self.exec, &mut self.skips);
        let pc = flow::op_endloop(stack, exec, mask, self.pc, x.target, last, skips);
        self.jump(pc)
    }

    /// `break` (`continuing` false) or `continue`.
    #[inline(always)]
    pub(in crate::exec) fn op_exit(&mut self, x: Jump, continuing: bool) -> Flow {
        let (mask, last) = (self.mreg(x.mask), self.last());
        let stack = &mut self.waves[self.wave].stack;
        let (exec, skips) = (&mut self.exec, &mut self.skips);
        let pc = flow::op_exit(stack, exec, mask, continuing, self.pc, last, skips);
        self.jump(pc)
    }

    #[inline(always)]
    pub(super) fn barrier(&mut self) -> Flow {
        self.counters().barriers += 1;
        if self.exec != self.launch {
            let (exec, launch) = (self.exec, self.launch);
            return Err(Self::trap(FaultKind::BarrierPartialMask { exec, launch }));
        }
        let at = self.pc;
        self.pc += 1;
        self.park(Some(Status::Parked));
        Ok(Step::Leave(Exit::Parked(at)))
    }

    /// Lanes run in lockstep here: only the sanitizers' independent lanes see it.
    #[inline(always)]
    pub(super) fn wave_barrier(&mut self) -> Flow {
        self.instr.wave_barrier(self.wave, self.exec & full::<W>());
        self.next()
    }

    #[inline(always)]
    pub(super) fn end(&mut self) -> Flow {
        self.park(Some(Status::Done));
        Ok(Step::Leave(Exit::Done(self.pc)))
    }
}
