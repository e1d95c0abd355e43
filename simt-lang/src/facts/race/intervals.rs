//! Barrier intervals: which stretches of the program the waves of one
//! workgroup may run at once.

use crate::ir::Program;
use crate::isa::Inst;

/// Which barrier intervals each instruction may run in: the barriers (and the
/// entry) from which it is reachable without passing another barrier, a
/// barrier of a loop counted as two (the loop taken again, or left).
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
        // Interval starts: the entry, and each barrier once or, in a loop,
        // twice (see `split`).
        const ENTRY: u32 = u32::MAX;
        let mut starts = vec![Vec::new(); n];
        let mut mark = |pcs: Vec<usize>, id: u32| {
            for pc in pcs {
                if !starts[pc].contains(&id) {
                    starts[pc].push(id);
                }
            }
        };
        if n > 0 {
            mark(vec![0], ENTRY);
            if !barrier[0] {
                mark(reach_without(&succ, &barrier, 0), ENTRY);
            }
        }
        for (o, _) in barrier.iter().enumerate().filter(|(_, &b)| b) {
            match split(insts, &succ, &barrier, o) {
                Some((again, out)) => {
                    mark(again, 2 * o as u32);
                    mark(out, 2 * o as u32 + 1);
                }
                None => mark(reach_without(&succ, &barrier, o), 2 * o as u32),
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

/// The interval after barrier `o` of a loop, as two: the instructions its
/// waves may run when they all loop again, and when they all leave. A loop
/// holding a barrier is workgroup-uniform (the barrier check), so every
/// wave of a workgroup takes the loop's `endloop` alike the first time
/// after `o`: an instruction of the next iteration and one after the loop
/// never run in one interval, though both follow `o` with no barrier
/// between. `None` where `o` is in no loop or reaches no `endloop` of its
/// loop before another barrier.
fn split(
    insts: &[Inst],
    succ: &[Vec<usize>],
    barrier: &[bool],
    o: usize,
) -> Option<(Vec<usize>, Vec<usize>)> {
    // The innermost loop around `o`: its head and its `endloop`.
    let (head, end) = insts
        .iter()
        .enumerate()
        .filter_map(|(pc, i)| match *i {
            Inst::Loop { end } if pc < o && o < end.get() => Some((pc, end.get())),
            _ => None,
        })
        .max_by_key(|&(pc, _)| pc)?;
    // Up to the `endloop`, not past it.
    let mut stopped = succ.to_vec();
    stopped.get_mut(end)?.clear();
    let before = reach_without(&stopped, barrier, o);
    if !before.contains(&end) {
        return None;
    }
    let then = |next: usize| {
        let mut out = before.clone();
        if next < succ.len() {
            out.push(next);
            if !barrier[next] {
                out.extend(reach_without(succ, barrier, next));
            }
        }
        out
    };
    Some((then(head + 1), then(end + 1)))
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
