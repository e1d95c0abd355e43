//! Interpreter throughput in wave instructions per second on one thread: an
//! ALU-bound loop, an LDS-bound loop and a global-memory-bound loop, each at
//! wave32 and wave64; and the fixed cost of a launch (an empty kernel).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use simt_core::{
    Addressing, Arg, Axis, BinOp, CmpOp, CmpType, ElemType, GlobalRef, Inst, Kernel, LaunchConfig,
    LdsRef, MReg, Machine, Operand, ProgramBuilder, SReg, Special, TernOp, VReg,
};
use std::hint::black_box;

const ITERS: u32 = 200;
const GROUP: u32 = 256;
const GROUPS: u32 = 4;

fn v(r: u16) -> Operand {
    Operand::V(VReg(r))
}

/// `loop { body; s0 += 1 } while s0 < ITERS`.
fn looped(b: &mut ProgramBuilder, body: &[Inst]) {
    b.push(Inst::Loop {
        end: simt_core::InstIdx::UNLINKED,
    });
    b.extend(body.iter().copied());
    b.push(Inst::SBinary {
        op: BinOp::AddU32,
        dst: SReg(0),
        a: Operand::S(SReg(0)),
        b: Operand::Imm(1),
    });
    b.push(Inst::SCmp {
        op: CmpOp::Lt,
        ty: CmpType::U32,
        dst: MReg(0),
        a: Operand::S(SReg(0)),
        b: Operand::Imm(ITERS),
    });
    b.push(Inst::EndLoop {
        mask: MReg(0),
        start: simt_core::InstIdx::UNLINKED,
    });
}

fn alu_program() -> Kernel {
    let mut b = ProgramBuilder::new("alu");
    b.push(Inst::VUnary {
        op: simt_core::UnOp::CvtF32U32,
        dst: VReg(0),
        a: Operand::Special(Special::LaneId),
    });
    let mut body = Vec::new();
    for k in 0..8u16 {
        body.push(Inst::VTernary {
            op: TernOp::FmaF32,
            dst: VReg(1 + k % 4),
            a: v(0),
            b: v(1 + (k + 1) % 4),
            c: v(1 + k % 4),
        });
        body.push(Inst::VBinary {
            op: BinOp::AddF32,
            dst: VReg(5 + k % 2),
            a: v(1 + k % 4),
            b: Operand::Imm(1.5f32.to_bits()),
        });
        body.push(Inst::VBinary {
            op: BinOp::MulF32,
            dst: VReg(7),
            a: v(5 + k % 2),
            b: v(0),
        });
        body.push(Inst::VBinary {
            op: BinOp::AddU32,
            dst: VReg(8),
            a: v(8),
            b: v(7),
        });
    }
    looped(&mut b, &body);
    b.build().expect("valid")
}

fn lds_program() -> Kernel {
    let mut b = ProgramBuilder::new("lds");
    let tile = b.lds("tile", ElemType::U32, GROUP);
    let at = |i: Operand| LdsRef {
        lds: tile,
        index: i,
        offset: simt_core::Operand::Imm(0),
        addressing: Addressing::Element,
    };
    let me = Operand::Special(Special::LocalId(Axis::X));
    let mut body = Vec::new();
    for _ in 0..4 {
        body.push(Inst::LdsStore {
            ty: ElemType::U32,
            dst: at(me),
            src: v(1),
        });
        body.push(Inst::LdsLoad {
            ty: ElemType::U32,
            dst: VReg(1),
            src: at(me),
        });
    }
    // A two-way conflict: stride two words.
    b.push(Inst::VBinary {
        op: BinOp::MulU32,
        dst: VReg(0),
        a: Operand::Special(Special::LaneId),
        b: Operand::Imm(2),
    });
    body.push(Inst::LdsLoad {
        ty: ElemType::U32,
        dst: VReg(2),
        src: at(v(0)),
    });
    looped(&mut b, &body);
    b.build().expect("valid")
}

fn global_program() -> (Kernel, usize) {
    let mut b = ProgramBuilder::new("global");
    let x = b.buffer::<f32>("x");
    let y = b.buffer_mut::<f32>("y");
    let g = Operand::Special(Special::GlobalId(Axis::X));
    let mut body = Vec::new();
    for _ in 0..4 {
        body.push(Inst::GlobalLoad {
            ty: ElemType::F32,
            dst: VReg(0),
            src: GlobalRef {
                buffer: x,
                index: g,
                offset: simt_core::Operand::Imm(0),
                addressing: Addressing::Element,
            },
        });
        body.push(Inst::GlobalStore {
            ty: ElemType::F32,
            dst: GlobalRef {
                buffer: y,
                index: g,
                offset: simt_core::Operand::Imm(0),
                addressing: Addressing::Element,
            },
            src: v(0),
        });
    }
    looped(&mut b, &body);
    (b.build().expect("valid"), (GROUP * GROUPS) as usize)
}

fn bench(c: &mut Criterion) {
    let (global, n) = global_program();
    let cases = [
        ("alu", alu_program()),
        ("lds", lds_program()),
        ("global", global),
    ];
    let mut group = c.benchmark_group("interpreter");
    for (name, program) in &cases {
        for width in [32u32, 64] {
            let config = LaunchConfig::new(GROUPS, GROUP)
                .wave_width(width)
                .threads(1);
            let x = vec![1.0f32; n];
            let mut y = vec![0.0f32; n];
            let mut machine = Machine::new();
            let mut run = |machine: &mut Machine| {
                let mut args: Vec<Arg<'_>> = if program.params.is_empty() {
                    Vec::new()
                } else {
                    vec![Arg::buffer(&x), Arg::buffer_mut(&mut y)]
                };
                machine.launch(program, &config, &mut args).expect("launch")
            };
            let issued = run(&mut machine).totals.instructions;
            group.throughput(Throughput::Elements(issued));
            group.bench_function(format!("{name}/wave{width}"), |bch| {
                bch.iter(|| black_box(run(&mut machine)))
            });
        }
    }
    group.finish();
}

/// What a launch costs besides its instructions: an empty kernel, one wave and
/// 16 workgroups of 256.
fn overhead(c: &mut Criterion) {
    let empty = ProgramBuilder::new("empty").build().expect("valid");
    let mut group = c.benchmark_group("launch");
    for (label, groups, size) in [("empty/1x32", 1u32, 32u32), ("empty/16x256", 16, 256)] {
        let config = LaunchConfig::new(groups, size).threads(1);
        let mut machine = Machine::new();
        group.bench_function(label, |bch| {
            bch.iter(|| black_box(machine.launch(&empty, &config, &mut [])))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, overhead);
criterion_main!(benches);
