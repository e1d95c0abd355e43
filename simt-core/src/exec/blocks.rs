//! Straight runs of instructions, and the issue counters kept per run.
//!
//! Exec and the divergence stack change only at control instructions, so every
//! instruction of a straight run is issued with the same exec mask as the first.
//! The dispatch loop therefore counts a run once when a wave enters it (how
//! many issues, active lanes and divergent issues each of its instructions
//! gets) instead of once per instruction, in a difference array over
//! instruction indices that [`IssueLog::finish`] turns into per-instruction
//! counters.

use crate::isa::{Inst, Unit};
use crate::stats::Counters;

/// The straight run of instructions from one instruction on: exec and the flow
/// stay as they are until its last instruction, the first control instruction
/// (which may change both), so that one entry stands for all its issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Block {
    /// The index after the run's last instruction.
    pub(super) end: u32,
    /// Vector instructions before this index in the program, so that a run
    /// `a..b` holds `blocks[b].vectors_before - blocks[a].vectors_before`.
    pub(super) vectors_before: u32,
}

/// The [`Block`] of every instruction index, and of the end.
pub(super) fn of(insts: &[Inst]) -> Vec<Block> {
    let n = insts.len();
    let mut blocks = vec![
        Block {
            end: n as u32,
            vectors_before: 0
        };
        n + 1
    ];
    let mut end = n as u32;
    for (k, inst) in insts.iter().enumerate().rev() {
        if inst.opcode().unit() == Unit::Control {
            end = k as u32 + 1;
        }
        blocks[k].end = end;
    }
    let mut vectors = 0;
    for (k, inst) in insts.iter().enumerate() {
        blocks[k].vectors_before = vectors;
        vectors += inst.is_vector() as u32;
    }
    blocks[n].vectors_before = vectors;
    blocks
}

/// Issues per instruction as differences: entering a run `from..to` adds one
/// issue (and the exec mask's active lanes and divergence) at `from` and takes
/// it away at `to`.
pub(super) struct IssueLog<'a>(pub(super) &'a mut [Entry]);

/// One instruction's differences: issues, active lanes, divergent issues.
pub(super) type Entry = [i64; 3];

impl IssueLog<'_> {
    /// Records one issue of each instruction in `from..to` with `active` lanes,
    /// `divergent` (0 or 1) when exec is not the launch mask.
    #[inline(always)]
    pub(super) fn run(&mut self, from: usize, to: usize, active: u64, divergent: u64) {
        let add = [1, active as i64, divergent as i64];
        if let Some(d) = self.0.get_mut(from) {
            for (d, a) in d.iter_mut().zip(add) {
                *d += a;
            }
        }
        if let Some(d) = self.0.get_mut(to) {
            for (d, a) in d.iter_mut().zip(add) {
                *d -= a;
            }
        }
    }

    /// Adds the recorded issues to `counters`: every instruction's issues, and
    /// the active lanes and divergent issues of the vector ones.
    pub(super) fn finish(&self, insts: &[Inst], counters: &mut [Counters]) {
        let mut running = [0i64; 3];
        for ((d, inst), c) in self.0.iter().zip(insts).zip(counters.iter_mut()) {
            for (r, d) in running.iter_mut().zip(d) {
                *r += d;
            }
            c.instructions += running[0] as u64;
            if inst.is_vector() {
                c.active_lanes += running[1] as u64;
                c.divergent_vector_instructions += running[2] as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{InstIdx, MReg, Operand, SReg, VReg};
    use crate::isa::BinOp;

    fn v_add() -> Inst {
        Inst::VBinary {
            op: BinOp::AddU32,
            dst: VReg(0),
            a: Operand::V(VReg(0)),
            b: Operand::Imm(1),
        }
    }

    fn s_add() -> Inst {
        Inst::SBinary {
            op: BinOp::AddU32,
            dst: SReg(0),
            a: Operand::S(SReg(0)),
            b: Operand::Imm(1),
        }
    }

    #[test]
    fn runs_end_after_each_control_instruction() {
        // 0 v_add, 1 s_add, 2 if, 3 v_add, 4 endif, 5 v_add, 6 end
        let insts = [
            v_add(),
            s_add(),
            Inst::If {
                mask: MReg(0),
                next: InstIdx(4),
            },
            v_add(),
            Inst::EndIf,
            v_add(),
            Inst::End,
        ];
        let b = of(&insts);
        let ends: Vec<u32> = b.iter().map(|b| b.end).collect();
        assert_eq!(ends, [3, 3, 3, 5, 5, 7, 7, 7]);
        let vectors: Vec<u32> = b.iter().map(|b| b.vectors_before).collect();
        assert_eq!(vectors, [0, 1, 1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn the_log_counts_each_run_once_per_instruction() {
        let insts = [v_add(), s_add(), v_add(), Inst::End];
        let mut entries = vec![[0; 3]; insts.len() + 1];
        let mut log = IssueLog(&mut entries);
        log.run(0, 4, 32, 0);
        log.run(1, 4, 5, 1);
        // Taken back: the wave ended before instruction 2.
        log.run(4, 2, 5, 1);
        let mut counters = vec![Counters::default(); insts.len()];
        log.finish(&insts, &mut counters);
        let issued: Vec<u64> = counters.iter().map(|c| c.instructions).collect();
        assert_eq!(issued, [1, 2, 1, 1]);
        assert_eq!(counters[0].active_lanes, 32);
        assert_eq!(counters[2].active_lanes, 32);
        assert_eq!(counters[2].divergent_vector_instructions, 0);
        // Scalar instructions get no lanes.
        assert_eq!(counters[1].active_lanes, 0);
    }
}
