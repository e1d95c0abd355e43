//! Every run-time fault and launch error: the typed error, with the kernel, the
//! instruction and its line, the workgroup, wave, lane and address filled in; and
//! the same program launching fine afterwards.

use crate::exec_util;

use exec_util::*;
use simt_core::{
    launch, Arg, BinOp, CmpOp, CmpType, ElemType, Error, Fault, FaultKind, Inst, Kernel,
    LaunchConfig, LaunchErrorKind, MemoryModel, Program, ProgramBuilder, ScalarType,
    ValidationErrorKind,
};

fn fault(result: Result<simt_core::Stats, Error>) -> Fault {
    match result {
        Err(Error::Fault(f)) => *f,
        other => panic!("expected a fault, got {other:?}"),
    }
}

fn refused(result: Result<simt_core::Stats, Error>) -> LaunchErrorKind {
    match result {
        Err(Error::Launch(e)) => {
            assert_eq!(e.kernel, "k");
            e.kind
        }
        other => panic!("expected a launch error, got {other:?}"),
    }
}

/// `y[gid] = x[gid] + 1`.
fn copy_kernel() -> Kernel {
    let mut p = ProgramBuilder::new("k");
    let x = p.buffer::<u32>("x");
    let y = p.buffer_mut::<u32>("y");
    p.extend([
        load(ElemType::U32, 0, gref(x, gid())),
        add(0, v(0), imm(1)),
        store(ElemType::U32, gref(y, gid()), v(0)),
    ]);
    p.build().expect("valid")
}

fn copy_ok(program: &Kernel) {
    let x = vec![1u32; 64];
    let mut y = vec![0u32; 64];
    let stats = launch(
        program,
        &cfg(2, 32, 32),
        &mut [Arg::buffer(&x), Arg::buffer_mut(&mut y)],
    )
    .expect("a good launch after an error");
    assert_eq!(y, vec![2u32; 64]);
    assert_eq!(stats.workgroups, 2);
}

#[test]
fn global_load_out_of_bounds() {
    let program = copy_kernel();
    let x = vec![1u32; 40];
    let mut y = vec![0u32; 64];
    let f = fault(launch(
        &program,
        &cfg(2, 32, 32),
        &mut [Arg::buffer(&x), Arg::buffer_mut(&mut y)],
    ));
    assert_eq!(f.kernel, "k");
    assert_eq!(f.inst, 0);
    assert_eq!(f.loc.line, 1);
    assert_eq!(f.workgroup, [1, 0, 0]);
    assert_eq!(f.wave, 0);
    assert_eq!(f.lane, Some(8));
    assert_eq!(f.address, Some(160));
    assert_eq!(
        f.kind,
        FaultKind::GlobalOutOfBounds {
            access: "load",
            buffer: "x".into(),
            index: 40,
            offset: 160,
            size: 4,
            len: 160,
        }
    );
    // The first workgroup finished before the fault.
    assert_eq!(&y[..32], &[2u32; 32]);
    let message = f.to_string();
    assert!(
        message.contains("`k`") && message.contains("lane 8"),
        "{message}"
    );
    copy_ok(&program);
}

#[test]
fn global_store_out_of_bounds_has_no_effect() {
    let program = copy_kernel();
    let x = vec![1u32; 64];
    let mut y = vec![0u32; 40];
    let f = fault(launch(
        &program,
        &cfg(1, 64, 64),
        &mut [Arg::buffer(&x), Arg::buffer_mut(&mut y)],
    ));
    assert_eq!((f.inst, f.wave, f.lane), (2, 0, Some(40)));
    // The second buffer starts at 256.
    assert_eq!(f.address, Some(256 + 160));
    assert!(matches!(
        f.kind,
        FaultKind::GlobalOutOfBounds { access: "store", ref buffer, index: 40, offset: 160, size: 4, len: 160 }
            if buffer == "y"
    ));
    // No lane of the faulting store wrote.
    assert_eq!(y, vec![0u32; 40]);
    copy_ok(&program);
}

#[test]
fn global_misaligned() {
    let mut p = ProgramBuilder::new("k");
    let x = p.buffer::<u32>("x");
    p.extend([
        bin(BinOp::MulU32, 0, lane(), imm(2)),
        load(ElemType::U32, 1, gbytes(x, v(0))),
    ]);
    let program = p.build().expect("valid");
    let x = vec![0u32; 64];
    let f = fault(launch(&program, &cfg(1, 32, 32), &mut [Arg::buffer(&x)]));
    assert_eq!((f.inst, f.lane, f.address), (1, Some(1), Some(2)));
    assert_eq!(
        f.kind,
        FaultKind::GlobalMisaligned {
            access: "load",
            buffer: "x".into(),
            offset: 2,
            size: 4
        }
    );
}

fn lds_kernel(index: Inst) -> Kernel {
    let mut p = ProgramBuilder::new("k");
    let _first = p.lds("first", ElemType::U32, 8);
    let second = p.lds("second", ElemType::U16, 16);
    p.extend([
        index,
        lds_store(ElemType::U16, lbytes(second, v(0)), imm(1)),
    ]);
    p.build().expect("valid")
}

#[test]
fn lds_out_of_bounds_and_misaligned() {
    // Byte offsets 2 * lane: lane 16 is past the 32-byte array.
    let program = lds_kernel(bin(BinOp::MulU32, 0, lane(), imm(2)));
    let f = fault(launch(&program, &cfg(1, 64, 32), &mut []));
    assert_eq!((f.inst, f.wave, f.lane), (1, 0, Some(16)));
    assert_eq!(f.address, Some(32 + 32));
    assert_eq!(
        f.kind,
        FaultKind::LdsOutOfBounds {
            access: "store",
            array: "second".into(),
            index: 32,
            offset: 32,
            size: 2,
            len: 32
        }
    );
    let program = lds_kernel(mov(0, lane()));
    let f = fault(launch(&program, &cfg(1, 64, 64), &mut []));
    assert_eq!((f.inst, f.lane, f.address), (1, Some(1), Some(33)));
    assert_eq!(
        f.kind,
        FaultKind::LdsMisaligned {
            access: "store",
            array: "second".into(),
            offset: 1,
            size: 2
        }
    );
}

#[test]
fn instruction_budget() {
    // An endless loop.
    let mut p = ProgramBuilder::new("k");
    p.extend([
        scmp(CmpOp::Eq, CmpType::U32, 0, imm(0), imm(0)),
        loop_(),
        add(0, v(0), imm(1)),
        endloop(0),
    ]);
    let program = p.build().expect("valid");
    let config = cfg(1, 32, 32).instruction_budget(1000);
    let f = fault(launch(&program, &config, &mut []));
    assert_eq!(f.kind, FaultKind::BudgetExceeded { budget: 1000 });
    // Instructions 0, 1, then (2, 3) repeated: the 1001st issue is an `add`.
    assert_eq!(f.inst, 2);
    assert_eq!((f.wave, f.lane, f.address), (0, None, None));

    // Four instructions per wave (`end` included), four waves: 16 fit exactly.
    let program = copy_kernel();
    let x = vec![1u32; 128];
    let mut y = vec![0u32; 128];
    let mut args = [Arg::buffer(&x), Arg::buffer_mut(&mut y)];
    let exact = cfg(1, 128, 32).instruction_budget(16);
    assert_eq!(
        launch(&program, &exact, &mut args)
            .expect("fits")
            .totals
            .instructions,
        16
    );
    let f = fault(launch(
        &program,
        &exact.clone().instruction_budget(15),
        &mut args,
    ));
    assert_eq!((f.inst, f.wave), (3, 3));
    copy_ok(&program);
}

#[test]
fn barriers_under_divergent_control_are_rejected_before_running() {
    for mask_source in [lane(), wave_id()] {
        let mut p = ProgramBuilder::new("k");
        p.extend([lt(0, mask_source, imm(1)), if_(0), Inst::Barrier, endif()]);
        // `build` validates, and so does every other way to a `Kernel`.
        assert!(p.build().is_err());
        let mut insts = vec![
            lt(0, mask_source, imm(1)),
            if_(0),
            Inst::Barrier,
            endif(),
            Inst::End,
        ];
        simt_core::link(&mut insts).expect("nesting is fine");
        let n = insts.len();
        let program = Program {
            name: "k".into(),
            file: "".into(),
            params: Vec::new().into(),
            lds: Vec::new().into(),
            insts: insts.into(),
            locs: vec![simt_core::SourceLoc::default(); n].into(),
            vregs: 0,
            sregs: 0,
            mregs: 1,
            lds_bytes: 0,
            reg_names: Vec::new().into(),
            workgroup_size: None,
            race_free: None,
            formats: Default::default(),
            scratch_words: 0,
        };
        match Kernel::new(program) {
            Err(e) => assert!(
                e.errors.iter().any(|e| matches!(
                    e.kind,
                    ValidationErrorKind::BarrierUnderDivergentControl { .. }
                )),
                "{e}"
            ),
            Ok(_) => panic!("expected a validation error"),
        }
    }
}

/// A negative index is reported as written, not as a huge byte offset.
#[test]
fn negative_index_is_reported_as_written() {
    let mut p = ProgramBuilder::new("k");
    let x = p.buffer::<u32>("x");
    p.extend([
        bin(BinOp::SubU32, 0, lane(), imm(1)),
        load(ElemType::U32, 1, gref(x, v(0))),
    ]);
    let program = p.build().expect("valid");
    let x = vec![0u32; 64];
    let f = fault(launch(&program, &cfg(1, 32, 32), &mut [Arg::buffer(&x)]));
    assert_eq!((f.inst, f.lane, f.address), (1, Some(0), None));
    assert_eq!(
        f.kind,
        FaultKind::GlobalOutOfBounds {
            access: "load",
            buffer: "x".into(),
            index: -1,
            offset: -4,
            size: 4,
            len: 256,
        }
    );
    assert!(
        f.to_string().contains("at index -1 (byte offset -4)"),
        "{f}"
    );
}

#[test]
fn launch_errors() {
    let program = copy_kernel();
    let x = vec![0u32; 64];
    let mut y = vec![0u32; 64];
    let mut bad = |config: LaunchConfig| {
        refused(launch(
            &program,
            &config,
            &mut [Arg::buffer(&x), Arg::buffer_mut(&mut y)],
        ))
    };
    assert_eq!(bad(cfg(1, 32, 48)), LaunchErrorKind::WaveWidth(48));
    assert_eq!(
        bad(LaunchConfig::new([2, 0], 32)),
        LaunchErrorKind::ZeroSize {
            what: "grid",
            x: 2,
            y: 0,
            z: 1
        }
    );
    assert_eq!(
        bad(LaunchConfig::new(1, [4, 4, 0])),
        LaunchErrorKind::ZeroSize {
            what: "workgroup",
            x: 4,
            y: 4,
            z: 0
        }
    );
    assert_eq!(
        bad(LaunchConfig::new(1, [32, 33])),
        LaunchErrorKind::WorkgroupTooLarge {
            size: 1056,
            limit: 1024
        }
    );
    // A product of dimensions past u64 saturates instead of wrapping to a small size.
    assert_eq!(
        bad(LaunchConfig::new(1, [1 << 22, 1 << 22, 1 << 20])),
        LaunchErrorKind::WorkgroupTooLarge {
            size: u64::MAX,
            limit: 1024
        }
    );
    assert_eq!(
        bad(LaunchConfig::new([1, 1 << 31], [1, 4])),
        LaunchErrorKind::GridTooLarge {
            axis: 'y',
            groups: 1 << 31,
            size: 4
        }
    );
    let mut model = MemoryModel::reference();
    model.phase_lanes = 7;
    assert!(matches!(
        bad(LaunchConfig::new(1, 32).model(model)),
        LaunchErrorKind::Model { ref name, .. } if name == "reference"
    ));
    let mut model = MemoryModel::reference();
    model.sector_bytes = 2;
    assert!(matches!(
        bad(LaunchConfig::new(1, 32).model(model)),
        LaunchErrorKind::Model { ref reason, .. } if reason.contains("sector_bytes")
    ));

    let config = cfg(2, 32, 32);
    assert_eq!(
        refused(launch(&program, &config, &mut [Arg::buffer(&x)])),
        LaunchErrorKind::ArgCount {
            expected: 2,
            got: 1
        }
    );
    // A read-only argument for a writable parameter.
    assert_eq!(
        refused(launch(
            &program,
            &config,
            &mut [Arg::buffer(&x), Arg::buffer(&x)]
        )),
        LaunchErrorKind::ArgType {
            index: 1,
            name: "y".into(),
            expected: "&mut [u32]".into(),
            got: "&[u32]".into()
        }
    );
    // The wrong element type.
    let xf = vec![0f32; 64];
    assert_eq!(
        refused(launch(
            &program,
            &config,
            &mut [Arg::buffer(&xf), Arg::buffer_mut(&mut y)]
        )),
        LaunchErrorKind::ArgType {
            index: 0,
            name: "x".into(),
            expected: "&[u32]".into(),
            got: "&[f32]".into()
        }
    );
    // A scalar of the wrong type.
    let mut p = ProgramBuilder::new("k");
    let a = p.scalar("a", ScalarType::F32);
    p.push(mov(0, arg(a)));
    let scalar = p.build().expect("valid");
    assert_eq!(
        refused(launch(&scalar, &config, &mut [Arg::U32(1)])),
        LaunchErrorKind::ArgType {
            index: 0,
            name: "a".into(),
            expected: "f32".into(),
            got: "u32".into()
        }
    );
    launch(&scalar, &config, &mut [Arg::F32(1.0)]).expect("right type");
    // A buffer that is not a whole number of elements.
    let bytes = [0u8; 6];
    assert!(matches!(
        refused(launch(
            &program,
            &config,
            &mut [
                Arg::Buffer {
                    elem: ElemType::U32,
                    bytes: &bytes
                },
                Arg::buffer_mut(&mut y)
            ]
        )),
        LaunchErrorKind::Buffer { index: 0, .. }
    ));
    copy_ok(&program);
}

#[test]
fn invalid_programs_are_refused() {
    let mut p = ProgramBuilder::new("k");
    p.push(mov(0, imm(1)));
    let mut program = p.program();
    program.insts = vec![Inst::EndIf, Inst::End].into();
    program.locs = vec![Default::default(); 2].into();
    assert!(Kernel::new(program).is_err());
}

#[test]
fn builder_saturates_oversized_lds_and_validation_reports_it() {
    let mut b = simt_core::ProgramBuilder::new("huge_lds");
    b.lds("a", simt_core::ElemType::U32, u32::MAX);
    b.lds("b", simt_core::ElemType::U32, 4);
    let errors = b.build().unwrap_err().errors;
    assert!(
        errors
            .iter()
            .any(|e| matches!(e.kind, simt_core::ValidationErrorKind::LdsTooLarge { .. })),
        "{errors:?}"
    );
}

#[test]
fn per_lane_values_where_a_uniform_one_is_needed_are_refused() {
    // The macro refuses these at the operand; a builder program reaches the
    // validator, which must refuse it before it runs: `v_readlane` from a lane
    // that differs per lane, and a memory offset that does.
    let mut p = ProgramBuilder::new("k");
    let x = p.buffer::<u32>("x");
    p.extend([
        mov(0, lane()),
        Inst::VReadLane {
            dst: simt_core::SReg(0),
            src: v(0),
            lane: v(0),
        },
        load(
            ElemType::U32,
            1,
            simt_core::GlobalRef {
                offset: v(0),
                ..gref(x, imm(0))
            },
        ),
    ]);
    let errors = p.build().unwrap_err().errors;
    let found: Vec<(Option<u32>, ValidationErrorKind)> =
        errors.iter().map(|e| (e.inst, e.kind.clone())).collect();
    assert_eq!(
        found,
        [
            (
                Some(1),
                ValidationErrorKind::NonUniformOperand { what: "the lane" }
            ),
            (
                Some(2),
                ValidationErrorKind::NonUniformOperand {
                    what: "a memory offset"
                }
            ),
        ],
    );
    assert_eq!(
        errors[0].kind.to_string(),
        "the lane must be wave-uniform: use a scalar register, a kernel scalar or an immediate"
    );
    // The same instructions with uniform operands are accepted.
    let mut p = ProgramBuilder::new("k");
    let x = p.buffer::<u32>("x");
    p.extend([
        mov(0, lane()),
        Inst::VReadLane {
            dst: simt_core::SReg(0),
            src: v(0),
            lane: imm(3),
        },
        load(
            ElemType::U32,
            1,
            simt_core::GlobalRef {
                offset: s(0),
                ..gref(x, imm(0))
            },
        ),
    ]);
    assert!(p.build().is_ok());
}
