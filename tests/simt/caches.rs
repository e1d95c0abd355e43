//! The L1 per compute unit and the DRAM sectors below it, through kernels:
//! hand-computed hit, miss and first-touch counts for small patterns.

use simt::core::{CacheGeometry, Counters, Inst, LaunchConfig, MemoryModel, Program, Stats};
use simt::simt_kernel;

simt_kernel! {
    /// Reads `x[i]` twice.
    kernel reread(x: &[u32], out: &mut [u32]) {
        vreg a, b;
        global_load a, x[global_id]
        global_load b, x[global_id]
        v_add_u32 a, a, b
        global_store out[global_id], a
    }

    /// Stores `y[i]`, then reads it back.
    kernel store_then_load(y: &mut [u32]) {
        vreg v;
        global_store y[global_id], 7
        global_load v, y[global_id]
        v_add_u32 v, v, 1
        global_store y[global_id], v
    }

    /// One lane reads words 0, 32 and 64 (three lines of 128 bytes), twice.
    kernel round_robin(x: &[u32], out: &mut [u32]) {
        vreg v, sum;
        global_load v, x[0]
        v_add_u32 sum, sum, v
        global_load v, x[32]
        v_add_u32 sum, sum, v
        global_load v, x[64]
        v_add_u32 sum, sum, v
        global_load v, x[0]
        v_add_u32 sum, sum, v
        global_load v, x[32]
        v_add_u32 sum, sum, v
        global_load v, x[64]
        v_add_u32 sum, sum, v
        global_store out[0], sum
    }
}

/// The counters of each `global_load` of `program`, in order.
fn loads(program: &Program, stats: &Stats) -> Vec<Counters> {
    program
        .insts
        .iter()
        .zip(&stats.per_instruction)
        .filter(|(i, _)| matches!(i, Inst::GlobalLoad { .. }))
        .map(|(_, c)| *c)
        .collect()
}

/// An NVIDIA-like model with `units` compute units.
fn nvidia(units: u32) -> MemoryModel {
    MemoryModel {
        compute_units: units,
        ..MemoryModel::nvidia()
    }
}

#[test]
fn a_reread_hits() {
    for width in [32, 64] {
        let x = vec![1u32; 64];
        let mut out = vec![0u32; 64];
        let config = LaunchConfig::new(1, 64).wave_width(width).model(nvidia(1));
        let stats = reread::launch(&config, &x, &mut out).unwrap();
        let l = loads(&reread::PROGRAM, &stats);
        // 64 words are 256 bytes: 8 sectors of 32 bytes in 2 lines. The first
        // load misses all 8 and touches them first; the second finds them all.
        assert_eq!(
            (l[0].l1_miss_sectors, l[0].l1_hit_sectors, l[0].dram_sectors),
            (8, 0, 8)
        );
        assert_eq!(
            (l[1].l1_miss_sectors, l[1].l1_hit_sectors, l[1].dram_sectors),
            (0, 8, 0)
        );
        // The store's 8 sectors of `out` are touched for the first time too.
        assert_eq!(stats.totals.dram_sectors, 16);
        assert_eq!(stats.totals.l1_hit_rate(), 0.5);
    }
}

#[test]
fn a_store_does_not_allocate() {
    let mut y = vec![0u32; 32];
    let config = LaunchConfig::new(1, 32).model(nvidia(1));
    let stats = store_then_load::launch(&config, &mut y).unwrap();
    assert_eq!(y, vec![8u32; 32]);
    let l = loads(&store_then_load::PROGRAM, &stats);
    // The store wrote through: the load misses its 4 sectors, which the store
    // had already touched, so they are no new DRAM sectors.
    assert_eq!(
        (l[0].l1_miss_sectors, l[0].l1_hit_sectors, l[0].dram_sectors),
        (4, 0, 0)
    );
    assert_eq!(stats.totals.dram_sectors, 4);
}

#[test]
fn a_working_set_one_line_larger_than_a_set_thrashes() {
    let x: Vec<u32> = (0..96).collect();
    let mut out = vec![0u32; 1];
    for (ways, hits) in [(2, 0), (3, 3)] {
        // One set of `ways` lines of 128 bytes.
        let model = MemoryModel {
            l1: Some(CacheGeometry {
                bytes: 128 * ways,
                line_bytes: 128,
                sector_bytes: 32,
                ways,
            }),
            ..nvidia(1)
        };
        let config = LaunchConfig::new(1, 1).model(model);
        let stats = round_robin::launch(&config, &x, &mut out).unwrap();
        assert_eq!(out[0], 2 * (32 + 64));
        // Lines 0, 1, 2, 0, 1, 2: with 2 ways LRU evicts each line just before
        // it comes back, every load misses; with 3 the second round hits.
        let t = &stats.totals;
        assert_eq!(
            (t.l1_hit_sectors, t.l1_miss_sectors),
            (hits, 6 - hits),
            "{ways} ways"
        );
        // Three sectors, touched once each, whatever the L1 held (plus the store).
        assert_eq!(t.dram_sectors, 3 + 1);
    }
}

simt_kernel! {
    /// Every workgroup reads the same 32 words.
    kernel shared_read(x: &[u32], out: &mut [u32]) {
        vreg v;
        global_load v, x[local_id]
        global_store out[global_id], v
    }
}

#[test]
fn a_unit_stays_warm_across_the_workgroups_it_runs() {
    let x = vec![3u32; 32];
    let mut out = vec![0u32; 4 * 32];
    for (units, misses) in [(1, 4), (2, 8), (4, 16), (8, 16)] {
        let config = LaunchConfig::new(4, 32).model(nvidia(units));
        let stats = shared_read::launch(&config, &x, &mut out).unwrap();
        let l = loads(&shared_read::PROGRAM, &stats);
        // Four groups on `units` units: each unit's first group misses the 4
        // sectors, its later groups hit them.
        assert_eq!(l[0].l1_miss_sectors, misses, "{units} units");
        assert_eq!(l[0].l1_hit_sectors, 16 - misses, "{units} units");
        // Below the L1, the 4 sectors of `x` are touched once however many units.
        assert_eq!(l[0].dram_sectors, 4, "{units} units");
    }
}
