//! Loads moved up within a block, as ptxas schedules them: nvcc writes a
//! reduction over loaded values as `ld; add; ld; add; ...`, where the GPU
//! issues every load first and the adds as their values arrive. Issued in
//! PTX order, each add would wait for its load before the next load could
//! issue, and a kernel with eight independent loads per thread would wait
//! out eight memory latencies instead of one.
//!
//! A load moves up past every instruction it does not depend on: it stops
//! below an instruction that writes a register it reads or writes, or reads
//! a register it writes, and below any store, atomic, barrier or control
//! instruction (memory it could alias, and the lanes it runs for). The
//! instructions and their counts are unchanged; only their order is.

use crate::lower::Code;
use simt_lang::isa::Role;
use simt_lang::{Inst, Opcode, Reg};

/// Whether `inst` is a load, which may move up.
fn is_load(inst: &Inst) -> bool {
    matches!(
        inst.fields().memory(),
        Some((Role::GlobalLoad | Role::LdsLoad, _))
    )
}

/// Whether nothing may move above `inst`: memory it writes, an order, or
/// a change of the lanes that run.
fn fences(inst: &Inst) -> bool {
    if let Some((role, _)) = inst.fields().memory() {
        return !matches!(role, Role::GlobalLoad | Role::LdsLoad);
    }
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

/// Moves each load of `code` (one block's instructions) as far up as its
/// dependences allow.
pub(crate) fn hoist_loads(code: &mut [Code]) {
    for i in 0..code.len() {
        if !is_load(&code[i].inst) {
            continue;
        }
        let f = code[i].inst.fields();
        let reads: Vec<Reg> = f.read().collect();
        let writes: Vec<Reg> = f.written().collect();
        let mut j = i;
        while j > 0 {
            let prev = &code[j - 1].inst;
            if fences(prev) {
                break;
            }
            let p = prev.fields();
            let clash = p
                .written()
                .any(|r| reads.contains(&r) || writes.contains(&r))
                || p.read().any(|r| writes.contains(&r));
            if clash {
                break;
            }
            j -= 1;
        }
        code[j..=i].rotate_right(1);
    }
}
