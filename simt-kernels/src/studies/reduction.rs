//! Seed 002, reductions.
//!
//! - `reduction_ladder`: the classic workgroup reduction in LDS, three ways. The
//!   interleaved tree with a modulo test keeps every wave divergent at every step;
//!   indexing the interleaved tree by a stride instead packs the working lanes into
//!   few waves but sends them to the same banks; the sequential tree (halving
//!   strides over contiguous lanes) has neither problem until fewer lanes than a
//!   wave remain.
//! - `wave_tree`: a wave's sum by shuffles halves the active distance each step:
//!   16, 8, 4, 2, 1 at wave32, one more step (32) at wave64.
//!
//! Sums are of `i32`, wrapping, so every tree gives the same bits as the oracle.

use super::{config, nth, ratio, row, Relation, Study, StudyResult};
use crate::kernels::reduce::{interleaved_modulo, interleaved_strided, sequential};
use crate::rng::SplitMix64;
use simt::core::{Error, Inst, LaunchConfig};

/// Work-items of every launch.
pub const ITEMS: u32 = 4096;
/// Work-items per workgroup (a power of two, at most 256).
const GROUP: u32 = 256;

simt::simt_kernel! {
    /// `partial[w]` = the sum of wave `w`'s inputs, by a shuffle tree: at distance
    /// `d` = half the wave width, then halving, each lane adds the value `d` lanes
    /// up; lane 0 ends with the wave's sum.
    pub kernel shuffle_tree(input: &[i32], partial: &mut [i32]) {
        vreg x, y, wave;
        sreg distance;
        mreg more, first;
        global_load x, input[global_id.x]
        s_shr_u32   distance, wave_width, 1
        loop
            v_shfl_down  y, x, distance
            v_add_i32    x, x, y
            s_shr_u32    distance, distance, 1
            s_cmp_ne_u32 more, distance, 0
        endloop more
        v_cmp_eq_u32 first, lane_id, 0
        if first
            v_div_u32    wave, global_id.x, wave_width
            global_store partial[wave], x
        endif
    }
}

/// The scalar oracle.
pub mod oracle {
    /// Wrapping sums of `input` in consecutive chunks of `chunk`.
    pub fn chunk_sums(input: &[i32], chunk: usize) -> Vec<i32> {
        input
            .chunks(chunk)
            .map(|c| c.iter().fold(0i32, |a, &v| a.wrapping_add(v)))
            .collect()
    }
}

fn inputs(seed: u64) -> Vec<i32> {
    SplitMix64::new(seed).i32_vec(ITEMS as usize, i32::MIN, i32::MAX)
}

type Launch = fn(&LaunchConfig, &[i32], &mut [i32]) -> Result<simt::core::Stats, Error>;

/// The three classic workgroup reductions.
pub const REDUCTION_LADDER: Study = Study {
    name: "reduction_ladder",
    seed: "002",
    claim: "The interleaved tree with a modulo test diverges at every step; indexing it by stride removes that divergence but conflicts in LDS banks; the sequential tree has neither.",
    run: run_ladder,
};

fn run_ladder(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let input = inputs(seed);
    let expected = oracle::chunk_sums(&input, GROUP as usize);
    let cfg = config(ITEMS / GROUP, GROUP, width);
    let mut rows = Vec::new();
    for (name, program, launch) in [
        (
            "interleaved_modulo",
            &interleaved_modulo::PROGRAM,
            interleaved_modulo::launch as Launch,
        ),
        (
            "interleaved_strided",
            &interleaved_strided::PROGRAM,
            interleaved_strided::launch,
        ),
        ("sequential", &sequential::PROGRAM, sequential::launch),
    ] {
        let mut partial = vec![0; expected.len()];
        let stats = launch(&cfg, &input, &mut partial)?;
        rows.push(row(name, program, GROUP, &stats, partial == expected, None));
    }
    let (modulo, strided, seq) = (rows[0].stats, rows[1].stats, rows[2].stats);
    let relations = vec![
        Relation::new(
            "divergent vector issues, modulo / strided",
            "> 1 (modulo diverges at every step)",
            ratio(
                modulo.divergent_vector_instructions,
                strided.divergent_vector_instructions,
            ),
            modulo.divergent_vector_instructions > strided.divergent_vector_instructions,
        ),
        Relation::new(
            "lanes per issue, modulo / sequential",
            "< 1",
            modulo.simd_efficiency() / seq.simd_efficiency(),
            modulo.simd_efficiency() < seq.simd_efficiency(),
        ),
        Relation::new(
            "LDS conflict cycles, strided",
            "> 0 (bank conflicts)",
            strided.lds_conflict_cycles as f64,
            strided.lds_conflict_cycles > 0,
        ),
        Relation::exact(
            "LDS conflict cycles, sequential",
            "0",
            0.0,
            seq.lds_conflict_cycles as f64,
        ),
        Relation::exact(
            "LDS conflict cycles, modulo",
            "0",
            0.0,
            modulo.lds_conflict_cycles as f64,
        ),
    ];
    Ok(super::result(&REDUCTION_LADDER, width, rows, relations))
}

/// A wave's shuffle tree at the launch's width.
pub const WAVE_TREE: Study = Study {
    name: "wave_tree",
    seed: "002",
    claim: "A wave's reduction tree halves 16, 8, 4, 2, 1 on a 32-wide warp and 32, 16, 8, 4, 2, 1 on a 64-wide wavefront: one more step.",
    run: run_wave_tree,
};

fn run_wave_tree(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let input = inputs(seed);
    let expected = oracle::chunk_sums(&input, width as usize);
    let cfg = config(ITEMS / GROUP, GROUP, width);
    let mut partial = vec![0; expected.len()];
    let stats = shuffle_tree::launch(&cfg, &input, &mut partial)?;
    let program = &shuffle_tree::PROGRAM;
    let start = nth(program, 0, |i| matches!(i, Inst::Loop { .. }));
    let end = nth(program, 0, |i| matches!(i, Inst::EndLoop { .. }));
    let tree: Vec<usize> = (start..=end).collect();
    let rows = vec![row(
        "shuffle_tree",
        program,
        GROUP,
        &stats,
        partial == expected,
        Some(&tree),
    )];
    let shuffle = stats.per_instruction[nth(program, 0, |i| matches!(i, Inst::VShuffle { .. }))];
    let steps = width.trailing_zeros();
    let relations = vec![Relation::exact(
        "tree steps per wave (shuffles / waves)",
        format!("{steps} (log2 {width})"),
        f64::from(steps),
        ratio(shuffle.instructions, stats.waves),
    )];
    Ok(super::result(&WAVE_TREE, width, rows, relations))
}
