//! The time claims of divergence, under the timing model ([`time_part`]):
//!
//! - seed 003: a k-way split's time grows linearly in k, T(k) = s k + c, and
//!   the 32-way split costs 28-33x one path; predication takes a two-way
//!   branch from 2x to 1x; the 32-way penalty stays the same from one
//!   resident wave per scheduler to the most, because divergence adds
//!   issues, which occupancy cannot hide.
//! - seed 001: the same per-thread work split by waves issues half the wave
//!   instructions of the split inside waves, and takes half the time.
//!
//! Each variant's kernel is checked against its scalar oracle, as in every
//! study; the relations are read from the estimates.

use super::{branch, kway, row, time_part, timed, Relation, Study, StudyResult};
use crate::rng::SplitMix64;
use simt::core::Error;

/// Work-items per workgroup.
const GROUP: u32 = 256;
/// Rounds of the switch times resident waves per scheduler, in the studies
/// of `switch_rounds`. A launch's fixed cost (its load's and its stores'
/// latency, about 1,000 cycles) must be small beside one path's time for
/// T(32) / T(1) to approach 32: at 352, one path takes about 27,000 cycles of
/// a scheduler's issue (and more when the waves are too few to hide the
/// multiply-adds' latency).
const ROUNDS_TIMES_WAVES: u32 = 352;
/// Steps of each path in the branch studies: the paths' time must dwarf the
/// fixed cost too.
const WORK: u32 = 512;

simt::simt_kernel! {
    /// Eight dependent fused multiply-adds of `v` with `addend`.
    fn eight(v: vreg, addend: sreg) {
        v_fma_f32 v, v, 1.0001, addend
        v_fma_f32 v, v, 1.0001, addend
        v_fma_f32 v, v, 1.0001, addend
        v_fma_f32 v, v, 1.0001, addend
        v_fma_f32 v, v, 1.0001, addend
        v_fma_f32 v, v, 1.0001, addend
        v_fma_f32 v, v, 1.0001, addend
        v_fma_f32 v, v, 1.0001, addend
    }

    /// `rounds` rounds of a switch on `lane_id % k` over the cases
    /// `0..cases`, each case 64 fused multiply-adds with the case's number
    /// as addend: a case body is long beside the loop around it, as in the
    /// seed's kernels, so that the time is the bodies'.
    pub kernel switch_rounds(input: &[f32], out: &mut [f32], k: u32, cases: u32, rounds: u32) {
        vreg v, pick;
        sreg case, addend, round;
        mreg mine, more, again;
        global_load v, input[global_id.x]
        v_rem_u32   pick, lane_id, k
        s_mov       round, 0
        loop
            s_mov case, 0
            loop
                v_cmp_eq_u32  mine, pick, case
                s_cvt_f32_u32 addend, case
                if mine
                    call eight(v, addend)
                    call eight(v, addend)
                    call eight(v, addend)
                    call eight(v, addend)
                    call eight(v, addend)
                    call eight(v, addend)
                    call eight(v, addend)
                    call eight(v, addend)
                endif
                s_add_u32    case, case, 1
                s_cmp_lt_u32 more, case, cases
            endloop more
            s_add_u32    round, round, 1
            s_cmp_lt_u32 again, round, rounds
        endloop again
        global_store out[global_id.x], v
    }

    /// Path a of `divergent_lanes` for every work-item: the one path. Its
    /// constants are in registers, as in the predicated form (and in
    /// seeds.cu's kernels): an FMA reading three registers issues at the
    /// rate the predicated one does.
    pub kernel one_path(input: &[f32], out: &mut [f32], work: u32) {
        vreg v, scale, addend;
        sreg step;
        mreg more;
        global_load v, input[global_id.x]
        v_mov       scale, 1.0001
        v_mov       addend, 0.5
        s_mov       step, 0
        loop
            v_fma_f32    v, v, scale, addend
            s_add_u32    step, step, 1
            s_cmp_lt_u32 more, step, work
        endloop more
        global_store out[global_id.x], v
    }
}

/// The scalar oracles.
pub mod oracle {
    /// `switch_rounds` in waves of `width` (workgroups a multiple of it).
    pub fn switch_rounds(input: &[f32], width: u32, k: u32, rounds: u32) -> Vec<f32> {
        input
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let addend = ((i as u32 % width) % k) as f32;
                (0..64 * rounds).fold(v, |v, _| v.mul_add(1.0001, addend))
            })
            .collect()
    }
}

fn inputs(seed: u64, items: u32) -> Vec<f32> {
    SplitMix64::new(seed).f32_vec(items as usize, -1.0, 1.0)
}

/// Workgroups that fill the part's units once at `per_unit` workgroups each.
fn groups(per_unit: u32) -> u32 {
    time_part().memory.compute_units * per_unit
}

/// Estimated cycles of a row: its waves' time, without the launch's fixed
/// cost (the studies' launches are small cuts of the seeds' GPU-sized ones,
/// whose relations are about the kernels).
fn cycles(row: &super::VariantRow) -> f64 {
    row.timing
        .as_ref()
        .map_or(f64::NAN, |t| t.cycles - t.launch_cycles)
}

/// The least-squares line through `(x, y)`: slope, intercept and R².
pub fn fit_line(points: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in points {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let r2 = if syy == 0.0 {
        1.0
    } else {
        sxy * sxy / (sxx * syy)
    };
    (slope, intercept, r2)
}

/// T(k) for k = 1 to 32.
pub const KWAY_TIME: Study = Study {
    name: "kway_time",
    seed: "003",
    claim: "A k-way split of identical paths takes time linear in k, T(k) = s k + c, and the 32-way split 28-33x one path (hardware 31.7-31.9x).",
    run: run_kway_time,
};

fn run_kway_time(seed: u64, width: u32) -> Result<StudyResult, Error> {
    // Four workgroups of eight waves per unit: eight waves per scheduler.
    let g = groups(4);
    let rounds = ROUNDS_TIMES_WAVES / 8;
    let input = inputs(seed, g * GROUP);
    let cfg = timed(g, GROUP, width);
    let mut rows = Vec::new();
    for k in kway::KS {
        let mut out = vec![0.0; input.len()];
        let stats = switch_rounds::launch(&cfg, &input, &mut out, k, k, rounds)?;
        let ok = out == oracle::switch_rounds(&input, width, k, rounds);
        rows.push(row(
            format!("k{k}"),
            &switch_rounds::PROGRAM,
            GROUP,
            &stats,
            ok,
            None,
        ));
    }
    let points: Vec<(f64, f64)> = kway::KS
        .iter()
        .zip(&rows)
        .map(|(&k, r)| (f64::from(k), cycles(r)))
        .collect();
    let (_, _, r2) = fit_line(&points);
    let penalty = cycles(&rows[5]) / cycles(&rows[0]);
    let relations = vec![
        Relation::new("R² of the line T(k) = s k + c", ">= 0.99", r2, r2 >= 0.99),
        Relation::new(
            "T(32) / T(1)",
            "28-33x (hardware 31.7-31.9x)",
            penalty,
            (28.0..=33.0).contains(&penalty),
        ),
    ];
    Ok(super::result(&KWAY_TIME, width, rows, relations))
}

/// The two-way branch, its predicated form and one path, timed.
pub const PREDICATION_TIME: Study = Study {
    name: "predication_time",
    seed: "003",
    claim: "A two-way divergent branch takes about twice one path's time; its predicated form takes one path's time (hardware 2.00x and 1x).",
    run: run_predication_time,
};

/// The launch both branch studies start from: its inputs and shape, and
/// `divergent_lanes` run on them as the row called `name`.
struct Branchy {
    input: Vec<f32>,
    cfg: simt::core::LaunchConfig,
    lanes: super::VariantRow,
}

fn branchy(seed: u64, width: u32, name: &str) -> Result<Branchy, Error> {
    let g = groups(4);
    let input = inputs(seed, g * GROUP);
    let cfg = timed(g, GROUP, width);
    let mut out = vec![0.0; input.len()];
    let stats = branch::divergent_lanes::launch(&cfg, &input, &mut out, WORK)?;
    let ok = out == branch::oracle::two_paths(&input, GROUP as usize, width as usize, false, WORK);
    let program = &branch::divergent_lanes::PROGRAM;
    let lanes = row(name, program, GROUP, &stats, ok, None);
    Ok(Branchy { input, cfg, lanes })
}

fn run_predication_time(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let Branchy { input, cfg, lanes } = branchy(seed, width, "branch")?;
    let two = branch::oracle::two_paths(&input, GROUP as usize, width as usize, false, WORK);
    let one: Vec<f32> = input
        .iter()
        .map(|&v| branch::oracle::path_a(v, WORK))
        .collect();
    let mut out = vec![0.0; input.len()];
    let mut rows = Vec::new();
    let stats = one_path::launch(&cfg, &input, &mut out, WORK)?;
    rows.push(row(
        "one_path",
        &one_path::PROGRAM,
        GROUP,
        &stats,
        out == one,
        None,
    ));
    rows.push(lanes);
    let stats = kway::predicated::launch(&cfg, &input, &mut out, WORK)?;
    let program = &kway::predicated::PROGRAM;
    rows.push(row("predicated", program, GROUP, &stats, out == two, None));
    let (one, branch, predicated) = (cycles(&rows[0]), cycles(&rows[1]), cycles(&rows[2]));
    let relations = vec![
        Relation::near(
            "time, branch / one path",
            "2 (hardware 2.00x)",
            2.0,
            branch / one,
            0.1,
        ),
        Relation::near(
            "time, predicated / one path",
            "1 within 5% (hardware 1x)",
            1.0,
            predicated / one,
            0.05,
        ),
    ];
    Ok(super::result(&PREDICATION_TIME, width, rows, relations))
}

/// The 32-way penalty in time over resident waves per scheduler.
pub const OCCUPANCY_TIME: Study = Study {
    name: "occupancy_time",
    seed: "003",
    claim: "The 32-way penalty in time stays 28-33x from one resident wave per scheduler to the most: divergence adds issues, occupancy only hides latency (hardware 28-31x).",
    run: run_occupancy_time,
};

/// Resident waves per scheduler swept by `occupancy_time`, at wave32.
pub const WAVES_PER_SCHEDULER: [u32; 5] = [1, 2, 4, 8, 16];

fn run_occupancy_time(seed: u64, width: u32) -> Result<StudyResult, Error> {
    // Workgroups of one wave per scheduler: `n` of them per unit put `n`
    // waves on each scheduler.
    let schedulers = time_part().hardware.simds_per_unit;
    let size = schedulers * width;
    let mut rows = Vec::new();
    let mut penalties = Vec::new();
    for n in WAVES_PER_SCHEDULER {
        let g = groups(n);
        let rounds = ROUNDS_TIMES_WAVES / n;
        let input = inputs(seed, g * size);
        let cfg = timed(g, size, width);
        let mut pair = Vec::new();
        for k in [1, 32] {
            let mut out = vec![0.0; input.len()];
            let stats = switch_rounds::launch(&cfg, &input, &mut out, k, k, rounds)?;
            let ok = out == oracle::switch_rounds(&input, width, k, rounds);
            let name = format!("k{k}_{n}_per_scheduler");
            pair.push(row(name, &switch_rounds::PROGRAM, size, &stats, ok, None));
        }
        penalties.push((n, cycles(&pair[1]) / cycles(&pair[0])));
        rows.extend(pair);
    }
    let relations = penalties
        .iter()
        .map(|&(n, p)| {
            Relation::new(
                format!("T(32) / T(1), {n} waves per scheduler"),
                "28-33x (hardware 28-31x)",
                p,
                (28.0..=33.0).contains(&p),
            )
        })
        .collect();
    Ok(super::result(&OCCUPANCY_TIME, width, rows, relations))
}

/// The branch split by waves against the split inside waves, timed.
pub const WARP_SPLIT_TIME: Study = Study {
    name: "warp_split_time",
    seed: "001",
    claim: "The same per-thread work split by warps instead of inside them issues half the wave instructions and takes 0.45-0.55x the time.",
    run: run_warp_split_time,
};

fn run_warp_split_time(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let Branchy { input, cfg, lanes } = branchy(seed, width, "split_in_warps")?;
    let mut out = vec![0.0; input.len()];
    let mut rows = vec![lanes];
    let stats = branch::divergent_warps::launch(&cfg, &input, &mut out, WORK)?;
    let ok = out == branch::oracle::two_paths(&input, GROUP as usize, width as usize, true, WORK);
    let program = &branch::divergent_warps::PROGRAM;
    rows.push(row("split_by_warps", program, GROUP, &stats, ok, None));
    let issues = super::ratio(rows[1].stats.instructions, rows[0].stats.instructions);
    let time = cycles(&rows[1]) / cycles(&rows[0]);
    let relations = vec![
        Relation::near(
            "wave instructions, by warps / in warps",
            "1/2",
            0.5,
            issues,
            0.05,
        ),
        Relation::new(
            "time, by warps / in warps",
            "0.45-0.55",
            time,
            (0.45..=0.55).contains(&time),
        ),
    ];
    Ok(super::result(&WARP_SPLIT_TIME, width, rows, relations))
}
