//! Seed 002, LDS bank conflicts: a matrix transpose written naively (the reads are
//! coalesced, the writes go down a column), through an LDS tile of `[32][32]` words
//! (both global sides coalesced, but reading a tile column asks one bank for 32
//! words), and through a padded `[32][33]` tile (a column spreads over all 32
//! banks).
//!
//! Workgroups of 32 x 8 work-items move 32 x 32 tiles, four rows per work-item.
//! The region of the LDS variants is the read of a tile column.

use super::{config, is_global_store, nth, ratio, row, Relation, Study, StudyResult};
use crate::rng::SplitMix64;
use simt::core::{Error, Inst, LaunchConfig, MemoryModel};

/// The matrix side (a multiple of 32).
pub const N: u32 = 64;

simt::simt_kernel! {
    /// `out = transpose(input)` for `n x n` matrices, straight from global memory:
    /// the lanes of a wave read along a row and write down a column.
    pub kernel transpose_naive(input: &[f32], out: &mut [f32], n: u32) {
        vreg col, row, at, v;
        sreg step;
        mreg more;
        v_mov     col, global_id.x
        s_mov     step, 0
        loop
            v_mad_u32    row, group_id.y, 32, local_id.y
            v_add_u32    row, row, step
            v_mad_u32    at, row, n, col
            global_load  v, input[at]
            v_mad_u32    at, col, n, row
            global_store out[at], v
            s_add_u32    step, step, 8
            s_cmp_lt_u32 more, step, 32
        endloop more
    }

    /// The transpose through an LDS tile of 32 rows of `PITCH` words: rows in,
    /// barrier, columns out, so both global sides are coalesced.
    kernel transpose_tile<const PITCH: u32>(input: &[f32], out: &mut [f32], n: u32) {
        lds tile: [f32; 32 * PITCH];
        vreg row, col, at, slot, v;
        sreg step;
        mreg more;
        v_mad_u32 col, group_id.x, 32, local_id.x
        s_mov     step, 0
        loop
            v_add_u32    slot, local_id.y, step
            v_mad_u32    row, group_id.y, 32, slot
            v_mad_u32    at, row, n, col
            global_load  v, input[at]
            v_mad_u32    slot, slot, PITCH, local_id.x
            lds_store    tile[slot], v
            s_add_u32    step, step, 8
            s_cmp_lt_u32 more, step, 32
        endloop more
        barrier
        v_mad_u32 col, group_id.y, 32, local_id.x
        s_mov     step, 0
        loop
            v_add_u32    slot, local_id.y, step
            v_mad_u32    row, group_id.x, 32, slot
            v_mad_u32    slot, local_id.x, PITCH, slot
            lds_load     v, tile[slot]
            v_mad_u32    at, row, n, col
            global_store out[at], v
            s_add_u32    step, step, 8
            s_cmp_lt_u32 more, step, 32
        endloop more
    }

    /// Tile rows of 32 words: a tile column is 32 words of one bank.
    pub kernel transpose_lds = transpose_tile<PITCH = 32>;

    /// Tile rows of 33 words: word `(r, c)` is in bank `(33 r + c) % 32`, so a
    /// column's 32 words are in 32 different banks.
    pub kernel transpose_padded = transpose_tile<PITCH = 33>;
}

/// The scalar oracle.
pub mod oracle {
    /// The transpose of the `n x n` row-major matrix `input`.
    pub fn transpose(input: &[f32], n: usize) -> Vec<f32> {
        (0..n * n).map(|k| input[(k % n) * n + k / n]).collect()
    }
}

/// The three transposes.
pub const TRANSPOSE: Study = Study {
    name: "transpose",
    seed: "002",
    claim: "Reading a column of a [32][32] LDS tile is a 32-way bank conflict; padding the rows to 33 words removes it.",
    run: run_transpose,
};

fn run_transpose(seed: u64, width: u32) -> Result<StudyResult, Error> {
    let input = SplitMix64::new(seed).f32_vec((N * N) as usize, -1.0, 1.0);
    let expected = oracle::transpose(&input, N as usize);
    let cfg = config([N / 32, N / 32], [32, 8], width).model(MemoryModel::nvidia());
    let group = [32, 8];
    let mut out = vec![0.0; input.len()];
    let mut rows = Vec::new();
    // The global stores, whose sectors the tile exists to coalesce.
    let mut stores = Vec::new();

    let stats = transpose_naive::launch(&cfg, &input, &mut out, N)?;
    let store = nth(&transpose_naive::PROGRAM, 0, is_global_store);
    rows.push(row(
        "transpose_naive",
        &transpose_naive::PROGRAM,
        group,
        &stats,
        out == expected,
        None,
    ));
    stores.push(stats.per_instruction[store]);

    for (name, program, launch) in [
        (
            "transpose_lds",
            &transpose_lds::PROGRAM,
            transpose_lds::launch as Launch,
        ),
        (
            "transpose_padded",
            &transpose_padded::PROGRAM,
            transpose_padded::launch,
        ),
    ] {
        out.fill(0.0);
        let stats = launch(&cfg, &input, &mut out, N)?;
        // The region is the read of a tile column: the claim is about its banks.
        let column_read = nth(program, 0, |i| matches!(i, Inst::LdsLoad { .. }));
        rows.push(row(
            name,
            program,
            group,
            &stats,
            out == expected,
            Some(&[column_read]),
        ));
        stores.push(stats.per_instruction[nth(program, 0, is_global_store)]);
    }

    let (tiled, padded) = (rows[1].region.unwrap(), rows[2].region.unwrap());
    let relations = vec![
        Relation::exact(
            "conflict cycles per column-read phase, [32][32]",
            "31 (32-way)",
            31.0,
            ratio(tiled.lds_conflict_cycles, tiled.lds_accesses),
        ),
        Relation::exact(
            "conflict cycles, [32][33] column read",
            "0 (no conflict)",
            0.0,
            padded.lds_conflict_cycles as f64,
        ),
        Relation::exact(
            "store sectors per request, naive / through LDS",
            "8 (32 sectors against 4)",
            8.0,
            ratio(
                stores[0].global_sectors * stores[1].global_accesses,
                stores[1].global_sectors * stores[0].global_accesses,
            ),
        ),
    ];
    Ok(super::result(&TRANSPOSE, width, rows, relations))
}

type Launch = fn(&LaunchConfig, &[f32], &mut [f32], u32) -> Result<simt::core::Stats, Error>;
