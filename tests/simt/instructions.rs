//! The atomics, lane exchange, wave reductions, scalar multiply-add, memory
//! offsets and wide accesses, written with `simt_kernel!` and checked against
//! host arithmetic at wave32 and wave64, with inactive lanes left untouched.

use simt::core::{LaunchConfig, MemoryModel};
use simt::simt_kernel;

/// What inactive lanes' registers hold: the kernels below set it first.
const UNTOUCHED: u32 = 0xdead;

simt_kernel! {
    /// In odd lanes only, four shuffles of `x`; every lane stores all four.
    kernel shuffles(x: &[u32], out: &mut [u32], n: u32) {
        vreg i, v, bit, a, b, c, d, base;
        mreg odd;
        v_mov i, global_id
        global_load v, x[i]
        v_mov a, 0xdead
        v_mov b, 0xdead
        v_mov c, 0xdead
        v_mov d, 0xdead
        v_and bit, lane_id, 1
        v_cmp_eq_u32 odd, bit, 1
        if odd
            v_shfl_idx a, v, n
            v_shfl_xor b, v, 2
            v_shfl_up c, v, 2
            v_shfl_down d, v, 4
        endif
        v_mul_u32 base, i, 4
        global_store out[base], a
        global_store out[base + 1], b
        global_store out[base + 2], c
        global_store out[base + 3], d
    }

    /// Per wave, in odd lanes: ballots, counts, the first lane's and lane 5's
    /// `x`; lane 0 of each wave stores them at `out[8 * wave_id ..]`.
    kernel reductions(x: &[u32], out: &mut [u32]) {
        sreg lo, hi, count, active, first, fifth, mad, base;
        vreg v, bit, word;
        mreg odd, lane0, all;
        global_load v, x[global_id]
        v_and bit, lane_id, 1
        v_cmp_eq_u32 odd, bit, 1
        s_cmp_eq_u32 all, 0, 0
        if odd
            s_ballot lo, odd
            s_ballot_hi hi, odd
            s_bcnt count, all
            s_active_lanes active
            v_readfirstlane first, v
            v_readlane fifth, v, 5
        endif
        s_mad_u32 mad, wave_id, 10, 3
        s_mul_u32 base, wave_id, 8
        v_cmp_eq_u32 lane0, lane_id, 0
        if lane0
            global_store out[base], lo
            global_store out[base + 1], hi
            global_store out[base + 2], count
            global_store out[base + 3], active
            global_store out[base + 4], first
            global_store out[base + 5], fifth
            global_store out[base + 6], mad
        endif
    }

    /// Every odd lane adds 1 to `counters[0]` and keeps the old value; takes
    /// the maximum and minimum of its id into `counters[1]` and `[2]`; adds 0.5
    /// to `sum[0]`; and swaps its id into `counters[3]` when it holds `id - 2`
    /// (so the odd lanes form a chain). The LDS counter counts the group's odd
    /// lanes; lane 0 of the group stores it.
    kernel atomics(counters: &mut [u32], sum: &mut [f32], old: &mut [u32], swapped: &mut [u32], groups: &mut [u32]) {
        lds hits: [u32; 1];
        vreg i, o, bit, prev, s;
        mreg odd, first;
        v_mov i, global_id
        v_mov o, 0xdead
        v_mov s, 0xdead
        v_and bit, lane_id, 1
        v_cmp_eq_u32 odd, bit, 1
        if odd
            global_atomic_add_u32 o, counters[0], 1
            global_atomic_max_u32 counters[1], i
            global_atomic_min_i32 counters[2], i
            global_atomic_add_f32 sum[0], 0.5
            v_sub_u32 prev, i, 2
            global_atomic_cmpswap s, counters[3], prev, i
            lds_atomic_add_u32 hits[0], 1
        endif
        global_store old[i], o
        global_store swapped[i], s
        barrier
        v_cmp_eq_u32 first, local_id, 0
        if first
            lds_load o, hits[0]
            global_store groups[group_id], o
        endif
    }

    /// `out[i] = x[i + 4] + x[i + k] + x[i - 2] + x[i + t]` with `t` a scalar register.
    kernel offsets(x: &[u32], out: &mut [u32], k: u32) {
        sreg t;
        vreg i, a, b;
        s_add_u32 t, k, 1
        v_add_u32 i, global_id, 2
        global_load a, x[i + 4]
        global_load b, x[i + k]
        v_add_u32 a, a, b
        global_load b, x[i - 2]
        v_add_u32 a, a, b
        global_load b, x[i + t]
        v_add_u32 a, a, b
        global_store out[global_id], a
    }

    /// Each lane moves four consecutive floats through LDS, doubled in odd
    /// lanes only.
    kernel wide(x: &[f32], out: &mut [f32]) {
        lds tile: [f32; 4 * 256];
        vreg q0, q1, q2, q3, i, bit;
        mreg odd;
        v_mul_u32 i, global_id, 4
        global_load_x4 [q0, q1, q2, q3], x[i]
        v_mul_u32 i, local_id, 4
        lds_store_x4 tile[i], [q0, q1, q2, q3]
        v_and bit, lane_id, 1
        v_cmp_eq_u32 odd, bit, 1
        if odd
            lds_load_x4 [q0, q1, q2, q3], tile[i]
            v_add_f32 q0, q0, q0
            v_add_f32 q1, q1, q1
            v_add_f32 q2, q2, q2
            v_add_f32 q3, q3, q3
        endif
        v_mul_u32 i, global_id, 4
        global_store_x4 out[i], [q0, q1, q2, q3]
    }
}

simt_kernel! {
    /// In odd lanes only: shuffles whose source lanes are inactive (`l ^ 1`
    /// and lane 4 are even), ballots and a count of a mask (`lane_id % 3 ==
    /// 0`) that differs from exec, and `v_readlane` of an inactive lane (4) and
    /// an active one (5) of a register written in odd lanes only. Lane 0 of
    /// each wave stores the scalars at `out[5 * wave_id ..]`.
    kernel inactive_sources(x: &[u32], lanes: &mut [u32], out: &mut [u32]) {
        sreg lo, hi, count, four, five, base;
        vreg v, w, bit, a, b, third, i;
        mreg odd, thirds, lane0;
        global_load v, x[global_id]
        v_mov w, 0xdead
        v_mov a, 0xdead
        v_mov b, 0xdead
        v_and bit, lane_id, 1
        v_cmp_eq_u32 odd, bit, 1
        v_rem_u32 third, lane_id, 3
        v_cmp_eq_u32 thirds, third, 0
        if odd
            v_add_u32 w, v, 1
            v_shfl_xor a, v, 1
            v_shfl_idx b, v, 4
            s_ballot lo, thirds
            s_ballot_hi hi, thirds
            s_bcnt count, thirds
            v_readlane four, w, 4
            v_readlane five, w, 5
        endif
        v_mul_u32 i, global_id, 2
        global_store lanes[i], a
        global_store lanes[i + 1], b
        s_mul_u32 base, wave_id, 5
        v_cmp_eq_u32 lane0, lane_id, 0
        if lane0
            global_store out[base], lo
            global_store out[base + 1], hi
            global_store out[base + 2], count
            global_store out[base + 3], four
            global_store out[base + 4], five
        endif
    }

    /// Pairs through the `_x2` forms: each lane loads `x[2i], x[2i + 1]`, puts
    /// them in LDS, and odd lanes take their even neighbour's pair into
    /// `out`. Then every lane reads the pair at word `4 * (local_id
    /// % 32)` into `out2`.
    kernel pairs(x: &[u32], out: &mut [u32], out2: &mut [u32]) {
        lds tile: [u32; 2 * 128];
        vreg p0, p1, q0, q1, i, j, bit;
        mreg odd;
        v_mul_u32 i, global_id, 2
        global_load_x2 [p0, p1], x[i]
        v_mul_u32 j, local_id, 2
        lds_store_x2 tile[j], [p0, p1]
        barrier
        v_and bit, lane_id, 1
        v_cmp_eq_u32 odd, bit, 1
        if odd
            v_sub_u32 j, j, 2
            lds_load_x2 [p0, p1], tile[j]
        endif
        global_store_x2 out[i], [p0, p1]
        v_and j, local_id, 31
        v_mul_u32 j, j, 4
        lds_load_x2 [q0, q1], tile[j]
        global_store_x2 out2[i], [q0, q1]
    }
}

simt_kernel! {
    /// Odd lanes load `x[4i..4i + 2]` and `x[4i..4i + 4]` and store the
    /// latter to `out`; every lane stores the pair to `pair`.
    kernel masked_wide(x: &[u32], out: &mut [u32], pair: &mut [u32]) {
        vreg q0, q1, r0, r1, r2, r3, i, j, bit;
        mreg odd;
        v_mov q0, 0xdead
        v_mov q1, 0xdead
        v_mul_u32 i, global_id, 4
        v_mul_u32 j, global_id, 2
        v_and bit, lane_id, 1
        v_cmp_eq_u32 odd, bit, 1
        if odd
            global_load_x2 [q0, q1], x[i]
            global_load_x4 [r0, r1, r2, r3], x[i]
            global_store_x4 out[i], [r0, r1, r2, r3]
        endif
        global_store_x2 pair[j], [q0, q1]
    }
}

fn input(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|k| k.wrapping_mul(2_654_435_761) >> 7)
        .collect()
}

#[test]
fn shuffles_match_the_host() {
    for width in [32usize, 64] {
        let (groups, size, n) = (2u32, 128u32, 37u32);
        let total = (groups * size) as usize;
        let x = input(total);
        let mut out = vec![0u32; 4 * total];
        let config = LaunchConfig::new(groups, size).wave_width(width as u32);
        shuffles::launch(&config, &x, &mut out, n).unwrap();
        for g in 0..total {
            let (wave_start, l) = (g - g % width, g % width);
            let active = |lane: usize| lane % 2 == 1;
            // A source lane outside the wave or inactive gives the lane its own value.
            let from = |src: Option<usize>| match src {
                Some(s) if s < width && active(s) => x[wave_start + s],
                _ => x[g],
            };
            let want = if active(l) {
                [
                    from(Some(n as usize % width)),
                    from(Some(l ^ 2)),
                    from(l.checked_sub(2)),
                    from(Some(l + 4)),
                ]
            } else {
                [UNTOUCHED; 4]
            };
            assert_eq!(&out[4 * g..4 * g + 4], &want, "wave{width} lane {g}");
        }
    }
}

#[test]
fn wave_reductions_are_per_wave() {
    for width in [32u32, 64] {
        let size = 128u32;
        let x = input(size as usize);
        let mut out = vec![0u32; 8 * (size / width) as usize];
        let config = LaunchConfig::new(1, size).wave_width(width);
        reductions::launch(&config, &x, &mut out).unwrap();
        for w in 0..(size / width) as usize {
            let base = w * width as usize;
            let odd_lanes = width / 2;
            let (lo, hi) = if width == 32 {
                (0xaaaa_aaaa, 0)
            } else {
                (0xaaaa_aaaa, 0xaaaa_aaaa)
            };
            assert_eq!(
                &out[8 * w..8 * w + 7],
                &[
                    lo,
                    hi,
                    odd_lanes,
                    odd_lanes,
                    x[base + 1],
                    x[base + 5],
                    w as u32 * 10 + 3
                ],
                "wave{width} wave {w}"
            );
        }
    }
}

#[test]
fn atomics_apply_in_lane_order_and_count_contention() {
    for width in [32u32, 64] {
        let (groups, size) = (3u32, 128u32);
        let total = (groups * size) as usize;
        let mut counters = vec![0u32, 0, i32::MAX as u32, u32::MAX];
        let mut sum = vec![0.25f32];
        let mut old = vec![0u32; total];
        let mut swapped = vec![0u32; total];
        let mut per_group = vec![0u32; groups as usize];
        let config = LaunchConfig::new(groups, size).wave_width(width);
        let stats = atomics::launch(
            &config,
            &mut counters,
            &mut sum,
            &mut old,
            &mut swapped,
            &mut per_group,
        )
        .unwrap();
        let odd: Vec<usize> = (0..total).filter(|g| g % 2 == 1).collect();
        // Workgroups run in order, waves within a group too (no barrier before
        // the atomics), lanes in lane order: the k-th odd lane sees k.
        for (k, &g) in odd.iter().enumerate() {
            assert_eq!(old[g], k as u32, "old value at {g}");
        }
        for g in (0..total).filter(|g| g % 2 == 0) {
            assert_eq!((old[g], swapped[g]), (UNTOUCHED, UNTOUCHED));
        }
        // The chain 1 -> 3 -> 5 ...: lane g finds g - 2 there, so every swap
        // succeeds and returns its predecessor.
        for &g in &odd {
            assert_eq!(swapped[g], (g as u32).wrapping_sub(2), "swap at {g}");
        }
        let n = odd.len() as u32;
        assert_eq!(counters, [n, total as u32 - 1, 1, total as u32 - 1]);
        assert_eq!(sum[0], 0.25 + 0.5 * n as f32);
        assert_eq!(per_group, vec![size / 2; groups as usize]);
        // Five global atomics and one LDS atomic per wave, one phase each at
        // wave32 and two at wave64; each aims all 16 active lanes of a phase at
        // one word, so 15 of them wait.
        let phases = (total / 32) as u64;
        let t = &stats.totals;
        assert_eq!(t.atomic_accesses, 6 * phases);
        assert_eq!(t.atomic_contention, 6 * phases * 15);
    }
}

#[test]
fn offsets_add_to_the_index() {
    for width in [32u32, 64] {
        let x = input(256 + 16);
        let mut out = vec![0u32; 256];
        let k = 5;
        let config = LaunchConfig::new(2, 128).wave_width(width);
        offsets::launch(&config, &x, &mut out, k).unwrap();
        for (g, &got) in out.iter().enumerate() {
            let i = g + 2;
            let want = x[i + 4]
                .wrapping_add(x[i + k as usize])
                .wrapping_add(x[i - 2])
                .wrapping_add(x[i + k as usize + 1]);
            assert_eq!(got, want, "wave{width} item {g}");
        }
    }
}

#[test]
fn wide_accesses_move_four_elements_and_count_whole_spans() {
    for width in [32u32, 64] {
        let (groups, size) = (2u32, 256u32);
        let total = (groups * size) as usize;
        let x: Vec<f32> = (0..4 * total).map(|k| k as f32 * 0.5).collect();
        let mut out = vec![0f32; 4 * total];
        let config = LaunchConfig::new(groups, size)
            .wave_width(width)
            .model(MemoryModel::nvidia());
        let stats = wide::launch(&config, &x, &mut out).unwrap();
        for g in 0..total {
            let mine = &x[4 * g..4 * g + 4];
            let want: Vec<f32> = if g % 2 == 1 {
                mine.iter().map(|v| v + v).collect()
            } else {
                mine.to_vec()
            };
            assert_eq!(&out[4 * g..4 * g + 4], &want[..], "wave{width} item {g}");
        }
        // Per 32-lane phase, a contiguous x4 access touches 512 bytes: 16
        // sectors of 32 bytes in 4 lines of 128. One load and one store per
        // phase; 16 phases per group.
        let phases = (total / 32) as u64;
        let load = wide::PROGRAM
            .insts
            .iter()
            .position(|i| matches!(i, simt::core::Inst::GlobalLoadWide { .. }))
            .unwrap();
        let c = &stats.per_instruction[load];
        assert_eq!(
            (c.global_accesses, c.global_sectors, c.global_transactions),
            (phases, 16 * phases, 4 * phases)
        );
        // The LDS store: 8-lane quarter phases, each 32 consecutive words over
        // 32 banks, so no conflict; the load of odd lanes reads every other
        // 16-byte span: 4 lanes x 4 words per quarter, 16 distinct banks.
        let t = &stats.totals;
        assert_eq!(t.lds_accesses, 2 * phases);
        let lds_load = wide::PROGRAM
            .insts
            .iter()
            .position(|i| matches!(i, simt::core::Inst::LdsLoadWide { .. }))
            .unwrap();
        assert_eq!(stats.per_instruction[lds_load].lds_conflict_cycles, 0);
        assert_eq!(t.lds_conflict_cycles, 0);
    }
}

#[test]
fn disassembly_prints_the_kernel_back() {
    let text = offsets::PROGRAM.display().to_string();
    assert!(text.contains("global_load a, x[i + 4]"), "{text}");
    assert!(text.contains("global_load b, x[i + k]"), "{text}");
    assert!(text.contains("global_load b, x[i - 2]"), "{text}");
    assert!(text.contains("global_load b, x[i + t]"), "{text}");
    let wide = wide::PROGRAM.display().to_string();
    assert!(
        wide.contains("global_load_x4 [q0, q1, q2, q3], x[i]"),
        "{wide}"
    );
    assert!(wide.contains("lds tile: [f32; 1024];"), "{wide}");
}

#[test]
fn inactive_lanes_are_not_read_by_shuffles_but_are_by_readlane() {
    for width in [32usize, 64] {
        let size = 128usize;
        let x = input(size);
        let mut lanes = vec![0u32; 2 * size];
        let mut out = vec![0u32; 5 * (size / width)];
        let config = LaunchConfig::new(1, size as u32).wave_width(width as u32);
        inactive_sources::launch(&config, &x, &mut lanes, &mut out).unwrap();
        for g in 0..size {
            // Lane l ^ 1 and lane 4 are even, so inactive: an odd lane keeps its own.
            let want = if g % 2 == 1 {
                [x[g], x[g]]
            } else {
                [UNTOUCHED; 2]
            };
            assert_eq!(&lanes[2 * g..2 * g + 2], &want, "wave{width} item {g}");
        }
        for w in 0..size / width {
            // Odd lanes with lane % 3 == 0: 3, 9, 15, 21, 27 below 32 (bits
            // 0x8 | 0x200 | 0x8000 | 0x20_0000 | 0x800_0000), and 33, 39, 45,
            // 51, 57, 63 above (bits 1, 7, 13, 19, 25, 31 of the high word).
            // A ballot of exec would give 0xaaaa_aaaa, a ballot of the mask
            // alone 0x4924_9249.
            let (hi, count) = if width == 32 {
                (0, 5)
            } else {
                (0x8208_2082, 11)
            };
            // Lane 4 never wrote `w` (0xdead); lane 5 wrote x + 1.
            let five = x[w * width + 5] + 1;
            assert_eq!(
                &out[5 * w..5 * w + 5],
                &[0x0820_8208, hi, count, UNTOUCHED, five],
                "wave{width} wave {w}"
            );
        }
    }
}

#[test]
fn pairs_move_through_the_x2_forms_and_count_half_phases() {
    for width in [32u32, 64] {
        let (groups, size) = (2usize, 128usize);
        let total = groups * size;
        let x: Vec<u32> = (0..2 * total as u32).map(|k| k * 7 + 1).collect();
        let mut out = vec![0u32; 2 * total];
        let mut out2 = vec![0u32; 2 * total];
        let config = LaunchConfig::new(groups as u32, size as u32).wave_width(width);
        let stats = pairs::launch(&config, &x, &mut out, &mut out2).unwrap();
        for g in 0..total {
            let from = if g % 2 == 1 { g - 1 } else { g };
            assert_eq!(
                (out[2 * g], out[2 * g + 1]),
                (x[2 * from], x[2 * from + 1]),
                "wave{width} item {g}"
            );
            let m = (g % size) % 32;
            let src = g - g % size + 2 * m;
            assert_eq!(
                (out2[2 * g], out2[2 * g + 1]),
                (x[2 * src], x[2 * src + 1]),
                "wave{width} item {g} (strided)"
            );
        }
        let at = |pred: fn(&simt::core::Inst) -> bool, nth: usize| {
            let k = pairs::PROGRAM
                .insts
                .iter()
                .enumerate()
                .filter(|(_, i)| pred(i))
                .nth(nth)
                .unwrap()
                .0;
            stats.per_instruction[k]
        };
        use simt::core::Inst;
        // 256 items in 32-lane phases: 8 phases at either width. A phase of
        // the x2 load or store spans 32 x 8 = 256 contiguous bytes, 4 lines
        // (and sectors) of 64 bytes: 32 transactions over the launch.
        let load = at(|i| matches!(i, Inst::GlobalLoadWide { .. }), 0);
        let store = at(|i| matches!(i, Inst::GlobalStoreWide { .. }), 0);
        for c in [load, store] {
            assert_eq!(
                (c.global_accesses, c.global_transactions, c.global_sectors),
                (8, 32, 32)
            );
            // 256 lanes x 8 bytes.
            assert_eq!(c.global_bytes_requested, 2048);
        }
        // LDS x2 phases are served in two 16-lane halves. The store writes 32
        // consecutive words per half: no conflict. The odd lanes' load reads
        // words 0-1, 4-5, ... 28-29 of a half: distinct banks. The strided
        // load reads words 4m and 4m + 1 for m = 0..15 per half: lanes m and
        // m + 8 meet in bank 4m % 32 with different words, one cycle per half,
        // two per phase, 16 over the 8 phases.
        let lds_store = at(|i| matches!(i, Inst::LdsStoreWide { .. }), 0);
        let odd_load = at(|i| matches!(i, Inst::LdsLoadWide { .. }), 0);
        let strided = at(|i| matches!(i, Inst::LdsLoadWide { .. }), 1);
        assert_eq!(
            (lds_store.lds_accesses, lds_store.lds_conflict_cycles),
            (8, 0)
        );
        assert_eq!(
            (odd_load.lds_accesses, odd_load.lds_conflict_cycles),
            (8, 0)
        );
        assert_eq!((strided.lds_accesses, strided.lds_conflict_cycles), (8, 16));
        // 128 odd lanes x 8 bytes.
        assert_eq!(odd_load.lds_bytes_requested, 1024);
    }
}

#[test]
fn wide_global_accesses_under_a_partial_mask() {
    for width in [32u32, 64] {
        let total = 256usize;
        let x: Vec<u32> = (0..4 * total as u32).map(|k| k * 3 + 1).collect();
        let mut out = vec![0u32; 4 * total];
        let mut pair = vec![0u32; 2 * total];
        let config = LaunchConfig::new(2, 128).wave_width(width);
        let stats = masked_wide::launch(&config, &x, &mut out, &mut pair).unwrap();
        for g in 0..total {
            let (want4, want2) = if g % 2 == 1 {
                (x[4 * g..4 * g + 4].to_vec(), vec![x[4 * g], x[4 * g + 1]])
            } else {
                (vec![0; 4], vec![UNTOUCHED; 2])
            };
            assert_eq!(&out[4 * g..4 * g + 4], &want4[..], "wave{width} item {g}");
            assert_eq!(&pair[2 * g..2 * g + 2], &want2[..], "wave{width} item {g}");
        }
        use simt::core::Inst;
        let nth = |pred: fn(&Inst) -> bool| {
            let k = masked_wide::PROGRAM.insts.iter().position(pred).unwrap();
            stats.per_instruction[k]
        };
        let x2 = nth(|i| {
            matches!(
                i,
                Inst::GlobalLoadWide {
                    width: simt::core::Width::X2,
                    ..
                }
            )
        });
        let x4 = nth(|i| {
            matches!(
                i,
                Inst::GlobalLoadWide {
                    width: simt::core::Width::X4,
                    ..
                }
            )
        });
        // 8 phases of 32 lanes, 16 odd lanes active in each. A lane's span
        // starts at byte 16i: the phase covers 512 bytes, 8 lines of 64, and
        // every line holds the start of two odd lanes, so the x2 (8 bytes) and
        // x4 (16 bytes) loads both touch all 8. Requested: 16 lanes x 8 or 16
        // bytes per phase.
        for (c, size) in [(x2, 8), (x4, 16)] {
            assert_eq!(
                (c.global_accesses, c.global_transactions, c.global_sectors),
                (8, 64, 64),
                "wave{width}"
            );
            assert_eq!(c.global_bytes_requested, 8 * 16 * size);
            assert_eq!(c.active_lanes, 128);
            assert_eq!(c.divergent_vector_instructions, 256 / u64::from(width));
        }
    }
}
