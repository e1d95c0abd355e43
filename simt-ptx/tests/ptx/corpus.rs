//! The corpus of `tests/ptx/corpus/`: CUDA kernels as courses and blog
//! posts teach them (reductions, transposes, SGEMM steps, histograms,
//! scans, stencils, a softmax and the rest), run from the PTX nvcc wrote for
//! them at the launch shapes each is written for, at wave widths 32 and 64,
//! each output checked against the CUDA source computed on the host in the
//! same order of operations (floats by their bits), and a few counters
//! against what the courses say about the kernels.
//!
//! The kernels that shuffle or vote within a 32-lane warp (`reduce_shfl`,
//! `reduce_shfl_atomic`, `scan_warp_shfl`, `compact_ballot`) run at wave32
//! only: PTX's shuffles and ballots are of 32 lanes, simt's of the wave's.
//! Harris's warp-synchronous last warp (`reduce4` to `reduce6`, through a
//! volatile pointer, no `__syncwarp`) runs at both: its 32 threads are in
//! one wave either way, and simt's lanes run in lockstep.
//!
//! The committed `.ptx` files are nvcc's output for the `.cu` files next to
//! them (`nvcc -arch=sm_90 -ptx -lineinfo`, the CUDA file's path made
//! relative to the workspace): where nvcc is installed,
//! [`the_committed_ptx_is_what_nvcc_writes`] checks that they still are, and
//! `SIMT_PTX_CORPUS=overwrite` writes them again.

use crate::common::{launch, module, module_with, workspace};
use simt_core::isa::Role;
use simt_core::{Arg, Counters, Kernel, LaunchConfig, MemoryModel, Stats};
use simt_ptx::{Options, PtxModule};

/// Where the corpus lives, from the workspace root.
pub const DIR: &str = "simt-ptx/tests/ptx/corpus";

/// The corpus's CUDA files, without their extension.
pub const FILES: [&str; 9] = [
    "reduce",
    "transpose",
    "sgemm",
    "classic",
    "reference",
    "doubles",
    "arith",
    "local",
    "atomics",
];

/// The lowered `name.ptx` of the corpus.
pub fn corpus(name: &str) -> PtxModule {
    module(&format!("{DIR}/{name}.ptx"))
}

/// [`corpus`] with `bytes` of shared memory sized at launch.
fn corpus_shared(name: &str, bytes: u32) -> PtxModule {
    let options = Options {
        dynamic_shared_bytes: bytes,
        ..Default::default()
    };
    module_with(&format!("{DIR}/{name}.ptx"), &options)
}

/// The kernel called `name` (its CUDA name, template arguments included).
pub fn kernel<'m>(m: &'m PtxModule, name: &str) -> &'m Kernel {
    match m.get(name) {
        Some(k) => &k.kernel,
        None => {
            let names: Vec<&str> = m.kernels.iter().map(|k| k.name.as_str()).collect();
            panic!("no kernel {name} among {names:?}")
        }
    }
}

/// A small deterministic generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }

    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32(lo, hi)).collect()
    }

    /// Uniform in `[lo, hi]`.
    pub fn i32(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next() % (hi as i64 - lo as i64 + 1) as u64) as i32
    }

    /// `i32`s in `[lo, hi]` as the `u32` bits nvcc's loads of `int` read.
    pub fn ints(&mut self, n: usize, lo: i32, hi: i32) -> Vec<u32> {
        (0..n).map(|_| self.i32(lo, hi) as u32).collect()
    }
}

pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// The widths a kernel that does not assume 32-lane warps runs at.
pub const WIDTHS: [u32; 2] = [32, 64];

/// The counters of one launch's memory instructions, by kind: global loads,
/// global stores, global atomics, LDS loads, LDS stores, LDS atomics.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    pub global_loads: Counters,
    pub global_stores: Counters,
    pub global_atomics: Counters,
    pub lds_loads: Counters,
    pub lds_stores: Counters,
    pub lds_atomics: Counters,
}

/// `stats`' counters summed over `kernel`'s memory instructions by kind.
pub fn memory(kernel: &Kernel, stats: &Stats) -> Memory {
    let mut m = Memory::default();
    for (inst, c) in kernel.program().insts.iter().zip(&stats.per_instruction) {
        let Some((role, _)) = inst.fields().memory() else {
            continue;
        };
        let into = match role {
            Role::GlobalLoad => &mut m.global_loads,
            Role::GlobalStore => &mut m.global_stores,
            Role::GlobalAtomic => &mut m.global_atomics,
            Role::LdsLoad => &mut m.lds_loads,
            Role::LdsStore => &mut m.lds_stores,
            _ => &mut m.lds_atomics,
        };
        into.add(c);
    }
    m
}

/// A launch under the NVIDIA-like memory model: 32-byte sectors in 128-byte
/// lines, the geometry the CUDA courses count in.
pub fn nvidia(
    grid: impl Into<simt_core::Dim3>,
    block: impl Into<simt_core::Dim3>,
    width: u32,
) -> LaunchConfig {
    LaunchConfig::new(grid, block)
        .wave_width(width)
        .model(MemoryModel::nvidia())
}

// ------------------------------------------------------------------ nvcc

/// nvcc, where it is installed: on `PATH`, or where pip's
/// `nvidia-cuda-nvcc` puts it (`NVCC` names another).
fn nvcc() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("NVCC") {
        return Some(p.into());
    }
    let mut dirs: Vec<std::path::PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.push("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin".into());
    dirs.into_iter()
        .map(|d| d.join("nvcc"))
        .find(|p| p.is_file())
}

/// nvcc's PTX for `file`.cu, its path made relative to the workspace.
fn generate(nvcc: &std::path::Path, file: &str) -> String {
    let root = workspace("").canonicalize().expect("the workspace");
    let cu = root.join(DIR).join(format!("{file}.cu"));
    let out =
        std::env::temp_dir().join(format!("simt-ptx-corpus-{}-{file}.ptx", std::process::id()));
    let status = std::process::Command::new(nvcc)
        .args(["-arch=sm_90", "-ptx", "-lineinfo"])
        .arg(&cu)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("nvcc runs");
    assert!(status.success(), "nvcc failed on {}", cu.display());
    let text = std::fs::read_to_string(&out).expect("nvcc's output");
    let _ = std::fs::remove_file(&out);
    text.replace(&format!("\"{}/", root.display()), "\"")
}

/// The code of nvcc's output: without its banner (the `//` lines naming the
/// nvcc release that wrote it), without its debug strings (whose internal
/// names hash the source file's absolute path, which differs between
/// checkouts), and with the headers' `.file` lines cut to the path under the
/// CUDA installation's `include/`, since where nvcc is installed is no part
/// of what it wrote.
fn code(ptx: &str) -> String {
    ptx.lines()
        .skip_while(|l| l.starts_with("//"))
        .take_while(|l| !l.trim_start().starts_with(".section"))
        .map(
            |l| match (l.trim_start().starts_with(".file"), l.find("/include/")) {
                (true, Some(k)) => {
                    let head = &l[..l.find('"').unwrap_or(0)];
                    format!("{head}\"{}", &l[k + 1..])
                }
                _ => l.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

/// The nvcc release named in a PTX file's banner.
fn release(ptx: &str) -> &str {
    ptx.lines()
        .find_map(|l| l.strip_prefix("// Cuda compilation tools, "))
        .unwrap_or("an unnamed release")
}

#[test]
fn the_committed_ptx_is_what_nvcc_writes() {
    let Some(nvcc) = nvcc() else {
        println!("nvcc is not installed: the committed PTX is not checked against it");
        return;
    };
    let overwrite = std::env::var("SIMT_PTX_CORPUS").as_deref() == Ok("overwrite");
    for file in FILES {
        let fresh = generate(&nvcc, file);
        let path = workspace(&format!("{DIR}/{file}.ptx"));
        if overwrite {
            std::fs::write(&path, &fresh).expect("write the PTX");
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            code(&committed) == code(&fresh),
            "{} is not what {} writes for {file}.cu (it was written by {}, this is {}): \
             run `SIMT_PTX_CORPUS=overwrite cargo test -p simt-ptx --test ptx \
             corpus::the_committed_ptx` and review the differences",
            path.display(),
            nvcc.display(),
            release(&committed),
            release(&fresh),
        );
    }
}

#[test]
fn every_corpus_kernel_lowers() {
    let mut total = 0;
    for file in FILES {
        let text = std::fs::read_to_string(workspace(&format!("{DIR}/{file}.ptx"))).unwrap();
        // Shared memory sized at launch: any size lowers.
        let m = simt_ptx::compile_ptx_with(
            file,
            &text,
            &Options {
                dynamic_shared_bytes: 4096,
                ..Default::default()
            },
        )
        .unwrap_or_else(|d| panic!("{}", d.render(false)));
        let entries = text.matches(".entry").count();
        assert_eq!(m.kernels.len(), entries, "{file}");
        for k in &m.kernels {
            assert_eq!(
                k.cuda_file.as_deref(),
                Some(format!("{DIR}/{file}.cu").as_str()),
                "{}",
                k.name
            );
        }
        total += entries;
    }
    // The corpus proper (the four teaching files), the eleven reference
    // kernels, the four of doubles.cu, the eight of arith.cu, the four of
    // local.cu and the four of atomics.cu.
    assert_eq!(total, 52 + 11 + 4 + 8 + 4 + 4);
}

// ------------------------------------------------------------ reductions

/// Each block's wrapping sum of the elements it covers: `covers(i)` is the
/// block that reads element `i`.
fn block_sums(input: &[u32], blocks: usize, covers: impl Fn(usize) -> usize) -> Vec<u32> {
    let mut sums = vec![0u32; blocks];
    for (i, &x) in input.iter().enumerate() {
        let b = covers(i);
        sums[b] = sums[b].wrapping_add(x);
    }
    sums
}

/// Harris's reduce0 to reduce6 on `int`s: one partial sum per block. The
/// first three read one element per thread, the rest two a block apart
/// (reduce6 as many pairs as its grid-stride loop meets).
#[test]
fn harris_reductions_sum_each_block() {
    let mut rng = Rng::new(1);
    let all = rng.ints(1024, -1_000_000, 1_000_000);
    // (kernel, block sizes it is written for, elements per thread).
    let cases: [(&str, &[u32], usize); 8] = [
        ("reduce0", &[64, 256], 1),
        ("reduce1", &[64, 256], 1),
        ("reduce2", &[64, 256], 1),
        ("reduce3", &[64, 256], 2),
        ("reduce4", &[64, 256], 2),
        ("reduce5<(unsigned int)64>", &[64], 2),
        ("reduce5<(unsigned int)256>", &[256], 2),
        ("reduce6<(unsigned int)128>", &[128], 0),
    ];
    // 1000 elements leave the last block partial; 1024 fill every block.
    for n in [1000usize, 1024] {
        let input = &all[..n];
        for (name, blocks, per_thread) in cases {
            for &block in blocks {
                let m = corpus_shared("reduce", block * 4);
                let k = kernel(&m, name);
                let b = block as usize;
                // One block per `b` (or `2 b`) elements; reduce6 at grids
                // too small for that, so that its loop runs.
                let grids: Vec<usize> = match per_thread {
                    0 => vec![2, 3],
                    p => vec![n.div_ceil(b * p)],
                };
                for grid in grids {
                    let covers = |i: usize| match per_thread {
                        0 => (i % (2 * b * grid)) / (2 * b),
                        p => i / (b * p),
                    };
                    let want = block_sums(input, grid, covers);
                    for width in WIDTHS {
                        let mut out = vec![0u32; grid];
                        launch(
                            k,
                            &LaunchConfig::new(grid as u32, block).wave_width(width),
                            &mut [
                                Arg::buffer(input),
                                Arg::buffer_mut(&mut out),
                                Arg::U32(n as u32),
                            ],
                        );
                        assert_eq!(
                            out, want,
                            "{name} n {n} block {block} grid {grid} wave{width}"
                        );
                    }
                }
            }
        }
    }
}

/// What the tutorial measures: interleaved addressing with a strided index
/// (reduce1) trades reduce0's divergent branch for bank conflicts, which
/// sequential addressing (reduce2) has none of.
#[test]
fn sequential_addressing_is_conflict_free_and_the_strided_index_is_not() {
    let m = corpus_shared("reduce", 256 * 4);
    let input = vec![1u32; 1024];
    let run = |name: &str| {
        let k = kernel(&m, name);
        let mut out = vec![0u32; 4];
        let stats = launch(
            k,
            &LaunchConfig::new(4, 256),
            &mut [
                Arg::buffer(&input),
                Arg::buffer_mut(&mut out),
                Arg::U32(1024),
            ],
        );
        assert_eq!(out, vec![256; 4], "{name}");
        (memory(k, &stats), stats.totals)
    };
    let (m0, t0) = run("reduce0");
    let (m1, t1) = run("reduce1");
    let (m2, _) = run("reduce2");
    assert_eq!(
        m2.lds_loads.lds_conflict_cycles + m2.lds_stores.lds_conflict_cycles,
        0
    );
    assert_eq!(
        m0.lds_loads.lds_conflict_cycles + m0.lds_stores.lds_conflict_cycles,
        0
    );
    // reduce1's step s has thread t at word 2 s t: a 2s-word stride, so
    // steps 1 to 16 put 2, 4, ..., 32 of a phase's lanes on one bank.
    assert!(m1.lds_loads.lds_conflict_cycles > 0);
    // reduce0's adds run under sparser masks than reduce1's.
    assert!(t0.active_lanes * t1.vector_instructions < t1.active_lanes * t0.vector_instructions);
}

#[test]
fn sequential_addressing_on_floats_adds_as_its_tree_does() {
    let mut rng = Rng::new(2);
    let n = 1000usize;
    let input = rng.f32s(n, -1.0, 1.0);
    for block in [64u32, 256] {
        let m = corpus_shared("reduce", block * 4);
        let k = kernel(&m, "reduce2_f32");
        let b = block as usize;
        let grid = n.div_ceil(b);
        let want: Vec<f32> = (0..grid)
            .map(|g| {
                let mut s: Vec<f32> = (0..b)
                    .map(|t| input.get(g * b + t).copied().unwrap_or(0.0))
                    .collect();
                let mut stride = b / 2;
                while stride > 0 {
                    for t in 0..stride {
                        s[t] += s[t + stride];
                    }
                    stride /= 2;
                }
                s[0]
            })
            .collect();
        for width in WIDTHS {
            let mut out = vec![0f32; grid];
            launch(
                k,
                &LaunchConfig::new(grid as u32, block).wave_width(width),
                &mut [
                    Arg::buffer(&input),
                    Arg::buffer_mut(&mut out),
                    Arg::U32(n as u32),
                ],
            );
            for g in 0..grid {
                assert_eq!(
                    out[g].to_bits(),
                    want[g].to_bits(),
                    "block {block} group {g} wave{width}"
                );
            }
        }
    }
}

/// One warp's `__shfl_down_sync` tree: at each offset every lane adds the
/// value `offset` lanes up, a lane whose source is past the warp its own.
fn warp_shfl_down_sum<T: Copy + std::ops::Add<Output = T>>(vals: &mut [T; 32]) {
    for offset in [16, 8, 4, 2, 1] {
        let old = *vals;
        for l in 0..32 {
            vals[l] = old[l]
                + if l + offset < 32 {
                    old[l + offset]
                } else {
                    old[l]
                };
        }
    }
}

/// The warp-shuffle reductions, at wave32 only (they shuffle within 32-lane
/// warps): a grid-stride sum per thread, a shuffle tree per warp, the
/// warps' sums through shared memory and a last shuffle tree.
#[test]
fn warp_shuffle_reductions_sum_through_their_trees() {
    let mut rng = Rng::new(3);
    let n = 3000usize;
    let input = rng.f32s(n, -1.0, 1.0);
    // The module's other kernels size their shared array at launch.
    let m = corpus_shared("reduce", 1024);
    let k = kernel(&m, "reduce_shfl");
    for (grid, block) in [(3usize, 64usize), (2, 256)] {
        let threads = grid * block;
        let partial: Vec<f32> = (0..threads)
            .map(|t| (t..n).step_by(threads).fold(0f32, |s, i| s + input[i]))
            .collect();
        let mut out = vec![0f32; grid];
        launch(
            k,
            &LaunchConfig::new(grid as u32, block as u32),
            &mut [
                Arg::buffer(&input),
                Arg::buffer_mut(&mut out),
                Arg::U32(n as u32),
            ],
        );
        for g in 0..grid {
            let warps = block / 32;
            let mut shared = [0f32; 32];
            for w in 0..warps {
                let mut v = [0f32; 32];
                v.copy_from_slice(&partial[g * block + w * 32..][..32]);
                warp_shfl_down_sum(&mut v);
                shared[w] = v[0];
            }
            let mut v = [0f32; 32];
            v[..warps].copy_from_slice(&shared[..warps]);
            warp_shfl_down_sum(&mut v);
            assert_eq!(
                out[g].to_bits(),
                v[0].to_bits(),
                "grid {grid} block {block} group {g}"
            );
        }
    }
    // Integers, each warp's sum added atomically into one counter.
    let ints = rng.ints(n, -1000, 1000);
    let k = kernel(&m, "reduce_shfl_atomic");
    for (grid, block) in [(3u32, 64u32), (2, 256)] {
        let mut out = vec![0u32; 1];
        launch(
            k,
            &LaunchConfig::new(grid, block),
            &mut [
                Arg::buffer(&ints),
                Arg::buffer_mut(&mut out),
                Arg::U32(n as u32),
            ],
        );
        assert_eq!(
            out[0],
            ints.iter().fold(0u32, |s, &x| s.wrapping_add(x)),
            "grid {grid} block {block}"
        );
    }
}

/// "CUDA by Example"'s dot product: products accumulated (fused) along a
/// grid-stride loop, a shared tree per block, one `atomicAdd` per block.
/// Small integers make every order of the blocks' additions exact.
#[test]
fn the_dot_product_adds_each_block_atomically() {
    let mut rng = Rng::new(4);
    let n = 5000usize;
    let a: Vec<f32> = (0..n).map(|_| rng.i32(-8, 8) as f32).collect();
    let b: Vec<f32> = (0..n).map(|_| rng.i32(-8, 8) as f32).collect();
    let want: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let m = corpus_shared("reduce", 1024);
    let k = kernel(&m, "dot_atomic");
    for (grid, block) in [(4u32, 128u32), (3, 256)] {
        for width in WIDTHS {
            let mut c = vec![0f32; 1];
            let stats = launch(
                k,
                &LaunchConfig::new(grid, block).wave_width(width),
                &mut [
                    Arg::U32(n as u32),
                    Arg::buffer(&a),
                    Arg::buffer(&b),
                    Arg::buffer_mut(&mut c),
                ],
            );
            assert_eq!(c[0], want, "grid {grid} block {block} wave{width}");
            // One atomic per block, from one lane.
            let mem = memory(k, &stats);
            assert_eq!(mem.global_atomics.atomic_accesses, u64::from(grid));
            assert_eq!(mem.global_atomics.active_lanes, u64::from(grid));
        }
    }
}

// ------------------------------------------------------------ transposes

/// Harris's copies and transposes of a square matrix `32 g` wide, blocks of
/// 32x8 threads moving four elements each, at grids of 1x1 and 3x3.
#[test]
fn harris_transposes_transpose_and_copies_copy() {
    let m = corpus("transpose");
    for g in [1u32, 3] {
        let w = 32 * g as usize;
        let input: Vec<f32> = (0..w * w).map(|i| i as f32 + 0.5).collect();
        for (name, transposes) in [
            ("copy", false),
            ("copySharedMem", false),
            ("transposeNaive", true),
            ("transposeCoalesced", true),
            ("transposeNoBankConflicts", true),
        ] {
            let k = kernel(&m, name);
            for width in WIDTHS {
                let mut out = vec![0f32; w * w];
                launch(
                    k,
                    &LaunchConfig::new([g, g], [32, 8]).wave_width(width),
                    &mut [Arg::buffer_mut(&mut out), Arg::buffer(&input)],
                );
                for y in 0..w {
                    for x in 0..w {
                        let want = if transposes {
                            input[x * w + y]
                        } else {
                            input[y * w + x]
                        };
                        assert_eq!(
                            out[y * w + x],
                            want,
                            "{name} {w}x{w} wave{width} ({x}, {y})"
                        );
                    }
                }
            }
        }
    }
}

/// The counts the post argues from, for a 64x64 matrix (4096 floats, 16
/// KiB): a coalesced copy moves it in 32-byte sectors, 512 each way; the
/// naive transpose's stores each fill a sector of their own; the tiled
/// transpose is coalesced on both sides, but its tile's columns are read
/// 32 lanes to a bank (31 cycles a phase) until the tile is padded.
#[test]
fn harris_transposes_count_what_the_post_says() {
    let m = corpus("transpose");
    let n = 64usize * 64;
    let input = vec![1f32; n];
    for width in WIDTHS {
        let run = |name: &str| {
            let k = kernel(&m, name);
            let mut out = vec![0f32; n];
            let stats = launch(
                k,
                &nvidia([2, 2], [32, 8], width),
                &mut [Arg::buffer_mut(&mut out), Arg::buffer(&input)],
            );
            memory(k, &stats)
        };
        let copy = run("copy");
        assert_eq!(
            copy.global_loads.global_sectors,
            n as u64 / 8,
            "wave{width}"
        );
        assert_eq!(
            copy.global_stores.global_sectors,
            n as u64 / 8,
            "wave{width}"
        );
        // Four 128-byte lines per 32-lane phase: one transaction each.
        assert_eq!(copy.global_loads.global_transactions, n as u64 / 32);
        let naive = run("transposeNaive");
        assert_eq!(
            naive.global_loads.global_sectors,
            n as u64 / 8,
            "wave{width}"
        );
        assert_eq!(naive.global_stores.global_sectors, n as u64, "wave{width}");
        let tiled = run("transposeCoalesced");
        assert_eq!(
            tiled.global_stores.global_sectors,
            n as u64 / 8,
            "wave{width}"
        );
        assert_eq!(tiled.lds_stores.lds_conflict_cycles, 0);
        // Each of the n / 32 phases reading the tile: 32 words, one bank.
        assert_eq!(
            tiled.lds_loads.lds_conflict_cycles,
            (n as u64 / 32) * 31,
            "wave{width}"
        );
        let padded = run("transposeNoBankConflicts");
        assert_eq!(
            padded.lds_loads.lds_conflict_cycles + padded.lds_stores.lds_conflict_cycles,
            0
        );
        assert_eq!(padded.global_stores.global_sectors, n as u64 / 8);
    }
}

/// The one-element-per-thread transposes of a `height` x `width` matrix of
/// any shape: 16x16 blocks, the last row and column of blocks partial.
#[test]
fn bounded_transposes_handle_partial_blocks() {
    let m = corpus("transpose");
    for (width, height) in [(37usize, 20usize), (16, 48)] {
        let input: Vec<f32> = (0..width * height).map(|i| i as f32).collect();
        for name in ["transpose_naive", "transpose_tiled"] {
            let k = kernel(&m, name);
            for block in [[16u32, 16], [32, 8]] {
                if name == "transpose_tiled" && block != [16, 16] {
                    // Written for its 16x16 tile only.
                    continue;
                }
                let grid = [
                    (width as u32).div_ceil(block[0]),
                    (height as u32).div_ceil(block[1]),
                ];
                for wave in WIDTHS {
                    let mut out = vec![-1f32; width * height];
                    launch(
                        k,
                        &LaunchConfig::new(grid, block).wave_width(wave),
                        &mut [
                            Arg::buffer_mut(&mut out),
                            Arg::buffer(&input),
                            Arg::U32(width as u32),
                            Arg::U32(height as u32),
                        ],
                    );
                    for y in 0..height {
                        for x in 0..width {
                            assert_eq!(
                                out[x * height + y],
                                input[y * width + x],
                                "{name} {block:?} wave{wave} ({x}, {y})"
                            );
                        }
                    }
                }
            }
        }
    }
}

// ----------------------------------------------------------------- SGEMM

/// `C = alpha A B + beta C` on the host: each element's products added
/// (fused) in ascending `k` from 0, then nvcc's epilogue for its column:
/// `epilogue(column, dot, c)`.
fn sgemm_host(
    (m, n, k): (usize, usize, usize),
    a: &[f32],
    b: &[f32],
    c: &[f32],
    epilogue: impl Fn(usize, f32, f32) -> f32,
) -> Vec<f32> {
    let mut out = vec![0f32; m * n];
    for row in 0..m {
        for col in 0..n {
            let dot = (0..k).fold(0f32, |acc, i| fma(a[row * k + i], b[i * n + col], acc));
            out[row * n + col] = epilogue(col, dot, c[row * n + col]);
        }
    }
    out
}

/// How one SGEMM kernel is launched for `(m, n, k)`: its grid and block.
type Shape = fn(usize, usize, usize) -> ([u32; 2], u32);

/// A kernel's name, how it is launched, two sizes `(m, n, k)` it is written
/// for, and whether it uses kernel 6's float4 epilogue.
type SgemmCase = (&'static str, Shape, [(usize, usize, usize); 2], bool);

/// Boehm's kernels 1 to 6, each at two sizes it is written for (kernels 1
/// and 2 check bounds: sizes with partial blocks; the tiled ones at
/// multiples of their tiles).
#[test]
fn boehm_sgemm_kernels_multiply() {
    let m = corpus("sgemm");
    let (alpha, beta) = (1.5f32, -0.75f32);
    // nvcc fuses `alpha * tmp` into the sum and rounds `beta * C` first...
    let alpha_fused = move |_: usize, dot: f32, c: f32| fma(alpha, dot, beta * c);
    // ...except in kernel 6's float4 epilogue, where it does so for `.x`
    // alone and fuses `beta * C` for `.y`, `.z` and `.w`.
    let per_lane = move |col: usize, dot: f32, c: f32| {
        if col.is_multiple_of(4) {
            fma(alpha, dot, beta * c)
        } else {
            fma(beta, c, alpha * dot)
        }
    };
    let cases: [SgemmCase; 8] = [
        (
            "sgemm_naive",
            |mm, nn, _| ([mm.div_ceil(32) as u32, nn.div_ceil(32) as u32], 0),
            [(40, 36, 24), (64, 32, 16)],
            false,
        ),
        (
            "sgemm_global_mem_coalesce<(unsigned int)16>",
            |mm, nn, _| ([mm.div_ceil(16) as u32, nn.div_ceil(16) as u32], 256),
            [(40, 36, 24), (32, 48, 16)],
            false,
        ),
        (
            "sgemm_shared_mem_block<16>",
            |mm, nn, _| ([(mm / 16) as u32, (nn / 16) as u32], 256),
            [(32, 48, 64), (64, 32, 32)],
            false,
        ),
        (
            "sgemm_shared_mem_block<32>",
            |mm, nn, _| ([(mm / 32) as u32, (nn / 32) as u32], 1024),
            [(64, 64, 64), (32, 96, 32)],
            false,
        ),
        (
            "sgemm1DBlocktiling<64, 64, 8, 8>",
            |mm, nn, _| ([(nn / 64) as u32, (mm / 64) as u32], 512),
            [(64, 128, 16), (128, 64, 24)],
            false,
        ),
        (
            "sgemm2DBlocktiling<64, 64, 8, 4, 4>",
            |mm, nn, _| ([(nn / 64) as u32, (mm / 64) as u32], 256),
            [(64, 64, 16), (128, 64, 24)],
            false,
        ),
        (
            "sgemmVectorize<64, 64, 8, 8, 4>",
            |mm, nn, _| ([(nn / 64) as u32, (mm / 64) as u32], 128),
            [(64, 64, 16), (64, 128, 8)],
            true,
        ),
        (
            "sgemmVectorize<128, 128, 8, 8, 8>",
            |mm, nn, _| ([(nn / 128) as u32, (mm / 128) as u32], 256),
            [(128, 128, 16), (128, 256, 8)],
            true,
        ),
    ];
    let mut rng = Rng::new(5);
    for (name, shape, sizes, vectorized) in cases {
        let kern = kernel(&m, name);
        for (mm, nn, kk) in sizes {
            let a = rng.f32s(mm * kk, -1.0, 1.0);
            let b = rng.f32s(kk * nn, -1.0, 1.0);
            let c = rng.f32s(mm * nn, -1.0, 1.0);
            let want = if vectorized {
                sgemm_host((mm, nn, kk), &a, &b, &c, per_lane)
            } else {
                sgemm_host((mm, nn, kk), &a, &b, &c, alpha_fused)
            };
            // Kernel 6 reads B as float4 bits only: a buffer of words.
            let b_bits: Vec<u32> = b.iter().map(|x| x.to_bits()).collect();
            let (grid, threads) = shape(mm, nn, kk);
            // Kernel 1 is written for any block: Boehm's 32x32, and 16x16.
            let blocks: Vec<[u32; 2]> = if threads == 0 {
                vec![[32, 32], [16, 16]]
            } else {
                vec![[threads, 1]]
            };
            for block in blocks {
                let grid = if threads == 0 {
                    [
                        (mm as u32).div_ceil(block[0]),
                        (nn as u32).div_ceil(block[1]),
                    ]
                } else {
                    grid
                };
                for width in WIDTHS {
                    let mut out = c.clone();
                    let b_arg = if vectorized {
                        Arg::buffer(&b_bits)
                    } else {
                        Arg::buffer(&b)
                    };
                    launch(
                        kern,
                        &LaunchConfig::new(grid, block).wave_width(width),
                        &mut [
                            Arg::U32(mm as u32),
                            Arg::U32(nn as u32),
                            Arg::U32(kk as u32),
                            Arg::F32(alpha),
                            Arg::buffer(&a),
                            b_arg,
                            Arg::F32(beta),
                            Arg::buffer_mut(&mut out),
                        ],
                    );
                    for (i, (got, want)) in out.iter().zip(&want).enumerate() {
                        assert_eq!(
                            got.to_bits(),
                            want.to_bits(),
                            "{name} {mm}x{nn}x{kk} block {block:?} wave{width}: C[{}][{}] {got} != {want}",
                            i / nn,
                            i % nn
                        );
                    }
                }
            }
        }
    }
}

/// Kernel 1's warps read 32 rows of A for every element of B (33 sectors a
/// step along K, and 32 for C); kernel 2's read two rows of A and two
/// sectors of B (4, and 4 for C): the 8x the post measures.
#[test]
fn coalescing_the_naive_sgemm_cuts_its_sectors_eightfold() {
    let m = corpus("sgemm");
    let s = 64usize;
    let ones = vec![1f32; s * s];
    let warps = (s * s / 32) as u64;
    for width in WIDTHS {
        for (name, grid, block, sectors) in [
            (
                "sgemm_naive",
                [2u32, 2],
                [32u32, 32],
                warps * (s as u64 * 33 + 32),
            ),
            (
                "sgemm_global_mem_coalesce<(unsigned int)16>",
                [4, 4],
                [256, 1],
                warps * (s as u64 * 4 + 4),
            ),
        ] {
            let k = kernel(&m, name);
            let mut c = vec![0f32; s * s];
            let stats = launch(
                k,
                &nvidia(grid, block, width),
                &mut [
                    Arg::U32(s as u32),
                    Arg::U32(s as u32),
                    Arg::U32(s as u32),
                    Arg::F32(1.0),
                    Arg::buffer(&ones),
                    Arg::buffer(&ones),
                    Arg::F32(0.0),
                    Arg::buffer_mut(&mut c),
                ],
            );
            assert!(c.iter().all(|&x| x == s as f32), "{name}");
            assert_eq!(
                memory(k, &stats).global_loads.global_sectors,
                sectors,
                "{name} wave{width}"
            );
        }
    }
}

// ---------------------------------------------------- the classic others

/// The element-wise kernels at a partial last block, two block sizes; the
/// grid-stride saxpy at grids too small for one element per thread.
#[test]
fn element_wise_kernels_compute_each_element() {
    let m = corpus("classic");
    let mut rng = Rng::new(6);
    let n = 1000usize;
    let a = rng.f32s(n, -1.0, 1.0);
    let b = rng.f32s(n, -1.0, 1.0);
    let y0 = rng.f32s(n, -1.0, 1.0);
    let alpha = 0.75f32;
    for block in [64u32, 256] {
        let grid = (n as u32).div_ceil(block);
        for width in WIDTHS {
            let config = LaunchConfig::new(grid, block).wave_width(width);
            let mut c = vec![0f32; n];
            launch(
                kernel(&m, "vectorAdd"),
                &config,
                &mut [
                    Arg::buffer(&a),
                    Arg::buffer(&b),
                    Arg::buffer_mut(&mut c),
                    Arg::U32(n as u32),
                ],
            );
            for i in 0..n {
                assert_eq!(
                    c[i].to_bits(),
                    (a[i] + b[i] + 0.0).to_bits(),
                    "vectorAdd {i}"
                );
            }
            for (name, grid) in [("saxpy", grid), ("saxpy_grid_stride", grid / 3 + 1)] {
                let mut y = y0.clone();
                launch(
                    kernel(&m, name),
                    &LaunchConfig::new(grid, block).wave_width(width),
                    &mut [
                        Arg::U32(n as u32),
                        Arg::F32(alpha),
                        Arg::buffer(&a),
                        Arg::buffer_mut(&mut y),
                    ],
                );
                for i in 0..n {
                    assert_eq!(
                        y[i].to_bits(),
                        fma(alpha, a[i], y0[i]).to_bits(),
                        "{name} {i}"
                    );
                }
            }
        }
    }
    // Coalesced, 1024 floats: each array read or written in 128 sectors.
    let n = 1024usize;
    let a = vec![1f32; n];
    let mut c = vec![0f32; n];
    let k = kernel(&m, "vectorAdd");
    let stats = launch(
        k,
        &nvidia(4, 256, 32),
        &mut [
            Arg::buffer(&a),
            Arg::buffer(&a),
            Arg::buffer_mut(&mut c),
            Arg::U32(n as u32),
        ],
    );
    let mem = memory(k, &stats);
    assert_eq!(mem.global_loads.global_sectors, 2 * n as u64 / 8);
    assert_eq!(mem.global_stores.global_sectors, n as u64 / 8);
    assert_eq!(c, vec![2f32; n]);
}

/// Both histograms count every byte, whatever the grid; the shared one
/// issues its input's atomics to the LDS and only 256 per block to global
/// memory.
#[test]
fn histograms_count_every_byte() {
    let m = corpus("classic");
    let mut rng = Rng::new(7);
    for size in [10_000usize, 777] {
        // Skewed, so that atomics collide.
        let bytes: Vec<u8> = (0..size)
            .map(|_| (rng.next() % 256).min(rng.next() % 256) as u8)
            .collect();
        let mut want = vec![0u32; 256];
        for &x in &bytes {
            want[x as usize] += 1;
        }
        for (name, blocks) in [("histo_global", [64u32, 256]), ("histo_shared", [256, 256])] {
            for (block, grid) in blocks.into_iter().zip([2u32, 5]) {
                for width in WIDTHS {
                    let k = kernel(&m, name);
                    let mut histo = vec![0u32; 256];
                    // `long size`: its low and high words.
                    let stats = launch(
                        k,
                        &LaunchConfig::new(grid, block).wave_width(width),
                        &mut [
                            Arg::buffer(&bytes),
                            Arg::U32(size as u32),
                            Arg::U32(0),
                            Arg::buffer_mut(&mut histo),
                        ],
                    );
                    assert_eq!(
                        histo, want,
                        "{name} size {size} grid {grid} block {block} wave{width}"
                    );
                    let mem = memory(k, &stats);
                    let lanes = mem.global_atomics.active_lanes;
                    match name {
                        "histo_global" => assert_eq!(lanes, size as u64),
                        _ => {
                            assert_eq!(lanes, 256 * u64::from(grid));
                            assert_eq!(mem.lds_atomics.active_lanes, size as u64);
                        }
                    }
                }
            }
        }
    }
}

/// The block scans: Hillis-Steele's inclusive one over a double buffer,
/// Blelloch's exclusive one (up-sweep, then down-sweep), each replayed
/// step by step on the host; and the warp-shuffle scan of ints at wave32.
#[test]
fn block_scans_scan() {
    let m_rng = &mut Rng::new(8);
    for n in [64usize, 256] {
        let input = m_rng.f32s(n, -1.0, 1.0);
        let m = corpus_shared("classic", 2 * n as u32 * 4);
        let k = kernel(&m, "scan_hillis_steele");
        let mut buf = [input.clone(), vec![0f32; n]];
        let mut pout = 0usize;
        let mut offset = 1;
        while offset < n {
            pout = 1 - pout;
            let pin = 1 - pout;
            for t in 0..n {
                buf[pout][t] = if t >= offset {
                    buf[pin][t] + buf[pin][t - offset]
                } else {
                    buf[pin][t]
                };
            }
            offset *= 2;
        }
        for width in WIDTHS {
            let mut out = vec![0f32; n];
            launch(
                k,
                &LaunchConfig::new(1, n as u32).wave_width(width),
                &mut [
                    Arg::buffer_mut(&mut out),
                    Arg::buffer(&input),
                    Arg::U32(n as u32),
                ],
            );
            for t in 0..n {
                assert_eq!(
                    out[t].to_bits(),
                    buf[pout][t].to_bits(),
                    "hillis-steele n={n} wave{width} {t}"
                );
            }
        }
    }
    for n in [128usize, 512] {
        let input = m_rng.f32s(n, -1.0, 1.0);
        let m = corpus_shared("classic", n as u32 * 4);
        let k = kernel(&m, "scan_blelloch");
        let mut t = input.clone();
        let mut offset = 1;
        let mut d = n / 2;
        while d > 0 {
            for th in 0..d {
                let (ai, bi) = (offset * (2 * th + 1) - 1, offset * (2 * th + 2) - 1);
                t[bi] += t[ai];
            }
            offset *= 2;
            d /= 2;
        }
        t[n - 1] = 0.0;
        let mut d = 1;
        while d < n {
            offset /= 2;
            for th in 0..d {
                let (ai, bi) = (offset * (2 * th + 1) - 1, offset * (2 * th + 2) - 1);
                let x = t[ai];
                t[ai] = t[bi];
                t[bi] += x;
            }
            d *= 2;
        }
        for width in WIDTHS {
            let mut out = vec![0f32; n];
            launch(
                k,
                &LaunchConfig::new(1, n as u32 / 2).wave_width(width),
                &mut [
                    Arg::buffer_mut(&mut out),
                    Arg::buffer(&input),
                    Arg::U32(n as u32),
                ],
            );
            for i in 0..n {
                assert_eq!(
                    out[i].to_bits(),
                    t[i].to_bits(),
                    "blelloch n={n} wave{width} {i}"
                );
            }
        }
    }
    let m = corpus_shared("classic", 1024);
    let k = kernel(&m, "scan_warp_shfl");
    let n = 1000usize;
    let input = m_rng.ints(n, -1000, 1000);
    for block in [128usize, 256] {
        let grid = n.div_ceil(block);
        let mut out = vec![0u32; n];
        launch(
            k,
            &LaunchConfig::new(grid as u32, block as u32),
            &mut [
                Arg::buffer(&input),
                Arg::buffer_mut(&mut out),
                Arg::U32(n as u32),
            ],
        );
        for i in 0..n {
            let start = i / block * block;
            let want = input[start..=i]
                .iter()
                .fold(0u32, |s, &x| s.wrapping_add(x));
            assert_eq!(out[i], want, "warp scan block {block} element {i}");
        }
    }
}

/// The 1-D stencil (blocks of 64, the radius-3 halo in shared memory) and a
/// Jacobi step of the 2-D Laplace equation over a grid with partial blocks.
#[test]
fn stencils_sum_their_neighbourhoods() {
    let m = corpus("classic");
    let mut rng = Rng::new(9);
    for grid in [2usize, 4] {
        let n = 64 * grid;
        let input = rng.ints(n + 6, -1000, 1000);
        for width in WIDTHS {
            let mut out = vec![0u32; n];
            launch(
                kernel(&m, "stencil_1d"),
                &LaunchConfig::new(grid as u32, 64).wave_width(width),
                &mut [Arg::buffer(&input), Arg::buffer_mut(&mut out)],
            );
            for (i, &got) in out.iter().enumerate() {
                let want = input[i..i + 7].iter().fold(0u32, |s, &x| s.wrapping_add(x));
                assert_eq!(got, want, "stencil grid {grid} wave{width} {i}");
            }
        }
    }
    let (nx, ny) = (37usize, 23usize);
    let input = rng.f32s(nx * ny, 0.0, 1.0);
    for block in [[16u32, 16], [8, 4]] {
        let grid = [
            (nx as u32).div_ceil(block[0]),
            (ny as u32).div_ceil(block[1]),
        ];
        for width in WIDTHS {
            let mut out = vec![-1f32; nx * ny];
            launch(
                kernel(&m, "jacobi_2d"),
                &LaunchConfig::new(grid, block).wave_width(width),
                &mut [
                    Arg::buffer(&input),
                    Arg::buffer_mut(&mut out),
                    Arg::U32(nx as u32),
                    Arg::U32(ny as u32),
                ],
            );
            for y in 0..ny {
                for x in 0..nx {
                    let i = y * nx + x;
                    let want = if x == 0 || y == 0 || x == nx - 1 || y == ny - 1 {
                        input[i]
                    } else {
                        (input[i - 1] + input[i + 1] + input[i - nx] + input[i + nx]) * 0.25
                    };
                    assert_eq!(
                        out[i].to_bits(),
                        want.to_bits(),
                        "jacobi {block:?} wave{width} ({x}, {y})"
                    );
                }
            }
        }
    }
}

/// CUDA's `expf` as nvcc inlines it (sm_90, CUDA 13): `x log2(e)` split into
/// an integer part `j`, taken as a floor by a fused multiply-add rounding
/// down, and a rest `r`; `2^r` (the hardware's approximation, simt's
/// rounded exact power) times `2^j` built in the exponent bits. Returned as
/// the two factors, since nvcc fuses their product into what follows.
fn cuda_expf_factors(x: f32) -> (f32, f32) {
    let t = fma(x, f32::from_bits(0x3bbb_989d), 0.5);
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    // fma.rm(t, 252, 12582913): t 252 + 12582913 is exact in f64, so its
    // floor is the rounding down.
    let j = (f64::from(t) * 252.0 + 12_582_913.0).floor() as f32;
    let r = fma(
        x,
        f32::from_bits(0x3fb8_aa3b),
        -(j + f32::from_bits(0xcb40_007f)),
    );
    let r = fma(x, f32::from_bits(0x32a5_7060), r);
    let two_j = f32::from_bits(j.to_bits() << 23);
    let two_r = f64::from(r).exp2() as f32;
    // `.ftz`: a subnormal power is 0.
    let two_r = if two_r < f32::MIN_POSITIVE {
        0.0
    } else {
        two_r
    };
    (two_r, two_j)
}

/// The row softmax: a block per row, the row's maximum and its sum of
/// `expf(x - max)` each through a shared tree, then every element scaled.
#[test]
fn softmax_rows_sum_to_their_exponentials() {
    let m = corpus("classic");
    let k = kernel(&m, "softmax_rows");
    let mut rng = Rng::new(10);
    for (rows, cols, block) in [(3usize, 100usize, 64usize), (2, 300, 256)] {
        let input = rng.f32s(rows * cols, -8.0, 8.0);
        let mut want = vec![0f32; rows * cols];
        for r in 0..rows {
            let x = &input[r * cols..][..cols];
            let mut red: Vec<f32> = (0..block)
                .map(|t| {
                    (t..cols)
                        .step_by(block)
                        .fold(f32::NEG_INFINITY, |m, c| m.max(x[c]))
                })
                .collect();
            let mut s = block / 2;
            while s > 0 {
                for t in 0..s {
                    red[t] = red[t].max(red[t + s]);
                }
                s /= 2;
            }
            let max = red[0];
            let mut red: Vec<f32> = (0..block)
                .map(|t| {
                    (t..cols).step_by(block).fold(0f32, |sum, c| {
                        let (e, scale) = cuda_expf_factors(x[c] - max);
                        fma(e, scale, sum)
                    })
                })
                .collect();
            let mut s = block / 2;
            while s > 0 {
                for t in 0..s {
                    red[t] += red[t + s];
                }
                s /= 2;
            }
            for c in 0..cols {
                let (e, scale) = cuda_expf_factors(x[c] - max);
                want[r * cols + c] = e * scale / red[0];
            }
        }
        for width in WIDTHS {
            let mut out = vec![0f32; rows * cols];
            launch(
                k,
                &LaunchConfig::new(rows as u32, block as u32).wave_width(width),
                &mut [
                    Arg::buffer(&input),
                    Arg::buffer_mut(&mut out),
                    Arg::U32(cols as u32),
                ],
            );
            for i in 0..rows * cols {
                assert_eq!(
                    out[i].to_bits(),
                    want[i].to_bits(),
                    "softmax {rows}x{cols} wave{width} {i}"
                );
            }
            let sum: f32 = out[..cols].iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "a row sums to {sum}");
        }
    }
}

#[test]
fn matvec_accumulates_each_row() {
    let m = corpus("classic");
    let mut rng = Rng::new(11);
    let (rows, cols) = (100usize, 37usize);
    let a = rng.f32s(rows * cols, -1.0, 1.0);
    let x = rng.f32s(cols, -1.0, 1.0);
    for block in [32u32, 128] {
        for width in WIDTHS {
            let mut y = vec![0f32; rows];
            launch(
                kernel(&m, "matvec"),
                &LaunchConfig::new((rows as u32).div_ceil(block), block).wave_width(width),
                &mut [
                    Arg::buffer(&a),
                    Arg::buffer(&x),
                    Arg::buffer_mut(&mut y),
                    Arg::U32(rows as u32),
                    Arg::U32(cols as u32),
                ],
            );
            for r in 0..rows {
                let want = (0..cols).fold(0f32, |s, c| fma(a[r * cols + c], x[c], s));
                assert_eq!(
                    y[r].to_bits(),
                    want.to_bits(),
                    "row {r} block {block} wave{width}"
                );
            }
        }
    }
}

/// Stream compaction by ballot, at wave32: every positive value survives,
/// each warp's survivors in lane order after the slot its lane 0 reserved.
#[test]
fn ballot_compaction_keeps_the_positives_in_warp_order() {
    let m = corpus("classic");
    let k = kernel(&m, "compact_ballot");
    let mut rng = Rng::new(12);
    let n = 1000usize;
    let input = rng.ints(n, -5, 5);
    let positives: Vec<u32> = input.iter().copied().filter(|&v| (v as i32) > 0).collect();
    for block in [64u32, 256] {
        let mut out = vec![0u32; n];
        let mut count = vec![0u32; 1];
        launch(
            k,
            &LaunchConfig::new((n as u32).div_ceil(block), block),
            &mut [
                Arg::buffer(&input),
                Arg::buffer_mut(&mut out),
                Arg::buffer_mut(&mut count),
                Arg::U32(n as u32),
            ],
        );
        assert_eq!(count[0] as usize, positives.len(), "block {block}");
        // Each warp's survivors form one run, in order, somewhere in `out`.
        let mut seen = vec![false; positives.len()];
        for w in 0..n.div_ceil(32) {
            let kept: Vec<u32> = input[w * 32..((w + 1) * 32).min(n)]
                .iter()
                .copied()
                .filter(|&v| (v as i32) > 0)
                .collect();
            if kept.is_empty() {
                continue;
            }
            let at = (0..=positives.len() - kept.len())
                .find(|&s| !seen[s] && out[s..s + kept.len()] == kept[..])
                .unwrap_or_else(|| {
                    panic!("warp {w}'s survivors {kept:?} are not a run of {out:?}")
                });
            seen[at..at + kept.len()].iter_mut().for_each(|s| *s = true);
        }
        assert!(seen.iter().all(|&s| s));
    }
}

/// The bit tricks: the bit-reversal permutation of float2s, RGBA to grey
/// (bytes in one word, rounded to nearest even), integer log2 and
/// population counts, quantisation to packed bytes, and linear resampling
/// between the floor and ceiling of a coordinate.
#[test]
fn bit_and_byte_kernels_match_the_host() {
    let m = corpus("classic");
    let mut rng = Rng::new(13);
    for (log2n, block) in [(6u32, 64u32), (10, 256)] {
        let n = 1usize << log2n;
        // float2 as pairs of words.
        let input: Vec<u32> = (0..2 * n).map(|_| rng.next() as u32).collect();
        for width in WIDTHS {
            let mut out = vec![0u32; 2 * n];
            launch(
                kernel(&m, "bit_reverse"),
                &LaunchConfig::new((n as u32).div_ceil(block), block).wave_width(width),
                &mut [
                    Arg::buffer(&input),
                    Arg::buffer_mut(&mut out),
                    Arg::U32(log2n),
                ],
            );
            for i in 0..n {
                let j = ((i as u32).reverse_bits() >> (32 - log2n)) as usize;
                assert_eq!(
                    out[2 * j..2 * j + 2],
                    input[2 * i..2 * i + 2],
                    "bit_reverse 2^{log2n} {i}"
                );
            }
        }
    }
    let pixels = 777usize;
    let rgba: Vec<u8> = (0..4 * pixels).map(|_| rng.next() as u8).collect();
    let values: Vec<u32> = (0..pixels)
        .map(|i| match i % 4 {
            0 => 0,
            1 => 1 << (i % 32),
            _ => rng.next() as u32 >> (i % 29),
        })
        .collect();
    let n4 = 200usize;
    let floats = rng.f32s(4 * n4, -300.0, 300.0);
    let inv_scale = 0.5f32;
    for block in [64u32, 256] {
        let grid = (pixels as u32).div_ceil(block);
        for width in WIDTHS {
            let config = LaunchConfig::new(grid, block).wave_width(width);
            let mut grey = vec![0u8; pixels];
            launch(
                kernel(&m, "rgba_to_grey"),
                &config,
                &mut [
                    Arg::buffer(&rgba),
                    Arg::buffer_mut(&mut grey),
                    Arg::U32(pixels as u32),
                ],
            );
            for i in 0..pixels {
                let [r, g, b] = [0, 1, 2].map(|c| f32::from(rgba[4 * i + c]));
                let l = fma(b, 0.114, fma(r, 0.299, g * 0.587));
                assert_eq!(grey[i], l.round_ties_even() as i32 as u8, "grey {i}");
            }
            let (mut log2, mut popc) = (vec![0u32; pixels], vec![0u32; pixels]);
            launch(
                kernel(&m, "bit_stats"),
                &config,
                &mut [
                    Arg::buffer(&values),
                    Arg::buffer_mut(&mut log2),
                    Arg::buffer_mut(&mut popc),
                    Arg::U32(pixels as u32),
                ],
            );
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(
                    log2[i],
                    31u32.wrapping_sub(v.leading_zeros()),
                    "log2 {v:#x}"
                );
                assert_eq!(popc[i], v.count_ones(), "popc {v:#x}");
            }
            let mut packed = vec![0u8; 4 * n4];
            launch(
                kernel(&m, "quantize_int8"),
                &LaunchConfig::new((n4 as u32).div_ceil(block), block).wave_width(width),
                &mut [
                    Arg::buffer(&floats),
                    Arg::buffer_mut(&mut packed),
                    Arg::F32(inv_scale),
                    Arg::U32(n4 as u32),
                ],
            );
            for (i, &x) in floats.iter().enumerate() {
                let q = ((x * inv_scale).round_ties_even() as i32).clamp(-128, 127);
                assert_eq!(packed[i] as i8, q as i8, "quantize {x}");
            }
        }
    }
    let n_in = 50usize;
    let input = rng.f32s(n_in, -1.0, 1.0);
    for n_out in [37usize, 130] {
        for width in WIDTHS {
            let mut out = vec![0f32; n_out];
            launch(
                kernel(&m, "resample_linear"),
                &LaunchConfig::new((n_out as u32).div_ceil(64), 64).wave_width(width),
                &mut [
                    Arg::buffer(&input),
                    Arg::buffer_mut(&mut out),
                    Arg::U32(n_in as u32),
                    Arg::U32(n_out as u32),
                ],
            );
            for (i, got) in out.iter().enumerate() {
                let pos = (i as f32 * (n_in - 1) as f32) / (n_out - 1) as f32;
                let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
                let want = fma(pos - pos.floor(), input[hi] - input[lo], input[lo]);
                assert_eq!(got.to_bits(), want.to_bits(), "resample to {n_out}: {i}");
            }
        }
    }
}

/// The radix-sort digit histogram (CUB's bit-field extract, its position
/// a register), bit-field records unpacked and packed again (byte
/// permutes and bit-field inserts), byte swaps, and counts of 8- and 16-bit
/// values (16-bit comparisons).
#[test]
fn bit_fields_bytes_and_small_integers() {
    let m = corpus("classic");
    let mut rng = Rng::new(14);
    let n = 1000usize;
    let keys: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    for (grid, block) in [(2u32, 64u32), (5, 256)] {
        for width in WIDTHS {
            let config = LaunchConfig::new(grid, block).wave_width(width);
            for bit in [0u32, 4, 28] {
                let mut counts = vec![0u32; 16];
                launch(
                    kernel(&m, "radix_digit_histogram"),
                    &config,
                    &mut [
                        Arg::buffer(&keys),
                        Arg::buffer_mut(&mut counts),
                        Arg::U32(n as u32),
                        Arg::U32(bit),
                    ],
                );
                let mut want = vec![0u32; 16];
                keys.iter()
                    .for_each(|k| want[((k >> bit) & 15) as usize] += 1);
                assert_eq!(
                    counts, want,
                    "digits at bit {bit}, grid {grid} block {block} wave{width}"
                );
            }
            // struct { unsigned kind : 4; int delta : 12; unsigned value : 16; }
            let words: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let (mut kind, mut delta, mut value) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
            let grid_n = (n as u32).div_ceil(block);
            let config = LaunchConfig::new(grid_n, block).wave_width(width);
            launch(
                kernel(&m, "unpack_fields"),
                &config,
                &mut [
                    Arg::buffer(&bytes),
                    Arg::buffer_mut(&mut kind),
                    Arg::buffer_mut(&mut delta),
                    Arg::buffer_mut(&mut value),
                    Arg::U32(n as u32),
                ],
            );
            for (i, &w) in words.iter().enumerate() {
                assert_eq!(kind[i], w & 15, "kind of {w:#x}");
                assert_eq!(delta[i] as i32, ((w << 16) as i32) >> 20, "delta of {w:#x}");
                assert_eq!(value[i], w >> 16, "value of {w:#x}");
            }
            let new_kind: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
            let new_delta = rng.ints(n, -5000, 5000);
            let mut packed = bytes.clone();
            // nvcc reads only the low byte of each `kind` (4 bits are kept):
            // the buffer's type is its accesses', bytes.
            let kind_bytes: Vec<u8> = new_kind.iter().flat_map(|k| k.to_le_bytes()).collect();
            launch(
                kernel(&m, "repack_fields"),
                &config,
                &mut [
                    Arg::buffer(&kind_bytes),
                    Arg::buffer(&new_delta),
                    Arg::buffer_mut(&mut packed),
                    Arg::U32(n as u32),
                ],
            );
            for (i, &w) in words.iter().enumerate() {
                let got = u32::from_le_bytes(packed[4 * i..4 * i + 4].try_into().unwrap());
                let want = (w & 0xffff_0000) | ((new_delta[i] & 0xfff) << 4) | (new_kind[i] & 15);
                assert_eq!(
                    got, want,
                    "repacked {w:#x} with {} {}",
                    new_kind[i], new_delta[i] as i32
                );
            }
            let mut swapped = vec![0u32; n];
            launch(
                kernel(&m, "swap_bytes"),
                &config,
                &mut [
                    Arg::buffer(&words),
                    Arg::buffer_mut(&mut swapped),
                    Arg::U32(n as u32),
                ],
            );
            for (w, s) in words.iter().zip(&swapped) {
                assert_eq!(*s, w.swap_bytes());
            }
            let text: Vec<u8> = (0..n)
                .map(|_| b"abcde\xe9\xff"[(rng.next() % 7) as usize])
                .collect();
            for c in [b'c', 0xe9, 0xff] {
                let mut count = vec![0u32; 1];
                launch(
                    kernel(&m, "count_char"),
                    &config,
                    &mut [
                        Arg::buffer(&text),
                        Arg::U32(n as u32),
                        Arg::U32(u32::from(c)),
                        Arg::buffer_mut(&mut count),
                    ],
                );
                assert_eq!(
                    count[0] as usize,
                    text.iter().filter(|&&t| t == c).count(),
                    "{c:#x}"
                );
            }
            let samples: Vec<u16> = (0..n)
                .map(|_| rng.i32(-40000, 40000) as i16 as u16)
                .collect();
            for threshold in [-20000i16, 0, 123, i16::MAX] {
                let mut count = vec![0u32; 1];
                launch(
                    kernel(&m, "count_below"),
                    &config,
                    &mut [
                        Arg::buffer(&samples),
                        Arg::U32(n as u32),
                        Arg::U32(threshold as u16 as u32),
                        Arg::buffer_mut(&mut count),
                    ],
                );
                let want = samples.iter().filter(|&&s| (s as i16) < threshold).count();
                assert_eq!(count[0] as usize, want, "below {threshold}");
            }
        }
    }
}

/// The last block in, told by `atomicInc`, adds the blocks' partial sums;
/// the counter wraps back to 0, so the next launch runs the same.
#[test]
fn the_last_block_adds_the_partial_sums() {
    let m = corpus("classic");
    let k = kernel(&m, "reduce_last_block");
    let mut rng = Rng::new(15);
    let n = 1000usize;
    let input = rng.f32s(n, -1.0, 1.0);
    for block in [64usize, 256] {
        let grid = n.div_ceil(block);
        let partial: Vec<f32> = (0..grid)
            .map(|g| {
                let mut s: Vec<f32> = (0..block)
                    .map(|t| input.get(g * block + t).copied().unwrap_or(0.0))
                    .collect();
                let mut stride = block / 2;
                while stride > 0 {
                    for t in 0..stride {
                        s[t] += s[t + stride];
                    }
                    stride /= 2;
                }
                s[0]
            })
            .collect();
        let total = partial.iter().fold(0f32, |s, p| s + p);
        for width in WIDTHS {
            let mut retired = vec![0u32; 1];
            for _ in 0..2 {
                let (mut p, mut t) = (vec![0f32; grid], vec![0f32; 1]);
                launch(
                    k,
                    &LaunchConfig::new(grid as u32, block as u32).wave_width(width),
                    &mut [
                        Arg::buffer(&input),
                        Arg::buffer_mut(&mut p),
                        Arg::buffer_mut(&mut t),
                        Arg::buffer_mut(&mut retired),
                        Arg::U32(n as u32),
                    ],
                );
                assert_eq!(p, partial, "block {block} wave{width}");
                assert_eq!(t[0].to_bits(), total.to_bits(), "block {block} wave{width}");
                assert_eq!(retired[0], 0, "the counter wrapped");
            }
        }
    }
}
