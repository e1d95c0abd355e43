//! The absolute headline counts of the studies, counted by hand from each kernel's
//! text and launch shape (`studies.rs` checks the studies' ratios; a ratio
//! survives a formula that is wrong by a common factor, these do not). Every study
//! runs at seed 42, at both widths.

use simt::core::Counters;
use simt_kernels::studies::{self, mandelbrot, StudyResult};

fn run(name: &str, width: u32) -> StudyResult {
    let study = studies::find(name).unwrap();
    let result = (study.run)(42, width).unwrap();
    assert!(result.passed, "{name} wave{width}:\n{}", result.table());
    result
}

fn region(result: &StudyResult, name: &str) -> Counters {
    result.variant(name).unwrap().region.unwrap()
}

fn stats(result: &StudyResult, name: &str) -> Counters {
    result.variant(name).unwrap().stats
}

const WIDTHS: [u32; 2] = [32, 64];

#[test]
fn divergent_paths() {
    for width in WIDTHS {
        let r = run("divergent_paths", width);
        // 16 x 256 items: 4096 / width waves. A path is two v_mov (its
        // constants), s_mov, loop and 64 trips of fma, s_add, s_cmp, endloop:
        // 260 issues. By lane every wave runs both paths (520); by wave one,
        // and jumps over the other: a skip counts the body's 8 instructions
        // as written, not its trips. The v_movs and the fma are the paths'
        // vector instructions: by lane they run under half the wave, 2 x
        // (2 + 64) = 132 divergent issues per wave.
        let waves = 4096 / u64::from(width);
        let lanes = region(&r, "divergent_lanes");
        let warps = region(&r, "divergent_warps");
        assert_eq!(lanes.instructions, 520 * waves);
        assert_eq!(
            (warps.instructions, warps.skipped_instructions),
            (260 * waves, 8 * waves)
        );
        assert_eq!(
            stats(&r, "divergent_lanes").divergent_vector_instructions,
            132 * waves
        );
    }
}

#[test]
fn switch32_and_kway() {
    for width in WIDTHS {
        // switch_cases over 4 x 256 items, 1024 / width waves. Per wave: load,
        // v_rem, s_mov, loop; per case v_cmp, s_cvt, if, endif, s_add, s_cmp,
        // endloop (7) and the 4 fma of the body when a lane picked it; store,
        // end. With 32 cases, k = 1 runs one body (4 + 224 + 4 + 2 = 234),
        // k = 32 all 32 (4 + 32 x 11 + 2 = 358), lanes l and l + 32 sharing a
        // case at wave64.
        let waves = 1024 / u64::from(width);
        let r = run("switch32", width);
        let (one, all) = (region(&r, "one_case"), region(&r, "lane_mod_32"));
        assert_eq!(
            (one.instructions, one.skipped_instructions),
            (4 * waves, 124 * waves)
        );
        assert_eq!(all.instructions, 128 * waves);
        assert_eq!(stats(&r, "one_case").instructions, 234 * waves);
        assert_eq!(stats(&r, "lane_mod_32").instructions, 358 * waves);
        // kway runs k cases for k = 1..32: 6 + 11k issues per wave, 4k in the
        // bodies; every lane runs its body's 4 fma once: 4 x 1024 lanes.
        let r = run("kway", width);
        for k in [1u64, 2, 4, 8, 16, 32] {
            let body = region(&r, &format!("k{k}"));
            assert_eq!(body.instructions, 4 * k * waves, "k{k} wave{width}");
            assert_eq!(body.active_lanes, 4 * 1024, "k{k} wave{width}");
            assert_eq!(
                stats(&r, &format!("k{k}")).instructions,
                (6 + 11 * k) * waves
            );
        }
        // occupancy_invariance: the same kernel on 2 units x 1, 2, 4, 8
        // workgroups of 256.
        let r = run("occupancy_invariance", width);
        for per_unit in [1u64, 2, 4, 8] {
            let waves = 2 * per_unit * 256 / u64::from(width);
            let k1 = region(&r, &format!("k1_{per_unit}_per_unit"));
            let k32 = region(&r, &format!("k32_{per_unit}_per_unit"));
            assert_eq!(
                (k1.instructions, k32.instructions),
                (4 * waves, 128 * waves)
            );
        }
    }
}

#[test]
fn rare_branch() {
    for width in WIDTHS {
        // 1000 one-wave workgroups. Per wave outside the body: load, v_rem,
        // s_sub, v_cmp, if, endif, store, end (8); the body is two v_mov (the
        // path's constants), s_mov, loop and 64 trips of 4: 260 issued, or 8
        // instructions as written when skipped.
        let r = run("rare_branch", width);
        assert_eq!(stats(&r, "no_lane").instructions, 8000);
        assert_eq!(stats(&r, "no_lane").skipped_instructions, 8000);
        assert_eq!(stats(&r, "one_in_1000_waves").instructions, 8000 + 260);
        assert_eq!(
            region(&r, "one_in_1000_waves").skipped_instructions,
            999 * 8
        );
        assert_eq!(stats(&r, "one_per_wave").instructions, 8000 + 260_000);
    }
}

#[test]
fn predication_divergence() {
    for width in WIDTHS {
        // 2048 / width waves; the branch's two v_movs and fma run under half
        // the wave, on each path: 2 x (2 + 64); predicated, nothing diverges.
        let waves = 2048 / u64::from(width);
        let r = run("predication", width);
        assert_eq!(
            stats(&r, "branch").divergent_vector_instructions,
            132 * waves
        );
        assert_eq!(stats(&r, "predicated").divergent_vector_instructions, 0);
    }
}

#[test]
fn coalescing_sectors_and_lines() {
    for width in WIDTHS {
        // NVIDIA model: 32-lane phases at either width, 32-byte sectors in
        // 128-byte lines, an L1 per SM. 1024 items: 32 phases, each stride's
        // words disjoint from every other phase's, so every sector is missed
        // once and touched once.
        let r = run("strided_read", width);
        for (stride, sectors, lines) in [
            (1u64, 4u64, 1u64),
            (2, 8, 2),
            (4, 16, 4),
            (8, 32, 8),
            (16, 32, 16),
            (32, 32, 32),
        ] {
            let load = region(&r, &format!("stride{stride}"));
            assert_eq!(
                (
                    load.global_accesses,
                    load.global_sectors,
                    load.global_transactions
                ),
                (32, 32 * sectors, 32 * lines),
                "stride {stride} wave{width}"
            );
            assert_eq!(
                (load.l1_miss_sectors, load.dram_sectors),
                (32 * sectors, 32 * sectors)
            );
        }

        // 1024 threads x 8 loads: 256 phases. warp_strided: 128 contiguous
        // bytes, 4 sectors in 1 line; thread_contiguous: lanes 32 bytes apart,
        // 32 sectors in 8 lines, the 7 later loads hitting what the first
        // fetched; strided: 32 sectors in 8 lines, all new. The data the first
        // two read is 32 KiB, 1024 sectors; strided's 8192.
        let r = run("eight_per_thread", width);
        let [ws, tc, st] = ["warp_strided", "thread_contiguous", "strided"].map(|v| region(&r, v));
        assert_eq!((ws.global_sectors, ws.global_transactions), (1024, 256));
        assert_eq!((tc.global_sectors, tc.global_transactions), (8192, 2048));
        assert_eq!((st.global_sectors, st.global_transactions), (8192, 2048));
        assert_eq!(
            (ws.l1_miss_sectors, ws.l1_hit_sectors, ws.dram_sectors),
            (1024, 0, 1024)
        );
        assert_eq!(
            (tc.l1_miss_sectors, tc.l1_hit_sectors, tc.dram_sectors),
            (1024, 7168, 1024)
        );
        assert_eq!(
            (st.l1_miss_sectors, st.l1_hit_sectors, st.dram_sectors),
            (8192, 0, 8192)
        );

        // 4096 pixels, 128 phases. Packed: a phase's 32 pixels are 96 bytes at
        // 96p, 32-byte aligned: each channel load asks 3 sectors; the 96 bytes
        // fall in 1, 2, 2, 1 lines for p = 0, 1, 2, 3 mod 4, 6 per 4 phases.
        // The r load fetches the 3 sectors, g and b hit them. Planar: 32 bytes,
        // 1 sector in 1 line per channel. Both read 3 x 4096 bytes, 384 sectors.
        let r = run("grayscale", width);
        let (packed, planar) = (region(&r, "packed"), region(&r, "planar"));
        assert_eq!(
            (packed.global_sectors, packed.global_transactions),
            (3 * 128 * 3, 3 * 192)
        );
        assert_eq!(
            (planar.global_sectors, planar.global_transactions),
            (384, 384)
        );
        assert_eq!(
            (packed.global_bytes_requested, planar.global_bytes_requested),
            (12288, 12288)
        );
        assert_eq!(
            (
                packed.l1_miss_sectors,
                packed.l1_hit_sectors,
                packed.dram_sectors
            ),
            (384, 768, 384)
        );
        assert_eq!(
            (
                planar.l1_miss_sectors,
                planar.l1_hit_sectors,
                planar.dram_sectors
            ),
            (384, 0, 384)
        );

        // 2048 items, 64 phases. AoS: lanes 12 bytes apart span 384 bytes at
        // 384p (3 lines, 12 sectors); SoA: 128 bytes (1 line, 4 sectors).
        let r = run("aos_soa", width);
        let (aos, soa) = (region(&r, "aos"), region(&r, "soa"));
        assert_eq!((aos.global_sectors, aos.global_transactions), (768, 192));
        assert_eq!((soa.global_sectors, soa.global_transactions), (256, 64));
        // One element in: bytes 128p + 4 to 128p + 131, 5 sectors in 2 lines.
        let r = run("misaligned", width);
        let (aligned, off) = (region(&r, "aligned"), region(&r, "misaligned"));
        assert_eq!(
            (aligned.global_sectors, aligned.global_transactions),
            (256, 64)
        );
        assert_eq!((off.global_sectors, off.global_transactions), (320, 128));
    }
}

#[test]
fn transpose_conflicts_and_sectors() {
    for width in WIDTHS {
        // 2 x 2 workgroups of 32 x 8 move 64 x 64 floats, 4 rows per item: 4
        // trips x 8 phases x 4 groups = 128 phases of each access. A tile
        // column read asks one bank for 32 words: 31 cycles a phase.
        let r = run("transpose", width);
        let tiled = region(&r, "transpose_lds");
        assert_eq!(
            (tiled.lds_accesses, tiled.lds_conflict_cycles),
            (128, 128 * 31)
        );
        assert_eq!(region(&r, "transpose_padded").lds_conflict_cycles, 0);
        // The naive store writes down a column: lanes 256 bytes apart, 32
        // sectors a phase; through LDS a row: 128 bytes, 4 sectors.
        assert_eq!(
            stats(&r, "transpose_naive").global_sectors,
            128 * 4 + 128 * 32
        );
        assert_eq!(stats(&r, "transpose_lds").global_sectors, 128 * 4 + 128 * 4);
    }
}

#[test]
fn atomics_phases_and_contention() {
    for width in WIDTHS {
        // 4096 items, reference model: 128 atomic phases of 32 lanes on one
        // word, 31 behind the first in each; per workgroup, 16 single-lane ones.
        let r = run("atomics", width);
        let (item, group) = (stats(&r, "every_item"), stats(&r, "per_workgroup"));
        assert_eq!(
            (item.atomic_accesses, item.atomic_contention),
            (128, 128 * 31)
        );
        assert_eq!((group.atomic_accesses, group.atomic_contention), (16, 0));
        // every_item: load, atomic, end per wave.
        assert_eq!(item.instructions, 3 * 4096 / u64::from(width));
        // per_workgroup: load, lds_store, barrier, s_shr, loop (5 per wave);
        // 8 trips of v_cmp, if, endif, barrier, s_shr, s_cmp, endloop (7 per
        // wave) and a 4-instruction body in the waves below the stride (12
        // wave-trips at wave32, 9 at wave64, as in the reduce kernel);
        // v_cmp, if, endif, end (4 per wave) and wave 0's atomic.
        let waves = 256 / u64::from(width);
        let trips = if width == 32 { 12 } else { 9 };
        let per_group = 5 * waves + 7 * 8 * waves + 4 * trips + 4 * waves + 1;
        assert_eq!(group.instructions, 16 * per_group);
        assert_eq!(per_group, if width == 32 { 569 } else { 297 });
    }
}

#[test]
fn reduction_ladder_divergence_and_conflicts() {
    for width in WIDTHS {
        let r = run("reduction_ladder", width);
        // modulo: at stride s the active lanes are the multiples of 2s. While
        // 2s <= width every wave holds W / 2s of them (divergent); past it only
        // the waves holding a multiple hold one. wave32: strides 1-16, 5 x 8
        // waves, then 4 + 2 + 1: 47 wave-trips; wave64: strides 1-32, 6 x 4,
        // then 2 + 1: 27. 5 divergent body instructions each, plus wave 0's
        // 2 single-lane ones after the loop, in 16 workgroups.
        let modulo_trips = if width == 32 { 47 } else { 27 };
        assert_eq!(
            stats(&r, "interleaved_modulo").divergent_vector_instructions,
            16 * (5 * modulo_trips + 2)
        );
        // strided and sequential: the active lanes are the first 128 / s, so
        // only the strides below the width diverge, in wave 0: 5 at wave32, 6
        // at wave64.
        let partial = if width == 32 { 5 } else { 6 };
        for v in ["interleaved_strided", "sequential"] {
            assert_eq!(
                stats(&r, v).divergent_vector_instructions,
                16 * (5 * partial + 2),
                "{v}"
            );
        }
        // strided's banks: lanes at word 2s x lid (and + s). Per 32-lane phase
        // and access, the worst bank's words minus one: s = 1: 16 banks x 2
        // words, 1 cycle, 4 phases; s = 2: 8 x 4, 3, 2 phases; s = 4: 4 x 8,
        // 7; s = 8: 2 x 8 (16 lanes), 7; s = 16: 1 x 8, 7; s = 32: 1 x 4, 3;
        // s = 64: 1 x 2, 1; s = 128: one lane, 0. Three accesses (two loads,
        // a store) per phase: 3 x (4 + 6 + 7 + 7 + 7 + 3 + 1) = 105 a group.
        assert_eq!(
            stats(&r, "interleaved_strided").lds_conflict_cycles,
            16 * 105
        );
        assert_eq!(stats(&r, "sequential").lds_conflict_cycles, 0);
    }
}

/// The vector instructions one pixel's lane issues in the escape loop and the
/// store: 11 per full trip (v_mul, v_mul, v_add, v_cmp, then v_sub, v_add,
/// v_mul, v_fma, v_mov, v_add, v_cmp), 4 in the trip it breaks in (if it
/// escapes before the cap), 1 store.
fn loop_lanes(escape: u32) -> u64 {
    let breaks = if escape < mandelbrot::MAX_ITERATIONS {
        4
    } else {
        0
    };
    11 * u64::from(escape) + breaks + 1
}

#[test]
fn mandelbrot_active_lanes() {
    let image = mandelbrot::oracle::image(
        mandelbrot::WIDTH,
        mandelbrot::HEIGHT,
        mandelbrot::MAX_ITERATIONS,
    );
    let pixels = image.len() as u64;
    let in_loop: u64 = image.iter().map(|&e| loop_lanes(e)).sum();
    for width in WIDTHS {
        let r = run("mandelbrot", width);
        // Before the loop every lane issues the coordinate arithmetic and the
        // three zeroing moves: coherent 14 vector instructions (v_mov, v_rem,
        // v_div, 2 x 4 for cx and cy, 3 v_mov), scattered one more (the hash's
        // v_mul and v_rem before v_rem, v_div), tiled_8x4 22 (11 to find the
        // pixel of its tile).
        for (variant, before) in [("coherent", 14u64), ("scattered", 15), ("tiled_8x4", 22)] {
            assert_eq!(
                stats(&r, variant).active_lanes,
                before * pixels + in_loop,
                "{variant} wave{width}"
            );
        }
    }
}

#[test]
fn embedding_bag_table_sectors() {
    // The study's inputs, drawn from seed 42 in its order: the table, 64 bag
    // sizes in 1..=8, then the rows of every bag.
    let (rows, dim, bags) = (512usize, 64usize, 64usize);
    let mut rng = simt_kernels::SplitMix64::new(42);
    let _table = rng.i32_vec(rows * dim, -1000, 1000);
    let sizes: Vec<usize> = (0..bags).map(|_| rng.i32_in(1, 8) as usize).collect();
    let total: usize = sizes.iter().sum();
    let indices: Vec<usize> = (0..total)
        .map(|_| rng.i32_in(0, rows as i32 - 1) as usize)
        .collect();
    let starts: Vec<usize> = sizes
        .iter()
        .scan(0, |at, &n| {
            *at += n;
            Some(*at - n)
        })
        .collect();
    // A lane per feature: a bag's 64 features are two 32-lane phases, each
    // reading 128 contiguous bytes of one row (4 sectors, 1 line) per row of
    // the bag.
    let phases = 2 * total as u64;
    // A lane per bag: for each feature and trip t, a phase of 32 bags reads
    // one word of row `indices[start + t]` for each bag longer than t; words
    // of distinct rows are in distinct sectors (rows are 256 bytes).
    let (mut bag_phases, mut bag_sectors) = (0u64, 0u64);
    for _feature in 0..dim {
        for t in 0..8 {
            for half in [0..32, 32..64] {
                let mut rows_read: Vec<usize> = half
                    .filter(|&b| sizes[b] > t)
                    .map(|b| indices[starts[b] + t])
                    .collect();
                if rows_read.is_empty() {
                    continue;
                }
                rows_read.sort_unstable();
                rows_read.dedup();
                bag_phases += 1;
                bag_sectors += rows_read.len() as u64;
            }
        }
    }
    for width in WIDTHS {
        let r = run("embedding_bag", width);
        let feature = region(&r, "lane_per_feature");
        assert_eq!(
            (
                feature.global_accesses,
                feature.global_sectors,
                feature.global_transactions
            ),
            (phases, 4 * phases, phases),
            "wave{width}"
        );
        assert_eq!(feature.global_bytes_requested, 128 * phases);
        let bag = region(&r, "lane_per_bag");
        assert_eq!(
            (bag.global_accesses, bag.global_sectors),
            (bag_phases, bag_sectors),
            "wave{width}"
        );
        // Each active lane asks 4 bytes: the bag rows read, 64 features each.
        assert_eq!(bag.global_bytes_requested, 4 * 64 * total as u64);
    }
}

/// The loop of one Mandelbrot wave whose lanes escape after `escapes`
/// iterations: (issued, vector, divergent vector) instructions. Trip t starts
/// (v_mul, v_mul, v_add, v_cmp, break: 5 issued, 4 vector) while a lane has
/// `e >= t`; lanes with `e == t` break there, and the rest of the trip (v_sub,
/// v_add, v_mul, v_fma, v_mov, v_add, v_cmp, endloop: 8 issued, 7 vector) runs
/// while a lane has `e > t`. At the cap the lanes leave through `endloop`;
/// when the last lanes break instead, the wave jumps to the `endloop`, which
/// is issued once more to close the loop.
/// A vector issue diverges once some lane has left: `e < t` before the
/// break, `e <= t` after it.
/// The pixel a work-item computes.
type Mapping<'a> = dyn Fn(u32) -> u32 + 'a;

fn escape_loop(escapes: &[u32]) -> (u64, u64, u64) {
    let (first, last) = (
        *escapes.iter().min().unwrap(),
        *escapes.iter().max().unwrap(),
    );
    let (mut issued, mut vector, mut divergent) = (0, 0, 0);
    for t in 0..mandelbrot::MAX_ITERATIONS {
        if last >= t {
            issued += 5;
            vector += 4;
            divergent += if first < t { 4 } else { 0 };
        }
        if last > t {
            issued += 8;
            vector += 7;
            divergent += if first <= t { 7 } else { 0 };
        }
    }
    if last < mandelbrot::MAX_ITERATIONS {
        issued += 1;
    }
    (issued, vector, divergent)
}

#[test]
fn mandelbrot_issues_and_divergence() {
    let (w, h) = (mandelbrot::WIDTH, mandelbrot::HEIGHT);
    let image = mandelbrot::oracle::image(w, h, mandelbrot::MAX_ITERATIONS);
    // The pixel each work-item computes, as each kernel maps them.
    let coherent = |g: u32| g;
    let scattered = |g: u32| g.wrapping_mul(2_654_435_761) % (w * h);
    let tiled = |g: u32| {
        let (tile, lane) = (g >> 5, g & 31);
        let col = tile % (w / 8) * 8 + lane % 8;
        let row = tile / (w / 8) * 4 + lane / 8;
        row * w + col
    };
    // Before the loop: the vector instructions of the mapping and the
    // coordinates (14, 15, 22 as in `mandelbrot_active_lanes`), the s_cvt
    // pairs and the scalar extras (scattered's s_mul, tiled's s_shr), and
    // `loop`; after it the store and `end`.
    let mappings: [(&str, &Mapping<'_>, u64, u64); 3] = [
        ("coherent", &coherent, 14, 14 + 2 + 1),
        ("scattered", &scattered, 15, 15 + 3 + 1),
        ("tiled_8x4", &tiled, 22, 22 + 3 + 1),
    ];
    for width in WIDTHS {
        let r = run("mandelbrot", width);
        for (variant, pixel, before_vector, before) in mappings {
            let (mut issued, mut vector, mut divergent) = (0, 0, 0);
            let waves: Vec<u32> = (0..w * h).collect();
            for wave in waves.chunks(width as usize) {
                let escapes: Vec<u32> = wave.iter().map(|&g| image[pixel(g) as usize]).collect();
                let (i, v, d) = escape_loop(&escapes);
                issued += before + i + 2;
                vector += before_vector + v + 1;
                divergent += d;
            }
            let s = stats(&r, variant);
            assert_eq!(
                (
                    s.instructions,
                    s.vector_instructions,
                    s.divergent_vector_instructions
                ),
                (issued, vector, divergent),
                "{variant} wave{width}"
            );
        }
    }
}
