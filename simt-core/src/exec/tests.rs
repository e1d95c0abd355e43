//! Run-time barrier faults. The validator rejects every program that could reach
//! them, so these run hand-built programs through
//! the interpreter with every check but the uniformity analysis.

use super::Machine;
use crate::error::{Error, Fault, FaultKind};
use crate::ir::{InstIdx, MReg, Operand, Program, SourceLoc, Special, VReg};
use crate::isa::{CmpOp, CmpType, Inst};
use crate::launch::LaunchConfig;
use crate::stats::Stats;
use crate::Kernel;
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
        reg_names: Cow::Owned(Vec::new()),
        workgroup_size: None,
        race_free: None,
        formats: Default::default(),
        scratch_words: 0,
    }
}

/// Launches `program` validated without the uniformity analysis.
fn launch_unchecked(program: Program, config: &LaunchConfig) -> Result<Stats, Error> {
    let kernel = Kernel::new_without_barrier_checks(program)?;
    Machine::new().launch(&kernel, config, &mut [])
}

fn run(body: &[Inst], size: u32, width: u32) -> Result<Stats, Error> {
    let config = LaunchConfig::new(2, size).wave_width(width);
    launch_unchecked(program(body), &config)
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
            op: crate::isa::UnOp::Mov,
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
        op: crate::isa::UnOp::Mov,
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
    assert!(crate::validate(&p).is_err());
}

/// LDS keeps bytes in words: sub-word stores and loads of every type at byte
/// offsets within a word, read back whole and sign- or zero-extended.
#[test]
fn lds_sub_word_data() {
    use crate::ir::{Addressing, ElemType, GlobalRef, LdsRef};
    use crate::isa::BinOp;
    use crate::launch::Arg;
    use crate::ProgramBuilder;

    let mut p = ProgramBuilder::new("lds_sub_word");
    let out = p.buffer_mut::<u32>("out");
    let w = p.lds("w", ElemType::U32, 64);
    let v = |r: u16| Operand::V(VReg(r));
    let bytes = |index: Operand| LdsRef {
        lds: w,
        index,
        offset: crate::ir::Operand::Imm(0),
        addressing: Addressing::Byte,
    };
    let words = |index: Operand| LdsRef {
        lds: w,
        index,
        offset: crate::ir::Operand::Imm(0),
        addressing: Addressing::Element,
    };
    let bin = |op, dst: u16, a: Operand, b: Operand| Inst::VBinary {
        op,
        dst: VReg(dst),
        a,
        b,
    };
    let imm = Operand::Imm;
    let mut insts = vec![
        // v0 = lane * 37 + 0x70: bytes both below and above 0x80.
        bin(BinOp::MulU32, 0, LANE, imm(37)),
        bin(BinOp::AddU32, 0, v(0), imm(0x70)),
        Inst::LdsStore {
            ty: ElemType::U8,
            dst: bytes(LANE),
            src: v(0),
        },
        // v1 = 2 * lane + 64: halves from byte 64 on.
        bin(BinOp::MulU32, 1, LANE, imm(2)),
        bin(BinOp::AddU32, 1, v(1), imm(64)),
        bin(BinOp::MulU32, 2, v(0), imm(0x0101)),
        Inst::LdsStore {
            ty: ElemType::U16,
            dst: bytes(v(1)),
            src: v(2),
        },
        Inst::LdsLoad {
            ty: ElemType::U32,
            dst: VReg(3),
            src: words(LANE),
        },
        Inst::LdsLoad {
            ty: ElemType::I8,
            dst: VReg(4),
            src: bytes(LANE),
        },
        Inst::LdsLoad {
            ty: ElemType::I16,
            dst: VReg(5),
            src: bytes(v(1)),
        },
        Inst::LdsLoad {
            ty: ElemType::U16,
            dst: VReg(6),
            src: bytes(v(1)),
        },
    ];
    for k in 0..4u16 {
        insts.push(bin(BinOp::AddU32, 7, LANE, imm(32 * k as u32)));
        insts.push(Inst::GlobalStore {
            ty: ElemType::U32,
            dst: GlobalRef {
                buffer: out,
                index: v(7),
                offset: crate::ir::Operand::Imm(0),
                addressing: Addressing::Element,
            },
            src: v(3 + k),
        });
    }
    p.extend(insts);
    let program = p.build().expect("valid");
    let mut data = vec![0u32; 128];
    let config = LaunchConfig::new(1, 32).wave_width(32);
    Machine::new()
        .launch(&program, &config, &mut [Arg::buffer_mut(&mut data)])
        .expect("runs");
    let byte = |l: u32| (l * 37 + 0x70) as u8;
    let half = |l: u32| ((l * 37 + 0x70) * 0x0101) as u16;
    for l in 0..32u32 {
        let word = if l < 8 {
            u32::from_le_bytes([
                byte(4 * l),
                byte(4 * l + 1),
                byte(4 * l + 2),
                byte(4 * l + 3),
            ])
        } else if (16..32).contains(&l) {
            let i = 2 * (l - 16);
            half(i) as u32 | (half(i + 1) as u32) << 16
        } else {
            0
        };
        let l_ = l as usize;
        assert_eq!(data[l_], word, "u32 word {l}");
        assert_eq!(data[32 + l_], byte(l) as i8 as i32 as u32, "i8 byte {l}");
        assert_eq!(data[64 + l_], half(l) as i16 as i32 as u32, "i16 at {l}");
        assert_eq!(data[96 + l_], half(l) as u32, "u16 at {l}");
    }
}

fn static_program(insts: &'static [Inst], locs: &'static [SourceLoc]) -> Program {
    Program {
        name: Cow::Borrowed("static"),
        file: Cow::Borrowed("static.rs"),
        params: Cow::Borrowed(&[]),
        lds: Cow::Borrowed(&[]),
        insts: Cow::Borrowed(insts),
        locs: Cow::Borrowed(locs),
        vregs: 0,
        sregs: 0,
        mregs: 0,
        lds_bytes: 0,
        reg_names: Cow::Borrowed(&[]),
        workgroup_size: None,
        race_free: None,
        formats: Default::default(),
        scratch_words: 0,
    }
}

/// A program of `'static` tables becomes a kernel only when it is valid, and
/// runs the same at every launch.
#[test]
fn static_programs_become_kernels_only_when_valid() {
    const LOC: SourceLoc = SourceLoc { line: 1, column: 1 };
    static BAD: std::sync::LazyLock<Program> =
        std::sync::LazyLock::new(|| static_program(&[Inst::EndIf, Inst::End], &[LOC, LOC]));
    static GOOD: std::sync::LazyLock<Program> =
        std::sync::LazyLock::new(|| static_program(&[Inst::Barrier, Inst::End], &[LOC, LOC]));
    assert!(Kernel::from_static(&BAD).is_err());
    let good = Kernel::from_static(&GOOD).expect("valid");
    let config = LaunchConfig::new(3, 40).wave_width(32);
    let mut m = Machine::new();
    let first = m.launch(&good, &config, &mut []).expect("runs");
    let again = m.launch(&good, &config, &mut []).expect("runs");
    assert_eq!(first, again);
    assert_eq!((again.workgroups, again.waves), (3, 6));
    assert_eq!(again.per_instruction[0].barriers, 6);
}
