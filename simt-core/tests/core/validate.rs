//! The validator: nesting, limits, operand kinds and the uniformity analysis behind
//! the barrier check. Each rejected case names the error's kind, its instruction
//! and its notes, which the `simt_kernel!` macro turns into spans.

use simt_core::{
    uniformity, validate, Addressing, Axis, BinOp, CmpOp, CmpType, ElemType, GlobalRef, Inst,
    InstIdx, LdsDecl, LdsIdx, LdsRef, MReg, MaskOp, Operand, ParamIdx, Program, ProgramBuilder,
    Reg, SReg, ScalarType, SourceLoc, Special, UnOp, Uniformity, VReg, ValidationError,
    ValidationErrorKind as Kind,
};
use std::borrow::Cow;

// ---- instruction shorthands ----

fn v(i: u16) -> Operand {
    Operand::V(VReg(i))
}
fn s(i: u16) -> Operand {
    Operand::S(SReg(i))
}
fn imm(x: u32) -> Operand {
    Operand::Imm(x)
}
fn lane_id() -> Operand {
    Operand::Special(Special::LaneId)
}
fn wave_id() -> Operand {
    Operand::Special(Special::WaveId)
}
fn v_mov(d: u16, a: Operand) -> Inst {
    Inst::VUnary {
        op: UnOp::Mov,
        dst: VReg(d),
        a,
    }
}
fn v_add(d: u16, a: Operand, b: Operand) -> Inst {
    Inst::VBinary {
        op: BinOp::AddU32,
        dst: VReg(d),
        a,
        b,
    }
}
fn s_mov(d: u16, a: Operand) -> Inst {
    Inst::SUnary {
        op: UnOp::Mov,
        dst: SReg(d),
        a,
    }
}
fn s_add(d: u16, a: Operand, b: Operand) -> Inst {
    Inst::SBinary {
        op: BinOp::AddU32,
        dst: SReg(d),
        a,
        b,
    }
}
fn v_cmp_lt(m: u16, a: Operand, b: Operand) -> Inst {
    Inst::VCmp {
        op: CmpOp::Lt,
        ty: CmpType::U32,
        dst: MReg(m),
        a,
        b,
    }
}
fn s_cmp_lt(m: u16, a: Operand, b: Operand) -> Inst {
    Inst::SCmp {
        op: CmpOp::Lt,
        ty: CmpType::U32,
        dst: MReg(m),
        a,
        b,
    }
}
fn if_(m: u16) -> Inst {
    Inst::If {
        mask: MReg(m),
        next: InstIdx::UNLINKED,
    }
}
fn else_() -> Inst {
    Inst::Else {
        end: InstIdx::UNLINKED,
    }
}
fn endif() -> Inst {
    Inst::EndIf
}
fn loop_() -> Inst {
    Inst::Loop {
        end: InstIdx::UNLINKED,
    }
}
fn endloop(m: u16) -> Inst {
    Inst::EndLoop {
        mask: MReg(m),
        start: InstIdx::UNLINKED,
    }
}
fn break_(m: u16) -> Inst {
    Inst::Break {
        mask: MReg(m),
        end: InstIdx::UNLINKED,
    }
}
fn continue_(m: u16) -> Inst {
    Inst::Continue {
        mask: MReg(m),
        end: InstIdx::UNLINKED,
    }
}

fn builder(insts: impl IntoIterator<Item = Inst>) -> ProgramBuilder {
    let mut b = ProgramBuilder::new("k");
    b.extend(insts);
    b
}

/// Builds `insts` (plus `end`) and returns its errors; fails the test if it builds.
fn errors(insts: impl IntoIterator<Item = Inst>) -> Vec<ValidationError> {
    match builder(insts).build() {
        Ok(p) => panic!("expected errors, built {:?}", p.insts),
        Err(e) => e.errors,
    }
}

/// Builds `insts` (plus `end`); fails the test on errors.
fn accepted(insts: impl IntoIterator<Item = Inst>) -> Program {
    match builder(insts).build() {
        Ok(k) => k.program().clone(),
        Err(e) => panic!("{e}"),
    }
}

/// A linked, valid program to corrupt by hand.
fn linked(insts: impl IntoIterator<Item = Inst>) -> Program {
    accepted(insts)
}

fn note_insts(e: &ValidationError) -> Vec<u32> {
    e.notes.iter().map(|n| n.inst).collect()
}

/// The only error, asserting there is exactly one.
fn single(errors: Vec<ValidationError>) -> ValidationError {
    assert_eq!(errors.len(), 1, "{errors:#?}");
    errors.into_iter().next().unwrap()
}

// ---- barriers and uniformity: accepted ----

#[test]
fn barrier_at_top_level() {
    accepted([v_mov(0, lane_id()), Inst::Barrier, v_add(0, v(0), imm(1))]);
}

#[test]
fn uniform_loop_with_scalar_counter_holds_a_barrier() {
    accepted([
        s_mov(0, imm(0)),
        loop_(),
        Inst::Barrier,
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(8)),
        endloop(0),
    ]);
}

#[test]
fn loop_on_vector_compare_of_uniform_values_holds_a_barrier() {
    let mut b = ProgramBuilder::new("k");
    let n = b.scalar("n", ScalarType::U32);
    b.extend([
        s_mov(0, imm(0)),
        v_mov(0, imm(0)),
        loop_(),
        Inst::Barrier,
        s_add(0, s(0), imm(1)),
        // A vector counter that every lane updates alike stays uniform.
        v_add(0, v(0), imm(1)),
        v_cmp_lt(0, s(0), Operand::Arg(n)),
        v_cmp_lt(1, v(0), imm(4)),
        Inst::MaskBinary {
            op: MaskOp::And,
            dst: MReg(2),
            a: MReg(0),
            b: MReg(1),
        },
        endloop(2),
    ]);
    b.build().unwrap();
}

#[test]
fn barrier_after_a_divergent_if_has_closed() {
    accepted([
        v_cmp_lt(0, lane_id(), imm(4)),
        if_(0),
        v_add(1, v(1), imm(1)),
        else_(),
        v_add(1, v(1), imm(2)),
        endif(),
        Inst::Barrier,
    ]);
}

#[test]
fn barrier_under_uniform_if_in_uniform_loop() {
    let mut b = ProgramBuilder::new("k");
    let n = b.scalar("n", ScalarType::U32);
    b.extend([
        s_mov(0, Operand::Special(Special::GroupId(Axis::X))),
        loop_(),
        s_cmp_lt(1, s(0), Operand::Arg(n)),
        if_(1),
        Inst::Barrier,
        endif(),
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(16)),
        break_(1),
        endloop(0),
    ]);
    b.build().unwrap();
}

#[test]
fn mask_register_reused_with_a_uniform_value_is_uniform_again() {
    // m0 is per lane for the `if`, then redefined from a scalar counter for the
    // loop: the analysis follows definitions, not register names.
    accepted([
        v_cmp_lt(0, lane_id(), imm(4)),
        if_(0),
        v_mov(0, imm(1)),
        endif(),
        s_mov(0, imm(0)),
        loop_(),
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(4)),
        Inst::Barrier,
        endloop(0),
    ]);
}

// ---- barriers and uniformity: rejected ----

#[test]
fn barrier_under_if_on_lane_mask() {
    let e = single(errors([
        v_cmp_lt(0, lane_id(), imm(4)),
        if_(0),
        Inst::Barrier,
        endif(),
    ]));
    assert_eq!(e.inst, Some(2));
    assert_eq!(
        e.kind,
        Kind::BarrierUnderDivergentControl {
            level: Uniformity::Lane
        }
    );
    assert_eq!(note_insts(&e), [1, 0]);
    assert_eq!(e.notes[0].kind.to_string(), "divergent `if` here");
    assert_eq!(
        e.notes[1].kind.to_string(),
        "`m0` gets a per-lane value here"
    );
    assert!(e.kind.to_string().contains("divergent"), "{}", e.kind);
}

#[test]
fn barrier_under_if_on_wave_id_is_wave_level() {
    let e = single(errors([
        s_mov(0, imm(0)),
        v_cmp_lt(3, wave_id(), imm(1)),
        if_(3),
        s_add(0, s(0), imm(1)),
        Inst::Barrier,
        endif(),
    ]));
    assert_eq!(e.inst, Some(4));
    assert_eq!(
        e.kind,
        Kind::BarrierUnderDivergentControl {
            level: Uniformity::Wave
        }
    );
    assert_eq!(note_insts(&e), [2, 1]);
    assert_eq!(e.notes[0].kind.to_string(), "wave-dependent `if` here");
    assert!(e.kind.to_string().contains("wave-dependent"), "{}", e.kind);
}

#[test]
fn barrier_in_loop_with_per_lane_exit() {
    let e = single(errors([
        v_mov(0, imm(0)),
        loop_(),
        Inst::Barrier,
        v_add(0, v(0), imm(1)),
        v_cmp_lt(0, v(0), lane_id()),
        endloop(0),
    ]));
    assert_eq!(e.inst, Some(2));
    assert_eq!(
        e.kind,
        Kind::BarrierUnderDivergentControl {
            level: Uniformity::Lane
        }
    );
    assert_eq!(note_insts(&e), [1, 5, 4]);
    assert_eq!(
        e.notes[0].kind.to_string(),
        "loop exit depends on per-lane values"
    );
    assert_eq!(e.notes[1].kind.to_string(), "loop condition `m0` here");
}

#[test]
fn barrier_in_loop_with_divergent_break() {
    let e = single(errors([
        s_mov(0, imm(0)),
        loop_(),
        v_cmp_lt(1, lane_id(), imm(3)),
        break_(1),
        Inst::Barrier,
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(4)),
        endloop(0),
    ]));
    assert_eq!(e.inst, Some(4));
    assert_eq!(
        e.kind,
        Kind::BarrierUnderDivergentControl {
            level: Uniformity::Lane
        }
    );
    assert_eq!(note_insts(&e), [1, 3, 2]);
    assert_eq!(
        e.notes[1].kind.to_string(),
        "lanes in `m1` leave the loop here"
    );
}

#[test]
fn barrier_before_a_divergent_continue_is_rejected() {
    // The first iteration reaches the barrier with every lane, the second without
    // the lanes that continued: the loop's level covers its whole body.
    let e = single(errors([
        s_mov(0, imm(0)),
        loop_(),
        Inst::Barrier,
        v_cmp_lt(1, lane_id(), imm(3)),
        continue_(1),
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(4)),
        endloop(0),
    ]));
    assert_eq!(e.inst, Some(2));
    assert_eq!(note_insts(&e), [1, 4, 3]);
    assert_eq!(
        e.notes[1].kind.to_string(),
        "lanes in `m1` skip to the next iteration here"
    );
}

#[test]
fn uniform_break_under_divergent_if_makes_the_loop_divergent() {
    let e = single(errors([
        v_cmp_lt(1, lane_id(), imm(3)),
        s_cmp_lt(2, imm(0), imm(1)),
        s_mov(0, imm(0)),
        loop_(),
        if_(1),
        break_(2),
        endif(),
        Inst::Barrier,
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(4)),
        endloop(0),
    ]));
    assert_eq!(e.inst, Some(7));
    // The loop, its exit, the `if` around the exit, the `if`'s mask.
    assert_eq!(note_insts(&e), [3, 5, 4, 0]);
}

#[test]
fn vector_write_under_divergent_if_is_per_lane_afterwards() {
    let p = builder([
        v_mov(1, imm(0)),
        v_cmp_lt(0, lane_id(), imm(4)),
        if_(0),
        v_mov(1, imm(1)),
        endif(),
        v_cmp_lt(1, v(1), imm(1)),
        if_(1),
        Inst::Barrier,
        endif(),
    ]);
    let e = single(p.build().unwrap_err().errors);
    assert_eq!(e.inst, Some(7));
    assert_eq!(note_insts(&e), [6, 5]);
}

#[test]
fn scalar_write_under_divergent_if_is_wave_level() {
    let e = single(errors([
        s_mov(0, imm(0)),
        v_cmp_lt(0, lane_id(), imm(4)),
        if_(0),
        s_mov(0, imm(1)),
        endif(),
        s_cmp_lt(1, s(0), imm(1)),
        if_(1),
        Inst::Barrier,
        endif(),
    ]));
    assert_eq!(e.inst, Some(7));
    assert_eq!(
        e.kind,
        Kind::BarrierUnderDivergentControl {
            level: Uniformity::Wave
        }
    );
}

#[test]
fn loop_counting_from_wave_id_is_wave_level() {
    let e = single(errors([
        s_mov(0, wave_id()),
        loop_(),
        Inst::Barrier,
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(4)),
        endloop(0),
    ]));
    assert_eq!(
        e.kind,
        Kind::BarrierUnderDivergentControl {
            level: Uniformity::Wave
        }
    );
    assert_eq!(note_insts(&e), [1, 5, 4]);
    assert_eq!(
        e.notes[0].kind.to_string(),
        "loop exit depends on wave-dependent values"
    );
}

/// A barrier under `if` on a value loaded from `buffer[index]`; `Ok` when it
/// validates, else the level the barrier's error names.
fn barrier_under_loaded_value(writable: bool, index: Operand) -> Result<(), Uniformity> {
    let mut b = ProgramBuilder::new("k");
    let x = if writable {
        b.buffer_mut::<u32>("x")
    } else {
        b.buffer::<u32>("x")
    };
    b.extend([
        Inst::GlobalLoad {
            ty: ElemType::U32,
            dst: VReg(0),
            src: GlobalRef {
                buffer: x,
                index,
                offset: simt_core::Operand::Imm(0),
                addressing: Addressing::Element,
            },
        },
        v_cmp_lt(0, v(0), imm(1)),
        if_(0),
        Inst::Barrier,
        endif(),
    ]);
    match b.build() {
        Ok(_) => Ok(()),
        Err(errors) => {
            let e = single(errors.errors);
            assert_eq!(e.inst, Some(3));
            assert_eq!(note_insts(&e), [2, 1]);
            match e.kind {
                Kind::BarrierUnderDivergentControl { level } => Err(level),
                other => panic!("unexpected error {other:?}"),
            }
        }
    }
}

#[test]
fn loaded_values_follow_their_address() {
    let group = Operand::Special(Special::GroupId(Axis::X));
    let lane = Operand::Special(Special::LocalId(Axis::X));
    let wave = Operand::Special(Special::WaveId);
    // A read-only buffer at a workgroup-uniform index: every wave reads the
    // same word, which nothing writes during the launch.
    assert_eq!(barrier_under_loaded_value(false, imm(0)), Ok(()));
    assert_eq!(barrier_under_loaded_value(false, group), Ok(()));
    // A writable buffer: another wave may write the word between two waves'
    // reads, so only the wave's lanes are sure to agree.
    assert_eq!(
        barrier_under_loaded_value(true, imm(0)),
        Err(Uniformity::Wave)
    );
    // A wave-uniform index: one word per wave, but waves differ.
    assert_eq!(
        barrier_under_loaded_value(false, wave),
        Err(Uniformity::Wave)
    );
    // A per-lane index: per-lane values.
    assert_eq!(
        barrier_under_loaded_value(false, lane),
        Err(Uniformity::Lane)
    );
}

#[test]
fn every_barrier_is_reported() {
    let errs = errors([
        v_cmp_lt(0, lane_id(), imm(4)),
        if_(0),
        Inst::Barrier,
        else_(),
        Inst::Barrier,
        endif(),
        Inst::Barrier,
    ]);
    let at: Vec<_> = errs.iter().map(|e| e.inst).collect();
    assert_eq!(at, [Some(2), Some(4)]);
}

#[test]
fn uniformity_levels_per_instruction() {
    let p = accepted([
        v_mov(0, lane_id()),            // 0: Lane
        s_mov(0, wave_id()),            // 1: Wave
        v_cmp_lt(0, s(0), imm(3)),      // 2: Wave
        s_cmp_lt(1, imm(1), imm(2)),    // 3: Workgroup
        if_(1),                         // 4
        v_add(1, v(1), imm(1)),         // 5: Workgroup
        endif(),                        // 6
        if_(0),                         // 7: wave-uniform if
        v_add(2, v(2), imm(1)),         // 8: Wave (written under wave control)
        s_add(1, s(1), imm(1)),         // 9: Wave
        endif(),                        // 10
        loop_(),                        // 11
        v_cmp_lt(2, lane_id(), imm(1)), // 12: Lane
        break_(2),                      // 13
        v_add(3, v(3), imm(1)),         // 14: Lane (divergent loop)
        s_add(2, s(2), imm(1)),         // 15: Wave
        s_cmp_lt(3, s(2), imm(9)),      // 16: Wave
        endloop(3),                     // 17
    ]);
    use Uniformity::*;
    let u = uniformity(&p).unwrap();
    assert_eq!(
        u.values[..18],
        [
            Some(Lane),
            Some(Wave),
            Some(Wave),
            Some(Workgroup),
            None,
            Some(Workgroup),
            None,
            None,
            Some(Wave),
            Some(Wave),
            None,
            None,
            Some(Lane),
            None,
            Some(Lane),
            Some(Wave),
            Some(Wave),
            None,
        ]
    );
    assert_eq!(u.control[5], Workgroup);
    assert_eq!(u.control[8], Wave);
    assert_eq!(u.control[11], Workgroup);
    assert_eq!(u.control[12], Lane);
    assert_eq!(u.control[17], Lane);
    assert_eq!(u.control[18], Workgroup);
}

#[test]
fn uniformity_of_badly_nested_program_is_none() {
    let mut p = linked([Inst::Barrier]);
    p.insts = Cow::Owned(vec![if_(0), Inst::End]);
    p.locs = Cow::Owned(vec![SourceLoc::default(); 2]);
    assert!(uniformity(&p).is_none());
}

// ---- nesting ----

#[test]
fn unclosed_if_and_loop() {
    let e = single(errors([s_cmp_lt(0, imm(0), imm(1)), if_(0)]));
    assert_eq!((e.inst, e.kind), (Some(1), Kind::UnclosedIf));
    let e = single(errors([loop_()]));
    assert_eq!((e.inst, e.kind), (Some(0), Kind::UnclosedLoop));
}

#[test]
fn closers_without_openers() {
    let e = single(errors([else_()]));
    assert_eq!((e.inst, e.kind), (Some(0), Kind::ElseWithoutIf));
    let e = single(errors([endif()]));
    assert_eq!((e.inst, e.kind), (Some(0), Kind::EndIfWithoutIf));
    let e = single(errors([endloop(0)]));
    assert_eq!((e.inst, e.kind), (Some(0), Kind::EndLoopWithoutLoop));
    let e = single(errors([break_(0)]));
    assert_eq!((e.inst, e.kind), (Some(0), Kind::BreakOutsideLoop));
    let e = single(errors([if_(0), continue_(0), endif()]));
    assert_eq!((e.inst, e.kind), (Some(1), Kind::ContinueOutsideLoop));
}

#[test]
fn crossed_nesting_points_at_the_closer_with_a_note_at_the_opener() {
    let errs = errors([if_(0), loop_(), endif(), endloop(0)]);
    let crossed = errs
        .iter()
        .find(|e| matches!(e.kind, Kind::CrossedNesting { .. }))
        .expect("a crossed-nesting error");
    assert_eq!(crossed.inst, Some(2));
    assert_eq!(
        crossed.kind,
        Kind::CrossedNesting {
            opener: "loop",
            closer: "endif"
        }
    );
    assert_eq!(note_insts(crossed), [1]);
    // In instruction order.
    let at: Vec<_> = errs.iter().map(|e| e.inst).collect();
    let mut sorted = at.clone();
    sorted.sort();
    assert_eq!(at, sorted);

    let errs = errors([loop_(), if_(0), endloop(0), endif()]);
    let e = &errs[0];
    assert_eq!(e.inst, Some(2));
    assert_eq!(
        e.kind,
        Kind::CrossedNesting {
            opener: "if",
            closer: "endloop"
        }
    );
    assert_eq!(note_insts(e), [1]);

    let e = single(errors([loop_(), else_(), endloop(0)]));
    assert_eq!(
        (e.inst, e.kind),
        (
            Some(1),
            Kind::CrossedNesting {
                opener: "loop",
                closer: "else"
            }
        )
    );
}

#[test]
fn second_else() {
    let e = single(errors([if_(0), else_(), else_(), endif()]));
    assert_eq!((e.inst, e.kind.clone()), (Some(2), Kind::SecondElse));
    assert_eq!(note_insts(&e), [1]);
}

#[test]
fn nesting_too_deep() {
    let depth = simt_core::limits::MAX_NESTING as usize + 1;
    let insts = std::iter::repeat_n(loop_(), depth).chain(std::iter::repeat_n(endloop(0), depth));
    let e = single(errors(insts));
    assert_eq!(
        (e.inst, e.kind),
        (
            Some(depth as u32 - 1),
            Kind::NestingTooDeep {
                limit: simt_core::limits::MAX_NESTING
            }
        )
    );
}

#[test]
fn misplaced_and_missing_end() {
    let e = single(errors([Inst::End, Inst::Barrier]));
    assert_eq!((e.inst, e.kind), (Some(0), Kind::MisplacedEnd));

    let mut p = linked([Inst::Barrier]);
    p.insts = Cow::Owned(vec![Inst::Barrier]);
    p.locs = Cow::Owned(vec![SourceLoc::default()]);
    let e = single(validate(&p).unwrap_err().errors);
    assert_eq!((e.inst, e.kind), (None, Kind::MisplacedEnd));

    p.insts = Cow::Owned(Vec::new());
    p.locs = Cow::Owned(Vec::new());
    let e = single(validate(&p).unwrap_err().errors);
    assert_eq!((e.inst, e.kind), (None, Kind::MisplacedEnd));
}

#[test]
fn validate_reports_nesting_errors_of_hand_built_programs() {
    let mut p = linked([Inst::Barrier]);
    p.insts = Cow::Owned(vec![loop_(), if_(0), endloop(0), endif(), Inst::End]);
    p.locs = Cow::Owned(vec![SourceLoc::default(); 5]);
    p.mregs = 1;
    let errs = validate(&p).unwrap_err().errors;
    assert!(errs.iter().any(|e| e.inst == Some(2)
        && matches!(e.kind, Kind::CrossedNesting { .. })
        && note_insts(e) == [1]));
    // No jump-target noise after a nesting error.
    assert!(!errs
        .iter()
        .any(|e| matches!(e.kind, Kind::WrongTarget { .. })));
}

// ---- linking ----

#[test]
fn wrong_jump_target() {
    let p = linked([
        s_cmp_lt(0, imm(0), imm(1)),
        if_(0),
        else_(),
        endif(),
        loop_(),
        break_(0),
        endloop(0),
    ]);
    assert_eq!(
        p.insts[1],
        Inst::If {
            mask: MReg(0),
            next: InstIdx(2)
        }
    );
    validate(&p).unwrap();

    let mut bad = p.clone();
    let insts = bad.insts.to_mut();
    insts[1] = Inst::If {
        mask: MReg(0),
        next: InstIdx(3),
    };
    insts[5] = Inst::Break {
        mask: MReg(0),
        end: InstIdx::UNLINKED,
    };
    let errs = validate(&bad).unwrap_err().errors;
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert_eq!(
        (errs[0].inst, &errs[0].kind),
        (
            Some(1),
            &Kind::WrongTarget {
                expected: 2,
                found: 3
            }
        )
    );
    assert_eq!(
        (errs[1].inst, &errs[1].kind),
        (
            Some(5),
            &Kind::WrongTarget {
                expected: 6,
                found: u32::MAX
            }
        )
    );
}

#[test]
fn locs_must_match_insts() {
    let mut p = linked([Inst::Barrier]);
    p.locs.to_mut().pop();
    let e = single(validate(&p).unwrap_err().errors);
    assert_eq!(
        (e.inst, e.kind),
        (None, Kind::LocsLength { locs: 1, insts: 2 })
    );
}

// ---- limits ----

#[test]
fn register_out_of_declared_range() {
    let mut p = linked([
        v_add(3, v(2), v(2)),
        s_mov(1, imm(0)),
        v_cmp_lt(4, v(0), s(1)),
    ]);
    assert_eq!((p.vregs, p.sregs, p.mregs), (4, 2, 5));
    p.vregs = 3;
    p.sregs = 1;
    let errs = validate(&p).unwrap_err().errors;
    let got: Vec<_> = errs.iter().map(|e| (e.inst, e.kind.clone())).collect();
    let oor = |class, index, count| Kind::RegisterOutOfRange {
        class,
        index,
        count,
    };
    assert_eq!(
        got,
        [
            (Some(0), oor('v', 3, 3)),
            (Some(1), oor('s', 1, 1)),
            (Some(2), oor('s', 1, 1)),
        ]
    );
}

#[test]
fn too_many_registers() {
    let errs = errors([v_mov(300, imm(0)), s_mov(200, imm(0)), v_mov(300, v(300))]);
    let got: Vec<_> = errs
        .iter()
        .map(|e| (e.inst, e.operand.map(|o| o.field), e.kind.clone()))
        .collect();
    let past = |reg, limit| Kind::RegisterPastLimit { reg, limit };
    // At each instruction, once per register, at the first operand naming it
    // (field 1: field 0 is the operation).
    assert_eq!(
        got,
        [
            (Some(0), Some(1), past(Reg::V(VReg(300)), 256)),
            (Some(1), Some(1), past(Reg::S(SReg(200)), 128)),
            (Some(2), Some(1), past(Reg::V(VReg(300)), 256)),
        ]
    );
    assert_eq!(
        errs[0].kind.to_string(),
        "register v300 is out of range: the machine has 256 v registers"
    );

    // A named register past the limit is one error for the program, noted at
    // its first use; its uses add none.
    let mut b = ProgramBuilder::new("k");
    b.name_register(Reg::M(MReg(32)), "late");
    b.push(v_cmp_lt(32, imm(0), imm(0)));
    let e = single(b.build().unwrap_err().errors);
    assert_eq!((e.inst, e.kind.clone()), (None, past(Reg::M(MReg(32)), 32)));
    assert_eq!(note_insts(&e), [0]);

    // A count set by hand over the limit, with no register past it.
    let mut p = linked([v_mov(0, imm(0))]);
    p.vregs = 300;
    let e = single(validate(&p).unwrap_err().errors);
    assert_eq!(
        e.kind,
        Kind::TooManyRegisters {
            class: 'v',
            count: 300,
            limit: 256
        }
    );
}

#[test]
fn too_many_params() {
    let mut b = ProgramBuilder::new("k");
    for i in 0..65 {
        b.scalar(&format!("p{i}"), ScalarType::U32);
    }
    let e = single(b.build().unwrap_err().errors);
    assert_eq!(
        e.kind,
        Kind::TooManyParams {
            count: 65,
            limit: 64
        }
    );
}

#[test]
fn lds_too_large() {
    let mut b = ProgramBuilder::new("k");
    b.lds("a", ElemType::F32, 58112);
    b.lds("b", ElemType::U16, 2);
    let e = single(b.build().unwrap_err().errors);
    assert_eq!(
        e.kind,
        Kind::LdsTooLarge {
            bytes: 232448 + 4,
            limit: 232448,
            // `a` ends at the limit exactly; `b` is the first past it.
            array: Some(LdsIdx(1)),
        }
    );
    // ... and exactly the limit is fine.
    let mut b = ProgramBuilder::new("k");
    b.lds("a", ElemType::F32, 8192);
    b.lds("b", ElemType::U8, 232448 - 32768);
    b.build().unwrap();
}

fn decl(name: &'static str, elem: ElemType, len: u32, offset: u32) -> LdsDecl {
    LdsDecl {
        name: Cow::Borrowed(name),
        elem,
        len,
        offset,
    }
}

#[test]
fn lds_layout() {
    let mut p = linked([Inst::Barrier]);
    p.lds = Cow::Owned(vec![
        decl("a", ElemType::U32, 4, 0),
        decl("b", ElemType::U16, 2, 18),
        decl("c", ElemType::U32, 2, 20),
        decl("d", ElemType::U8, 0, 20),
    ]);
    p.lds_bytes = 24;
    let errs = validate(&p).unwrap_err().errors;
    let got: Vec<_> = errs.iter().map(|e| e.kind.to_string()).collect();
    assert_eq!(
        got,
        [
            "LDS array `b`: offset 18 is not 4-byte aligned",
            "LDS array `c`: ends at byte 28, past the program's 24 bytes of LDS",
            "LDS array `c`: overlaps `b`",
        ]
    );

    p.lds = Cow::Owned(vec![decl("huge", ElemType::F32, u32::MAX, 0)]);
    p.lds_bytes = 0;
    let got: Vec<_> = validate(&p)
        .unwrap_err()
        .errors
        .into_iter()
        .map(|e| e.kind)
        .collect();
    // Too large for the machine, and only that: past the machine's size the
    // layout is not checked further (its overflow would restate this error).
    assert_eq!(
        got,
        [Kind::LdsTooLarge {
            bytes: u64::from(u32::MAX) * 4,
            limit: 232448,
            array: Some(LdsIdx(0)),
        }]
    );
}

// ---- operand kinds ----

fn global(buffer: ParamIdx, addressing: Addressing) -> GlobalRef {
    GlobalRef {
        buffer,
        index: Operand::Special(Special::GlobalId(Axis::X)),
        offset: simt_core::Operand::Imm(0),
        addressing,
    }
}

#[test]
fn operand_kinds() {
    let mut b = ProgramBuilder::new("k");
    let x = b.buffer::<f32>("x");
    let y = b.buffer_mut::<f32>("y");
    let n = b.scalar("n", ScalarType::U32);
    let t = b.lds("t", ElemType::U32, 64);
    b.extend([
        // 0: store into `&[f32]`
        Inst::GlobalStore {
            ty: ElemType::F32,
            dst: global(x, Addressing::Element),
            src: imm(0),
        },
        // 1: a buffer used as a value
        v_add(0, Operand::Arg(x), imm(1)),
        // 2: a scalar used as a buffer
        Inst::GlobalLoad {
            ty: ElemType::U32,
            dst: VReg(0),
            src: global(n, Addressing::Element),
        },
        // 3: element load of the wrong type
        Inst::GlobalLoad {
            ty: ElemType::U32,
            dst: VReg(0),
            src: global(y, Addressing::Element),
        },
        // 4: byte-addressed reinterpreting accesses are fine
        Inst::GlobalLoad {
            ty: ElemType::U8,
            dst: VReg(0),
            src: global(x, Addressing::Byte),
        },
        // 5: LDS element store of the wrong type
        Inst::LdsStore {
            ty: ElemType::I16,
            dst: LdsRef {
                lds: t,
                index: lane_id(),
                offset: simt_core::Operand::Imm(0),
                addressing: Addressing::Element,
            },
            src: v(0),
        },
        // 6: LDS array and parameter that do not exist
        Inst::LdsLoad {
            ty: ElemType::U32,
            dst: VReg(1),
            src: LdsRef {
                lds: LdsIdx(7),
                index: Operand::Arg(ParamIdx(9)),
                offset: simt_core::Operand::Imm(0),
                addressing: Addressing::Element,
            },
        },
        // 7: all fine
        Inst::LdsStore {
            ty: ElemType::U32,
            dst: LdsRef {
                lds: t,
                index: Operand::Arg(n),
                offset: simt_core::Operand::Imm(0),
                addressing: Addressing::Element,
            },
            src: v(0),
        },
    ]);
    let errs = b.build().unwrap_err().errors;
    let got: Vec<_> = errs.iter().map(|e| (e.inst, e.kind.clone())).collect();
    assert_eq!(
        got,
        [
            (
                Some(0),
                Kind::StoreToReadOnly {
                    name: "x".to_owned(),
                    elem: "f32"
                }
            ),
            (
                Some(1),
                Kind::ParamKind {
                    name: "x".to_owned(),
                    is: "a buffer",
                    expected: "a scalar"
                }
            ),
            (
                Some(2),
                Kind::ParamKind {
                    name: "n".to_owned(),
                    is: "a scalar",
                    expected: "a buffer"
                }
            ),
            (
                Some(3),
                Kind::AccessType {
                    access: "load",
                    name: "y".to_owned(),
                    ty: "u32",
                    elem: "f32"
                }
            ),
            (
                Some(5),
                Kind::AccessType {
                    access: "store",
                    name: "t".to_owned(),
                    ty: "i16",
                    elem: "u32"
                }
            ),
            (Some(6), Kind::NoSuchParam { index: 9 }),
            (Some(6), Kind::NoSuchLds { index: 7 }),
        ]
    );
    assert_eq!(
        errs[0].to_string(),
        "instruction 0: store to read-only buffer `x` (declare it `&mut [f32]`)"
    );
}

#[test]
fn scalar_instructions_read_only_wave_uniform_values() {
    let errs = errors([
        s_add(0, v(0), imm(1)),                                  // 0: vector register
        s_mov(1, lane_id()),                                     // 1: per-lane special
        s_mov(2, Operand::Special(Special::GlobalId(Axis::Y))),  // 2: per-lane special
        s_mov(3, wave_id()),                                     // fine
        s_mov(4, Operand::Special(Special::GroupSize(Axis::X))), // fine
        s_cmp_lt(0, s(3), Operand::Special(Special::LocalId(Axis::X))), // 5
        s_cmp_lt(1, s(3), imm(2)),                               // fine
    ]);
    let got: Vec<_> = errs.iter().map(|e| (e.inst, e.kind.clone())).collect();
    assert_eq!(
        got,
        [
            (Some(0), Kind::ScalarReadsVector),
            (Some(1), Kind::ScalarReadsVector),
            (Some(2), Kind::ScalarReadsVector),
            (Some(5), Kind::ScalarReadsVector),
        ]
    );
}

#[test]
fn all_errors_are_collected_in_instruction_order() {
    let mut b = ProgramBuilder::new("k");
    let x = b.buffer::<u32>("x");
    b.lds("big", ElemType::U32, 1 << 16);
    b.extend([
        v_cmp_lt(0, lane_id(), imm(4)),
        if_(0),
        Inst::Barrier,
        endif(),
        s_mov(0, v(1)),
        Inst::GlobalStore {
            ty: ElemType::U32,
            dst: global(x, Addressing::Element),
            src: v(0),
        },
    ]);
    let errs = b.build().unwrap_err();
    let at: Vec<_> = errs.errors.iter().map(|e| e.inst).collect();
    assert_eq!(at, [None, Some(2), Some(4), Some(5)]);
    let text = errs.to_string();
    assert!(text.starts_with("kernel `k` is invalid:"), "{text}");
    assert_eq!(text.lines().count(), 5, "{text}");
}

#[test]
fn values_written_in_a_divergent_loop_before_its_exit_are_per_lane() {
    // Lanes leave at different iterations, so `v0` differs per lane after the
    // loop, although its definition comes before the divergent `break`.
    let e = single(errors([
        s_mov(0, imm(0)),
        v_mov(0, imm(0)),
        loop_(),
        v_add(0, v(0), imm(1)),
        v_cmp_lt(1, lane_id(), imm(3)),
        break_(1),
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(4)),
        endloop(0),
        v_cmp_lt(2, v(0), imm(2)),
        if_(2),
        Inst::Barrier,
        endif(),
    ]));
    assert_eq!(e.inst, Some(11));
    assert_eq!(note_insts(&e), [10, 9]);
}

#[test]
fn loop_carried_values_reach_the_top_of_the_body() {
    // `v1` becomes per lane at the end of the first iteration and is read at the
    // top of the next one.
    let e = single(errors([
        s_mov(0, imm(0)),
        loop_(),
        v_cmp_lt(1, v(1), imm(5)),
        if_(1),
        Inst::Barrier,
        endif(),
        v_mov(1, lane_id()),
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(4)),
        endloop(0),
    ]));
    assert_eq!(e.inst, Some(4));
    assert_eq!(note_insts(&e), [3, 2]);
}

#[test]
fn nested_loops_converge() {
    // The per-lane value travels from the inner loop's end, through the outer
    // loop's back edge, to the inner loop's condition.
    let e = single(errors([
        s_mov(0, imm(0)),
        loop_(),
        s_mov(1, imm(0)),
        loop_(),
        Inst::Barrier,
        s_add(1, s(1), imm(1)),
        v_cmp_lt(1, v(2), s(1)),
        endloop(1),
        v_mov(2, v(3)),
        v_mov(3, lane_id()),
        s_add(0, s(0), imm(1)),
        s_cmp_lt(0, s(0), imm(4)),
        endloop(0),
    ]));
    assert_eq!(e.inst, Some(4));
    assert_eq!(
        e.kind,
        Kind::BarrierUnderDivergentControl {
            level: Uniformity::Lane
        }
    );
    assert_eq!(note_insts(&e), [3, 7, 6]);
}

#[test]
fn a_64_bit_compare_and_swap_moves_pairs_only() {
    let build = |width: simt_core::Width| {
        let mut b = ProgramBuilder::new("k");
        let q = b.buffer_mut::<u64>("q");
        b.push(Inst::GlobalCmpSwap64 {
            width,
            dst: VReg(0),
            mem: GlobalRef::element(q, imm(0)),
            cmp: VReg(4),
            src: VReg(8),
        });
        b.build()
    };
    assert!(build(simt_core::Width::X2).is_ok());
    let errors = build(simt_core::Width::X4).unwrap_err().errors;
    assert!(
        errors
            .iter()
            .any(|e| e.kind == Kind::CmpSwapWidth { width: 4 } && e.inst == Some(0)),
        "{errors:?}"
    );
}
