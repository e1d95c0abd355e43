//! Seed 001, divergence: what a branch costs depends on how many paths a wave runs,
//! not on how many paths the work-items take.
//!
//! - `divergent_paths`: the same two paths, chosen by a lane's parity (every wave
//!   runs both) or by its wave's parity (every wave runs one): twice the issues.
//! - `switch32`: a switch on `lane_id % 32` with 32 non-empty cases issues 32 case
//!   bodies per wave where a switch every lane agrees on issues one.
//! - `rare_branch`: a branch one lane in a thousand waves takes is almost free,
//!   because the waves without a taker skip its body.

use super::{first_if_body, kway::switch_cases, ratio, row, Relation, Study, StudyResult};
use crate::rng::SplitMix64;
use simt::core::{Error, LaunchConfig};

/// Iterations of each path's loop (the seed runs 256; the ratio does not depend on it).
pub const WORK: u32 = 64;
/// Work-items per workgroup.
const GROUP: u32 = 256;

simt::simt_kernel! {
    /// `work` steps of `v = v * scale + bias`, counted in `step`. The
    /// constants are in registers, as in seeds.cu's paths (whose constants
    /// are computed): each step's FMA reads three registers.
    fn path(v: vreg, step: sreg, more: mreg, work: sreg, scale: vreg, bias: vreg) {
        s_mov step, 0
        loop
            v_fma_f32    v, v, scale, bias
            s_add_u32    step, step, 1
            s_cmp_lt_u32 more, step, work
        endloop more
    }

    /// Work-items whose `selector` is odd run path a (`work` steps of
    /// `v = v * 1.0001 + 0.5`), the others path b (`v = v * 0.9999 + 0.25`).
    fn two_paths(input: buffer, out: buffer, work: sreg, selector: vreg) {
        vreg v, bit, scale, bias;
        sreg step;
        mreg path_a, more;
        global_load  v, input[global_id.x]
        v_and        bit, selector, 1
        v_cmp_eq_u32 path_a, bit, 1
        if path_a
            v_mov scale, 1.0001
            v_mov bias, 0.5
            call path(v, step, more, work, scale, bias)
        else
            v_mov scale, 0.9999
            v_mov bias, 0.25
            call path(v, step, more, work, scale, bias)
        endif
        global_store out[global_id.x], v
    }

    /// Lanes of odd local id run path a, lanes of even local id path b:
    /// neighbouring lanes disagree, so every wave runs both paths, one after
    /// the other.
    pub kernel divergent_lanes(input: &[f32], out: &mut [f32], work: u32) {
        call two_paths(input, out, work, local_id.x)
    }

    /// `divergent_lanes` with the path chosen by the wave's parity: every lane of a
    /// wave agrees, so each wave runs one path and skips the other.
    pub kernel divergent_warps(input: &[f32], out: &mut [f32], work: u32) {
        call two_paths(input, out, work, wave_id)
    }

    /// Work-item `i` runs path a when `i % period == period - 1`, and otherwise
    /// passes its value through: with `period` a thousand waves' work-items, one
    /// lane in a thousand waves takes the branch.
    pub kernel rare_branch(input: &[f32], out: &mut [f32], period: u32, work: u32) {
        vreg v, phase, scale, bias;
        sreg step, last;
        mreg takes, more;
        global_load  v, input[global_id.x]
        v_rem_u32    phase, global_id.x, period
        s_sub_u32    last, period, 1
        v_cmp_eq_u32 takes, phase, last
        if takes
            v_mov scale, 1.0001
            v_mov bias, 0.5
            call path(v, step, more, work, scale, bias)
        endif
        global_store out[global_id.x], v
    }
}

/// The scalar oracles.
pub mod oracle {
    /// Path a, `work` steps.
    pub fn path_a(mut v: f32, work: u32) -> f32 {
        for _ in 0..work {
            v = v.mul_add(1.0001, 0.5);
        }
        v
    }

    /// Path b, `work` steps.
    pub fn path_b(mut v: f32, work: u32) -> f32 {
        for _ in 0..work {
            v = v.mul_add(0.9999, 0.25);
        }
        v
    }

    /// `divergent_lanes` (and `divergent_warps` when `by_wave`, with waves of `width`).
    pub fn two_paths(
        input: &[f32],
        group: usize,
        width: usize,
        by_wave: bool,
        work: u32,
    ) -> Vec<f32> {
        input
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let local = i % group;
                let selector = if by_wave { local / width } else { local };
                if selector % 2 == 1 {
                    path_a(v, work)
                } else {
                    path_b(v, work)
                }
            })
            .collect()
    }

    /// `rare_branch`.
    pub fn rare_branch(input: &[f32], period: u32, work: u32) -> Vec<f32> {
        input
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                if i as u32 % period == period - 1 {
                    path_a(v, work)
                } else {
                    v
                }
            })
            .collect()
    }
}

fn config(items: u32, width: u32) -> LaunchConfig {
    super::config(items / GROUP, GROUP, width)
}

/// The two paths of seed 001, by lane and by wave.
pub const DIVERGENT_PATHS: Study = Study {
    name: "divergent_paths",
    seed: "001",
    claim:
        "Two equal paths chosen per lane cost twice the issues of the same paths chosen per wave.",
    run: run_divergent_paths,
};

fn run_divergent_paths(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let items = 16 * GROUP;
    let input = SplitMix64::new(seed).f32_vec(items as usize, -1.0, 1.0);
    let cfg = config(items, width);
    let mut rows = Vec::new();
    let mut out = vec![0.0; input.len()];

    let lanes = divergent_lanes::launch(&cfg, &input, &mut out, WORK)?;
    let ok = out == oracle::two_paths(&input, GROUP as usize, width as usize, false, WORK);
    let region = first_if_body(&divergent_lanes::PROGRAM);
    rows.push(row(
        "divergent_lanes",
        &divergent_lanes::PROGRAM,
        GROUP,
        &lanes,
        ok,
        Some(&region),
    ));

    let warps = divergent_warps::launch(&cfg, &input, &mut out, WORK)?;
    let ok = out == oracle::two_paths(&input, GROUP as usize, width as usize, true, WORK);
    let region = first_if_body(&divergent_warps::PROGRAM);
    rows.push(row(
        "divergent_warps",
        &divergent_warps::PROGRAM,
        GROUP,
        &warps,
        ok,
        Some(&region),
    ));

    let (l, w) = (rows[0].region.unwrap(), rows[1].region.unwrap());
    let relations = vec![
        Relation::exact(
            "issues in region, divergent_lanes / divergent_warps",
            "2:1 (1.97x in time)",
            2.0,
            ratio(l.instructions, w.instructions),
        ),
        Relation::exact(
            "divergent vector issues, divergent_warps",
            "0",
            0.0,
            warps.totals.divergent_vector_instructions as f64,
        ),
    ];
    Ok(super::result(&DIVERGENT_PATHS, width, rows, relations))
}

/// A switch on `lane_id % 32` against one every lane agrees on.
pub const SWITCH32: Study = Study {
    name: "switch32",
    seed: "001",
    claim: "A switch on lane_id % 32 with 32 non-empty cases issues 32 times the case bodies of a switch all lanes agree on.",
    run: run_switch32,
};

fn run_switch32(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let items = 4 * GROUP;
    let input = SplitMix64::new(seed).f32_vec(items as usize, -1.0, 1.0);
    let cfg = config(items, width);
    let region = first_if_body(&switch_cases::PROGRAM);
    let mut rows = Vec::new();
    // The selector is `lane_id % k`: k = 1 puts every lane in case 0.
    for (name, k) in [("one_case", 1), ("lane_mod_32", 32)] {
        let mut out = vec![0.0; input.len()];
        let stats = switch_cases::launch(&cfg, &input, &mut out, k, 32)?;
        let ok = out == super::kway::oracle::switch_cases(&input, width, k);
        rows.push(row(
            name,
            &switch_cases::PROGRAM,
            GROUP,
            &stats,
            ok,
            Some(&region),
        ));
    }
    let (one, all) = (rows[0].region.unwrap(), rows[1].region.unwrap());
    let waves = u64::from(items / width);
    let relations = vec![
        Relation::exact(
            "case-body issues, lane_mod_32 / one_case",
            "32",
            32.0,
            ratio(all.instructions, one.instructions),
        ),
        Relation::exact(
            "case bodies skipped per wave, one_case",
            "31",
            31.0,
            ratio(one.skipped_instructions, waves * region.len() as u64),
        ),
    ];
    Ok(super::result(&SWITCH32, width, rows, relations))
}

/// A branch one lane in a thousand waves takes.
pub const RARE_BRANCH: Study = Study {
    name: "rare_branch",
    seed: "001",
    claim: "A branch one lane in a thousand waves takes costs almost nothing: the other waves skip its body.",
    run: run_rare_branch,
};

fn run_rare_branch(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let waves = 1000;
    let items = waves * width;
    let input = SplitMix64::new(seed).f32_vec(items as usize, -1.0, 1.0);
    let cfg = super::config(items / width, width, width);
    let region = first_if_body(&rare_branch::PROGRAM);
    let mut rows = Vec::new();
    // A period past the last work-item is never reached: the branch is never taken.
    for (name, period) in [
        ("no_lane", 2 * items),
        ("one_in_1000_waves", items),
        ("one_per_wave", width),
    ] {
        let mut out = vec![0.0; input.len()];
        let stats = rare_branch::launch(&cfg, &input, &mut out, period, WORK)?;
        let ok = out == oracle::rare_branch(&input, period, WORK);
        rows.push(row(
            name,
            &rare_branch::PROGRAM,
            width,
            &stats,
            ok,
            Some(&region),
        ));
    }
    let (never, rare, every) = (&rows[0], &rows[1], &rows[2]);
    let (rare_region, every_region) = (rare.region.unwrap(), every.region.unwrap());
    let relations = vec![
        Relation::exact(
            "issues over no_lane, in one taking wave's bodies, one_in_1000_waves",
            "1 (almost free)",
            1.0,
            ratio(
                (rare.stats.instructions - never.stats.instructions) * u64::from(waves),
                every_region.instructions,
            ),
        ),
        Relation::exact(
            "body issues, one_per_wave / one_in_1000_waves",
            "1000",
            f64::from(waves),
            ratio(every_region.instructions, rare_region.instructions),
        ),
        Relation::exact(
            "waves that skip the body, one_in_1000_waves",
            "999",
            f64::from(waves - 1),
            ratio(rare_region.skipped_instructions, region.len() as u64),
        ),
    ];
    Ok(super::result(&RARE_BRANCH, width, rows, relations))
}
