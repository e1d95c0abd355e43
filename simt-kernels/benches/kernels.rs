//! Launch time of each reference kernel at wave32 and wave64 on one thread, with
//! throughput in wave instructions issued (the report's speed column, measured
//! by criterion); large grids on one and two threads; the cost against the grid
//! size; and the sanitizers' cost.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simt::core::{Engine, LaunchConfig, MemoryModel};
use simt_kernels::kernels::matmul::matmul_naive_f32;
use simt_kernels::studies::mandelbrot::coherent;
use simt_kernels::KERNELS;
use std::hint::black_box;

fn kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernels");
    for spec in KERNELS {
        for width in [32, 64] {
            let config = spec.config(width, MemoryModel::reference()).threads(1);
            let mut workload = (spec.prepare)(42);
            let issued = match workload.launch(&config) {
                Ok(stats) => stats.totals.instructions,
                Err(e) => panic!("{} at wave{width}: {e}", spec.name),
            };
            group.throughput(Throughput::Elements(issued));
            group.bench_function(BenchmarkId::new(spec.name, width), |b| {
                b.iter(|| {
                    workload.reset();
                    black_box(workload.launch(black_box(&config)))
                })
            });
        }
    }
    group.finish();
}

/// The cost of the sanitizers: every reference kernel at wave32 with the
/// checks off (on the native runner, `off`, and on the interpreter, which
/// runs sanitized launches, `interpreter`) and on (races and uninitialised
/// reads; not the schedule check, which is one more launch by definition).
fn sanitizers(c: &mut Criterion) {
    let mut group = c.benchmark_group("sanitizers");
    for spec in KERNELS {
        for (label, on, engine) in [
            ("off", false, Engine::Native),
            ("interpreter", false, Engine::Interpreter),
            ("on", true, Engine::Native),
        ] {
            // One thread each way: a sanitized launch always runs on one.
            let config = spec
                .config(32, MemoryModel::reference())
                .sanitize(on)
                .engine(engine)
                .threads(1);
            let mut workload = (spec.prepare)(42);
            group.bench_function(BenchmarkId::new(spec.name, label), |b| {
                b.iter(|| {
                    workload.reset();
                    black_box(workload.launch(black_box(&config)))
                })
            });
        }
    }
    group.finish();
}

/// The cost of the timing model: every reference kernel at wave32 on the
/// native runner, on the interpreter and timed on `h100-sxm/4` (which runs the
/// interpreter on one thread, records each wave's issues and replays them),
/// all under the part's memory model.
fn timing(c: &mut Criterion) {
    let part = simt::core::Part::h100_sxm().scaled(4);
    let mut group = c.benchmark_group("timing");
    for spec in KERNELS {
        let plain = spec.config(32, part.memory.clone()).threads(1);
        let configs = [
            ("native", plain.clone()),
            (
                "interpreter",
                plain.clone().engine(simt::core::Engine::Interpreter),
            ),
            ("timed", plain.clone().timing(part.clone())),
        ];
        for (label, config) in configs {
            let mut workload = (spec.prepare)(42);
            group.bench_function(BenchmarkId::new(spec.name, label), |b| {
                b.iter(|| {
                    workload.reset();
                    black_box(workload.launch(black_box(&config)))
                })
            });
        }
    }
    group.finish();
}

/// A `side` by `side` Mandelbrot of at most 64 iterations, one work-item per
/// pixel in workgroups of 256, under `config`'s other settings.
fn mandelbrot(side: u32, threads: Option<usize>) -> impl FnMut() -> u64 {
    let mut config = LaunchConfig::new(side * side / 256, 256);
    if let Some(n) = threads {
        config = config.threads(n);
    }
    let mut out = vec![0u32; (side * side) as usize];
    move || match coherent::launch(&config, &mut out, side, side, 64) {
        Ok(stats) => stats.totals.instructions,
        Err(e) => panic!("mandelbrot {side}: {e}"),
    }
}

/// The naive matrix product of two `n` by `n` matrices on `threads` threads.
fn matmul(n: u32, threads: usize) -> impl FnMut() -> u64 {
    let config = LaunchConfig::new(n * n / 256, 256).threads(threads);
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 * 0.5).collect();
    let mut c = vec![0.0f32; (n * n) as usize];
    move || match matmul_naive_f32::launch(&config, &a, &b, &mut c, n) {
        Ok(stats) => stats.totals.instructions,
        Err(e) => panic!("matmul {n}: {e}"),
    }
}

/// Large grids on one and two threads: a million-pixel Mandelbrot and the naive
/// matrix product at four times the report's size (128 by 128).
fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("threads");
    group.sample_size(10);
    for threads in [1, 2] {
        let mut run = mandelbrot(1024, Some(threads));
        group.throughput(Throughput::Elements(run()));
        group.bench_function(BenchmarkId::new("mandelbrot_1024x1024", threads), |b| {
            b.iter(|| black_box(run()))
        });
        let mut run = matmul(128, threads);
        group.throughput(Throughput::Elements(run()));
        group.bench_function(BenchmarkId::new("matmul_naive_128", threads), |b| {
            b.iter(|| black_box(run()))
        });
    }
    group.finish();
}

/// The cost against the grid: Mandelbrots of 1, 4 and 16 times 64K pixels on
/// one thread and with the automatic thread count.
fn grid(c: &mut Criterion) {
    let mut group = c.benchmark_group("grid");
    group.sample_size(10);
    for side in [256, 512, 1024] {
        for (label, threads) in [("1", Some(1)), ("auto", None)] {
            let mut run = mandelbrot(side, threads);
            group.throughput(Throughput::Elements(run()));
            let id = BenchmarkId::new(format!("mandelbrot_{side}x{side}"), label);
            group.bench_function(id, |b| b.iter(|| black_box(run())));
        }
    }
    group.finish();
}

criterion_group!(benches, kernels, threads, grid, sanitizers, timing);
criterion_main!(benches);
