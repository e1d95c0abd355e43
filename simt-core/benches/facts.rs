//! The cost of the static facts on a 5,000-instruction kernel: 1,000 blocks of
//! index arithmetic, an LDS store, an LDS load and a global load, with a
//! barrier every 8 blocks; decided for any shape and for workgroups of 256
//! and 1,024 (the largest a workgroup may be).

use criterion::{criterion_group, criterion_main, Criterion};
use simt_core::{
    facts, Axis, BinOp, ElemType, GlobalRef, Inst, Kernel, LdsRef, Operand, ProgramBuilder,
    Special, VReg,
};
use std::hint::black_box;

fn kernel() -> Kernel {
    let mut b = ProgramBuilder::new("long");
    let x = b.buffer::<u32>("x");
    let t = b.lds("t", ElemType::U32, 4096);
    let id = Operand::Special(Special::LocalId(Axis::X));
    for k in 0..1000u32 {
        b.push(Inst::VBinary {
            op: BinOp::AddU32,
            dst: VReg(0),
            a: id,
            b: Operand::Imm(k % 256),
        });
        b.push(Inst::LdsStore {
            ty: ElemType::U32,
            dst: LdsRef::element(t, Operand::V(VReg(0))),
            src: id,
        });
        b.push(Inst::LdsLoad {
            ty: ElemType::U32,
            dst: VReg(1),
            src: LdsRef::element(t, id),
        });
        b.push(Inst::GlobalLoad {
            ty: ElemType::U32,
            dst: VReg(2),
            src: GlobalRef::element(x, Operand::Special(Special::GlobalId(Axis::X))),
        });
        if k % 8 == 7 {
            b.push(Inst::Barrier);
        }
    }
    b.build().expect("valid")
}

fn bench(c: &mut Criterion) {
    let k = kernel();
    assert!(k.program().insts.len() >= 4000);
    let mut g = c.benchmark_group("facts");
    g.sample_size(10);
    g.bench_function("5000 instructions, any shape", |b| {
        b.iter(|| facts(black_box(k.program()), None))
    });
    g.bench_function("5000 instructions, 256 work-items", |b| {
        b.iter(|| facts(black_box(k.program()), Some([256, 1, 1])))
    });
    g.bench_function("5000 instructions, 1024 work-items", |b| {
        b.iter(|| facts(black_box(k.program()), Some([1024, 1, 1])))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
