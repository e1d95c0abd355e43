//! Seed 003, divergence across GPU generations: a k-way split serializes linearly,
//! lanes per issue fall as 32/k, predication removes the serialization, and
//! occupancy does not hide it, because it is a cost in issued instructions.
//!
//! - `kway`: k = 1, 2, 4, 8, 16, 32 paths of identical work, chosen by `lane_id % k`.
//! - `predication`: the two-way branch of seed 001 against the same arithmetic with
//!   its constants chosen by `v_select`.
//! - `occupancy_invariance`: the 32-way penalty as the workgroups per compute unit
//!   grow.

use super::{branch, config, first_if_body, nth, ratio, row, Relation, Study, StudyResult};
use crate::rng::SplitMix64;
use simt::core::{Error, Inst, MemoryModel};

/// Work-items per workgroup.
const GROUP: u32 = 256;
/// The split widths of the study.
pub const KS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Warp execution efficiency (active threads per issued instruction over the whole
/// divergent region) the seed measured with Nsight Compute for each of [`KS`].
pub const HARDWARE_LANES_PER_ISSUE: [f64; 6] = [31.9, 16.2, 8.3, 4.25, 2.23, 1.21];

simt::simt_kernel! {
    /// Each work-item picks case `lane_id % k` and runs its body: four fused
    /// multiply-adds whose addend is the case's number, so every case does the same
    /// work on different constants. The cases `0..cases` are visited by a uniform
    /// loop, as a switch is serialized: a wave issues a case's body when at least one
    /// of its lanes picked it, and skips it otherwise.
    pub kernel switch_cases(input: &[f32], out: &mut [f32], k: u32, cases: u32) {
        vreg v, pick;
        sreg case, addend;
        mreg mine, more;
        global_load v, input[global_id.x]
        v_rem_u32   pick, lane_id, k
        s_mov       case, 0
        loop
            v_cmp_eq_u32  mine, pick, case
            s_cvt_f32_u32 addend, case
            if mine
                v_fma_f32 v, v, 1.0001, addend
                v_fma_f32 v, v, 1.0001, addend
                v_fma_f32 v, v, 1.0001, addend
                v_fma_f32 v, v, 1.0001, addend
            endif
            s_add_u32    case, case, 1
            s_cmp_lt_u32 more, case, cases
        endloop more
        global_store out[global_id.x], v
    }

    /// `divergent_lanes` without the branch: each lane selects its path's constants
    /// with `v_select`, then every lane runs the one loop, with the whole wave active.
    pub kernel predicated(input: &[f32], out: &mut [f32], work: u32) {
        vreg v, bit, scale, addend;
        sreg step;
        mreg path_a, more;
        global_load  v, input[global_id.x]
        v_and        bit, local_id.x, 1
        v_cmp_eq_u32 path_a, bit, 1
        v_select     scale, path_a, 1.0001, 0.9999
        v_select     addend, path_a, 0.5, 0.25
        s_mov        step, 0
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
    /// `switch_cases` with selector `lane_id % k` in waves of `width` (workgroups a
    /// multiple of the width, so the lane is the index modulo the width).
    pub fn switch_cases(input: &[f32], width: u32, k: u32) -> Vec<f32> {
        input
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let addend = ((i as u32 % width) % k) as f32;
                (0..4).fold(v, |v, _| v.mul_add(1.0001, addend))
            })
            .collect()
    }
}

fn inputs(seed: u64, items: u32) -> Vec<f32> {
    SplitMix64::new(seed).f32_vec(items as usize, -1.0, 1.0)
}

/// k-way divergence, k = 1 to 32.
pub const KWAY: Study = Study {
    name: "kway",
    seed: "003",
    claim: "A k-way split of identical paths issues k times the one path's instructions, at 32/k lanes per issue.",
    run: run_kway,
};

fn run_kway(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let items = 4 * GROUP;
    let input = inputs(seed, items);
    let cfg = config(items / GROUP, GROUP, width);
    let region = first_if_body(&switch_cases::PROGRAM);
    let mut rows = Vec::new();
    for k in KS {
        let mut out = vec![0.0; input.len()];
        let stats = switch_cases::launch(&cfg, &input, &mut out, k, k)?;
        let ok = out == oracle::switch_cases(&input, width, k);
        rows.push(row(
            format!("k{k}"),
            &switch_cases::PROGRAM,
            GROUP,
            &stats,
            ok,
            Some(&region),
        ));
    }
    let one = rows[0].region.unwrap();
    let mut relations = Vec::new();
    for (n, k) in KS.into_iter().enumerate() {
        let r = rows[n].region.unwrap();
        relations.push(Relation::exact(
            format!("issues in region, k{k} / k1"),
            k.to_string(),
            f64::from(k),
            ratio(r.instructions, one.instructions),
        ));
    }
    for (n, k) in KS.into_iter().enumerate() {
        let r = rows[n].region.unwrap();
        let stated = if width == 32 {
            format!("32/{k} (hardware {})", HARDWARE_LANES_PER_ISSUE[n])
        } else {
            format!("{width}/{k}")
        };
        relations.push(Relation::exact(
            format!("lanes per issue in region, k{k}"),
            stated,
            f64::from(width) / f64::from(k),
            r.simd_efficiency(),
        ));
    }
    Ok(super::result(&KWAY, width, rows, relations))
}

/// The two-way branch against its predicated form.
pub const PREDICATION: Study = Study {
    name: "predication",
    seed: "003",
    claim: "Rewriting a two-way divergent branch with v_select halves its issues and removes its divergence.",
    run: run_predication,
};

/// The instructions after the branch condition's compare and before the store:
/// everything that computes the value, branch or not.
fn work_region(program: &simt::core::Program) -> Vec<usize> {
    let compare = nth(program, 0, |i| matches!(i, Inst::VCmp { .. }));
    let store = nth(program, 0, super::is_global_store);
    (compare + 1..store).collect()
}

fn run_predication(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let items = 8 * GROUP;
    let input = inputs(seed, items);
    let cfg = config(items / GROUP, GROUP, width);
    let work = branch::WORK;
    let expected = branch::oracle::two_paths(&input, GROUP as usize, width as usize, false, work);
    let mut rows = Vec::new();
    let mut out = vec![0.0; input.len()];

    let stats = branch::divergent_lanes::launch(&cfg, &input, &mut out, work)?;
    let region = work_region(&branch::divergent_lanes::PROGRAM);
    rows.push(row(
        "branch",
        &branch::divergent_lanes::PROGRAM,
        GROUP,
        &stats,
        out == expected,
        Some(&region),
    ));

    let stats = predicated::launch(&cfg, &input, &mut out, work)?;
    let region = work_region(&predicated::PROGRAM);
    rows.push(row(
        "predicated",
        &predicated::PROGRAM,
        GROUP,
        &stats,
        out == expected,
        Some(&region),
    ));

    let (b, p) = (rows[0].region.unwrap(), rows[1].region.unwrap());
    // The selects are the price of predication: a few issues against a loop of
    // `work` steps, so the text's 2:1 holds to within their share.
    let relations = vec![
        Relation::near(
            "issues in region, branch / predicated",
            "2:1 (hardware 2.00x within 0.5%)",
            2.0,
            ratio(b.instructions, p.instructions),
            0.02,
        ),
        Relation::exact(
            "divergent vector issues, predicated",
            "0",
            0.0,
            rows[1].stats.divergent_vector_instructions as f64,
        ),
        Relation::exact(
            "lanes per issue in region, predicated",
            format!("{width} (every lane)"),
            f64::from(width),
            p.simd_efficiency(),
        ),
    ];
    Ok(super::result(&PREDICATION, width, rows, relations))
}

/// The 32-way penalty as the workgroups per compute unit grow.
pub const OCCUPANCY_INVARIANCE: Study = Study {
    name: "occupancy_invariance",
    seed: "003",
    claim: "The 32-way divergence penalty stays 32x however many workgroups share a compute unit: occupancy hides latency, not issues.",
    run: run_occupancy_invariance,
};

/// Workgroups per compute unit swept by `occupancy_invariance`.
pub const WORKGROUPS_PER_UNIT: [u32; 4] = [1, 2, 4, 8];

fn run_occupancy_invariance(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let units = 2;
    let model = MemoryModel {
        compute_units: units,
        ..MemoryModel::reference()
    };
    let region = first_if_body(&switch_cases::PROGRAM);
    let mut rows = Vec::new();
    for per_unit in WORKGROUPS_PER_UNIT {
        let groups = units * per_unit;
        let input = inputs(seed, groups * GROUP);
        let cfg = config(groups, GROUP, width).model(model.clone());
        for k in [1, 32] {
            let mut out = vec![0.0; input.len()];
            let stats = switch_cases::launch(&cfg, &input, &mut out, k, k)?;
            let ok = out == oracle::switch_cases(&input, width, k);
            let name = format!("k{k}_{per_unit}_per_unit");
            rows.push(row(
                name,
                &switch_cases::PROGRAM,
                GROUP,
                &stats,
                ok,
                Some(&region),
            ));
        }
    }
    let penalties: Vec<f64> = rows
        .chunks(2)
        .map(|pair| {
            ratio(
                pair[1].region.unwrap().instructions,
                pair[0].region.unwrap().instructions,
            )
        })
        .collect();
    let mut relations: Vec<Relation> = WORKGROUPS_PER_UNIT
        .iter()
        .zip(&penalties)
        .map(|(per_unit, &p)| {
            Relation::exact(
                format!("32-way penalty (region issues k32 / k1), {per_unit} workgroups per unit"),
                "32 (hardware 28-31x)",
                32.0,
                p,
            )
        })
        .collect();
    let spread = penalties.iter().cloned().fold(f64::MIN, f64::max)
        / penalties.iter().cloned().fold(f64::MAX, f64::min);
    relations.push(Relation::exact(
        "largest / smallest penalty over the sweep",
        "1",
        1.0,
        spread,
    ));
    Ok(super::result(&OCCUPANCY_INVARIANCE, width, rows, relations))
}
