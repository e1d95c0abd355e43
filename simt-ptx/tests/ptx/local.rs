//! `corpus/local.cu`: per-thread arrays nvcc keeps in local memory (indexed
//! by data, so no register holds them), run from its PTX.
//!
//! Local memory is a scratch buffer the launch allocates, the kernel's last
//! parameter, which the host does not pass. A GPU interleaves it so that 32
//! threads' accesses to one word of their arrays are one contiguous run; the
//! counters here are worked out by hand from that layout.

use crate::corpus::{corpus, kernel, nvidia, Rng, WIDTHS};
use simt_core::isa::MemRef;
use simt_core::{Arg, Args, Counters, Inst, Kernel, Operand, Stats};

/// The counters of `kernel`'s accesses to its scratch buffer, summed over
/// those `pick` chooses.
fn scratch(kernel: &Kernel, stats: &Stats, pick: impl Fn(&Inst) -> bool) -> Counters {
    let program = kernel.program();
    let last = program.params.len() - 1;
    let mut sum = Counters::default();
    for (inst, c) in program.insts.iter().zip(&stats.per_instruction) {
        let fields = inst.fields();
        if let Some((_, MemRef::Global(g))) = fields.memory() {
            if usize::from(g.buffer.0) == last && pick(inst) {
                sum.add(c);
            }
        }
    }
    sum
}

/// Each run of 32 threads of a block of `block` threads: its 32-byte
/// sectors of one word per thread (4 bytes each, in one 128-byte line).
fn run_sectors(block: u32) -> Vec<u64> {
    (0..block.div_ceil(32))
        .map(|r| u64::from((block - r * 32).min(32).div_ceil(8)))
        .collect()
}

#[test]
fn a_per_thread_histogram_counts_as_the_host_does_and_its_words_interleave() {
    let m = corpus("local");
    let k = kernel(&m, "local_hist");
    let p = |i: usize| format!("_Z10local_histPKjPj_param_{i}");
    // The scratch is not among the parameters the host passes.
    let host: Vec<&str> = k.host_params().iter().map(|p| &*p.name).collect();
    assert_eq!(host, [p(0), p(1)]);
    assert_eq!(k.program().scratch_words, 8);
    let mut rng = Rng::new(5);
    for (grid, block) in [(2u32, 48u32), (3, 64)] {
        let threads = (grid * block) as usize;
        let input = rng.ints(threads * 4, 0, 1 << 20);
        let mut expected = vec![0u32; threads * 8];
        for t in 0..threads {
            for v in &input[t * 4..t * 4 + 4] {
                expected[t * 8 + (v & 7) as usize] += 1;
            }
        }
        for width in WIDTHS {
            let mut out = vec![9u32; threads * 8];
            let stats = Args::new(k)
                .set(&p(0), Arg::buffer(&input))
                .set(&p(1), Arg::buffer_mut(&mut out))
                .launch(&nvidia(grid, block, width).sanitize(true))
                .unwrap();
            assert_eq!(out, expected, "{grid}x{block}, wave{width}");
            assert!(stats.findings.is_empty(), "{:?}", stats.findings);
            // `bins[i] = 0` for the 8 bins: 8 stores of a word per thread
            // (two `st.local.v4.u32`). Each run of 32 threads fills one
            // 128-byte line, at either wave width (a 64-lane wave covers
            // two runs, two lines).
            let zeros = scratch(k, &stats, |i| {
                matches!(
                    i,
                    Inst::GlobalStore {
                        src: Operand::Imm(0),
                        ..
                    }
                )
            });
            let runs = run_sectors(block);
            let groups = u64::from(grid);
            assert_eq!(
                zeros.global_transactions,
                8 * groups * runs.len() as u64,
                "{grid}x{block}, wave{width}"
            );
            assert_eq!(
                zeros.global_sectors,
                8 * groups * runs.iter().sum::<u64>(),
                "{grid}x{block}, wave{width}"
            );
        }
    }
}

#[test]
fn floats_kept_per_thread_in_a_two_dimensional_block_come_back_in_data_order() {
    let m = corpus("local");
    let k = kernel(&m, "local_permute");
    let p = |i: usize| format!("_Z13local_permutePKfPKjPfj_param_{i}");
    let mut rng = Rng::new(17);
    for (grid, block) in [([2u32, 3], [16u32, 4]), ([1, 2], [8, 6])] {
        let width = grid[0] * block[0];
        let threads = (width * grid[1] * block[1]) as usize;
        let input = rng.f32s(threads * 16, -4.0, 4.0);
        let order = rng.ints(threads, 0, 1 << 16);
        let expected: Vec<f32> = (0..threads)
            .map(|t| {
                let v = &input[t * 16..t * 16 + 16];
                let o = order[t];
                (0..16u32).fold(0.0f32, |acc, i| {
                    acc.mul_add(0.5, v[(o.wrapping_add(i * 7) & 15) as usize])
                })
            })
            .collect();
        for wave in WIDTHS {
            let mut out = vec![0f32; threads];
            Args::new(k)
                .set(&p(0), Arg::buffer(&input))
                .set(&p(1), Arg::buffer(&order))
                .set(&p(2), Arg::buffer_mut(&mut out))
                .set(&p(3), width)
                .launch(&nvidia(grid, block, wave))
                .unwrap();
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&out),
                bits(&expected),
                "{grid:?}x{block:?}, wave{wave}"
            );
        }
    }
}

#[test]
fn doubles_in_local_memory_move_a_word_at_a_time() {
    let m = corpus("local");
    let k = kernel(&m, "local_f64");
    let p = |i: usize| format!("_Z9local_f64PKdPKjPd_param_{i}");
    let mut rng = Rng::new(23);
    let threads = 96usize;
    let input: Vec<f64> = (0..threads * 4)
        .map(|_| (rng.next() >> 11) as f64 / (1u64 << 40) as f64 - 1000.0)
        .collect();
    let pick = rng.ints(threads, 0, 1000);
    let expected: Vec<f64> = (0..threads)
        .map(|t| {
            let mut v = [0f64; 4];
            v.copy_from_slice(&input[t * 4..t * 4 + 4]);
            let j = (pick[t] & 3) as usize;
            v[j] += 1.0;
            v[(j + 1) & 3] - v[j]
        })
        .collect();
    for width in WIDTHS {
        let mut out = vec![0f64; threads];
        let stats = Args::new(k)
            .set(&p(0), Arg::buffer(&input))
            .set(&p(1), Arg::buffer(&pick))
            .set(&p(2), Arg::buffer_mut(&mut out))
            .launch(&nvidia(3, 32, width))
            .unwrap();
        assert_eq!(out, expected, "wave{width}");
        // Two `st.local.v2.f64` per thread: 8 words, each a whole line of
        // its run (the blocks are one run each).
        let stores = scratch(k, &stats, |i| matches!(i, Inst::GlobalStore { .. }));
        let loads = scratch(k, &stats, |i| matches!(i, Inst::GlobalLoad { .. }));
        // The 8 words stored, then `v[j] += 1` (2 words), then 2 words
        // loaded for `v[j]` and 2 for `v[(j + 1) & 3]`: one request per
        // word per block.
        assert_eq!(stores.global_accesses, 3 * (8 + 2), "wave{width}");
        assert_eq!(loads.global_accesses, 3 * (2 + 2), "wave{width}");
    }
}

#[test]
fn bytes_in_local_memory_reverse_as_the_host_does() {
    let m = corpus("local");
    let k = kernel(&m, "local_bytes");
    let p = |i: usize| format!("_Z11local_bytesPKhPKjPh_param_{i}");
    let mut rng = Rng::new(29);
    let threads = 80usize;
    let input: Vec<u8> = (0..threads * 12).map(|_| rng.next() as u8).collect();
    let len = rng.ints(threads, 0, 1000);
    let expected: Vec<u8> = (0..threads)
        .flat_map(|t| {
            let mut s = input[t * 12..t * 12 + 12].to_vec();
            let n = (len[t] % 13) as usize;
            s[..n].reverse();
            s
        })
        .collect();
    for width in WIDTHS {
        let mut out = vec![0u8; threads * 12];
        Args::new(k)
            .set(&p(0), Arg::buffer(&input))
            .set(&p(1), Arg::buffer(&len))
            .set(&p(2), Arg::buffer_mut(&mut out))
            .launch(&nvidia(2, 40, width))
            .unwrap();
        assert_eq!(out, expected, "wave{width}");
    }
}
