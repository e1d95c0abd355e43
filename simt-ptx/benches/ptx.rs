//! What PTX costs: lowering nvcc's PTX (the 18 kernels of
//! `calibration/seeds.ptx`, the 11 of the reference corpus), and launching
//! what it lowers to, in warp instructions per second (criterion's
//! elements), beside the simt-written kernels of `simt-kernels`' benches.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simt_core::{Arg, LaunchConfig};
use std::hint::black_box;

const SEEDS: &str = include_str!("../../calibration/seeds.ptx");
const REFERENCE: &str = include_str!("../tests/ptx/corpus/reference.ptx");

fn lower(c: &mut Criterion) {
    let mut group = c.benchmark_group("lower");
    for (name, text) in [("seeds", SEEDS), ("reference", REFERENCE)] {
        let kernels = simt_ptx::compile_ptx(name, text)
            .unwrap_or_else(|d| panic!("{}", d.render(false)))
            .kernels
            .len();
        group.throughput(Throughput::Elements(kernels as u64));
        group.bench_function(name, |b| {
            b.iter(|| simt_ptx::compile_ptx(name, black_box(text)).map(|m| m.kernels.len()))
        });
    }
    group.finish();
}

fn launch(c: &mut Criterion) {
    let module =
        simt_ptx::compile_ptx("seeds.ptx", SEEDS).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let mut group = c.benchmark_group("launch");
    // vecadd over 65,536 floats; the 64³ products, naive and tiled.
    let n = 1usize << 16;
    let (a, b) = (vec![1.0f32; n], vec![2.0f32; n]);
    let mut out = vec![0.0f32; n];
    let side = 64u32;
    let m = (side * side) as usize;
    let (x, y) = (vec![1.0f32; m], vec![0.5f32; m]);
    let mut z = vec![0.0f32; m];
    let vecadd = LaunchConfig::new(n as u32 / 256, 256).wave_width(32);
    let matmul = LaunchConfig::new([side / 16, side / 16, 1], [16, 16, 1]).wave_width(32);
    let cases: [(&str, &LaunchConfig); 3] = [
        ("vecadd", &vecadd),
        ("matmul_naive", &matmul),
        ("matmul_tiled", &matmul),
    ];
    for (name, config) in cases {
        let kernel = &module.get(name).expect("a seed kernel").kernel;
        let run = |out: &mut [f32], z: &mut [f32]| {
            let mut args = if name == "vecadd" {
                vec![
                    Arg::U32(n as u32),
                    Arg::buffer(&a),
                    Arg::buffer(&b),
                    Arg::buffer_mut(out),
                ]
            } else {
                vec![
                    Arg::U32(side),
                    Arg::buffer(&x),
                    Arg::buffer(&y),
                    Arg::buffer_mut(z),
                ]
            };
            simt_core::launch(kernel, config, &mut args)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
                .totals
                .instructions
        };
        group.throughput(Throughput::Elements(run(&mut out, &mut z)));
        group.bench_function(BenchmarkId::new("ptx", name), |bench| {
            bench.iter(|| black_box(run(&mut out, &mut z)))
        });
    }
    group.finish();
}

criterion_group!(benches, lower, launch);
criterion_main!(benches);
