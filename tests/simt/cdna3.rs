//! The `cdna3` preset by hand: 64-lane phases, 128-byte lines of two 64-byte
//! sectors, and a 32 KiB, 8-way L1 per compute unit (32 sets of 128-byte lines)
//! over 304 units.

use simt::core::{Counters, Inst, LaunchConfig, MemoryModel, Program, Stats};
use simt::simt_kernel;

simt_kernel! {
    /// Reads `x[i * stride]` twice.
    kernel reread(x: &[u32], out: &mut [u32], stride: u32) {
        vreg a, b, i;
        v_mul_u32 i, global_id, stride
        global_load a, x[i]
        global_load b, x[i]
        v_add_u32 a, a, b
        global_store out[global_id], a
    }

    /// One lane reads words 0, stride, ..., (lines - 1) x stride, in two rounds.
    kernel rounds(x: &[u32], out: &mut [u32], lines: u32, stride: u32) {
        vreg v, sum;
        sreg k, at, round;
        mreg more, again;
        v_mov sum, 0
        s_mov round, 0
        loop
            s_mov k, 0
            loop
                s_mul_u32 at, k, stride
                global_load v, x[at]
                v_add_u32 sum, sum, v
                s_add_u32 k, k, 1
                s_cmp_lt_u32 more, k, lines
            endloop more
            s_add_u32 round, round, 1
            s_cmp_lt_u32 again, round, 2
        endloop again
        global_store out[0], sum
    }

    /// Every workgroup reads the same 32 words.
    kernel shared_read(x: &[u32], out: &mut [u32]) {
        vreg v;
        global_load v, x[local_id]
        global_store out[global_id], v
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

#[test]
fn the_preset_is_the_geometry_counted_below() {
    let m = MemoryModel::cdna3();
    let l1 = m.l1.clone().unwrap();
    assert_eq!(
        (m.phase_lanes, m.line_bytes, m.sector_bytes, m.compute_units),
        (64, 128, 64, 304)
    );
    assert_eq!((l1.bytes, l1.ways, l1.sets()), (32 * 1024, 8, 32));
}

#[test]
fn a_64_lane_phase_reads_two_lines_of_two_sectors() {
    for (width, phases) in [(64u64, 4u64), (32, 8)] {
        // 256 items reading consecutive words. wave64: 4 phases of 64 lanes,
        // 256 bytes each: 2 lines, 4 sectors. wave32: a wave fills half a
        // phase, so 8 phases of 128 bytes: 1 line, 2 sectors. Either way 8
        // lines and 16 sectors over the launch, 8 x 128 = 1024 bytes moved.
        let x = vec![1u32; 256];
        let mut out = vec![0u32; 256];
        let config = LaunchConfig::new(1, 256)
            .wave_width(width as u32)
            .model(MemoryModel::cdna3());
        let stats = reread::launch(&config, &x, &mut out, 1).unwrap();
        assert_eq!(out, vec![2u32; 256]);
        let l = loads(&reread::PROGRAM, &stats);
        for c in &l {
            assert_eq!(
                (c.global_accesses, c.global_transactions, c.global_sectors),
                (phases, 8, 16),
                "wave{width}"
            );
            assert_eq!(c.global_bytes_moved, 1024);
        }
        // The first load misses the 16 sectors and touches them first; the
        // second finds them; the store touches `out`'s 16 sectors.
        assert_eq!(
            (l[0].l1_miss_sectors, l[0].l1_hit_sectors, l[0].dram_sectors),
            (16, 0, 16)
        );
        assert_eq!(
            (l[1].l1_miss_sectors, l[1].l1_hit_sectors, l[1].dram_sectors),
            (0, 16, 0)
        );
        assert_eq!(stats.totals.dram_sectors, 32);
    }
}

#[test]
fn a_stride_of_one_sector_asks_one_sector_per_lane() {
    for (width, phases, lines, sectors) in [(64u64, 4u64, 32u64, 64u64), (32, 8, 16, 32)] {
        // Stride 16 words = 64 bytes: each lane its own sector, two lanes per
        // line. A wave64 phase: 64 sectors in 32 lines; a wave32 one: 32 in 16.
        // 256 items: 256 sectors over 128 lines, all missed once then hit.
        let x = vec![1u32; 16 * 256];
        let mut out = vec![0u32; 256];
        let config = LaunchConfig::new(1, 256)
            .wave_width(width as u32)
            .model(MemoryModel::cdna3());
        let stats = reread::launch(&config, &x, &mut out, 16).unwrap();
        let l = loads(&reread::PROGRAM, &stats);
        assert_eq!(
            (
                l[0].global_accesses,
                l[0].global_transactions,
                l[0].global_sectors
            ),
            (phases, phases * lines, phases * sectors),
            "wave{width}"
        );
        assert_eq!(phases * sectors, 256);
        // 256 sectors are 16 KiB: they fit the 32 KiB L1, so the reread hits.
        assert_eq!((l[0].l1_miss_sectors, l[1].l1_hit_sectors), (256, 256));
    }
}

#[test]
fn nine_lines_of_one_set_thrash_eight_ways() {
    let x: Vec<u32> = (0..9 * 1024).collect();
    let mut out = vec![0u32; 1];
    // A stride of 1024 words (4 KiB, 32 lines) puts every line in set 0:
    // with 8 lines the second round hits all 8; with 9, LRU evicts each line
    // just before it returns, so all 18 loads miss. A stride of 512 words (16
    // lines) alternates sets 0 and 16: 9 lines fit (5 and 4) and the second
    // round hits all 9. Each one-lane load is one sector of 64 bytes.
    for (lines, stride, hits, misses) in [(8, 1024, 8, 8), (9, 1024, 0, 18), (9, 512, 9, 9)] {
        let config = LaunchConfig::new(1, 1).model(MemoryModel::cdna3());
        let stats = rounds::launch(&config, &x, &mut out, lines, stride).unwrap();
        let sum: u32 = (0..lines).map(|k| k * stride).sum();
        assert_eq!(out[0], 2 * sum);
        let t = &stats.totals;
        assert_eq!(
            (t.l1_hit_sectors, t.l1_miss_sectors),
            (hits, misses),
            "{lines} lines at stride {stride}"
        );
        // Each line's sector is touched once whatever the L1 held, plus the
        // store's.
        assert_eq!(t.dram_sectors, u64::from(lines) + 1);
    }
}

#[test]
fn the_305th_workgroup_finds_the_first_ones_unit_warm() {
    let x = vec![3u32; 32];
    let mut out = vec![0u32; 305 * 32];
    for width in [32, 64] {
        let config = LaunchConfig::new(305, 32)
            .wave_width(width)
            .model(MemoryModel::cdna3());
        let stats = shared_read::launch(&config, &x, &mut out).unwrap();
        let l = loads(&shared_read::PROGRAM, &stats);
        // Workgroup g runs on unit g % 304: groups 0 to 303 each miss the 2
        // sectors of the 128 bytes read on their own unit (608); group 304
        // shares unit 0 with group 0 and hits both. DRAM: the 2 sectors once.
        assert_eq!(
            (l[0].l1_miss_sectors, l[0].l1_hit_sectors, l[0].dram_sectors),
            (608, 2, 2),
            "wave{width}"
        );
    }
}
