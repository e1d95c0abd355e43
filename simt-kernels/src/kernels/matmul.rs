//! Square matrix multiply `c = a * b` (row-major, `n x n`), naive and LDS-tiled.

use super::{GROUP_SIZE, MATRIX, TILE};
use crate::registry::{Case, KernelSpec, Workload};
use crate::rng::SplitMix64;

simt::simt_kernel! {
    /// One work-item per element of `c`: work-item `g` computes `c[g / n][g % n]`
    /// with a fused multiply-add per `k`, in ascending `k`, straight from global
    /// memory. The 32 lanes of a phase share one row, so their loads of `a` are one
    /// broadcast line while their loads of `b` cover two lines.
    pub kernel matmul_naive_f32(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {
        vreg row, col, a_idx, b_idx, av, bv, acc;
        sreg k, elements;
        mreg inside, more;
        s_mul_u32    elements, n, n
        v_cmp_lt_u32 inside, global_id.x, elements
        if inside
            v_div_u32 row, global_id.x, n
            v_rem_u32 col, global_id.x, n
            v_mul_u32 a_idx, row, n          // a[row][0]
            v_mov     b_idx, col             // b[0][col]
            v_mov     acc, 0
            s_mov     k, 0
            loop
                global_load  av, a[a_idx]
                global_load  bv, b[b_idx]
                v_fma_f32    acc, av, bv, acc
                v_add_u32    a_idx, a_idx, 1
                v_add_u32    b_idx, b_idx, n
                s_add_u32    k, k, 1
                s_cmp_lt_u32 more, k, n
            endloop more
            global_store c[global_id.x], acc
        endif
    }

    /// One workgroup of 256 work-items per 16x16 tile of `c`; work-item `t` owns
    /// row `t / 16`, column `t % 16` of the tile. For each 16-wide step along `k`,
    /// every work-item copies one element of `a` and one of `b` into the LDS tiles,
    /// the workgroup meets at a barrier, each work-item runs 16 fused multiply-adds
    /// from the tiles, and the workgroup meets again before the tiles are reused.
    /// `n` must be a multiple of 16 and the grid `(n / 16)^2` workgroups.
    pub kernel matmul_tiled_f32(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {
        lds a_tile: [f32; 256];
        lds b_tile: [f32; 256];
        vreg tr, tc, row, col, a_row, a_idx, b_idx, av, bv, acc;
        sreg tiles, tile_row, tile_col, kt, kk;
        mreg more_tiles, more_k;
        v_shr_u32 tr, local_id.x, 4
        v_and     tc, local_id.x, 15
        s_shr_u32 tiles, n, 4
        s_div_u32 tile_row, group_id.x, tiles
        s_rem_u32 tile_col, group_id.x, tiles
        s_shl     tile_row, tile_row, 4
        s_shl     tile_col, tile_col, 4
        v_add_u32 row, tr, tile_row
        v_add_u32 col, tc, tile_col
        v_shl     a_row, tr, 4               // this work-item's row in a_tile
        v_mov     acc, 0
        s_mov     kt, 0
        loop
            v_mad_u32    a_idx, row, n, kt   // a[row][kt + tc]
            v_add_u32    a_idx, a_idx, tc
            global_load  av, a[a_idx]
            lds_store    a_tile[local_id.x], av
            v_add_u32    b_idx, tr, kt       // b[kt + tr][col]
            v_mad_u32    b_idx, b_idx, n, col
            global_load  bv, b[b_idx]
            lds_store    b_tile[local_id.x], bv
            barrier
            v_mov a_idx, a_row              // a_tile[tr][0]
            v_mov b_idx, tc                 // b_tile[0][tc]
            s_mov kk, 0
            loop
                lds_load     av, a_tile[a_idx]
                lds_load     bv, b_tile[b_idx]
                v_fma_f32    acc, av, bv, acc
                v_add_u32    a_idx, a_idx, 1     // along the row of a_tile
                v_add_u32    b_idx, b_idx, 16    // down the column of b_tile
                s_add_u32    kk, kk, 1
                s_cmp_lt_u32 more_k, kk, 16
            endloop more_k
            barrier
            s_add_u32    kt, kt, 16
            s_cmp_lt_u32 more_tiles, kt, n
        endloop more_tiles
        v_mad_u32    a_idx, row, n, col
        global_store c[a_idx], acc
    }
}

/// The scalar oracle, shared by both kernels: they perform the same fused
/// multiply-adds in the same order.
pub mod oracle {
    /// `c = a * b` for row-major `n x n` matrices, each element accumulated from 0
    /// with `f32::mul_add` in ascending `k`.
    pub fn matmul_f32(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
        let mut c = vec![0.0; n * n];
        for row in 0..n {
            for col in 0..n {
                let mut acc = 0.0f32;
                for k in 0..n {
                    acc = a[row * n + k].mul_add(b[k * n + col], acc);
                }
                c[row * n + col] = acc;
            }
        }
        c
    }
}

struct Matrices {
    a: Vec<f32>,
    b: Vec<f32>,
}

fn matrices(seed: u64) -> (Matrices, Vec<f32>) {
    let mut rng = SplitMix64::new(seed);
    let a = rng.f32_vec(MATRIX * MATRIX, -1.0, 1.0);
    let b = rng.f32_vec(MATRIX * MATRIX, -1.0, 1.0);
    let expected = oracle::matmul_f32(&a, &b, MATRIX);
    (Matrices { a, b }, expected)
}

fn prepare_naive(seed: u64) -> Box<dyn Workload> {
    let (m, expected) = matrices(seed);
    Case::boxed(m, vec![0.0; MATRIX * MATRIX], expected, |config, m, c| {
        matmul_naive_f32::launch(config, &m.a, &m.b, c, MATRIX as u32)
    })
}

fn prepare_tiled(seed: u64) -> Box<dyn Workload> {
    let (m, expected) = matrices(seed);
    Case::boxed(m, vec![0.0; MATRIX * MATRIX], expected, |config, m, c| {
        matmul_tiled_f32::launch(config, &m.a, &m.b, c, MATRIX as u32)
    })
}

const MATRIX_GROUPS: u32 = (MATRIX * MATRIX) as u32 / GROUP_SIZE;

pub(crate) const MATMUL_NAIVE_F32: KernelSpec = KernelSpec {
    name: "matmul_naive_f32",
    summary: "64x64 f32 matrix product, one work-item per element, from global memory",
    program: &matmul_naive_f32::PROGRAM,
    grid: MATRIX_GROUPS,
    workgroup: GROUP_SIZE,
    prepare: prepare_naive,
};

pub(crate) const MATMUL_TILED_F32: KernelSpec = KernelSpec {
    name: "matmul_tiled_f32",
    summary: "64x64 f32 matrix product through 16x16 LDS tiles",
    program: &matmul_tiled_f32::PROGRAM,
    grid: ((MATRIX / TILE) * (MATRIX / TILE)) as u32,
    workgroup: (TILE * TILE) as u32,
    prepare: prepare_tiled,
};
