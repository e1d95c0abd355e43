//! Buffers and LDS arrays of 64-bit elements (`f64`, `u64`, `i64`): an element
//! index counts 8 bytes, the wide `_x2` form moves one element into a register
//! pair and `_x4` two, every counter sees the element's 8 bytes, and a
//! one-register access of such an element is a compile error (`tests/ui`).

use simt::core::{Error, FaultKind, LaunchConfig, MemoryModel};
use simt::simt_kernel;

simt_kernel! {
    /// `y[i] = x[i] * x[i] + 0.5` in double precision.
    kernel square_plus_half(x: &[f64], y: &mut [f64]) {
        vreg a0, a1, c0, c1;
        global_load_x2 [a0, a1], x[global_id]
        v_mul_f64 [a0, a1], [a0, a1], [a0, a1]
        v_cvt_f64_f32 [c0, c1], 0.5
        v_add_f64 [a0, a1], [a0, a1], [c0, c1]
        global_store_x2 y[global_id], [a0, a1]
    }

    /// `out[i] = x[2i] + x[2i + 1] - k[i]`, wrapping: an `_x4` load of two
    /// `u64` elements, an `i64` buffer subtracted.
    kernel pair_sums(x: &[u64], k: &[i64], out: &mut [u64]) {
        vreg i, a0, a1, b0, b1, d0, d1;
        v_mul_u32 i, global_id, 2
        global_load_x4 [a0, a1, b0, b1], x[i]
        v_add_u64 [a0, a1], [a0, a1], [b0, b1]
        global_load_x2 [d0, d1], k[global_id]
        v_sub_u64 [a0, a1], [a0, a1], [d0, d1]
        global_store_x2 out[global_id], [a0, a1]
    }

    /// Through an LDS array of `f64`, `stride` elements apart: each lane
    /// writes its value, and reads back its neighbour's.
    kernel through_lds(x: &[f64], y: &mut [f64], stride: u32) {
        lds t: [f64; 64 * 4];
        vreg a0, a1, at, next;
        global_load_x2 [a0, a1], x[global_id]
        v_mul_u32 at, lane_id, stride
        lds_store_x2 t[at], [a0, a1]
        v_add_u32 next, lane_id, 1
        v_and next, next, 31
        v_mul_u32 next, next, stride
        lds_load_x2 [a0, a1], t[next]
        global_store_x2 y[global_id], [a0, a1]
    }

    /// One element per work-item, read at an element index and at the
    /// same element's byte offset, `8 i`.
    kernel by_bytes(x: &[f64], y: &mut [u32]) {
        vreg a0, a1, b, w;
        v_mul_u32 b, global_id, 8
        global_load_x2 [a0, a1], x.bytes[b]
        global_load_u32 w, x.bytes[b]
        v_sub_u32 w, w, a0
        v_add_u32 w, w, a1
        global_store y[global_id], w
    }
}

const VALUES: [f64; 8] = [1.5, 0.1, 1e10, -3.0, 0.0, -0.25, 7.0, 1e-300];

#[test]
fn f64_buffers_load_and_store_whole_elements_at_both_widths() {
    let x: Vec<f64> = (0..64).map(|i| VALUES[i % 8] * (i as f64 + 1.0)).collect();
    let expected: Vec<f64> = x.iter().map(|v| v * v + 0.5).collect();
    for width in [32, 64] {
        let mut y = vec![0f64; 64];
        let config = LaunchConfig::new(2, 32).wave_width(width);
        let stats = square_plus_half::launch(&config, &x, &mut y).unwrap();
        assert_eq!(y, expected, "wave{width}");
        // 64 work-items, 8 bytes each way.
        let t = stats.totals;
        assert_eq!(t.global_bytes_requested, 2 * 64 * 8);
    }
}

#[test]
fn a_contiguous_f64_access_counts_the_elements_bytes() {
    let x = vec![1f64; 64];
    let mut y = vec![0f64; 64];
    // nvidia: 32-lane phases, 128-byte lines of 32-byte sectors. One wave of
    // 32 lanes moves 32 * 8 = 256 contiguous bytes: 2 lines, 8 sectors, one
    // access, and all of the lines' bytes are used.
    let config = LaunchConfig::new(1, 32).model(MemoryModel::nvidia());
    let stats = square_plus_half::launch(&config, &x, &mut y).unwrap();
    let load = &stats.per_instruction[0];
    assert_eq!(load.global_accesses, 1);
    assert_eq!(load.global_transactions, 2);
    assert_eq!(load.global_sectors, 8);
    assert_eq!(load.global_bytes_requested, 256);
    assert_eq!(load.global_bytes_moved, 256);
    // The same at wave64: two phases of 32 lanes, 2 lines each.
    let mut y = vec![0f64; 64];
    let config = LaunchConfig::new(1, 64)
        .model(MemoryModel::nvidia())
        .wave_width(64);
    let stats = square_plus_half::launch(&config, &x, &mut y).unwrap();
    let load = &stats.per_instruction[0];
    assert_eq!((load.global_accesses, load.global_transactions), (2, 4));
    assert_eq!(load.global_sectors, 16);
}

#[test]
fn an_x4_access_moves_two_u64_elements_and_an_i64_buffer_reads_as_its_bits() {
    let n = 40;
    let x: Vec<u64> = (0..2 * n as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let k: Vec<i64> = (0..n as i64).map(|i| i * 1_000_000_007 - 3).collect();
    let expected: Vec<u64> = (0..n)
        .map(|i| {
            x[2 * i]
                .wrapping_add(x[2 * i + 1])
                .wrapping_sub(k[i] as u64)
        })
        .collect();
    let mut out = vec![0u64; n];
    let config = LaunchConfig::new(1, n as u32).model(MemoryModel::nvidia());
    let stats = pair_sums::launch(&config, &x, &k, &mut out).unwrap();
    assert_eq!(out, expected);
    // The `_x4` load: wave 0's 32 lanes take 16 contiguous bytes each, 512
    // bytes in 4 lines and 16 sectors; wave 1's 8 lanes take 128 bytes, one
    // line of 4 sectors.
    let x4 = &stats.per_instruction[1];
    assert_eq!((x4.global_accesses, x4.global_transactions), (2, 5));
    assert_eq!(x4.global_sectors, 20);
    assert_eq!(x4.global_bytes_requested, 40 * 16);
}

#[test]
fn lds_f64_elements_count_bank_conflicts_on_their_words() {
    let x: Vec<f64> = (0..32).map(|i| i as f64 * 0.5 - 3.0).collect();
    let neighbour: Vec<f64> = (0..32).map(|i| x[(i + 1) % 32]).collect();
    // 32 banks of 4 bytes; an 8-byte access is served in sub-phases of 16
    // lanes. Stride 1: 16 lanes cover 128 contiguous bytes, every bank once,
    // no conflict. Stride 2: 16 lanes, 16 bytes apart, touch words 4l and
    // 4l + 1, so banks 0, 1, 4, 5, ... twice each: one extra cycle per
    // sub-phase, 2 per access. Stride 4: 32 bytes apart, four words per bank,
    // 3 extra cycles per sub-phase.
    for (stride, cycles) in [(1u32, 0u64), (2, 2), (4, 6)] {
        let mut y = vec![0f64; 32];
        let stats = through_lds::launch(&LaunchConfig::new(1, 32), &x, &mut y, stride).unwrap();
        assert_eq!(y, neighbour, "stride {stride}");
        let (store, load) = (&stats.per_instruction[2], &stats.per_instruction[6]);
        assert_eq!(store.lds_conflict_cycles, cycles, "store, stride {stride}");
        assert_eq!(load.lds_conflict_cycles, cycles, "load, stride {stride}");
        assert_eq!(store.lds_bytes_requested, 32 * 8);
    }
}

#[test]
fn an_f64_element_past_the_end_faults_at_its_index() {
    let x = vec![2f64; 33];
    let mut y = vec![0f64; 40];
    // Work-item 33 reads element 33 of 33: bytes 264..272 of 264.
    let err = square_plus_half::launch(&LaunchConfig::new(1, 40), &x, &mut y).unwrap_err();
    let Error::Fault(f) = err else {
        panic!("expected a fault, got {err:?}")
    };
    assert_eq!((f.wave, f.lane), (1, Some(1)));
    match f.kind {
        FaultKind::GlobalOutOfBounds {
            index,
            offset,
            size,
            ..
        } => assert_eq!((index, offset, size), (33, 264, 8)),
        other => panic!("expected an out-of-bounds load, got {other:?}"),
    }
}

#[test]
fn byte_offsets_address_the_same_elements() {
    let x: Vec<f64> = (0..32).map(|i| VALUES[i % 8] + i as f64).collect();
    let mut y = vec![1u32; 32];
    by_bytes::launch(&LaunchConfig::new(1, 32), &x, &mut y).unwrap();
    // The one-word load at the element's byte offset reads its low word:
    // `lo - lo + hi` is the high word.
    let expected: Vec<u32> = x.iter().map(|v| (v.to_bits() >> 32) as u32).collect();
    assert_eq!(y, expected);
}
