//! Seed 002, coalescing and data layout, under the NVIDIA model (32-byte sectors in
//! 128-byte lines, whole-warp requests).
//!
//! - `aos_soa`: reading one field of `{x, y, z}` particles stored as an array of
//!   structures (lanes 12 bytes apart) or as a structure of arrays (4 bytes apart).
//! - `misaligned`: a coalesced copy whose start is one element past a line
//!   boundary, so every request straddles one more line.
//!
//! The region of each variant is its load.

use super::{is_global_load, nth, ratio, row, Relation, Study, StudyResult};
use crate::rng::SplitMix64;
use simt::core::{Error, LaunchConfig, MemoryModel};

/// Work-items (particles, copied elements).
const ITEMS: u32 = 2048;
/// Work-items per workgroup.
const GROUP: u32 = 256;

simt::simt_kernel! {
    /// `out[i]` = the `x` of particle `i`, particles stored as `x, y, z` triples.
    pub kernel aos_x(particles: &[f32], out: &mut [f32]) {
        vreg at, x;
        v_mul_u32    at, global_id.x, 3
        global_load  x, particles[at]
        global_store out[global_id.x], x
    }

    /// `out[i]` = the `x` of particle `i`, the `x`s stored contiguously.
    pub kernel soa_x(xs: &[f32], out: &mut [f32]) {
        vreg x;
        global_load  x, xs[global_id.x]
        global_store out[global_id.x], x
    }

    /// `out[i] = input[i + offset]`.
    pub kernel offset_copy(input: &[f32], out: &mut [f32], offset: u32) {
        vreg at, x;
        v_add_u32    at, global_id.x, offset
        global_load  x, input[at]
        global_store out[global_id.x], x
    }
}

fn config(width: u32) -> LaunchConfig {
    super::config(ITEMS / GROUP, GROUP, width).model(MemoryModel::nvidia())
}

/// One field of an array of structures against a structure of arrays.
pub const AOS_SOA: Study = Study {
    name: "aos_soa",
    seed: "002",
    claim: "Reading one field of 3-float structures (stride 3) asks three times the sectors of reading it from its own array.",
    run: run_aos_soa,
};

fn run_aos_soa(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let particles = SplitMix64::new(seed).f32_vec(3 * ITEMS as usize, -1.0, 1.0);
    let xs: Vec<f32> = particles.iter().step_by(3).copied().collect();
    let cfg = config(width);
    let mut out = vec![0.0; ITEMS as usize];
    let mut rows = Vec::new();

    let stats = aos_x::launch(&cfg, &particles, &mut out)?;
    let load = [nth(&aos_x::PROGRAM, 0, is_global_load)];
    rows.push(row(
        "aos",
        &aos_x::PROGRAM,
        GROUP,
        &stats,
        out == xs,
        Some(&load),
    ));
    out.fill(0.0);
    let stats = soa_x::launch(&cfg, &xs, &mut out)?;
    let load = [nth(&soa_x::PROGRAM, 0, is_global_load)];
    rows.push(row(
        "soa",
        &soa_x::PROGRAM,
        GROUP,
        &stats,
        out == xs,
        Some(&load),
    ));

    let (aos, soa) = (rows[0].region.unwrap(), rows[1].region.unwrap());
    let relations = vec![
        Relation::exact(
            "load sectors, AoS / SoA",
            "3 (stride 3)",
            3.0,
            ratio(aos.global_sectors, soa.global_sectors),
        ),
        Relation::exact(
            "bytes requested, AoS / SoA",
            "1 (the same data)",
            1.0,
            ratio(aos.global_bytes_requested, soa.global_bytes_requested),
        ),
    ];
    Ok(super::result(&AOS_SOA, width, rows, relations))
}

/// A coalesced copy, aligned and one element off.
pub const MISALIGNED: Study = Study {
    name: "misaligned",
    seed: "002",
    claim: "Starting a coalesced read one element past a line boundary touches one more line per request.",
    run: run_misaligned,
};

fn run_misaligned(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let input = SplitMix64::new(seed).f32_vec(ITEMS as usize + 1, -1.0, 1.0);
    let cfg = config(width);
    let mut rows = Vec::new();
    for (name, offset) in [("aligned", 0u32), ("misaligned", 1)] {
        let mut out = vec![0.0; ITEMS as usize];
        let stats = offset_copy::launch(&cfg, &input, &mut out, offset)?;
        let ok = out[..] == input[offset as usize..][..ITEMS as usize];
        let load = [nth(&offset_copy::PROGRAM, 0, is_global_load)];
        let r = row(name, &offset_copy::PROGRAM, GROUP, &stats, ok, Some(&load));
        rows.push(r);
    }
    let (aligned, misaligned) = (rows[0].region.unwrap(), rows[1].region.unwrap());
    let relations = vec![
        Relation::exact(
            "lines per request, misaligned - aligned",
            "1",
            1.0,
            misaligned.transactions_per_access() - aligned.transactions_per_access(),
        ),
        Relation::exact(
            "sectors per request, misaligned - aligned",
            "1",
            1.0,
            ratio(misaligned.global_sectors, misaligned.global_accesses)
                - ratio(aligned.global_sectors, aligned.global_accesses),
        ),
    ];
    Ok(super::result(&MISALIGNED, width, rows, relations))
}
