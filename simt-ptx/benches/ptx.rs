//! What PTX costs: lowering nvcc's PTX (the 18 kernels of
//! `calibration/seeds.ptx`, the 11 of the reference corpus), and launching
//! what it lowers to, in warp instructions per second (criterion's
//! elements): seed kernels, and each reference kernel from its CUDA beside
//! its simt version, both on the interpreter at the registry's launch, so
//! that one run says whether a PTX kernel costs more per instruction.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simt_core::{Arg, ElemType, Engine, LaunchConfig, OwnedArg, ParamKind, ScalarType};
use simt_kernels::kernels::{MATRIX, N};
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

/// Inputs for a reference kernel's parameters: every buffer `N` elements
/// (`N` times the stride for the strided copy), integers 1 to 1,000 (short
/// Collatz runs), floats in steps of a quarter; each scalar the size the
/// registry launches at.
fn reference_args(name: &str, params: &[simt_core::Param]) -> Vec<OwnedArg> {
    let len = if name == "copy_strided_f32" {
        N * simt_kernels::kernels::COPY_STRIDE
    } else {
        N
    };
    let mut scalars = 0;
    params
        .iter()
        .map(|p| match p.kind {
            ParamKind::Buffer { elem, writable } => OwnedArg::Buffer {
                elem,
                writable,
                bytes: (0..len)
                    .flat_map(|i| match elem {
                        ElemType::F32 => ((i % 17) as f32 * 0.25).to_le_bytes(),
                        _ => (((i % 1000) + 1) as u32).to_le_bytes(),
                    })
                    .collect(),
            },
            ParamKind::Scalar(ScalarType::F32) => OwnedArg::F32(2.0),
            ParamKind::Scalar(ty) => {
                scalars += 1;
                let v = match (name, scalars) {
                    (n, 1) if n.starts_with("matmul") => MATRIX as u32,
                    ("copy_strided_f32", 2) => simt_kernels::kernels::COPY_STRIDE as u32,
                    ("lds_conflict_heavy_i32", _) => 3,
                    _ => N as u32,
                };
                match ty {
                    ScalarType::I32 => OwnedArg::I32(v as i32),
                    _ => OwnedArg::U32(v),
                }
            }
        })
        .collect()
}

/// `matmul_tiled_f32` in simt's language with its inner loop unrolled, as
/// nvcc unrolls it: per step an LDS load from each tile at a constant
/// offset and an FMA, the instruction stream of the PTX version's inner
/// loop. Beside the two, it says whether the PTX one's cost per
/// instruction is its mix (LDS loads are most of its instructions) or the
/// front end.
fn matmul_tiled_unrolled() -> simt_core::Kernel {
    let steps: String = (0..16)
        .map(|k| {
            format!(
                "lds_load av, a_tile[a_row + {k}]\n lds_load bv, b_tile[tc + {}]\n v_fma_f32 acc, av, bv, acc\n",
                16 * k
            )
        })
        .collect();
    let text = format!(
        "kernel matmul_tiled_unrolled_f32(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {{
            lds a_tile: [f32; 256];
            lds b_tile: [f32; 256];
            vreg tr, tc, row, col, a_row, a_idx, b_idx, av, bv, acc;
            sreg tiles, tile_row, tile_col, kt;
            mreg more_tiles;
            v_shr_u32 tr, local_id.x, 4
            v_and     tc, local_id.x, 15
            s_shr_u32 tiles, n, 4
            s_div_u32 tile_row, group_id.x, tiles
            s_rem_u32 tile_col, group_id.x, tiles
            s_shl     tile_row, tile_row, 4
            s_shl     tile_col, tile_col, 4
            v_add_u32 row, tr, tile_row
            v_add_u32 col, tc, tile_col
            v_shl     a_row, tr, 4
            v_mov     acc, 0
            s_mov     kt, 0
            loop
                v_mad_u32    a_idx, row, n, kt
                v_add_u32    a_idx, a_idx, tc
                global_load  av, a[a_idx]
                lds_store    a_tile[local_id.x], av
                v_add_u32    b_idx, tr, kt
                v_mad_u32    b_idx, b_idx, n, col
                global_load  bv, b[b_idx]
                lds_store    b_tile[local_id.x], bv
                barrier
                {steps}
                barrier
                s_add_u32    kt, kt, 16
                s_cmp_lt_u32 more_tiles, kt, n
            endloop more_tiles
            v_mad_u32    a_idx, row, n, col
            global_store c[a_idx], acc
        }}"
    );
    simt_front::compile(&text).unwrap_or_else(|d| panic!("{d}"))
}

fn reference(c: &mut Criterion) {
    let module = simt_ptx::compile_ptx("reference.ptx", REFERENCE)
        .unwrap_or_else(|d| panic!("{}", d.render(false)));
    let mut group = c.benchmark_group("per_instruction");
    for spec in simt_kernels::registry::KERNELS {
        let simt = simt_core::Kernel::from_static(spec.program).expect("valid");
        let ptx = &module.get(spec.name).expect("a reference kernel").kernel;
        let config = LaunchConfig::new(spec.grid, spec.workgroup)
            .wave_width(32)
            .engine(Engine::Interpreter);
        let unrolled = (spec.name == "matmul_tiled_f32").then(matmul_tiled_unrolled);
        let fronts = [
            ("simt", Some(&simt)),
            ("ptx", Some(ptx)),
            ("simt_unrolled", unrolled.as_ref()),
        ];
        for (front, kernel) in fronts.into_iter().filter_map(|(f, k)| Some((f, k?))) {
            let args = reference_args(spec.name, kernel.program().host_params());
            let run = |args: &mut Vec<OwnedArg>| {
                simt_core::launch(kernel, &config, &mut OwnedArg::lend(args))
                    .unwrap_or_else(|e| panic!("{} ({front}): {e}", spec.name))
                    .totals
                    .instructions
            };
            let mut fresh = args.clone();
            group.throughput(Throughput::Elements(run(&mut fresh)));
            group.bench_function(BenchmarkId::new(front, spec.name), |bench| {
                bench.iter_batched_ref(
                    || args.clone(),
                    |a| black_box(run(a)),
                    criterion::BatchSize::SmallInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, lower, launch, reference);
criterion_main!(benches);
