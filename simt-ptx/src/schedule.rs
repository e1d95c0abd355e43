//! Each block's instructions ordered as ptxas orders them: loads first.
//! nvcc writes a tile copy as `ld; st.shared; add; ld; st.shared; ...` and
//! a reduction as `ld; add; ld; add; ...`, where the GPU issues every load
//! (and the address arithmetic it needs) first and the rest as the values
//! arrive. Issued in PTX order, each store or add would wait for its load
//! before the next load could issue, and a thread with four independent
//! loads would wait out four memory latencies instead of one.
//!
//! The order is a list schedule over the block's dependences: an
//! instruction follows every earlier one that writes a register it reads or
//! writes, or reads a register it writes; a store or atomic stays ordered
//! with every access to its own memory (global or LDS: one may alias it,
//! the other never does); and nothing crosses a barrier or a control
//! instruction (the lanes that run), nor a `membar` or `fence` (the caller
//! schedules the stretches between them apart). Of the instructions ready, the first
//! in PTX order that is a load or leads to one issues first, else the first
//! in PTX order; but with [`WINDOW`] loads issued and their values not yet
//! read, PTX order alone decides, so that a block of many loads does not
//! hold all their values in registers at once (ptxas issues the 32 LDS
//! loads of `transpose_padded_lds` eight or so at a time). The
//! instructions and their counts are unchanged; only their order is.

use crate::lower::Code;
use simt_lang::isa::Role;
use simt_lang::{Inst, Opcode, Reg};

/// Loads issued ahead of the values' readers at most.
const WINDOW: usize = 8;

/// Which memory an instruction accesses, and how.
#[derive(Clone, Copy, PartialEq)]
enum Access {
    None,
    Load { global: bool },
    Write { global: bool },
}

fn access(inst: &Inst) -> Access {
    match inst.fields().memory() {
        None => Access::None,
        Some((Role::GlobalLoad, _)) => Access::Load { global: true },
        Some((Role::LdsLoad, _)) => Access::Load { global: false },
        Some((Role::GlobalStore | Role::GlobalAtomic, _)) => Access::Write { global: true },
        Some(_) => Access::Write { global: false },
    }
}

/// Whether `inst` keeps its place relative to every other instruction: an
/// order, or a change of the lanes that run.
fn fences(inst: &Inst) -> bool {
    matches!(
        inst.opcode(),
        Opcode::If
            | Opcode::Else
            | Opcode::EndIf
            | Opcode::Loop
            | Opcode::EndLoop
            | Opcode::Break
            | Opcode::Continue
            | Opcode::Barrier
            | Opcode::WaveBarrier
            | Opcode::Print
            | Opcode::End
    )
}

/// What the dependence test needs of one instruction.
struct Node {
    reads: Vec<Reg>,
    writes: Vec<Reg>,
    access: Access,
    fence: bool,
}

impl Node {
    fn of(inst: &Inst) -> Node {
        let f = inst.fields();
        Node {
            reads: f.read().collect(),
            writes: f.written().collect(),
            access: access(inst),
            fence: fences(inst),
        }
    }

    /// Whether `later` must stay after `self`.
    fn orders(&self, later: &Node) -> bool {
        if self.fence || later.fence {
            return true;
        }
        let registers = self
            .writes
            .iter()
            .any(|r| later.reads.contains(r) || later.writes.contains(r))
            || self.reads.iter().any(|r| later.writes.contains(r));
        let memory = match (self.access, later.access) {
            (
                Access::Write { global: a },
                Access::Load { global: b } | Access::Write { global: b },
            )
            | (Access::Load { global: a }, Access::Write { global: b }) => a == b,
            _ => false,
        };
        registers || memory
    }
}

/// The most instructions scheduled together: a longer block is scheduled
/// in runs of this many, in order, so that lowering stays linear in the
/// block's length (the dependence test is quadratic in the run's).
const RUN: usize = 512;

/// Reorders `code` (one block's instructions) as the module's doc says.
pub(crate) fn schedule(code: &mut Vec<Code>) {
    let mut all = std::mem::take(code);
    let mut rest = all.drain(..);
    loop {
        let mut run: Vec<Code> = rest.by_ref().take(RUN).collect();
        if run.is_empty() {
            break;
        }
        schedule_run(&mut run);
        code.append(&mut run);
    }
}

/// Reorders `code`, at most [`RUN`] instructions.
fn schedule_run(code: &mut Vec<Code>) {
    let n = code.len();
    if n < 2 {
        return;
    }
    let nodes: Vec<Node> = code.iter().map(|c| Node::of(&c.inst)).collect();
    // Each instruction's predecessors: the earlier ones it must follow.
    let mut waiting = vec![0usize; n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut leads = vec![false; n];
    for j in 0..n {
        for i in 0..j {
            if nodes[i].orders(&nodes[j]) {
                succs[i].push(j);
                waiting[j] += 1;
            }
        }
    }
    // The loads and everything they wait on.
    for j in (0..n).rev() {
        leads[j] =
            matches!(nodes[j].access, Access::Load { .. }) || succs[j].iter().any(|&s| leads[s]);
    }
    // The loads whose values `j` reads.
    let is_load = |i: usize| matches!(nodes[i].access, Access::Load { .. });
    let reads_of: Vec<Vec<usize>> = (0..n)
        .map(|j| {
            (0..j)
                .filter(|&i| {
                    is_load(i) && nodes[i].writes.iter().any(|r| nodes[j].reads.contains(r))
                })
                .collect()
        })
        .collect();
    let mut unread = vec![false; n];
    let mut in_flight = 0;
    let mut ready: Vec<usize> = (0..n).filter(|&j| waiting[j] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let k = ready
            .iter()
            .enumerate()
            .filter(|(_, &j)| leads[j] && in_flight < WINDOW)
            .min_by_key(|(_, &j)| j)
            .or_else(|| ready.iter().enumerate().min_by_key(|(_, &j)| j))
            .map(|(k, _)| k)
            .expect("ready is not empty");
        let j = ready.swap_remove(k);
        order.push(j);
        for &i in &reads_of[j] {
            if unread[i] {
                unread[i] = false;
                in_flight -= 1;
            }
        }
        if is_load(j) {
            unread[j] = true;
            in_flight += 1;
        }
        for &s in &succs[j] {
            waiting[s] -= 1;
            if waiting[s] == 0 {
                ready.push(s);
            }
        }
    }
    debug_assert_eq!(order.len(), n, "the dependences are acyclic");
    let mut slots: Vec<Option<Code>> = code.drain(..).map(Some).collect();
    code.extend(order.into_iter().filter_map(|j| slots[j].take()));
}
