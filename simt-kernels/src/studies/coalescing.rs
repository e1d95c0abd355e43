//! Seed 001, coalescing, under the NVIDIA model: a warp's load is one request of
//! up to 32 addresses, served in 32-byte sectors; with the model's L1, sectors a
//! compute unit already holds are hits, and DRAM sees each sector once.
//!
//! - `strided_read`: `out[i] = in[i * stride]` for strides 1 to 32.
//! - `eight_per_thread`: eight values per work-item, laid out warp-strided,
//!   thread-contiguous or strided.
//! - `grayscale`: a luma conversion of packed 3-byte pixels against planar ones.
//! - `embedding_bag`: summing gathered rows of a table, with a lane per feature or
//!   a lane per bag.
//!
//! Each variant's region is its loads of the data the claim is about.

use super::{is_global_load, nth, ratio, row, Relation, Study, StudyResult};
use crate::rng::SplitMix64;
use simt::core::{Error, Inst, LaunchConfig, MemoryModel, Program, Stats};

/// Work-items per workgroup.
const GROUP: u32 = 256;

simt::simt_kernel! {
    /// `out[i] = input[i * stride]`.
    pub kernel strided_read(input: &[f32], out: &mut [f32], stride: u32) {
        vreg at, x;
        v_mul_u32    at, global_id.x, stride
        global_load  x, input[at]
        global_store out[global_id.x], x
    }

    /// `out[t]` = the sum of eight values: the 32 work-items of each group of 32 read
    /// 32 neighbouring values at a time, moving on by 32 values each step.
    pub kernel warp_strided(input: &[f32], out: &mut [f32]) {
        vreg base, at, x, sum;
        sreg step;
        mreg more;
        v_shr_u32 base, global_id.x, 5
        v_mul_u32 base, base, 256
        v_and     at, global_id.x, 31
        v_add_u32 base, base, at
        v_mov     sum, 0.0
        s_mov     step, 0
        loop
            v_mad_u32    at, step, 32, base
            global_load  x, input[at]
            v_add_f32    sum, sum, x
            s_add_u32    step, step, 1
            s_cmp_lt_u32 more, step, 8
        endloop more
        global_store out[global_id.x], sum
    }

    /// `out[t]` = the sum of the eight values `8 t .. 8 t + 8`: each work-item reads
    /// its own run, so neighbouring lanes are 32 bytes apart.
    pub kernel thread_contiguous(input: &[f32], out: &mut [f32]) {
        vreg base, at, x, sum;
        sreg step;
        mreg more;
        v_mul_u32 base, global_id.x, 8
        v_mov     sum, 0.0
        s_mov     step, 0
        loop
            v_add_u32    at, base, step
            global_load  x, input[at]
            v_add_f32    sum, sum, x
            s_add_u32    step, step, 1
            s_cmp_lt_u32 more, step, 8
        endloop more
        global_store out[global_id.x], sum
    }

    /// `out[t]` = the sum of `input[(k * threads + t) * 8]` for k in 0..8: every
    /// value read is in a sector of its own, and only one in eight is read.
    pub kernel strided(input: &[f32], out: &mut [f32], threads: u32) {
        vreg at, x, sum;
        sreg step;
        mreg more;
        v_mov sum, 0.0
        s_mov step, 0
        loop
            v_mad_u32    at, step, threads, global_id.x
            v_mul_u32    at, at, 8
            global_load  x, input[at]
            v_add_f32    sum, sum, x
            s_add_u32    step, step, 1
            s_cmp_lt_u32 more, step, 8
        endloop more
        global_store out[global_id.x], sum
    }

    /// `grey[i] = (77 r + 150 g + 29 b) >> 8` of pixel `i`, stored as the bytes
    /// `r, g, b` at `rgb[3 i ..]`.
    pub kernel grayscale_packed(rgb: &[u8], grey: &mut [u8]) {
        vreg at, r, g, b, y;
        v_mul_u32    at, global_id.x, 3
        global_load  r, rgb[at]
        global_load  g, rgb[at + 1]
        global_load  b, rgb[at + 2]
        v_mul_u32    y, r, 77
        v_mad_u32    y, g, 150, y
        v_mad_u32    y, b, 29, y
        v_shr_u32    y, y, 8
        global_store grey[global_id.x], y
    }

    /// `grayscale_packed` with the channels in three planes.
    pub kernel grayscale_planar(red: &[u8], green: &[u8], blue: &[u8], grey: &mut [u8]) {
        vreg r, g, b, y;
        global_load  r, red[global_id.x]
        global_load  g, green[global_id.x]
        global_load  b, blue[global_id.x]
        v_mul_u32    y, r, 77
        v_mad_u32    y, g, 150, y
        v_mad_u32    y, b, 29, y
        v_shr_u32    y, y, 8
        global_store grey[global_id.x], y
    }

    /// `out[b * dim + d]` = the sum over `r` in `offsets[b] .. offsets[b + 1]` of
    /// `table[indices[r] * dim + d]` (wrapping), by work-item `b * dim + d`: the
    /// lanes of a wave read neighbouring features of one row. Bags are not empty.
    pub kernel bag_lane_per_feature(table: &[i32], offsets: &[u32], indices: &[u32], out: &mut [i32], dim: u32) {
        vreg bag, feature, r, end, item, at, x, sum;
        mreg more;
        v_div_u32   bag, global_id.x, dim
        v_rem_u32   feature, global_id.x, dim
        global_load r, offsets[bag]
        global_load end, offsets[bag + 1]
        v_mov       sum, 0
        loop
            global_load  item, indices[r]
            v_mad_u32    at, item, dim, feature
            global_load  x, table[at]
            v_add_i32    sum, sum, x
            v_add_u32    r, r, 1
            v_cmp_lt_u32 more, r, end
        endloop more
        global_store out[global_id.x], sum
    }

    /// The same sums with work-item `b` computing all of bag `b`, feature by
    /// feature: the lanes of a wave read the same feature of different rows.
    pub kernel bag_lane_per_bag(table: &[i32], offsets: &[u32], indices: &[u32], out: &mut [i32], dim: u32) {
        vreg start, end, r, item, at, x, sum;
        sreg feature;
        mreg more, features_left;
        global_load start, offsets[global_id.x]
        global_load end, offsets[global_id.x + 1]
        s_mov       feature, 0
        loop
            v_mov sum, 0
            v_mov r, start
            loop
                global_load  item, indices[r]
                v_mad_u32    at, item, dim, feature
                global_load  x, table[at]
                v_add_i32    sum, sum, x
                v_add_u32    r, r, 1
                v_cmp_lt_u32 more, r, end
            endloop more
            v_mad_u32    at, global_id.x, dim, feature
            global_store out[at], sum
            s_add_u32    feature, feature, 1
            s_cmp_lt_u32 features_left, feature, dim
        endloop features_left
    }
}

/// The scalar oracles.
pub mod oracle {
    /// `out[t]` = the sum, from 0 in order, of the eight values `at(t, k)`, k in 0..8.
    pub fn eight_sums(
        input: &[f32],
        threads: usize,
        at: impl Fn(usize, usize) -> usize,
    ) -> Vec<f32> {
        (0..threads)
            .map(|t| (0..8).fold(0.0f32, |s, k| s + input[at(t, k)]))
            .collect()
    }

    /// The luma of one pixel.
    pub fn luma(r: u8, g: u8, b: u8) -> u8 {
        ((77 * u32::from(r) + 150 * u32::from(g) + 29 * u32::from(b)) >> 8) as u8
    }

    /// The bags' sums, row-major `bags x dim`.
    pub fn embedding_bag(table: &[i32], offsets: &[u32], indices: &[u32], dim: usize) -> Vec<i32> {
        let mut out = Vec::with_capacity((offsets.len() - 1) * dim);
        for bag in offsets.windows(2) {
            for d in 0..dim {
                let rows = &indices[bag[0] as usize..bag[1] as usize];
                out.push(
                    rows.iter()
                        .fold(0i32, |s, &r| s.wrapping_add(table[r as usize * dim + d])),
                );
            }
        }
        out
    }
}

fn nvidia(items: u32, group: u32, width: u32) -> LaunchConfig {
    super::config(items / group, group, width).model(MemoryModel::nvidia())
}

/// The loads of `program`, as a region.
/// The global loads of `program`: the region of the studies of reads.
pub(crate) fn loads(program: &Program) -> Vec<usize> {
    (0..program.insts.len())
        .filter(|&k| is_global_load(&program.insts[k]))
        .collect()
}

/// Strided reads, stride 1 to 32.
pub const STRIDED_READ: Study = Study {
    name: "strided_read",
    seed: "001",
    claim: "A warp reading floats at stride 1, 2, 4, 8, 16, 32 asks 4, 8, 16, 32, 32, 32 sectors per request.",
    run: run_strided_read,
};

/// The strides of `strided_read` and the sectors per request the seed states for each.
pub const STRIDES: [(u32, u32); 6] = [(1, 4), (2, 8), (4, 16), (8, 32), (16, 32), (32, 32)];

fn run_strided_read(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let items = 1024;
    let input = SplitMix64::new(seed).f32_vec(items * 32, -1.0, 1.0);
    let cfg = nvidia(items as u32, GROUP, width);
    let region = loads(&strided_read::PROGRAM);
    let mut rows = Vec::new();
    let mut relations = Vec::new();
    for (stride, sectors) in STRIDES {
        let mut out = vec![0.0; items];
        let stats = strided_read::launch(&cfg, &input, &mut out, stride)?;
        let ok = (0..items).all(|i| out[i] == input[i * stride as usize]);
        let r = row(
            format!("stride{stride}"),
            &strided_read::PROGRAM,
            GROUP,
            &stats,
            ok,
            Some(&region),
        );
        let load = r.region.unwrap();
        relations.push(Relation::exact(
            format!("sectors per request, stride {stride}"),
            sectors.to_string(),
            f64::from(sectors),
            ratio(load.global_sectors, load.global_accesses),
        ));
        rows.push(r);
    }
    Ok(super::result(&STRIDED_READ, width, rows, relations))
}

/// Eight values per work-item in three layouts.
pub const EIGHT_PER_THREAD: Study = Study {
    name: "eight_per_thread",
    seed: "001",
    claim: "Thread-contiguous and strided reads of eight values per thread ask 8x the sectors of warp-strided ones; with an L1, thread-contiguous moves as few DRAM sectors as warp-strided, strided 8x.",
    run: run_eight_per_thread,
};

fn run_eight_per_thread(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let threads = 1024usize;
    // `strided` reads one value in eight of eight times the data the others read.
    let input = SplitMix64::new(seed).f32_vec(threads * 64, -1.0, 1.0);
    let cfg = nvidia(threads as u32, GROUP, width);
    let mut rows = Vec::new();
    let mut out = vec![0.0; threads];

    let stats = warp_strided::launch(&cfg, &input, &mut out)?;
    let ok = out == oracle::eight_sums(&input, threads, |t, k| (t / 32) * 256 + k * 32 + t % 32);
    rows.push(loads_row(
        "warp_strided",
        &warp_strided::PROGRAM,
        &stats,
        ok,
    ));

    let stats = thread_contiguous::launch(&cfg, &input, &mut out)?;
    let ok = out == oracle::eight_sums(&input, threads, |t, k| t * 8 + k);
    rows.push(loads_row(
        "thread_contiguous",
        &thread_contiguous::PROGRAM,
        &stats,
        ok,
    ));

    let stats = strided::launch(&cfg, &input, &mut out, threads as u32)?;
    let ok = out == oracle::eight_sums(&input, threads, |t, k| (k * threads + t) * 8);
    rows.push(loads_row("strided", &strided::PROGRAM, &stats, ok));

    let [ws, tc, st] = [0, 1, 2].map(|k| rows[k].region.unwrap());
    let relations = vec![
        Relation::exact(
            "requested sectors, thread_contiguous / warp_strided",
            "8 (1 : 8 : 8)",
            8.0,
            ratio(tc.global_sectors, ws.global_sectors),
        ),
        Relation::exact(
            "requested sectors, strided / warp_strided",
            "8 (1 : 8 : 8)",
            8.0,
            ratio(st.global_sectors, ws.global_sectors),
        ),
        Relation::exact(
            "DRAM sectors, thread_contiguous / warp_strided (with L1)",
            "1 (the same bytes cross the bus)",
            1.0,
            ratio(tc.dram_sectors, ws.dram_sectors),
        ),
        Relation::exact(
            "DRAM sectors, strided / warp_strided (with L1)",
            "8",
            8.0,
            ratio(st.dram_sectors, ws.dram_sectors),
        ),
        Relation::exact(
            "L1 hit rate, thread_contiguous",
            "7/8 (seven of eight requests served by L1)",
            7.0 / 8.0,
            if tc.l1_hit_sectors + tc.l1_miss_sectors == 0 {
                f64::NAN
            } else {
                tc.l1_hit_rate()
            },
        ),
    ];
    Ok(super::result(&EIGHT_PER_THREAD, width, rows, relations))
}

fn loads_row(name: &str, program: &Program, stats: &Stats, ok: bool) -> super::VariantRow {
    row(name, program, GROUP, stats, ok, Some(&loads(program)))
}

/// Packed against planar pixels.
pub const GRAYSCALE: Study = Study {
    name: "grayscale",
    seed: "001",
    claim: "Packed 3-byte pixels ask three times the sectors per channel load of planar ones for the same bytes; with an L1, DRAM sees the same sectors.",
    run: run_grayscale,
};

fn run_grayscale(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let pixels = 4096usize;
    let mut rng = SplitMix64::new(seed);
    let rgb: Vec<u8> = (0..3 * pixels).map(|_| rng.next_u32() as u8).collect();
    let planes: Vec<Vec<u8>> = (0..3)
        .map(|c| rgb.iter().skip(c).step_by(3).copied().collect())
        .collect();
    let expected: Vec<u8> = rgb
        .chunks(3)
        .map(|p| oracle::luma(p[0], p[1], p[2]))
        .collect();
    let cfg = nvidia(pixels as u32, GROUP, width);
    let mut grey = vec![0u8; pixels];
    let mut rows = Vec::new();
    let stats = grayscale_packed::launch(&cfg, &rgb, &mut grey)?;
    rows.push(loads_row(
        "packed",
        &grayscale_packed::PROGRAM,
        &stats,
        grey == expected,
    ));
    grey.fill(0);
    let stats = grayscale_planar::launch(&cfg, &planes[0], &planes[1], &planes[2], &mut grey)?;
    rows.push(loads_row(
        "planar",
        &grayscale_planar::PROGRAM,
        &stats,
        grey == expected,
    ));

    let (packed, planar) = (rows[0].region.unwrap(), rows[1].region.unwrap());
    let relations = vec![
        Relation::exact(
            "bytes requested, packed / planar",
            "1 (the same pixels)",
            1.0,
            ratio(packed.global_bytes_requested, planar.global_bytes_requested),
        ),
        Relation::exact(
            "load sectors, packed / planar",
            "3 (a channel every 3 bytes)",
            3.0,
            ratio(packed.global_sectors, planar.global_sectors),
        ),
        Relation::exact(
            "DRAM sectors, packed / planar (with L1)",
            "1",
            1.0,
            ratio(packed.dram_sectors, planar.dram_sectors),
        ),
        Relation::exact(
            "L1 hit rate, packed (with L1)",
            "2/3 (g and b find r's sectors)",
            2.0 / 3.0,
            if packed.l1_hit_sectors + packed.l1_miss_sectors == 0 {
                f64::NAN
            } else {
                packed.l1_hit_rate()
            },
        ),
    ];
    Ok(super::result(&GRAYSCALE, width, rows, relations))
}

/// Gathered rows, a lane per feature or per bag.
pub const EMBEDDING_BAG: Study = Study {
    name: "embedding_bag",
    seed: "001",
    claim: "Gathering rows with a lane per feature asks the minimum of sectors (the bytes used, in sectors); a lane per bag asks up to 8x that, a sector per 4-byte value.",
    run: run_embedding_bag,
};

fn run_embedding_bag(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let (rows_in_table, dim, bags) = (512usize, 64usize, 64usize);
    let mut rng = SplitMix64::new(seed);
    let table = rng.i32_vec(rows_in_table * dim, -1000, 1000);
    let mut offsets = vec![0u32];
    for _ in 0..bags {
        let size = rng.i32_in(1, 8) as u32;
        offsets.push(offsets.last().unwrap() + size);
    }
    let indices: Vec<u32> = (0..*offsets.last().unwrap())
        .map(|_| rng.i32_in(0, rows_in_table as i32 - 1) as u32)
        .collect();
    let expected = oracle::embedding_bag(&table, &offsets, &indices, dim);
    let mut out = vec![0; bags * dim];
    let mut rows = Vec::new();

    let cfg = nvidia((bags * dim) as u32, GROUP, width);
    let stats =
        bag_lane_per_feature::launch(&cfg, &table, &offsets, &indices, &mut out, dim as u32)?;
    rows.push(table_row(
        "lane_per_feature",
        &bag_lane_per_feature::PROGRAM,
        GROUP,
        &stats,
        out == expected,
    ));

    out.fill(0);
    let cfg = nvidia(bags as u32, bags as u32, width);
    let stats = bag_lane_per_bag::launch(&cfg, &table, &offsets, &indices, &mut out, dim as u32)?;
    rows.push(table_row(
        "lane_per_bag",
        &bag_lane_per_bag::PROGRAM,
        bags as u32,
        &stats,
        out == expected,
    ));

    let sector = u64::from(MemoryModel::nvidia().sector_bytes);
    let against_minimum =
        |c: &simt::core::Counters| ratio(c.global_sectors * sector, c.global_bytes_requested);
    let (feature, bag) = (rows[0].region.unwrap(), rows[1].region.unwrap());
    let relations = vec![
        Relation::exact(
            "table sectors / minimum, lane_per_feature",
            "1",
            1.0,
            against_minimum(&feature),
        ),
        Relation::new(
            "table sectors / minimum, lane_per_bag",
            "up to 8 (a 32-byte sector per 4-byte value)",
            against_minimum(&bag),
            against_minimum(&bag) > 4.0 && against_minimum(&bag) <= 8.0,
        ),
    ];
    Ok(super::result(&EMBEDDING_BAG, width, rows, relations))
}

/// A row whose region is the load from `table` (the second load in the gather loop).
fn table_row(
    name: &str,
    program: &Program,
    group: u32,
    stats: &Stats,
    ok: bool,
) -> super::VariantRow {
    let gather = nth(program, 0, |i| matches!(i, Inst::Loop { .. }));
    let table_load = (gather..program.insts.len())
        .filter(|&k| is_global_load(&program.insts[k]))
        .nth(1)
        .expect("the gather loop loads an index, then a table value");
    row(name, program, group, stats, ok, Some(&[table_load]))
}
