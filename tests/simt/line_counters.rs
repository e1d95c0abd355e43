//! Looking up one source line's counters, and each instruction's on it.

use simt::core::{Counters, LaunchConfig};
use simt::simt_kernel;

simt_kernel! {
    /// out[i] = src[i] + src[i + 1], the two loads written on one line.
    kernel neighbours(src: &[u32], out: &mut [u32]) {
        vreg i, v, w;
        v_mov        i, global_id.x
        global_load  v, src[i]    global_load  w, src[i + 1]
        v_add_u32    v, v, w
        global_store out[i], v
    }
}

#[test]
fn a_line_sums_its_instructions_and_lists_each() {
    let src: Vec<u32> = (0..65).collect();
    let mut out = vec![0u32; 64];
    // One workgroup of 64: two waves of 32, reference model (64-byte lines).
    let stats = neighbours::launch(&LaunchConfig::new(1, 64), &src, &mut out).unwrap();
    assert_eq!(out[63], 63 + 64);
    let program = &neighbours::PROGRAM;
    let loads = program.loc(1).line;
    assert_eq!(program.loc(2).line, loads, "both loads are on one line");
    assert_ne!(program.loc(3).line, loads);

    let each = stats.line_instructions(program, loads);
    assert_eq!(each.iter().map(|&(k, _)| k).collect::<Vec<_>>(), [1, 2]);
    // src[i]: wave 0 reads bytes 0..128 (lines 0 and 1), wave 1 bytes
    // 128..256 (lines 2 and 3): 2 + 2 transactions.
    assert_eq!(each[0].1.global_transactions, 4);
    // src[i + 1]: wave 0 reads bytes 4..132 (lines 0, 1, 2), wave 1 bytes
    // 132..260 (lines 2, 3, 4): 3 + 3.
    assert_eq!(each[1].1.global_transactions, 6);

    let line = stats.line(program, loads);
    // Two loads issued by each of two waves, all 32 lanes active.
    assert_eq!(line.instructions, 4);
    assert_eq!(line.vector_instructions, 4);
    assert_eq!(line.active_lanes, 4 * 32);
    assert_eq!(line.global_accesses, 4);
    assert_eq!(line.global_transactions, 4 + 6);
    // 4 phases of 32 lanes of 4 bytes; 10 lines of 64 bytes.
    assert_eq!(line.global_bytes_requested, 4 * 32 * 4);
    assert_eq!(line.global_bytes_moved, 10 * 64);

    // The add's line: one issue per wave, no memory.
    let add = stats.line(program, program.loc(3).line);
    assert_eq!((add.instructions, add.global_accesses), (2, 0));
    // A line with no instruction counts nothing.
    assert_eq!(stats.line(program, 1), Counters::default());
    assert!(stats.line_instructions(program, 1).is_empty());
}
