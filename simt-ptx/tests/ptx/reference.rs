//! The eleven reference kernels of `simt-kernels`, written in CUDA
//! (`corpus/reference.cu`), run from nvcc's PTX at the registry's launch
//! beside their simt versions, on the same inputs: the same outputs, bit for
//! bit, and the same memory traffic: each kind of memory instruction
//! (global loads, global stores, LDS loads, LDS stores) moves the same
//! sectors and lines in as many phases of as many lanes, with the same bank
//! conflicts, and its issues' active lanes have the same histogram.
//!
//! Instruction counts and divergence are not compared: nvcc's code has more
//! instructions (address arithmetic, unrolled loops with their remainders,
//! selects for branches) than the hand-written simt kernels.

use crate::corpus::{corpus, kernel, memory, Memory, Rng};
use simt_core::isa::Role;
use simt_core::{Kernel, LaunchConfig, MemoryModel, OwnedArg, ParamKind, ScalarType, Stats};
use simt_kernels::kernels::{self as k, GROUPS, GROUP_SIZE, MATRIX, N};

fn f32s(rng: &mut Rng, n: usize) -> OwnedArg {
    OwnedArg::Buffer {
        elem: simt_core::ElemType::F32,
        writable: false,
        bytes: rng
            .f32s(n, -1.0, 1.0)
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect(),
    }
}

fn i32s(rng: &mut Rng, n: usize, lo: i32, hi: i32) -> OwnedArg {
    OwnedArg::Buffer {
        elem: simt_core::ElemType::I32,
        writable: false,
        bytes: (0..n).flat_map(|_| rng.i32(lo, hi).to_le_bytes()).collect(),
    }
}

/// A zeroed output buffer of `n` elements of the parameter's type.
fn zeros(elem: simt_core::ElemType, n: usize) -> OwnedArg {
    OwnedArg::Buffer {
        elem,
        writable: true,
        bytes: vec![0; n * elem.size() as usize],
    }
}

/// `args` (the simt kernel's) as the PTX kernel takes them: the same bytes,
/// retyped to its parameters (nvcc reads `int`s as `u32` words, and passes
/// `int` scalars as `.u32`).
fn retyped(args: &[OwnedArg], ptx: &Kernel) -> Vec<OwnedArg> {
    assert_eq!(
        args.len(),
        ptx.program().params.len(),
        "{}",
        ptx.program().name
    );
    args.iter()
        .zip(ptx.program().params.iter())
        .map(|(a, p)| match (a, p.kind) {
            (OwnedArg::Buffer { bytes, .. }, ParamKind::Buffer { elem, writable }) => {
                OwnedArg::Buffer {
                    elem,
                    writable,
                    bytes: bytes.clone(),
                }
            }
            (OwnedArg::I32(v), ParamKind::Scalar(ScalarType::U32)) => OwnedArg::U32(*v as u32),
            (a, _) => a.clone(),
        })
        .collect()
}

/// The active lanes of every issue of a memory instruction, by kind (global
/// load, global store, LDS load, LDS store, atomics): a histogram each,
/// from a trace of every workgroup.
fn lane_histograms(
    kernel: &Kernel,
    config: &LaunchConfig,
    args: &[OwnedArg],
    groups: u64,
) -> Vec<Vec<u64>> {
    let width = config.wave_width as usize;
    let mut hist = vec![vec![0u64; width + 1]; 5];
    for g in 0..groups {
        let mut args = args.to_vec();
        let stats = simt_core::launch(
            kernel,
            &config.clone().trace_workgroup(g),
            &mut OwnedArg::lend(&mut args),
        )
        .expect("launches");
        let trace = stats.trace.expect("traced");
        assert!(!trace.truncated);
        for issue in &trace.issues {
            let inst = &kernel.program().insts[issue.pc as usize];
            let Some((role, _)) = inst.fields().memory() else {
                continue;
            };
            let kind = match role {
                Role::GlobalLoad => 0,
                Role::GlobalStore => 1,
                Role::LdsLoad => 2,
                Role::LdsStore => 3,
                _ => 4,
            };
            hist[kind][issue.exec.count_ones() as usize] += 1;
        }
    }
    hist
}

/// The figures compared, of one kind of memory instruction.
fn traffic(c: &simt_core::Counters) -> [u64; 7] {
    [
        c.global_accesses,
        c.global_transactions,
        c.global_sectors,
        c.global_bytes_requested,
        c.lds_accesses,
        c.lds_conflict_cycles,
        c.active_lanes,
    ]
}

fn run(kernel: &Kernel, config: &LaunchConfig, args: &[OwnedArg]) -> (Vec<OwnedArg>, Stats) {
    let mut args = args.to_vec();
    let stats = simt_core::launch(kernel, config, &mut OwnedArg::lend(&mut args))
        .unwrap_or_else(|e| panic!("{}: {e}", kernel.program().name));
    (args, stats)
}

/// The writable buffers' bytes.
fn outputs(args: &[OwnedArg]) -> Vec<Vec<u8>> {
    args.iter()
        .filter_map(|a| match a {
            OwnedArg::Buffer {
                writable: true,
                bytes,
                ..
            } => Some(bytes.clone()),
            _ => None,
        })
        .collect()
}

/// Runs the simt kernel and its CUDA version at `(grid, GROUP_SIZE)` on
/// `args`, at both widths under both memory models, and compares them;
/// returns the memory counters of the last launch (wave64, NVIDIA-like).
fn compare(simt: &Kernel, name: &str, grid: u32, args: &[OwnedArg]) -> Memory {
    let m = corpus("reference");
    let ptx = kernel(&m, name);
    let ptx_args = retyped(args, ptx);
    let mut last = Memory::default();
    for width in [32, 64] {
        for model in [MemoryModel::reference(), MemoryModel::nvidia()] {
            let config = LaunchConfig::new(grid, GROUP_SIZE)
                .wave_width(width)
                .model(model.clone());
            let what = format!("{name} wave{width} {}", model.name);
            let (a, sa) = run(simt, &config, args);
            let (b, sb) = run(ptx, &config, &ptx_args);
            assert_eq!(outputs(&a), outputs(&b), "{what}: outputs");
            let (ma, mb): (Memory, Memory) = (memory(simt, &sa), memory(ptx, &sb));
            for (kind, x, y) in [
                ("global loads", ma.global_loads, mb.global_loads),
                ("global stores", ma.global_stores, mb.global_stores),
                ("LDS loads", ma.lds_loads, mb.lds_loads),
                ("LDS stores", ma.lds_stores, mb.lds_stores),
            ] {
                assert_eq!(traffic(&x), traffic(&y), "{what}: {kind}");
            }
            let lanes = lane_histograms(simt, &config, args, u64::from(grid));
            assert_eq!(
                lanes,
                lane_histograms(ptx, &config, &ptx_args, u64::from(grid)),
                "{what}: active lanes of the memory instructions"
            );
            // Every kernel loads or stores through global memory.
            assert!(lanes[0].iter().chain(&lanes[1]).sum::<u64>() > 0, "{what}");
            last = mb;
        }
    }
    last
}

#[test]
fn reference_kernels_from_ptx_match_their_simt_versions() {
    use simt_core::ElemType::{F32, I32};
    let mut rng = Rng::new(20);
    let n = N as u32;
    let matrix = MATRIX * MATRIX;
    let matrix_groups = (matrix as u32) / GROUP_SIZE;
    let a = rng.f32(-2.0, 2.0);
    let (scale, offset) = (rng.i32(-1000, 1000), rng.i32(-1_000_000, 1_000_000));
    let cases: Vec<(&Kernel, &str, u32, Vec<OwnedArg>)> = vec![
        (
            &k::vecadd_i32::KERNEL,
            "vecadd_i32",
            GROUPS,
            vec![
                i32s(&mut rng, N, -1_000_000, 1_000_000),
                i32s(&mut rng, N, -1_000_000, 1_000_000),
                zeros(I32, N),
                OwnedArg::U32(n),
            ],
        ),
        (
            &k::vecadd_f32::KERNEL,
            "vecadd_f32",
            GROUPS,
            vec![
                f32s(&mut rng, N),
                f32s(&mut rng, N),
                zeros(F32, N),
                OwnedArg::U32(n),
            ],
        ),
        (
            &k::saxpy_f32::KERNEL,
            "saxpy_f32",
            GROUPS,
            vec![
                f32s(&mut rng, N),
                writable(f32s(&mut rng, N)),
                OwnedArg::F32(a),
                OwnedArg::U32(n),
            ],
        ),
        (
            &k::divergent_collatz_i32::KERNEL,
            "divergent_collatz_i32",
            GROUPS,
            vec![
                i32s(&mut rng, N, 1, 1_000_000),
                zeros(I32, N),
                OwnedArg::U32(n),
            ],
        ),
        (
            &k::reduce_i32::KERNEL,
            "reduce_i32",
            GROUPS,
            vec![
                i32s(&mut rng, N, -1_000_000, 1_000_000),
                zeros(I32, GROUPS as usize),
                OwnedArg::U32(n),
            ],
        ),
        (
            &k::reduce_f32::KERNEL,
            "reduce_f32",
            GROUPS,
            vec![
                f32s(&mut rng, N),
                zeros(F32, GROUPS as usize),
                OwnedArg::U32(n),
            ],
        ),
        (
            &k::matmul_naive_f32::KERNEL,
            "matmul_naive_f32",
            matrix_groups,
            vec![
                f32s(&mut rng, matrix),
                f32s(&mut rng, matrix),
                zeros(F32, matrix),
                OwnedArg::U32(MATRIX as u32),
            ],
        ),
        (
            &k::matmul_tiled_f32::KERNEL,
            "matmul_tiled_f32",
            matrix_groups,
            vec![
                f32s(&mut rng, matrix),
                f32s(&mut rng, matrix),
                zeros(F32, matrix),
                OwnedArg::U32(MATRIX as u32),
            ],
        ),
        (
            &k::copy_coalesced_f32::KERNEL,
            "copy_coalesced_f32",
            GROUPS,
            vec![f32s(&mut rng, N), zeros(F32, N), OwnedArg::U32(n)],
        ),
        (
            &k::copy_strided_f32::KERNEL,
            "copy_strided_f32",
            GROUPS,
            vec![
                f32s(&mut rng, N * k::COPY_STRIDE),
                zeros(F32, N),
                OwnedArg::U32(n),
                OwnedArg::U32(k::COPY_STRIDE as u32),
            ],
        ),
        (
            &k::lds_conflict_heavy_i32::KERNEL,
            "lds_conflict_heavy_i32",
            GROUPS,
            vec![zeros(I32, N), OwnedArg::I32(scale), OwnedArg::I32(offset)],
        ),
    ];
    // Every kernel of the registry, at its own launch.
    let names: Vec<&str> = simt_kernels::registry::names().collect();
    assert_eq!(names, cases.iter().map(|c| c.1).collect::<Vec<_>>());
    for (simt, name, grid, args) in &cases {
        let spec = simt_kernels::registry::find(name).unwrap();
        assert_eq!((spec.grid, spec.workgroup), (*grid, GROUP_SIZE), "{name}");
        let mem = compare(simt, name, *grid, args);
        let phases = u64::from(*grid) * u64::from(GROUP_SIZE) / 32;
        match *name {
            // Both round trips in bank 0: 31 cycles a phase.
            "lds_conflict_heavy_i32" => {
                assert_eq!(mem.lds_stores.lds_conflict_cycles, phases * 31);
                assert_eq!(mem.lds_loads.lds_conflict_cycles, phases * 31);
            }
            // Lanes 64 bytes apart: a sector each, two to a 128-byte line.
            "copy_strided_f32" => {
                assert_eq!(mem.global_loads.global_sectors, phases * 32);
                assert_eq!(mem.global_loads.global_transactions, phases * 16);
            }
            "copy_coalesced_f32" => assert_eq!(mem.global_loads.global_sectors, phases * 4),
            _ => {}
        }
    }
}

/// A read-only buffer made writable (saxpy updates `y` in place).
fn writable(a: OwnedArg) -> OwnedArg {
    match a {
        OwnedArg::Buffer { elem, bytes, .. } => OwnedArg::Buffer {
            elem,
            writable: true,
            bytes,
        },
        a => a,
    }
}
