//! The straight-line blocks a kernel's native runner runs whole: the code
//! `simt_kernel!` writes has one function per block, and the interpreter
//! adds up the issue counts a runner kept per block after the launch, so
//! both read the blocks from here.

use crate::isa::Unit;
use crate::Inst;

/// The most instructions one block holds.
pub const BLOCK_CHUNK: usize = 8;

/// The blocks of `insts`: each one's first instruction and its length. A
/// block ends with its first control instruction; each control instruction
/// also starts a block of its own, so that every jump target and every
/// place a wave resumes (after a barrier) starts one. A block longer than
/// [`BLOCK_CHUNK`] is cut into blocks of `BLOCK_CHUNK` instructions (the
/// last shorter): the optimiser's time grows faster than a function's
/// length. Sorted by first instruction.
pub fn straight_blocks(insts: &[Inst]) -> Vec<(usize, usize)> {
    let control = |k: usize| insts[k].opcode().unit() == Unit::Control;
    let leader = |k: usize| k == 0 || control(k) || control(k - 1);
    let mut out = Vec::new();
    for start in (0..insts.len()).filter(|&k| leader(k)) {
        let end = (start..insts.len())
            .find(|&k| control(k))
            .unwrap_or(insts.len() - 1);
        let mut at = start;
        while at <= end {
            let len = (end + 1 - at).min(BLOCK_CHUNK);
            out.push((at, len));
            at += len;
        }
    }
    // A block's last chunk can be a lone control instruction, which is a
    // block of its own too.
    out.sort_unstable();
    out.dedup();
    out
}
