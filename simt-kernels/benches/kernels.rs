//! Launch time of each reference kernel at wave32 and wave64, with throughput in
//! wave instructions issued (the report's speed column, measured by criterion).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simt::core::MemoryModel;
use simt_kernels::KERNELS;
use std::hint::black_box;

fn kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernels");
    for spec in KERNELS {
        for width in [32, 64] {
            let config = spec.config(width, MemoryModel::reference());
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
/// checks off and on (races and uninitialised reads; not the schedule check,
/// which is one more launch by definition).
fn sanitizers(c: &mut Criterion) {
    let mut group = c.benchmark_group("sanitizers");
    for spec in KERNELS {
        for on in [false, true] {
            let config = spec.config(32, MemoryModel::reference()).sanitize(on);
            let mut workload = (spec.prepare)(42);
            let label = if on { "on" } else { "off" };
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

criterion_group!(benches, kernels, sanitizers);
criterion_main!(benches);
