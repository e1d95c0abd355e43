//! The time claims of memory, under the timing model ([`time_part`]):
//!
//! - seed 001: of the three ways to read eight values per thread, the one
//!   that asks the L1 for 8x the sectors takes as long as the coalesced one
//!   (the same bytes cross DRAM), while the one that moves 8x the DRAM bytes
//!   is several times slower; SAXPY at a large size is DRAM-bound.
//! - seed 002: a memory-bound kernel's time falls as occupancy rises and
//!   flattens near 50%, while a compute-bound kernel with independent
//!   instructions barely moves from 25% to 100%; a bank-conflicted LDS
//!   kernel is slower than its padded form by about its conflict degree when
//!   the LDS limits it; one global counter updated by every work-item is
//!   several times slower than partial sums with one atomic per workgroup.

use super::{atomics, coalescing, row, time_part, timed, Relation, Study, StudyResult, VariantRow};
use crate::rng::SplitMix64;
use simt::core::{Error, Timing};

/// Work-items per workgroup.
const GROUP: u32 = 256;

simt::simt_kernel! {
    /// `c[i] = a[i] + b[i]`.
    fn add(a: buffer, b: buffer, c: buffer) {
        vreg x, y;
        global_load  x, a[global_id.x]
        global_load  y, b[global_id.x]
        v_add_f32    x, x, y
        global_store c[global_id.x], x
    }

    // The kernels below differ in their highest register, which sets how many
    // workgroups of 256 an H100 SM holds (512 registers per lane on each of
    // its four sub-partitions): 255 registers give 1 workgroup (occupancy
    // 12.5%), 128 give 2, 80 give 3, 64 give 4, 40 give 6, 32 give 8 (100%).

    /// `add` at 255 registers.
    pub kernel add_12(a: &[f32], b: &[f32], c: &mut [f32]) {
        v_mov v254, 0
        call add(a, b, c)
    }
    /// `add` at 128 registers.
    pub kernel add_25(a: &[f32], b: &[f32], c: &mut [f32]) {
        v_mov v127, 0
        call add(a, b, c)
    }
    /// `add` at 80 registers.
    pub kernel add_37(a: &[f32], b: &[f32], c: &mut [f32]) {
        v_mov v79, 0
        call add(a, b, c)
    }
    /// `add` at 64 registers.
    pub kernel add_50(a: &[f32], b: &[f32], c: &mut [f32]) {
        v_mov v63, 0
        call add(a, b, c)
    }
    /// `add` at 40 registers.
    pub kernel add_75(a: &[f32], b: &[f32], c: &mut [f32]) {
        v_mov v39, 0
        call add(a, b, c)
    }
    /// `add` at 32 registers.
    pub kernel add_100(a: &[f32], b: &[f32], c: &mut [f32]) {
        v_mov v31, 0
        call add(a, b, c)
    }

    /// Four independent chains of `4 steps` fused multiply-adds, four per
    /// chain in each trip of the loop (so that the loop's own dependent
    /// scalar steps are short beside them), summed and stored.
    fn chains(out: buffer, steps: sreg) {
        vreg a, b, c, d;
        sreg step;
        mreg more;
        v_cvt_f32_u32 a, local_id.x
        v_mov         b, a
        v_mov         c, a
        v_mov         d, a
        s_mov         step, 0
        loop
            v_fma_f32    a, a, 0.5, 1.0
            v_fma_f32    b, b, 0.5, 2.0
            v_fma_f32    c, c, 0.5, 3.0
            v_fma_f32    d, d, 0.5, 4.0
            v_fma_f32    a, a, 0.5, 1.0
            v_fma_f32    b, b, 0.5, 2.0
            v_fma_f32    c, c, 0.5, 3.0
            v_fma_f32    d, d, 0.5, 4.0
            v_fma_f32    a, a, 0.5, 1.0
            v_fma_f32    b, b, 0.5, 2.0
            v_fma_f32    c, c, 0.5, 3.0
            v_fma_f32    d, d, 0.5, 4.0
            v_fma_f32    a, a, 0.5, 1.0
            v_fma_f32    b, b, 0.5, 2.0
            v_fma_f32    c, c, 0.5, 3.0
            v_fma_f32    d, d, 0.5, 4.0
            s_add_u32    step, step, 1
            s_cmp_lt_u32 more, step, steps
        endloop more
        v_add_f32    a, a, b
        v_add_f32    a, a, c
        v_add_f32    a, a, d
        global_store out[global_id.x], a
    }
    /// `chains` at 128 registers.
    pub kernel chains_25(out: &mut [f32], steps: u32) {
        v_mov v127, 0
        call chains(out, steps)
    }
    /// `chains` at 32 registers.
    pub kernel chains_100(out: &mut [f32], steps: u32) {
        v_mov v31, 0
        call chains(out, steps)
    }

    /// Each work-item owns row `local_id.x` of `PITCH` words of an LDS tile,
    /// fills its first 32 words, then reads them back `rounds` times, eight
    /// loads per step: at `PITCH = 32` every lane of a wave asks bank `j` for
    /// its word `j` (32-way conflicts), at 33 the rows are staggered across
    /// the banks.
    kernel tile_rows<const PITCH: u32>(out: &mut [u32], rounds: u32) {
        lds tile: [u32; 256 * PITCH];
        vreg base, at, v, x0, x1, x2, x3, x4, x5, x6, x7, sum;
        sreg j, round;
        mreg more, again;
        v_mul_u32 base, local_id.x, PITCH
        s_mov     j, 0
        loop
            v_add_u32    at, base, j
            v_add_u32    v, local_id.x, j
            lds_store    tile[at], v
            s_add_u32    j, j, 1
            s_cmp_lt_u32 more, j, 32
        endloop more
        v_mov sum, 0
        s_mov round, 0
        loop
            s_mov j, 0
            loop
                v_add_u32    at, base, j
                lds_load     x0, tile[at]
                lds_load     x1, tile[at + 1]
                lds_load     x2, tile[at + 2]
                lds_load     x3, tile[at + 3]
                lds_load     x4, tile[at + 4]
                lds_load     x5, tile[at + 5]
                lds_load     x6, tile[at + 6]
                lds_load     x7, tile[at + 7]
                v_add_u32    sum, sum, x0
                v_add_u32    sum, sum, x1
                v_add_u32    sum, sum, x2
                v_add_u32    sum, sum, x3
                v_add_u32    sum, sum, x4
                v_add_u32    sum, sum, x5
                v_add_u32    sum, sum, x6
                v_add_u32    sum, sum, x7
                s_add_u32    j, j, 8
                s_cmp_lt_u32 more, j, 32
            endloop more
            s_add_u32    round, round, 1
            s_cmp_lt_u32 again, round, rounds
        endloop again
        global_store out[global_id.x], sum
    }
    pub kernel tile_rows_conflicted = tile_rows<PITCH = 32>;
    pub kernel tile_rows_padded = tile_rows<PITCH = 33>;
}

/// The scalar oracles.
pub mod oracle {
    /// `chains`.
    pub fn chains(items: usize, group: usize, steps: u32) -> Vec<f32> {
        (0..items)
            .map(|i| {
                let start = (i % group) as f32;
                let chain = |add: f32| (0..4 * steps).fold(start, |v, _| v.mul_add(0.5, add));
                chain(1.0) + chain(2.0) + chain(3.0) + chain(4.0)
            })
            .collect()
    }

    /// `tile_rows`: work-item `l` sums `l + j` for j in 0..32, `rounds` times.
    pub fn tile_rows(items: usize, group: usize, rounds: u32) -> Vec<u32> {
        (0..items)
            .map(|i| {
                let l = (i % group) as u32;
                let once = (0..32).fold(0u32, |s, j| s.wrapping_add(l + j));
                once.wrapping_mul(rounds)
            })
            .collect()
    }
}

fn inputs(seed: u64, items: usize) -> Vec<f32> {
    SplitMix64::new(seed).f32_vec(items, -1.0, 1.0)
}

/// Workgroups that fill the part's units `rounds` times over at `per_unit`
/// workgroups each.
fn groups(per_unit: u32, rounds: u32) -> u32 {
    time_part().memory.compute_units * per_unit * rounds
}

fn timing(row: &VariantRow) -> &Timing {
    row.timing
        .as_ref()
        .expect("the studies of time run timed launches")
}

/// A row's waves' time, without the launch's fixed cost (see
/// `divergence_time`).
fn cycles(row: &VariantRow) -> f64 {
    let t = timing(row);
    t.cycles - t.launch_cycles
}

/// `a / b` of two rows' cycles.
fn slower(a: &VariantRow, b: &VariantRow) -> f64 {
    cycles(a) / cycles(b)
}

/// The L1 trio of seed 001, timed.
pub const L1_TRIO_TIME: Study = Study {
    name: "l1_trio_time",
    seed: "001",
    claim: "Reading eight values per thread so that the L1 serves 8x the sectors takes as long as the coalesced read (the same DRAM bytes), while moving 8x the DRAM bytes is at least 4x slower when DRAM-bound.",
    run: run_l1_trio_time,
};

fn run_l1_trio_time(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let g = groups(8, 2);
    let threads = (g * GROUP) as usize;
    let input = inputs(seed, threads * 64);
    let cfg = timed(g, GROUP, width);
    let mut out = vec![0.0; threads];
    let mut rows = Vec::new();

    let stats = coalescing::warp_strided::launch(&cfg, &input, &mut out)?;
    let ok = out
        == coalescing::oracle::eight_sums(&input, threads, |t, k| (t / 32) * 256 + k * 32 + t % 32);
    let program = &coalescing::warp_strided::PROGRAM;
    let region = coalescing::loads(program);
    rows.push(row(
        "warp_strided",
        program,
        GROUP,
        &stats,
        ok,
        Some(&region),
    ));

    let stats = coalescing::thread_contiguous::launch(&cfg, &input, &mut out)?;
    let ok = out == coalescing::oracle::eight_sums(&input, threads, |t, k| t * 8 + k);
    let program = &coalescing::thread_contiguous::PROGRAM;
    let region = coalescing::loads(program);
    rows.push(row(
        "thread_contiguous",
        program,
        GROUP,
        &stats,
        ok,
        Some(&region),
    ));

    let stats = coalescing::strided::launch(&cfg, &input, &mut out, threads as u32)?;
    let ok = out == coalescing::oracle::eight_sums(&input, threads, |t, k| (k * threads + t) * 8);
    let program = &coalescing::strided::PROGRAM;
    let region = coalescing::loads(program);
    rows.push(row("strided", program, GROUP, &stats, ok, Some(&region)));

    let (a, b, c) = (&rows[0], &rows[1], &rows[2]);
    let b_over_a = slower(b, a);
    let dram_a = timing(a).utilization.dram;
    let relations = vec![
        Relation::exact(
            "requested load sectors, thread_contiguous / warp_strided",
            "8",
            8.0,
            super::ratio(
                b.region.unwrap_or_default().global_sectors,
                a.region.unwrap_or_default().global_sectors,
            ),
        ),
        Relation::new(
            "time, thread_contiguous / warp_strided",
            "1 within 10% (\"takes exactly as long\")",
            b_over_a,
            (b_over_a - 1.0).abs() <= 0.1,
        ),
        Relation::new(
            "DRAM % of peak, warp_strided",
            ">= 60 (DRAM-bound)",
            100.0 * dram_a,
            dram_a >= 0.6,
        ),
        Relation::new(
            "time, strided / warp_strided",
            ">= 4 (8x the DRAM bytes)",
            slower(c, a),
            slower(c, a) >= 4.0,
        ),
    ];
    Ok(super::result(&L1_TRIO_TIME, width, rows, relations))
}

/// SAXPY at a large size, timed.
pub const SAXPY_TIME: Study = Study {
    name: "saxpy_time",
    seed: "001",
    claim: "SAXPY at a large size is DRAM-bound: DRAM at 70% of its peak or more, the issue slots mostly idle.",
    run: run_saxpy_time,
};

fn run_saxpy_time(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let n = 1u32 << 18;
    let x = inputs(seed, n as usize);
    let mut y = inputs(seed ^ 1, n as usize);
    let a = 1.5f32;
    let expected: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| a.mul_add(x, y)).collect();
    let cfg = timed(n / GROUP, GROUP, width);
    let stats = crate::kernels::elementwise::saxpy_f32::launch(&cfg, &x, &mut y, a, n)?;
    let program = &crate::kernels::elementwise::saxpy_f32::PROGRAM;
    let rows = vec![row("saxpy", program, GROUP, &stats, y == expected, None)];
    let t = timing(&rows[0]);
    let (dram, issue) = (t.utilization.dram, t.utilization.issue);
    let relations = vec![
        Relation::new("DRAM % of peak", ">= 70", 100.0 * dram, dram >= 0.7),
        Relation::new("issue % of peak", "< 30 (low)", 100.0 * issue, issue < 0.3),
        Relation::new(
            "limited by DRAM",
            "1 (yes)",
            f64::from(u8::from(t.bound() == simt::core::Bound::Dram)),
            t.bound() == simt::core::Bound::Dram,
        ),
    ];
    Ok(super::result(&SAXPY_TIME, width, rows, relations))
}

/// Occupancy against latency hiding, timed.
pub const OCCUPANCY_HIDING: Study = Study {
    name: "occupancy_hiding",
    seed: "002",
    claim: "A memory-bound kernel's time falls as occupancy rises and flattens near 50%; a compute-bound kernel with independent instructions barely moves from 25% to 100%.",
    run: run_occupancy_hiding,
};

fn run_occupancy_hiding(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let g = groups(8, 4);
    let items = (g * GROUP) as usize;
    let (a, b) = (inputs(seed, items), inputs(seed ^ 1, items));
    let sum: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let cfg = timed(g, GROUP, width);
    let mut c = vec![0.0; items];
    let mut rows = Vec::new();
    macro_rules! adds {
        ($($k:ident => $name:literal),*) => {$(
            let stats = $k::launch(&cfg, &a, &b, &mut c)?;
            rows.push(row($name, &$k::PROGRAM, GROUP, &stats, c == sum, None));
        )*};
    }
    adds!(add_12 => "add_12%", add_25 => "add_25%", add_37 => "add_37%",
          add_50 => "add_50%", add_75 => "add_75%", add_100 => "add_100%");
    // Long enough that the start and the end of each workgroup (its store
    // drains) weigh little.
    let steps = 128;
    let expected = oracle::chains(items, GROUP as usize, steps);
    let stats = chains_25::launch(&cfg, &mut c, steps)?;
    rows.push(row(
        "chains_25%",
        &chains_25::PROGRAM,
        GROUP,
        &stats,
        c == expected,
        None,
    ));
    let stats = chains_100::launch(&cfg, &mut c, steps)?;
    rows.push(row(
        "chains_100%",
        &chains_100::PROGRAM,
        GROUP,
        &stats,
        c == expected,
        None,
    ));

    let full = &rows[5];
    let falls = slower(&rows[0], full);
    let flat = slower(&rows[3], full);
    let compute = slower(&rows[6], &rows[7]);
    let relations = vec![
        Relation::new(
            "time, memory-bound at 12.5% / at 100%",
            "> 1.5 (time falls as occupancy rises)",
            falls,
            falls > 1.5,
        ),
        Relation::new(
            "time, memory-bound at 25% / at 50%",
            "> 1.1 (still falling below 50%)",
            slower(&rows[1], &rows[3]),
            slower(&rows[1], &rows[3]) > 1.1,
        ),
        Relation::new(
            "time, memory-bound at 50% / at 100%",
            "up to 1.1 (flat from about 50%)",
            flat,
            flat <= 1.1,
        ),
        Relation::new(
            "time, compute-bound with 4 chains at 25% / at 100%",
            "up to 1.1 (barely moves)",
            compute,
            compute <= 1.1,
        ),
    ];
    Ok(super::result(&OCCUPANCY_HIDING, width, rows, relations))
}

/// Bank conflicts in time, when the LDS limits.
pub const CONFLICT_TIME: Study = Study {
    name: "conflict_time",
    seed: "002",
    claim: "When the LDS limits a kernel, its 32-way bank-conflicted form is slower than the padded one by about the conflict degree.",
    run: run_conflict_time,
};

fn run_conflict_time(_seed: u64, width: u32) -> Result<StudyResult, Error> {
    let g = groups(8, 1);
    let items = (g * GROUP) as usize;
    let rounds = 4;
    let cfg = timed(g, GROUP, width);
    let expected = oracle::tile_rows(items, GROUP as usize, rounds);
    let mut out = vec![0u32; items];
    let mut rows = Vec::new();
    let stats = tile_rows_conflicted::launch(&cfg, &mut out, rounds)?;
    let program = &tile_rows_conflicted::PROGRAM;
    rows.push(row(
        "conflicted",
        program,
        GROUP,
        &stats,
        out == expected,
        None,
    ));
    let stats = tile_rows_padded::launch(&cfg, &mut out, rounds)?;
    let program = &tile_rows_padded::PROGRAM;
    rows.push(row("padded", program, GROUP, &stats, out == expected, None));
    let ratio = slower(&rows[0], &rows[1]);
    let lds = timing(&rows[0]).utilization.lds;
    let relations = vec![
        Relation::new(
            "LDS % of peak, conflicted",
            ">= 60 (LDS-bound)",
            100.0 * lds,
            lds >= 0.6,
        ),
        Relation::near(
            "time, conflicted / padded",
            "32 within 25% (the conflict degree)",
            32.0,
            ratio,
            0.25,
        ),
    ];
    Ok(super::result(&CONFLICT_TIME, width, rows, relations))
}

/// One counter against partial sums, timed.
pub const ATOMICS_TIME: Study = Study {
    name: "atomics_time",
    seed: "002",
    claim: "One global counter updated by 4,096 work-items is at least 5x slower than per-workgroup partial sums with one atomic per workgroup.",
    run: run_atomics_time,
};

fn run_atomics_time(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let items = atomics::ITEMS;
    let input: Vec<u32> = SplitMix64::new(seed)
        .f32_vec(items as usize, 0.0, 1000.0)
        .iter()
        .map(|&x| x as u32)
        .collect();
    let expected = input.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    let cfg = timed(items / atomics::GROUP, atomics::GROUP, width);
    let mut rows = Vec::new();
    let mut total = [0u32];
    let stats = atomics::sum_every_item::launch(&cfg, &input, &mut total)?;
    let program = &atomics::sum_every_item::PROGRAM;
    rows.push(row(
        "one_counter",
        program,
        atomics::GROUP,
        &stats,
        total[0] == expected,
        None,
    ));
    let mut total = [0u32];
    let stats = atomics::sum_per_workgroup::launch(&cfg, &input, &mut total)?;
    let program = &atomics::sum_per_workgroup::PROGRAM;
    let ok = total[0] == expected;
    rows.push(row(
        "partial_sums",
        program,
        atomics::GROUP,
        &stats,
        ok,
        None,
    ));
    let ratio = slower(&rows[0], &rows[1]);
    let relations = vec![Relation::new(
        "time, one counter / partial sums",
        ">= 5",
        ratio,
        ratio >= 5.0,
    )];
    Ok(super::result(&ATOMICS_TIME, width, rows, relations))
}
