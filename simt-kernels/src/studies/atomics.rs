//! Seed 002, atomic contention: a sum into one counter, with every work-item adding
//! its own value atomically, against each workgroup reducing its values in LDS
//! first and adding the one result with a single atomic.

use super::{config, ratio, row, Relation, Study, StudyResult};
use crate::rng::SplitMix64;
use simt::core::Error;

/// Work-items.
pub const ITEMS: u32 = 4096;
/// Work-items per workgroup (a power of two, at most 256).
pub const GROUP: u32 = 256;

simt::simt_kernel! {
    /// `total[0] += input[i]` by every work-item, atomically (wrapping).
    pub kernel sum_every_item(input: &[u32], total: &mut [u32]) {
        vreg x;
        global_load           x, input[global_id.x]
        global_atomic_add_u32 total[0], x
    }

    /// `total[0] += the workgroup's sum`: the workgroup adds its values in an LDS
    /// tree (halving strides), then work-item 0 adds the result atomically.
    pub kernel sum_per_workgroup(input: &[u32], total: &mut [u32]) {
        lds sums: [u32; 256];
        vreg x, y, partner;
        sreg stride;
        mreg active, more, first;
        global_load x, input[global_id.x]
        lds_store   sums[local_id.x], x
        barrier
        s_shr_u32 stride, group_size.x, 1
        loop
            v_cmp_lt_u32 active, local_id.x, stride
            if active
                v_add_u32 partner, local_id.x, stride
                lds_load  y, sums[partner]
                v_add_u32 x, x, y
                lds_store sums[local_id.x], x
            endif
            barrier
            s_shr_u32    stride, stride, 1
            s_cmp_ne_u32 more, stride, 0
        endloop more
        v_cmp_eq_u32 first, local_id.x, 0
        if first
            global_atomic_add_u32 total[0], x
        endif
    }
}

/// Atomics per work-item against one per workgroup.
pub const ATOMICS: Study = Study {
    name: "atomics",
    seed: "002",
    claim: "Every work-item adding to one counter serializes the whole wave on one address; reducing per workgroup first leaves one uncontended atomic per workgroup.",
    run: run_atomics,
};

fn run_atomics(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let input: Vec<u32> = SplitMix64::new(seed)
        .i32_vec(ITEMS as usize, 0, 1 << 20)
        .into_iter()
        .map(|v| v as u32)
        .collect();
    let expected = input.iter().fold(0u32, |a, &v| a.wrapping_add(v));
    let cfg = config(ITEMS / GROUP, GROUP, width);
    let mut rows = Vec::new();
    let mut total = [0u32];
    let stats = sum_every_item::launch(&cfg, &input, &mut total)?;
    rows.push(row(
        "every_item",
        &sum_every_item::PROGRAM,
        GROUP,
        &stats,
        total[0] == expected,
        None,
    ));
    total[0] = 0;
    let stats = sum_per_workgroup::launch(&cfg, &input, &mut total)?;
    rows.push(row(
        "per_workgroup",
        &sum_per_workgroup::PROGRAM,
        GROUP,
        &stats,
        total[0] == expected,
        None,
    ));

    let (item, group) = (rows[0].stats, rows[1].stats);
    let phase_lanes = u64::from(cfg.model.phase_lanes);
    let relations = vec![
        Relation::exact(
            "atomic phases, every_item / per_workgroup",
            format!(
                "{} (workgroup size / {phase_lanes}-lane phase)",
                u64::from(GROUP) / phase_lanes
            ),
            (u64::from(GROUP) / phase_lanes) as f64,
            ratio(item.atomic_accesses, group.atomic_accesses),
        ),
        Relation::exact(
            "contention per atomic phase, every_item",
            format!("{} (every lane behind another)", phase_lanes - 1),
            (phase_lanes - 1) as f64,
            ratio(item.atomic_contention, item.atomic_accesses),
        ),
        Relation::exact(
            "contention, per_workgroup",
            "0",
            0.0,
            group.atomic_contention as f64,
        ),
    ];
    Ok(super::result(&ATOMICS, width, rows, relations))
}
