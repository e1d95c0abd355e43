//! Structured control flow: nested if/else, loops with per-lane trip counts, break
//! and continue (also inside ifs), loops inside ifs, skipped bodies, barriers.
//! Each kernel's per-lane result is checked against a plain Rust model of the
//! lane, and the issue/skip counters against hand counts.

use crate::exec_util;

use exec_util::*;
use simt_core::{Arg, BinOp, CmpOp, CmpType, ElemType, Inst, Kernel, ProgramBuilder, Stats};

/// Builds a kernel of `body` followed by `out[gid] = v0`, runs it on one workgroup
/// of `size` items, and returns the outputs and statistics.
fn run_body(body: &[Inst], size: u32, width: u32) -> (Vec<u32>, Stats, Kernel) {
    let mut p = ProgramBuilder::new("control");
    let out = p.buffer_mut::<u32>("out");
    p.extend(body.iter().copied());
    p.push(store(ElemType::U32, gref(out, gid()), v(0)));
    let program = p.build().expect("valid");
    let mut got = vec![0u32; size as usize];
    let stats = run(
        &program,
        &cfg(1, size, width),
        &mut [Arg::buffer_mut(&mut got)],
    );
    (got, stats, program)
}

fn odd(m: u16) -> [Inst; 2] {
    [bin(BinOp::And, 9, lane(), imm(1)), eq(m, v(9), imm(1))]
}

#[test]
fn nested_if_else_restores_exec() {
    let mut body = vec![mov(0, imm(0)), lt(0, lane(), imm(16))];
    body.extend(odd(1));
    body.extend([
        if_(0),
        add(0, v(0), imm(1)),
        if_(1),
        add(0, v(0), imm(10)),
        else_(),
        add(0, v(0), imm(100)),
        endif(),
        add(0, v(0), imm(1000)),
        else_(),
        add(0, v(0), imm(10000)),
        if_(1),
        add(0, v(0), imm(100000)),
        endif(),
        endif(),
        add(0, v(0), imm(1000000)),
    ]);
    for width in [32, 64] {
        let (got, stats, _) = run_body(&body, 64, width);
        for (l, &g) in got.iter().enumerate() {
            let lane = l as u32 % width;
            let odd = lane % 2 == 1;
            let want = if lane < 16 {
                1 + if odd { 10 } else { 100 } + 1000
            } else {
                10000 + if odd { 100000 } else { 0 }
            } + 1000000;
            assert_eq!(g, want, "wave{width} item {l}");
        }
        // The last add and the store run with the full launch mask: not divergent.
        let n = stats.per_instruction.len();
        assert_eq!(
            stats.per_instruction[n - 3].divergent_vector_instructions,
            0
        );
        assert_eq!(
            stats.per_instruction[n - 2].divergent_vector_instructions,
            0
        );
        // The add in the then-part is divergent in every wave.
        let waves = 64 / width as u64;
        assert_eq!(
            stats.per_instruction[5].divergent_vector_instructions,
            waves
        );
        assert_eq!(stats.per_instruction[5].active_lanes, 16 * waves);
    }
}

#[test]
fn loop_with_per_lane_trip_counts_and_if_inside() {
    let body = [
        mov(0, imm(0)), // the result, accumulated
        mov(1, imm(0)), // i
        bin(BinOp::RemU32, 2, lane(), imm(5)),
        loop_(),
        add(1, v(1), imm(1)),
        bin(BinOp::And, 3, v(1), imm(1)),
        eq(2, v(3), imm(1)),
        if_(2),
        add(0, v(0), v(1)),
        else_(),
        add(0, v(0), imm(100)),
        endif(),
        cmp(CmpOp::Le, CmpType::U32, 0, v(1), v(2)),
        endloop(0),
        add(0, v(0), imm(1000000)),
    ];
    for width in [32, 64] {
        let (got, stats, _) = run_body(&body, 64, width);
        for (l, &g) in got.iter().enumerate() {
            let trips = (l as u32 % width) % 5 + 1;
            let mut acc = 0;
            for i in 1..=trips {
                acc += if i % 2 == 1 { i } else { 100 };
            }
            assert_eq!(g, acc + 1000000, "wave{width} item {l}");
        }
        // The loop body's first instruction issues once per iteration of the
        // longest-running lane: 5 per wave.
        assert_eq!(
            stats.per_instruction[4].instructions,
            5 * (64 / width as u64)
        );
    }
}

#[test]
fn break_and_continue_inside_ifs() {
    // for i in 1.. { if i == t { acc += 1000; break; (acc += 55555) }
    //                if i even { continue } acc += i } while i < 100
    let body = [
        mov(0, imm(0)),
        mov(1, imm(0)),
        bin(BinOp::RemU32, 4, lane(), imm(7)),
        add(4, v(4), imm(1)), // t = lane % 7 + 1
        loop_(),              // 4
        add(1, v(1), imm(1)),
        eq(1, v(1), v(4)),
        if_(1), // 7
        add(0, v(0), imm(1000)),
        break_(1),
        add(0, v(0), imm(55555)), // 10: never runs: every lane here broke
        endif(),
        bin(BinOp::And, 5, v(1), imm(1)),
        eq(2, v(5), imm(0)),
        continue_(2), // 14
        add(0, v(0), v(1)),
        lt(3, v(1), imm(100)),
        endloop(3), // 17
        add(0, v(0), imm(1000000)),
    ];
    for width in [32, 64] {
        let (got, stats, _) = run_body(&body, 128, width);
        for (l, &g) in got.iter().enumerate() {
            let t = (l as u32 % width) % 7 + 1;
            let mut acc = 0;
            let mut i = 0;
            loop {
                i += 1;
                if i == t {
                    acc += 1000;
                    break;
                }
                if i % 2 == 0 {
                    continue;
                }
                acc += i;
            }
            assert_eq!(g, acc + 1000000, "wave{width} item {l}");
        }
        let waves = 128 / width as u64;
        // Seven iterations per wave; the instruction after `break` never issues,
        // and is skipped once per iteration (every iteration has a breaking lane).
        assert_eq!(stats.per_instruction[5].instructions, 7 * waves);
        assert_eq!(stats.per_instruction[10].instructions, 0);
        assert_eq!(stats.per_instruction[10].skipped_instructions, 7 * waves);
        // On even iterations every remaining lane continues: the rest of the body
        // (15, 16) is skipped (i = 2, 4, 6). At i = 7 the last lanes break inside
        // the `if`: its `endif` restores an empty exec and the wave skips on to
        // the `endloop`, over 12..=16 as well.
        assert_eq!(stats.per_instruction[15].instructions, 3 * waves);
        assert_eq!(stats.per_instruction[15].skipped_instructions, 4 * waves);
        assert_eq!(stats.per_instruction[16].skipped_instructions, 4 * waves);
        assert_eq!(stats.per_instruction[12].skipped_instructions, waves);
        assert_eq!(stats.per_instruction[12].instructions, 6 * waves);
    }
}

#[test]
fn every_lane_breaking_inside_an_if_skips_to_the_loop_end() {
    let body = [
        mov(0, imm(0)),                                   // 0
        scmp(CmpOp::Eq, CmpType::U32, 0, imm(0), imm(0)), // 1: all lanes
        loop_(),                                          // 2
        add(0, v(0), imm(1)),                             // 3
        if_(0),                                           // 4
        break_(0),                                        // 5
        add(0, v(0), imm(100)),                           // 6 skipped
        endif(),                                          // 7 restores nothing
        add(0, v(0), imm(1000)),                          // 8 skipped
        endloop(0),                                       // 9
        add(0, v(0), imm(10)),                            // 10
    ];
    for width in [32, 64] {
        let (got, stats, _) = run_body(&body, 64, width);
        assert!(got.iter().all(|&g| g == 11), "wave{width}: {got:?}");
        let waves = 64 / width as u64;
        let issued: Vec<u64> = stats
            .per_instruction
            .iter()
            .map(|c| c.instructions)
            .collect();
        let w = waves;
        assert_eq!(issued, vec![w, w, w, w, w, w, 0, w, 0, w, w, w, w]);
        let skipped: Vec<u64> = stats
            .per_instruction
            .iter()
            .map(|c| c.skipped_instructions)
            .collect();
        assert_eq!(skipped, vec![0, 0, 0, 0, 0, 0, w, 0, w, 0, 0, 0, 0]);
        assert_eq!(stats.totals.skipped_instructions, 2 * w);
        assert_eq!(stats.totals.instructions, 11 * w);
    }
}

#[test]
fn loop_inside_if() {
    let body = [
        mov(0, imm(0)),
        lt(0, lane(), imm(8)),
        bin(BinOp::MulU32, 1, lane(), imm(2)),
        if_(0),
        loop_(),
        add(0, v(0), imm(2)),
        lt(1, v(0), v(1)),
        endloop(1),
        else_(),
        mov(0, imm(7)),
        endif(),
        add(0, v(0), imm(1000)),
    ];
    for width in [32, 64] {
        let (got, _, _) = run_body(&body, 64, width);
        for (l, &g) in got.iter().enumerate() {
            let lane = l as u32 % width;
            let want = if lane < 8 {
                // do { v += 2 } while v < 2 * lane
                let mut v = 0;
                loop {
                    v += 2;
                    if v >= 2 * lane {
                        break v;
                    }
                }
            } else {
                7
            };
            assert_eq!(g, want + 1000, "wave{width} item {l}");
        }
    }
}

#[test]
fn empty_bodies_are_skipped_not_issued() {
    // m0 is never written: all zero.
    let body = [
        mov(0, imm(1)),
        if_(0),
        add(0, v(0), imm(10)),
        add(0, v(0), imm(20)),
        else_(),
        add(0, v(0), imm(300)),
        endif(),
        scmp(CmpOp::Eq, CmpType::U32, 1, imm(0), imm(0)),
        if_(1),
        add(0, v(0), imm(4000)),
        else_(),
        add(0, v(0), imm(50000)),
        endif(),
    ];
    let (got, stats, _) = run_body(&body, 96, 32);
    assert!(got.iter().all(|&g| g == 4301));
    let c = &stats.per_instruction;
    for k in [2, 3, 11] {
        assert_eq!(c[k].instructions, 0, "inst {k}");
        assert_eq!(c[k].skipped_instructions, 3, "inst {k}");
    }
    // The `else` and `endif` that the skips land on are issued.
    for k in [4, 6, 10, 12] {
        assert_eq!(c[k].instructions, 3, "inst {k}");
    }
    assert_eq!(stats.totals.skipped_instructions, 9);
    assert_eq!(stats.totals.vector_instructions, 3 * (1 + 1 + 1 + 1));
    assert_eq!(stats.totals.divergent_vector_instructions, 0);
}

#[test]
fn partial_last_wave_is_not_divergent() {
    let body = [mov(0, lane()), add(0, v(0), imm(1))];
    let (got, stats, _) = run_body(&body, 48, 32);
    for (l, &g) in got.iter().enumerate() {
        assert_eq!(g, (l as u32 % 32) + 1);
    }
    assert_eq!(stats.waves, 2);
    assert_eq!(stats.totals.divergent_vector_instructions, 0);
    assert_eq!(stats.totals.active_lanes, 3 * (32 + 16));
    assert_eq!(stats.active_lanes_histogram[32], 3);
    assert_eq!(stats.active_lanes_histogram[16], 3);
}

#[test]
fn barriers_order_lds_traffic_between_waves() {
    // Three rounds, in a loop on a scalar counter (workgroup-uniform):
    // tile[lid] = lid * round; barrier; v0 += tile[(lid + 32) % size]; barrier.
    for (width, size) in [(32u32, 128u32), (64, 128), (32, 96)] {
        let mut p = ProgramBuilder::new("rounds");
        let tile = p.lds("tile", ElemType::U32, size);
        let out = p.buffer_mut::<u32>("out");
        p.extend([
            mov(0, imm(0)),
            add(1, lid(), imm(32)),
            bin(BinOp::RemU32, 1, v(1), imm(size)),
            sun(simt_core::UnOp::Mov, 0, imm(1)),
            loop_(),
            bin(BinOp::MulU32, 2, lid(), s(0)),
            lds_store(ElemType::U32, lref(tile, lid()), v(2)),
            Inst::Barrier,
            lds_load(ElemType::U32, 3, lref(tile, v(1))),
            add(0, v(0), v(3)),
            Inst::Barrier,
            sbin(BinOp::AddU32, 0, s(0), imm(1)),
            scmp(CmpOp::Le, CmpType::U32, 0, s(0), imm(3)),
            endloop(0),
            store(ElemType::U32, gref(out, gid()), v(0)),
        ]);
        let program = p.build().expect("valid");
        let mut got = vec![0u32; size as usize];
        let stats = run(
            &program,
            &cfg(1, size, width),
            &mut [Arg::buffer_mut(&mut got)],
        );
        for (l, &g) in got.iter().enumerate() {
            let partner = (l as u32 + 32) % size;
            assert_eq!(g, partner * (1 + 2 + 3), "wave{width} size {size} item {l}");
        }
        let waves = size.div_ceil(width) as u64;
        assert_eq!(stats.totals.barriers, 2 * 3 * waves);
        assert_eq!(stats.per_instruction[7].barriers, 3 * waves);
    }
}

#[test]
fn a_machine_reused_across_programs_and_widths_matches_fresh_launches() {
    let loops = [
        mov(0, imm(0)),
        bin(BinOp::RemU32, 2, lane(), imm(5)),
        loop_(),
        add(0, v(0), lane()),
        cmp(CmpOp::Gt, CmpType::U32, 0, v(2), v(0)),
        endloop(0),
    ];
    let straight = [mov(0, lid()), add(0, v(0), imm(3))];
    let build = |body: &[Inst]| {
        let mut p = ProgramBuilder::new("reuse");
        let out = p.buffer_mut::<u32>("out");
        let tile = p.lds("tile", ElemType::U32, 128);
        p.extend(body.iter().copied());
        p.push(lds_store(ElemType::U32, lref(tile, lid()), v(0)));
        p.push(store(ElemType::U32, gref(out, gid()), v(0)));
        p.build().expect("valid")
    };
    let programs = [build(&loops), build(&straight)];
    let mut machine = simt_core::Machine::new();
    for (k, (program, width, size)) in [
        (&programs[0], 32, 96),
        (&programs[1], 64, 128),
        (&programs[0], 64, 40),
        (&programs[1], 32, 128),
        (&programs[0], 32, 96),
    ]
    .into_iter()
    .enumerate()
    {
        let config = cfg(2, size, width);
        let mut fresh = vec![0u32; 2 * size as usize];
        let want = run(program, &config, &mut [Arg::buffer_mut(&mut fresh)]);
        let mut reused = vec![0u32; 2 * size as usize];
        let got = machine
            .launch(program, &config, &mut [Arg::buffer_mut(&mut reused)])
            .expect("launch");
        assert_eq!(got, want, "launch {k}");
        assert_eq!(reused, fresh, "launch {k}");
    }
}
