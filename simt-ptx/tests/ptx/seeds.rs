//! Every kernel of `calibration/seeds.cu`, from the PTX nvcc wrote for it
//! (`calibration/seeds.ptx`), launched at small sizes at both wave widths:
//! each output against the CUDA source computed on the host, in the same
//! order of operations.

use crate::common::{launch, module};
use simt_core::{Arg, LaunchConfig};

fn seeds() -> simt_ptx::PtxModule {
    module("calibration/seeds.ptx")
}

fn fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

#[test]
fn every_seed_kernel_lowers() {
    let m = seeds();
    let names: Vec<&str> = m.kernels.iter().map(|k| k.name.as_str()).collect();
    for want in [
        "diverge",
        "predicated",
        "split",
        "warp_strided",
        "thread_contiguous",
        "strided",
        "saxpy",
        "copy_stride",
        "ilp_fma",
        "transpose_conflicted",
        "transpose_padded",
        "transpose_conflicted_lds",
        "transpose_padded_lds",
        "atomic_one_counter",
        "atomic_per_block",
        "vecadd",
        "matmul_naive",
        "matmul_tiled",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let d = m.get("diverge").unwrap();
    assert_eq!(d.mangled, "_Z7divergeiiPf");
    assert_eq!(d.demangled, "diverge(int, int, float*)");
    assert_eq!(d.cuda_file.as_deref(), Some("calibration/seeds.cu"));
}

#[test]
fn diverge_runs_each_path_as_the_source_does() {
    let m = seeds();
    let k = &m.get("diverge").unwrap().kernel;
    for width in [32, 64] {
        for paths in [1u32, 2, 3, 32] {
            let iters = 5u32;
            let mut out = vec![0f32; 64];
            let config = LaunchConfig::new(1, 64).wave_width(width);
            launch(
                k,
                &config,
                &mut [Arg::U32(paths), Arg::U32(iters), Arg::buffer_mut(&mut out)],
            );
            for (t, &got) in out.iter().enumerate() {
                let lane = (t & 31) as i32;
                let path = lane % paths as i32;
                let (mut x, mut y) = (lane as f32 * 1e-3, 1.0f32);
                for p in 0..paths as i32 {
                    if path == p {
                        let c = fma(p as f32, 1e-4, 1.0);
                        for _ in 0..iters {
                            x = fma(x, c, y);
                            y = fma(y, c, -x);
                        }
                    }
                }
                assert_eq!(
                    got.to_bits(),
                    (x + y).to_bits(),
                    "k={paths} wave{width} thread {t}"
                );
            }
        }
    }
}

#[test]
fn split_and_predicated_run_their_loops() {
    let m = seeds();
    for by_warp in [0u32, 1] {
        let k = &m.get("split").unwrap().kernel;
        let iters = 7;
        let mut out = vec![0f32; 128];
        launch(
            k,
            &LaunchConfig::new(2, 64),
            &mut [
                Arg::U32(by_warp),
                Arg::U32(iters),
                Arg::buffer_mut(&mut out),
            ],
        );
        for (tid, &got) in out.iter().enumerate() {
            let path = if by_warp == 1 {
                (tid >> 5) & 1
            } else {
                tid & 1
            };
            let (mut x, mut y) = (tid as f32 * 1e-6, 1.0f32);
            for _ in 0..iters {
                if path == 1 {
                    x = fma(x, 1.0001, y);
                    y = fma(y, 0.9999, -x);
                } else {
                    x = fma(y, 0.9998, x);
                    y = fma(x, 1.0002, -y);
                }
            }
            assert_eq!(got.to_bits(), (x + y).to_bits(), "by_warp={by_warp} {tid}");
        }
    }
    let k = &m.get("predicated").unwrap().kernel;
    let mut out = vec![0f32; 64];
    launch(
        k,
        &LaunchConfig::new(1, 64),
        &mut [Arg::U32(6), Arg::buffer_mut(&mut out)],
    );
    for (t, &got) in out.iter().enumerate() {
        let lane = t & 31;
        let c = if lane & 1 == 1 { 1.0001f32 } else { 1.0 };
        let (mut x, mut y) = (lane as f32 * 1e-3, 1.0f32);
        for _ in 0..6 {
            x = fma(x, c, y);
            y = fma(y, c, -x);
        }
        assert_eq!(got.to_bits(), (x + y).to_bits(), "{t}");
    }
}

#[test]
fn the_l1_trio_sums_what_its_source_reads() {
    let m = seeds();
    let threads = 96usize;
    let input: Vec<f32> = (0..threads * 64).map(|i| (i % 97) as f32 * 0.25).collect();
    for name in ["warp_strided", "thread_contiguous", "strided"] {
        let k = &m.get(name).unwrap().kernel;
        let mut out = vec![-1f32; 128];
        launch(
            k,
            &LaunchConfig::new(2, 64),
            &mut [
                Arg::U32(threads as u32),
                Arg::buffer(&input),
                Arg::buffer_mut(&mut out),
            ],
        );
        for (tid, &got) in out.iter().enumerate() {
            if tid >= threads {
                assert_eq!(got, -1.0, "{name}: {tid} past the end is untouched");
                continue;
            }
            let mut s = 0f32;
            for k in 0..8 {
                let i = match name {
                    "warp_strided" => (tid / 32) * 32 * 8 + k * 32 + tid % 32,
                    "thread_contiguous" => tid * 8 + k,
                    _ => (k * threads + tid) * 8,
                };
                s += input[i];
            }
            assert_eq!(got.to_bits(), s.to_bits(), "{name} {tid}");
        }
    }
}

#[test]
fn saxpy_vecadd_and_the_copy_compute_their_elements() {
    let m = seeds();
    let n = 100usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let mut y: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let k = &m.get("saxpy").unwrap().kernel;
    launch(
        k,
        &LaunchConfig::new(4, 32),
        &mut [
            Arg::U32(n as u32),
            Arg::F32(2.0),
            Arg::buffer(&x),
            Arg::buffer_mut(&mut y),
        ],
    );
    for (i, &yi) in y.iter().enumerate() {
        let want = if i < n {
            fma(2.0, x[i], i as f32)
        } else {
            i as f32
        };
        assert_eq!(yi, want, "saxpy {i}");
    }
    let k = &m.get("vecadd").unwrap().kernel;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i * i) as f32).collect();
    let mut c = vec![0f32; n];
    launch(
        k,
        &LaunchConfig::new(4, 32),
        &mut [
            Arg::U32(n as u32),
            Arg::buffer(&a),
            Arg::buffer(&b),
            Arg::buffer_mut(&mut c),
        ],
    );
    assert!((0..n).all(|i| c[i] == a[i] + b[i]));
    // copy_stride's `n` is a 64-bit scalar: two words.
    let k = &m.get("copy_stride").unwrap().kernel;
    let input: Vec<f32> = (0..1000).map(|i| i as f32 + 0.5).collect();
    let mut out = vec![0f32; 1000];
    launch(
        k,
        &LaunchConfig::new(3, 64),
        &mut [
            Arg::U32(1000),
            Arg::U32(0),
            Arg::buffer(&input),
            Arg::buffer_mut(&mut out),
        ],
    );
    assert_eq!(out, input);
}

#[test]
fn ilp_fma_runs_eight_chains() {
    let m = seeds();
    let k = &m.get("ilp_fma").unwrap().kernel;
    let iters = 9;
    let mut out = vec![0f32; 64];
    launch(
        k,
        &LaunchConfig::new(2, 32),
        &mut [Arg::U32(iters), Arg::buffer_mut(&mut out)],
    );
    for (tid, &got) in out.iter().enumerate() {
        let mut a: Vec<f32> = (0..8).map(|j| fma(tid as f32, 1e-6, j as f32)).collect();
        for _ in 0..iters {
            for v in a.iter_mut() {
                *v = fma(*v, 0.9999, 1e-4);
            }
        }
        let s = a.iter().fold(0f32, |s, v| s + v);
        assert_eq!(got.to_bits(), s.to_bits(), "{tid}");
    }
}

#[test]
fn the_transposes_transpose() {
    let m = seeds();
    let n = 64usize;
    let input: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
    for (name, rep) in [
        ("transpose_conflicted", 1),
        ("transpose_padded", 1),
        ("transpose_conflicted_lds", 16),
        ("transpose_padded_lds", 16),
    ] {
        let k = &m.get(name).unwrap().kernel;
        let mut out = vec![0f32; n * n];
        launch(
            k,
            &LaunchConfig::new([2, 2], [32, 8]),
            &mut [
                Arg::U32(n as u32),
                Arg::buffer(&input),
                Arg::buffer_mut(&mut out),
            ],
        );
        for y in 0..n {
            for x in 0..n {
                // Block (y / 32, x / 32) wrote the tile rows of `x`'s block
                // row; each output sums `rep` of them, in order.
                let mut want = 0f32;
                for r in 0..rep {
                    want += input[x * n + (y / 32) * 32 + ((y % 32 + r) & 31)];
                }
                let got = out[y * n + x];
                assert_eq!(got, want, "{name} ({x}, {y})");
            }
        }
    }
}

#[test]
fn the_atomics_sum_their_input() {
    let m = seeds();
    let n = 1000usize;
    let input: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let total: f32 = input.iter().sum();
    for name in ["atomic_one_counter", "atomic_per_block"] {
        let k = &m.get(name).unwrap().kernel;
        let mut sum = vec![0f32; 1];
        launch(
            k,
            &LaunchConfig::new(4, 256),
            &mut [
                Arg::U32(n as u32),
                Arg::buffer(&input),
                Arg::buffer_mut(&mut sum),
            ],
        );
        // Small integers: every order of additions gives the exact total.
        assert_eq!(sum[0], total, "{name}");
    }
}

#[test]
fn the_matrix_products_multiply() {
    let m = seeds();
    let n = 32usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 3) % 13) as f32 - 6.0).collect();
    for name in ["matmul_naive", "matmul_tiled"] {
        let k = &m.get(name).unwrap().kernel;
        let mut c = vec![0f32; n * n];
        launch(
            k,
            &LaunchConfig::new([2, 2], [16, 16]),
            &mut [
                Arg::U32(n as u32),
                Arg::buffer(&a),
                Arg::buffer(&b),
                Arg::buffer_mut(&mut c),
            ],
        );
        for row in 0..n {
            for col in 0..n {
                let want: f32 = (0..n).fold(0.0, |s, k| s + a[row * n + k] * b[k * n + col]);
                assert_eq!(c[row * n + col], want, "{name} ({row}, {col})");
            }
        }
    }
}
