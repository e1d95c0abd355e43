//! The evaluator's counters and results on small programs, against values
//! counted by hand from the definitions in `simt_core::Counters`.

use simt_lang::{
    Axis, BinOp, CmpOp, CmpType, ElemType, GlobalRef, Inst, LdsRef, MReg, Operand, Program,
    ProgramBuilder, Special, VReg, Width,
};
use simt_oracle::{run, Geometry, Launch, Schedule, Value};

const REFERENCE: Geometry = Geometry {
    phase_lanes: 32,
    line_bytes: 64,
    sector_bytes: 64,
    lds_banks: 32,
    lds_bank_bytes: 4,
};

fn launch(workgroup: u32, width: u32) -> Launch {
    Launch {
        grid: [1, 1, 1],
        workgroup: [workgroup, 1, 1],
        wave_width: width,
        geometry: REFERENCE,
        schedule: Schedule::UntilBarrier,
        budget: 1 << 20,
    }
}

const GID: Operand = Operand::Special(Special::GlobalId(Axis::X));
const LANE: Operand = Operand::Special(Special::LaneId);

fn copy_program() -> Program {
    let mut b = ProgramBuilder::new("copy");
    let src = b.buffer::<u32>("src");
    let dst = b.buffer_mut::<u32>("dst");
    b.push(Inst::GlobalLoad {
        ty: ElemType::U32,
        dst: VReg(0),
        src: GlobalRef::element(src, GID),
    });
    b.push(Inst::GlobalStore {
        ty: ElemType::U32,
        dst: GlobalRef::element(dst, GID),
        src: Operand::V(VReg(0)),
    });
    b.program()
}

#[test]
fn a_coalesced_copy_at_wave64_is_two_phases_of_two_lines_each() {
    let words: Vec<u8> = (0..64u32).flat_map(|i| (i * 3).to_le_bytes()).collect();
    let mut args = vec![Value::Buffer(words.clone()), Value::Buffer(vec![0; 256])];
    let r = run(&copy_program(), &launch(64, 64), &mut args).expect("runs");
    assert_eq!(args[1], Value::Buffer(words));
    // One wave of 64 lanes: each access is two 32-lane phases of 128 bytes,
    // two 64-byte lines each.
    for c in &r.per_instruction[..2] {
        assert_eq!((c.global_accesses, c.global_transactions), (2, 4));
        assert_eq!(c.global_bytes_requested, 64 * 4);
        assert_eq!(c.global_bytes_moved, 4 * 64);
        assert_eq!((c.active_lanes, c.divergent_vector_instructions), (64, 0));
    }
    let t = r.totals();
    // Load, store and end.
    assert_eq!((t.instructions, t.vector_instructions), (3, 2));
    assert_eq!(r.histogram[64], 2);
}

#[test]
fn a_partial_wave_counts_its_launched_lanes_only() {
    let mut args = vec![Value::Buffer(vec![1; 256]), Value::Buffer(vec![0; 256])];
    // 40 work-items at wave32: a full wave and one of 8 lanes.
    let r = run(&copy_program(), &launch(40, 32), &mut args).expect("runs");
    let c = r.per_instruction[0];
    // Wave 0: 128 bytes, 2 lines; wave 1: lanes 32..40, 32 bytes in line 2.
    assert_eq!((c.global_accesses, c.global_transactions), (2, 3));
    assert_eq!(c.active_lanes, 40);
    // A partial launch mask is not divergence.
    assert_eq!(c.divergent_vector_instructions, 0);
    assert_eq!((r.histogram[32], r.histogram[8]), (2, 2));
    assert_eq!(r.masked_issues, vec![1, 1, 1]);
    let Value::Buffer(out) = &args[1] else {
        panic!("a buffer")
    };
    assert!(out[..160].iter().all(|&b| b == 1) && out[160..].iter().all(|&b| b == 0));
}

#[test]
fn lanes_a_bank_apart_conflict_and_a_wide_contiguous_access_does_not() {
    let mut b = ProgramBuilder::new("lds");
    let t = b.lds("t", ElemType::U32, 1024);
    b.push(Inst::VBinary {
        op: BinOp::MulU32,
        dst: VReg(0),
        a: LANE,
        b: Operand::Imm(32),
    });
    // Every lane in bank 0, 32 distinct words: 31 cycles.
    b.push(Inst::LdsStore {
        ty: ElemType::U32,
        dst: LdsRef::element(t, Operand::V(VReg(0))),
        src: LANE,
    });
    b.push(Inst::VBinary {
        op: BinOp::MulU32,
        dst: VReg(0),
        a: LANE,
        b: Operand::Imm(4),
    });
    // x4 from element 4l: served by 8-lane sub-phases of 32 consecutive
    // words, one per bank.
    b.push(Inst::LdsLoadWide {
        width: Width::X4,
        dst: VReg(1),
        src: LdsRef::element(t, Operand::V(VReg(0))),
    });
    let r = run(&b.program(), &launch(32, 32), &mut []).expect("runs");
    assert_eq!(r.per_instruction[1].lds_conflict_cycles, 31);
    assert_eq!(r.per_instruction[3].lds_conflict_cycles, 0);
    assert_eq!(r.per_instruction[3].lds_bytes_requested, 32 * 16);
}

#[test]
fn an_if_no_lane_takes_skips_its_body_and_the_else_runs_the_others() {
    let mut b = ProgramBuilder::new("branch");
    let out = b.buffer_mut::<u32>("out");
    let m = MReg(0);
    b.push(Inst::VCmp {
        op: CmpOp::Lt,
        ty: CmpType::U32,
        dst: m,
        a: LANE,
        b: Operand::Imm(0),
    });
    b.push(Inst::If {
        mask: m,
        next: simt_lang::InstIdx::UNLINKED,
    });
    for _ in 0..3 {
        b.push(Inst::VUnary {
            op: simt_lang::UnOp::Mov,
            dst: VReg(0),
            a: Operand::Imm(1),
        });
    }
    b.push(Inst::Else {
        end: simt_lang::InstIdx::UNLINKED,
    });
    b.push(Inst::VUnary {
        op: simt_lang::UnOp::Mov,
        dst: VReg(0),
        a: Operand::Imm(2),
    });
    b.push(Inst::EndIf);
    b.push(Inst::GlobalStore {
        ty: ElemType::U32,
        dst: GlobalRef::element(out, LANE),
        src: Operand::V(VReg(0)),
    });
    let mut args = vec![Value::Buffer(vec![0; 128])];
    let r = run(&b.program(), &launch(32, 32), &mut args).expect("runs");
    let skipped: Vec<u64> = r
        .per_instruction
        .iter()
        .map(|c| c.skipped_instructions)
        .collect();
    // The three moves of the then-part, once.
    assert_eq!(skipped, vec![0, 0, 1, 1, 1, 0, 0, 0, 0, 0]);
    // cmp, if, else, mov, endif, store, end.
    assert_eq!(r.totals().instructions, 7);
    let Value::Buffer(out) = &args[0] else {
        panic!("a buffer")
    };
    assert!(out.chunks(4).all(|w| w == [2, 0, 0, 0]));
}

#[test]
fn a_wave_that_ends_while_another_waits_at_a_barrier_is_stranded() {
    let mut b = ProgramBuilder::new("stranded");
    let m = MReg(0);
    b.push(Inst::SCmp {
        op: CmpOp::Eq,
        ty: CmpType::U32,
        dst: m,
        a: Operand::Special(Special::WaveId),
        b: Operand::Imm(0),
    });
    b.push(Inst::If {
        mask: m,
        next: simt_lang::InstIdx::UNLINKED,
    });
    b.push(Inst::Barrier);
    b.push(Inst::EndIf);
    let f = run(&b.program(), &launch(64, 32), &mut []).expect_err("faults");
    // Wave 0 parks at the barrier; wave 1 skips it and ends at `end`.
    assert_eq!(f.kind, simt_oracle::FaultKind::BarrierStranded);
    assert_eq!((f.inst, f.wave), (4, 1));
}

#[test]
fn a_wide_access_of_an_f64_buffer_steps_by_its_eight_byte_elements() {
    let mut b = ProgramBuilder::new("copy64");
    let src = b.buffer::<f64>("src");
    let dst = b.buffer_mut::<f64>("dst");
    let lds = b.lds("t", ElemType::F64, 32);
    b.push(Inst::GlobalLoadWide {
        width: Width::X2,
        dst: VReg(0),
        src: GlobalRef::element(src, GID),
    });
    b.push(Inst::LdsStoreWide {
        width: Width::X2,
        dst: LdsRef::element(lds, LANE),
        src: VReg(0),
    });
    b.push(Inst::LdsLoadWide {
        width: Width::X2,
        dst: VReg(2),
        src: LdsRef::element(lds, LANE),
    });
    b.push(Inst::GlobalStoreWide {
        width: Width::X2,
        dst: GlobalRef::element(dst, GID),
        src: VReg(2),
    });
    let values: Vec<u8> = (0..32)
        .flat_map(|i| (f64::from(i) * -0.75).to_le_bytes())
        .collect();
    let mut args = vec![Value::Buffer(values.clone()), Value::Buffer(vec![0; 256])];
    let r = run(&b.program(), &launch(32, 32), &mut args).expect("runs");
    assert_eq!(args[1], Value::Buffer(values));
    // 32 lanes of 8 contiguous bytes: 256 bytes, four 64-byte lines.
    for c in [&r.per_instruction[0], &r.per_instruction[3]] {
        assert_eq!((c.global_accesses, c.global_transactions), (1, 4));
        assert_eq!(c.global_bytes_requested, 256);
    }
    // LDS: two sub-phases of 16 lanes, 128 contiguous bytes each, every bank
    // once.
    for c in [&r.per_instruction[1], &r.per_instruction[2]] {
        assert_eq!((c.lds_accesses, c.lds_conflict_cycles), (1, 0));
        assert_eq!(c.lds_bytes_requested, 256);
    }
    // One element past the end: lane 31 reads bytes 248..256 of 248.
    let short = vec![Value::Buffer(vec![0; 248]), Value::Buffer(vec![0; 256])];
    let f = run(&b.program(), &launch(32, 32), &mut short.clone()).expect_err("faults");
    assert_eq!(f.kind, simt_oracle::FaultKind::OutOfBounds);
    assert_eq!(f.lane, Some(31));
}
