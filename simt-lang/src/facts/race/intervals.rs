//! Barrier intervals: which stretches of the program the waves of one
//! workgroup may run at once.

use crate::ir::Program;
use crate::isa::Inst;

/// Which barrier intervals each instruction may run in: the barriers (and the
/// entry) from which it is reachable without passing another barrier.
pub(super) struct Intervals {
    /// Per instruction, the interval starts reaching it.
    starts: Vec<Vec<u32>>,
    /// Per instruction, where control may go next.
    pub(super) succ: Vec<Vec<usize>>,
    /// Per instruction, whether it is a barrier.
    pub(super) barrier: Vec<bool>,
}

impl Intervals {
    pub(super) fn of(program: &Program) -> Self {
        let insts = &program.insts;
        let n = insts.len();
        let succ: Vec<Vec<usize>> = insts
            .iter()
            .enumerate()
            .map(|(pc, inst)| {
                let mut s = vec![pc + 1];
                match *inst {
                    Inst::If { next, .. } => s.push(next.get()),
                    Inst::Else { end } => s.push(end.get()),
                    Inst::EndLoop { start, .. } => s.push(start.get() + 1),
                    Inst::Break { end, .. } | Inst::Continue { end, .. } => s.push(end.get()),
                    Inst::End => s.clear(),
                    _ => {}
                }
                s.retain(|&t| t < n);
                s
            })
            .collect();
        let barrier: Vec<bool> = insts.iter().map(|i| matches!(i, Inst::Barrier)).collect();
        let mut starts = vec![Vec::new(); n];
        if n > 0 {
            starts[0].push(0);
            if !barrier[0] {
                for pc in reach_without(&succ, &barrier, 0) {
                    starts[pc].push(0);
                }
            }
        }
        for (o, _) in barrier.iter().enumerate().filter(|(_, &b)| b) {
            for pc in reach_without(&succ, &barrier, o) {
                if !starts[pc].contains(&(o as u32)) {
                    starts[pc].push(o as u32);
                }
            }
        }
        Intervals {
            starts,
            succ,
            barrier,
        }
    }

    /// Whether instructions `a` and `b` may run in one barrier interval.
    pub(super) fn share(&self, a: usize, b: usize) -> bool {
        let (sa, sb) = (&self.starts[a], &self.starts[b]);
        sa.iter().any(|s| sb.contains(s))
    }

    /// Whether two work-items of one workgroup that run `a` and `b` (at
    /// positions `a <= b`, in loops starting at `loops`) certainly run them
    /// in one barrier interval: no barrier lies in the stretch of program
    /// from the first to the last of them and the loops around them.
    pub(super) fn always_share(&self, a: usize, b: usize, loops: &[u32], ends: &[usize]) -> bool {
        let lo = loops
            .iter()
            .map(|&l| l as usize)
            .chain([a, b])
            .min()
            .unwrap_or(a);
        let hi = ends.iter().copied().chain([a, b]).max().unwrap_or(b);
        !self
            .barrier
            .get(lo..=hi)
            .unwrap_or_default()
            .contains(&true)
    }

    /// The instructions reachable from `from` before a barrier.
    pub(super) fn reach(&self, from: usize) -> Vec<usize> {
        reach_without(&self.succ, &self.barrier, from)
    }
}

fn reach_without(succ: &[Vec<usize>], barrier: &[bool], from: usize) -> Vec<usize> {
    let mut seen = vec![false; succ.len()];
    let mut stack: Vec<usize> = succ.get(from).cloned().unwrap_or_default();
    let mut out = Vec::new();
    while let Some(pc) = stack.pop() {
        if pc >= succ.len() || seen[pc] {
            continue;
        }
        seen[pc] = true;
        out.push(pc);
        if barrier.get(pc) == Some(&true) {
            continue;
        }
        stack.extend(&succ[pc]);
    }
    out
}
