//! A vector register copied from the lane id or the x id in every lane steps
//! by one from lane to lane, and a memory index read from it takes the block
//! path without a per-lane check. Any later write of the register ends that:
//! a write of some lanes, an arithmetic result, a load, a select, a shuffle.
//! Each case indexes memory through such a register and compares every
//! lane's value with a plain model (the test build also asserts, on the block
//! path, that the indices do step by one).

use crate::exec_util;

use exec_util::*;
use simt_core::{
    Arg, BinOp, ElemType, Inst, LaunchConfig, Operand, ProgramBuilder, Schedule, ShuffleOp, TernOp,
    VReg,
};

/// Work-items per workgroup and workgroups per launch.
const SIZE: u32 = 128;
const GROUPS: u32 = 2;

/// `data[i] = 1000 + i`, long enough for every index the cases make.
fn data() -> Vec<u32> {
    (0..4 * SIZE * GROUPS).map(|i| 1000 + i).collect()
}

/// Runs `v0 = global_id.x; <modify>; out[gid] = data[v0]` (with `perm[gid] =
/// reversed gid` bound as a second input) and returns `out`.
fn run_case(modify: &[Inst], config: &LaunchConfig) -> Vec<u32> {
    let mut p = ProgramBuilder::new("stepped");
    let input = p.buffer::<u32>("data");
    // `perm`, parameter 1: the "load" case reads its index from it.
    p.buffer::<u32>("perm");
    let out = p.buffer_mut::<u32>("out");
    p.push(mov(0, gid()));
    p.extend(modify.iter().copied());
    p.push(load(ElemType::U32, 1, gref(input, v(0))));
    p.push(store(ElemType::U32, gref(out, gid()), v(1)));
    let program = p.build().expect("valid");
    let data = data();
    let n = SIZE * GROUPS;
    let perm: Vec<u32> = (0..n).map(|g| n - 1 - g).collect();
    let mut got = vec![0u32; n as usize];
    run(
        &program,
        config,
        &mut [
            Arg::buffer(&data),
            Arg::buffer(&perm),
            Arg::buffer_mut(&mut got),
        ],
    );
    got
}

/// Every wave width and schedule, each case against `want(gid, lane)`.
fn check(name: &str, modify: &[Inst], want: impl Fn(u32, u32) -> u32) {
    for width in [32, 64] {
        for schedule in [Schedule::UntilBarrier, Schedule::RoundRobin] {
            let config = cfg(GROUPS, SIZE, width).schedule(schedule);
            let got = run_case(modify, &config);
            for (g, &value) in got.iter().enumerate() {
                let g = g as u32;
                let index = want(g, g % width);
                assert_eq!(
                    value,
                    1000 + index,
                    "{name}: work-item {g} at wave{width} under {schedule:?}"
                );
            }
        }
    }
}

fn shuffle_xor(d: u16, src: Operand, mask: u32) -> Inst {
    Inst::VShuffle {
        op: ShuffleOp::Xor,
        dst: VReg(d),
        src,
        lane: imm(mask),
    }
}

#[test]
fn a_copy_of_the_x_id_indexes_as_a_block() {
    check("copy", &[], |g, _| g);
    // A copy of a copy, and the lane id, step too.
    check("copy of a copy", &[mov(2, v(0)), mov(0, v(2))], |g, _| g);
    check("lane id", &[mov(0, lane())], |_, lane| lane);
}

#[test]
fn a_write_of_some_lanes_ends_the_step() {
    let partial = [lt(0, lane(), imm(5)), if_(0), mov(0, imm(3)), endif()];
    check("if", &partial, |g, lane| if lane < 5 { 3 } else { g });
    // The same partial write of a stepped value (the lane id) still ends it.
    let partial_step = [lt(0, lane(), imm(5)), if_(0), mov(0, lane()), endif()];
    check("if of the lane id", &partial_step, |g, lane| {
        if lane < 5 {
            lane
        } else {
            g
        }
    });
}

#[test]
fn other_writes_end_the_step() {
    check("add", &[add(0, v(0), imm(1))], |g, _| g + 1);
    check("mul", &[bin(BinOp::MulU32, 0, v(0), imm(3))], |g, _| 3 * g);
    check(
        "mad",
        &[tern(TernOp::MadU32, 0, v(0), imm(2), imm(0))],
        |g, _| 2 * g,
    );
    check(
        "select",
        &[lt(0, lane(), imm(7)), select(0, 0, imm(9), v(0))],
        |g, lane| if lane < 7 { 9 } else { g },
    );
    check("shuffle", &[shuffle_xor(0, v(0), 1)], |g, _| g ^ 1);
    let n = SIZE * GROUPS;
    check(
        "load",
        &[load(ElemType::U32, 0, gref(simt_core::ParamIdx(1), gid()))],
        move |g, _| n - 1 - g,
    );
}

#[test]
fn a_copy_keeps_its_step_when_the_source_changes() {
    let modify = [
        mov(2, v(0)),
        lt(0, lane(), imm(5)),
        if_(0),
        mov(0, imm(3)),
        endif(),
        mov(0, v(2)),
    ];
    check("copy kept", &modify, |g, _| g);
}

#[test]
fn lds_indices_from_a_copy_of_the_local_id() {
    for width in [32, 64] {
        let mut p = ProgramBuilder::new("stepped_lds");
        let out = p.buffer_mut::<u32>("out");
        let tile = p.lds("tile", ElemType::U32, SIZE);
        p.extend([
            mov(0, lid()),
            lds_store(ElemType::U32, lref(tile, v(0)), gid()),
            Inst::Barrier,
            lt(0, lane(), imm(3)),
            if_(0),
            mov(0, imm(7)),
            endif(),
            lds_load(ElemType::U32, 1, lref(tile, v(0))),
            store(ElemType::U32, gref(out, gid()), v(1)),
        ]);
        let program = p.build().expect("valid");
        let mut got = vec![0u32; (SIZE * GROUPS) as usize];
        run(
            &program,
            &cfg(GROUPS, SIZE, width),
            &mut [Arg::buffer_mut(&mut got)],
        );
        for (g, &value) in got.iter().enumerate() {
            let g = g as u32;
            let (group, local) = (g / SIZE, g % SIZE);
            let want = if local % width < 3 {
                group * SIZE + 7
            } else {
                g
            };
            assert_eq!(value, want, "work-item {g} at wave{width}");
        }
    }
}
