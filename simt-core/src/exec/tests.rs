//! Run-time barrier faults. The validator rejects every program that could reach
//! them, so these run hand-built programs through the interpreter without it.

use super::Machine;
use crate::error::{Error, Fault, FaultKind};
use crate::ir::{CmpOp, CmpType, Inst, InstIdx, MReg, Operand, Program, SourceLoc, Special, VReg};
use crate::launch::LaunchConfig;
use crate::stats::Stats;
use std::borrow::Cow;

fn program(body: &[Inst]) -> Program {
    let mut insts = body.to_vec();
    insts.push(Inst::End);
    crate::link(&mut insts).expect("nesting");
    let locs = (1..=insts.len() as u32)
        .map(|line| SourceLoc { line, column: 1 })
        .collect::<Vec<_>>();
    let (vregs, sregs, mregs) = crate::register_counts(&insts);
    Program {
        name: Cow::Borrowed("raw"),
        file: Cow::Borrowed("raw.rs"),
        params: Cow::Owned(Vec::new()),
        lds: Cow::Owned(Vec::new()),
        insts: Cow::Owned(insts),
        locs: Cow::Owned(locs),
        vregs,
        sregs,
        mregs,
        lds_bytes: 0,
    }
}

fn run(body: &[Inst], size: u32, width: u32) -> Result<Stats, Error> {
    let config = LaunchConfig::new(2, size).wave_width(width);
    Machine::new().launch_validated(&program(body), &config, &mut [])
}

fn fault(result: Result<Stats, Error>) -> Fault {
    match result {
        Err(Error::Fault(f)) => *f,
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// `m0 = op(a, b)` per lane.
fn cmp(op: CmpOp, a: Operand, b: u32) -> Inst {
    Inst::VCmp {
        op,
        ty: CmpType::U32,
        dst: MReg(0),
        a,
        b: Operand::Imm(b),
    }
}

fn if_m0() -> Inst {
    Inst::If {
        mask: MReg(0),
        next: InstIdx::UNLINKED,
    }
}

const WAVE: Operand = Operand::Special(Special::WaveId);
const LANE: Operand = Operand::Special(Special::LaneId);

#[test]
fn barrier_with_a_partial_mask() {
    let f = fault(run(
        &[cmp(CmpOp::Lt, LANE, 5), if_m0(), Inst::Barrier, Inst::EndIf],
        64,
        32,
    ));
    assert_eq!(
        f.kind,
        FaultKind::BarrierPartialMask {
            exec: 0x1f,
            launch: 0xffff_ffff
        }
    );
    assert_eq!(
        (f.inst, f.loc.line, f.wave, f.workgroup),
        (2, 3, 0, [0, 0, 0])
    );
    assert_eq!((f.kernel.as_str(), f.file.as_str()), ("raw", "raw.rs"));
}

#[test]
fn wave_ending_while_another_waits() {
    // Wave 0 waits at the barrier; wave 1 skips it and ends.
    let f = fault(run(
        &[cmp(CmpOp::Eq, WAVE, 0), if_m0(), Inst::Barrier, Inst::EndIf],
        64,
        32,
    ));
    assert_eq!(f.kind, FaultKind::BarrierStranded { waiting: 1 });
    assert_eq!((f.inst, f.wave), (4, 1));
}

#[test]
fn wave_waiting_after_another_ended() {
    // Wave 0 ends; waves 1 and 2 then wait for it in vain.
    let f = fault(run(
        &[cmp(CmpOp::Ne, WAVE, 0), if_m0(), Inst::Barrier, Inst::EndIf],
        96,
        32,
    ));
    assert_eq!(f.kind, FaultKind::BarrierStranded { waiting: 1 });
    assert_eq!((f.inst, f.wave), (2, 1));
}

#[test]
fn uniform_barriers_release() {
    // Every wave reaches the barrier twice: no fault, and a partial last wave
    // (launch mask of 16 lanes) is not a partial exec.
    let body = [
        Inst::Barrier,
        Inst::VUnary {
            op: crate::ir::UnOp::Mov,
            dst: VReg(0),
            a: LANE,
        },
        Inst::Barrier,
    ];
    for (size, width) in [(48, 32), (64, 64), (200, 64)] {
        let stats = run(&body, size, width).expect("no fault");
        let waves = 2 * size.div_ceil(width) as u64;
        assert_eq!(stats.totals.barriers, 2 * waves);
        assert_eq!(stats.waves, waves);
    }
}

#[test]
fn unvalidated_programs_with_bad_references_are_refused() {
    // A scalar argument that does not exist: refused before running.
    let body = [Inst::VUnary {
        op: crate::ir::UnOp::Mov,
        dst: VReg(0),
        a: Operand::Arg(crate::ir::ParamIdx(3)),
    }];
    assert!(matches!(run(&body, 32, 32), Err(Error::Invalid(_))));
    // A jump target that disagrees with the nesting.
    let mut p = program(&[cmp(CmpOp::Lt, LANE, 5), if_m0(), Inst::EndIf]);
    let mut insts = p.insts.to_vec();
    insts[1] = Inst::If {
        mask: MReg(0),
        next: InstIdx(0),
    };
    p.insts = Cow::Owned(insts);
    let config = LaunchConfig::new(1, 32);
    assert!(matches!(
        Machine::new().launch_validated(&p, &config, &mut []),
        Err(Error::Invalid(_))
    ));
}
