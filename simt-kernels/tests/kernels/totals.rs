//! The instruction, vector-instruction, active-lane, divergence, skip and barrier
//! totals of every reference kernel at both wave widths, counted by hand from each
//! kernel's text and launch shape (the snapshots pin the same figures, but a
//! snapshot diff can be accepted; a wrong formula here fails).
//!
//! Every kernel runs 4096 work-items in 16 workgroups of 256, all in bounds:
//! 128 waves at wave32, 64 at wave64. Instructions count every issued one,
//! control flow, barriers and the final `end` included; vector instructions are
//! the `v_*`, load, store and compare ones, not the `s_*` or control flow.

use simt::core::{Counters, MemoryModel};
use simt_kernels::kernels::{GROUPS, GROUP_SIZE, N};
use simt_kernels::registry;
use simt_kernels::SplitMix64;

/// What a test expects of a kernel's totals.
#[derive(Debug, Default, PartialEq, Eq)]
struct Totals {
    instructions: u64,
    skipped_instructions: u64,
    vector_instructions: u64,
    divergent_vector_instructions: u64,
    active_lanes: u64,
    barriers: u64,
}

impl Totals {
    fn of(c: &Counters) -> Self {
        Totals {
            instructions: c.instructions,
            skipped_instructions: c.skipped_instructions,
            vector_instructions: c.vector_instructions,
            divergent_vector_instructions: c.divergent_vector_instructions,
            active_lanes: c.active_lanes,
            barriers: c.barriers,
        }
    }

    /// A kernel without branches that skip or diverge: `insts` issued per
    /// wave, `vector` of them vector instructions with every lane active.
    fn straight(width: u64, insts: u64, vector: u64) -> Self {
        let waves = N as u64 / width;
        Totals {
            instructions: insts * waves,
            vector_instructions: vector * waves,
            active_lanes: vector * N as u64,
            ..Totals::default()
        }
    }
}

fn totals(name: &str, width: u32) -> Totals {
    let spec = registry::find(name).unwrap();
    let run = spec
        .run(42, &spec.config(width, MemoryModel::reference()))
        .unwrap();
    assert!(run.passed(), "{name} wave{width}");
    Totals::of(&run.stats.totals)
}

#[test]
fn the_launch_shape_is_as_counted() {
    assert_eq!((N, GROUPS, GROUP_SIZE), (4096, 16, 256));
    for spec in registry::KERNELS {
        assert_eq!(spec.grid * spec.workgroup, 4096, "{}", spec.name);
        assert_eq!(spec.workgroup, 256, "{}", spec.name);
    }
}

#[test]
fn elementwise_kernels() {
    for width in [32u64, 64] {
        let w = width as u32;
        // v_mov, v_cmp, if, load, load, add (or fma), store, endif, end: 9
        // issued, 6 vector (all but if, endif, end).
        for name in ["vecadd_i32", "vecadd_f32", "saxpy_f32"] {
            assert_eq!(
                totals(name, w),
                Totals::straight(width, 9, 6),
                "{name} wave{width}"
            );
        }
        // v_mov, v_cmp, if, load, store, endif, end: 7 issued, 4 vector.
        assert_eq!(
            totals("copy_coalesced_f32", w),
            Totals::straight(width, 7, 4)
        );
        // copy_coalesced plus the index multiply: 8 issued, 5 vector.
        assert_eq!(totals("copy_strided_f32", w), Totals::straight(width, 8, 5));
        // s_mul, s_shl, v_shl, v_add, v_mad, lds_store, lds_load, store, end:
        // 9 issued, 6 vector.
        assert_eq!(
            totals("lds_conflict_heavy_i32", w),
            Totals::straight(width, 9, 6)
        );
    }
    // Spelled out once: vecadd at wave32 is 128 waves x 9 = 1152 instructions,
    // 128 x 6 = 768 vector, 768 x 32 = 24576 active lanes.
    assert_eq!(
        Totals::straight(32, 9, 6),
        Totals {
            instructions: 1152,
            vector_instructions: 768,
            active_lanes: 24576,
            ..Totals::default()
        }
    );
}

#[test]
fn divergent_collatz() {
    // The counts below hold when every wave holds both parities: check the
    // inputs (the registry draws them from seed 42 as below).
    let values = SplitMix64::new(42).i32_vec(N, 1, 1_000_000);
    for width in [32usize, 64] {
        for wave in values.chunks(width) {
            let odd = wave.iter().filter(|&&x| x & 1 == 1).count();
            assert!(odd > 0 && odd < width, "a wave{width} of one parity");
        }
    }
    for width in [32u64, 64] {
        let waves = N as u64 / width;
        // v_mov, v_cmp, if, load, v_and, v_cmp, if, v_mad, else, v_shr, endif,
        // store, endif, end: 14 issued per wave (both sides run), 8 vector, of
        // which v_mad and v_shr run under a partial mask: 2 divergent. Active
        // lanes: 6 full vector instructions, plus v_mad's odd lanes and
        // v_shr's even lanes, which together are the wave: 7 x 4096.
        assert_eq!(
            totals("divergent_collatz_i32", width as u32),
            Totals {
                instructions: 14 * waves,
                vector_instructions: 8 * waves,
                divergent_vector_instructions: 2 * waves,
                active_lanes: 7 * N as u64,
                ..Totals::default()
            },
            "wave{width}"
        );
    }
}

/// The reduction tree, per workgroup of 256 at wave width `width`:
///
/// - before the loop: v_mov, v_cmp, if, load, endif, lds_store, barrier,
///   s_shr, loop: 9 issued by every wave, 4 vector, all lanes in.
/// - 8 trips (stride 128, 64, ..., 1): v_cmp, if, endif, barrier, s_shr,
///   s_cmp, endloop: 7 issued by every wave, 1 vector; the body's 5 (v_add,
///   lds_load, lds_load, v_add, lds_store, all vector) run in the waves that
///   hold a local id below the stride, are skipped by the others, and are
///   divergent where the stride is below the width (wave 0, partly in).
/// - after the loop: v_cmp, if, endif, end by every wave (1 vector); the
///   body's lds_load and store run in wave 0 on one lane (divergent) and are
///   skipped by the other waves.
fn reduce_expected(width: u64) -> Totals {
    let waves = 256 / width;
    let strides = [128u64, 64, 32, 16, 8, 4, 2, 1];
    // Waves whose first local id (width x w) is below the stride.
    let running: u64 = strides.iter().map(|s| s.div_ceil(width).min(waves)).sum();
    let partial = strides.iter().filter(|&&s| s < width).count() as u64;
    let skipped_trips = 8 * waves - running;
    let per_group = Totals {
        instructions: 9 * waves + 7 * 8 * waves + 5 * running + 4 * waves + 2,
        skipped_instructions: 5 * skipped_trips + 2 * (waves - 1),
        vector_instructions: 4 * waves + 8 * waves + 5 * running + waves + 2,
        divergent_vector_instructions: 5 * partial + 2,
        // 4 full instructions before, 8 compares, the body on 128 + 64 + ... + 1
        // = 255 lanes 5 times, the last compare, and 2 single-lane ones.
        active_lanes: 4 * 256 + 8 * 256 + 5 * 255 + 256 + 2,
        // One barrier before the loop and one per trip, per wave.
        barriers: 9 * waves,
    };
    let g = GROUPS as u64;
    Totals {
        instructions: per_group.instructions * g,
        skipped_instructions: per_group.skipped_instructions * g,
        vector_instructions: per_group.vector_instructions * g,
        divergent_vector_instructions: per_group.divergent_vector_instructions * g,
        active_lanes: per_group.active_lanes * g,
        barriers: per_group.barriers * g,
    }
}

#[test]
fn reduce() {
    // wave32: 8 waves; the body runs in 4 + 2 + 1 + 1 x 5 = 12 wave-trips of
    // 64, skipped in 52; 5 strides (16..1) below 32. Per group: 72 + 448 + 60
    // + 32 + 2 = 614 issued, 52 x 5 + 7 x 2 = 274 skipped, 5 x 5 + 2 = 27
    // divergent. 16 groups: 9824, 4384, 432.
    let want32 = reduce_expected(32);
    assert_eq!(
        (
            want32.instructions,
            want32.skipped_instructions,
            want32.divergent_vector_instructions,
            want32.vector_instructions,
            want32.active_lanes,
            want32.barriers,
        ),
        (9824, 4384, 432, 2656, 73680, 1152)
    );
    // wave64: 4 waves; the body runs in 2 + 1 + 1 x 6 = 9 wave-trips of 32,
    // skipped in 23; 6 strides (32..1) below 64. Per group: 36 + 224 + 45 + 16
    // + 2 = 323 issued, 23 x 5 + 3 x 2 = 121 skipped, 6 x 5 + 2 = 32
    // divergent. 16 groups: 5168, 1936, 512.
    let want64 = reduce_expected(64);
    assert_eq!(
        (
            want64.instructions,
            want64.skipped_instructions,
            want64.divergent_vector_instructions,
            want64.vector_instructions,
            want64.active_lanes,
            want64.barriers,
        ),
        (5168, 1936, 512, 1584, 73680, 576)
    );
    for name in ["reduce_i32", "reduce_f32"] {
        assert_eq!(totals(name, 32), want32, "{name} wave32");
        assert_eq!(totals(name, 64), want64, "{name} wave64");
    }
}

#[test]
fn matmul() {
    for width in [32u64, 64] {
        let waves = N as u64 / width;
        // Naive, per wave: s_mul, v_cmp, if, v_div, v_rem, v_mul, v_mov,
        // v_mov, s_mov, loop (10; 6 vector); 64 trips of load, load, fma,
        // v_add, v_add, s_add, s_cmp, endloop (8; 5 vector); store, endif, end
        // (3; 1 vector). 10 + 512 + 3 = 525 issued, 6 + 320 + 1 = 327 vector.
        assert_eq!(
            totals("matmul_naive_f32", width as u32),
            Totals {
                instructions: 525 * waves,
                vector_instructions: 327 * waves,
                active_lanes: 327 * N as u64,
                ..Totals::default()
            },
            "naive wave{width}"
        );
        // Tiled, per wave: v_shr, v_and, s_shr, s_div, s_rem, s_shl, s_shl,
        // v_add, v_add, v_shl, v_mov, s_mov, loop (13; 6 vector); 64 / 16 = 4
        // outer trips of v_mad, v_add, load, lds_store, v_add, v_mad, load,
        // lds_store, barrier, v_mov, v_mov, s_mov, loop (13; 10 vector), 16
        // inner trips of lds_load, lds_load, fma, v_add, v_add, s_add, s_cmp,
        // endloop (8; 5 vector), and barrier, s_add, s_cmp, endloop (4): 145
        // issued, 90 vector per outer trip; v_mad, store, end (3; 2 vector).
        // 13 + 580 + 3 = 596 issued, 6 + 360 + 2 = 368 vector, 2 x 4 = 8
        // barriers.
        assert_eq!(
            totals("matmul_tiled_f32", width as u32),
            Totals {
                instructions: 596 * waves,
                vector_instructions: 368 * waves,
                active_lanes: 368 * N as u64,
                barriers: 8 * waves,
                ..Totals::default()
            },
            "tiled wave{width}"
        );
    }
}
