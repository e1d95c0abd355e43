//! Seed 001, divergence that follows the data: the Mandelbrot escape loop runs as
//! many iterations as its pixel needs, so a wave runs as long as its slowest lane.
//! Which pixels share a wave decides how much of each issue is wasted: neighbouring
//! pixels escape after similar counts, pixels scattered over the image do not.
//!
//! Three mappings of work-items to pixels: `coherent` (a row of neighbours),
//! `scattered` (a multiplicative hash, a permutation), `tiled_8x4` (each 32
//! consecutive work-items cover an 8 x 4 tile).

use super::{config, ratio, row, Relation, Study, StudyResult};
use simt::core::Error;

/// Image width in pixels (a multiple of 8).
pub const WIDTH: u32 = 64;
/// Image height in pixels (a multiple of 4).
pub const HEIGHT: u32 = 32;
/// The escape loop's iteration cap.
pub const MAX_ITERATIONS: u32 = 64;
/// Work-items per workgroup.
const GROUP: u32 = 256;

simt::simt_kernel! {
    /// Pixel `(col, row)` of a `w` x `h` image: `out[j]` gets the number of
    /// iterations of `z = z * z + c` before `|z|` reaches 2, at most `maxit`,
    /// for `c = (-2.2 + 3 * col / w, -1.2 + 2.4 * row / h)`. `t` is scratch.
    fn escape(out: buffer, j: vreg, col: vreg, row: vreg, t: vreg, w: sreg, h: sreg, maxit: sreg) {
        vreg cx, cy, x, y, xx, yy, r2, twox, it;
        sreg wf, hf;
        mreg escaped, more;
        s_cvt_f32_u32  wf, w
        s_cvt_f32_u32  hf, h
        v_cvt_f32_u32  cx, col
        v_mul_f32      cx, cx, 3.0
        v_div_f32      cx, cx, wf
        v_add_f32      cx, cx, -2.2
        v_cvt_f32_u32  cy, row
        v_mul_f32      cy, cy, 2.4
        v_div_f32      cy, cy, hf
        v_add_f32      cy, cy, -1.2
        v_mov x, 0.0
        v_mov y, 0.0
        v_mov it, 0
        loop
            v_mul_f32    xx, x, x
            v_mul_f32    yy, y, y
            v_add_f32    r2, xx, yy
            v_cmp_ge_f32 escaped, r2, 4.0
            break escaped
            v_sub_f32    t, xx, yy
            v_add_f32    t, t, cx
            v_mul_f32    twox, x, 2.0
            v_fma_f32    y, twox, y, cy
            v_mov        x, t
            v_add_u32    it, it, 1
            v_cmp_lt_u32 more, it, maxit
        endloop more
        global_store out[j], it
    }

    /// Work-item `j` computes pixel `j` (row-major), as `escape` says.
    pub kernel coherent(out: &mut [u32], w: u32, h: u32, maxit: u32) {
        vreg j, col, row, t;
        v_mov          j, global_id.x
        v_rem_u32      col, j, w
        v_div_u32      row, j, w
        call escape(out, j, col, row, t, w, h, maxit)
    }

    /// `coherent` with work-item `i` computing pixel `(i * 2654435761) % (w * h)`:
    /// a permutation when `w * h` is a power of two, which scatters neighbours.
    pub kernel scattered(out: &mut [u32], w: u32, h: u32, maxit: u32) {
        vreg j, col, row, t;
        sreg pixels;
        s_mul_u32      pixels, w, h
        v_mul_u32      j, global_id.x, 2654435761
        v_rem_u32      j, j, pixels
        v_rem_u32      col, j, w
        v_div_u32      row, j, w
        call escape(out, j, col, row, t, w, h, maxit)
    }

    /// `coherent` with each 32 consecutive work-items covering an 8 x 4 tile of
    /// pixels, tiles in row-major order (`w` a multiple of 8, `h` of 4).
    pub kernel tiled_8x4(out: &mut [u32], w: u32, h: u32, maxit: u32) {
        vreg tile, lane, j, col, row, t;
        sreg tiles_x;
        s_shr_u32      tiles_x, w, 3
        v_shr_u32      tile, global_id.x, 5
        v_and          lane, global_id.x, 31
        v_rem_u32      col, tile, tiles_x
        v_shl          col, col, 3
        v_and          t, lane, 7
        v_add_u32      col, col, t
        v_div_u32      row, tile, tiles_x
        v_shl          row, row, 2
        v_shr_u32      t, lane, 3
        v_add_u32      row, row, t
        v_mad_u32      j, row, w, col
        call escape(out, j, col, row, t, w, h, maxit)
    }
}

/// The scalar oracle: every mapping computes every pixel once, so one image.
pub mod oracle {
    /// The escape count of pixel `(col, row)`, in the kernels' order of operations.
    pub fn escape(col: u32, row: u32, w: u32, h: u32, maxit: u32) -> u32 {
        let cx = col as f32 * 3.0 / w as f32 + -2.2;
        let cy = row as f32 * 2.4 / h as f32 + -1.2;
        let (mut x, mut y, mut it) = (0.0f32, 0.0f32, 0);
        loop {
            let (xx, yy) = (x * x, y * y);
            if xx + yy >= 4.0 {
                break;
            }
            let t = xx - yy + cx;
            y = (x * 2.0).mul_add(y, cy);
            x = t;
            it += 1;
            if it >= maxit {
                break;
            }
        }
        it
    }

    /// The image, row-major.
    pub fn image(w: u32, h: u32, maxit: u32) -> Vec<u32> {
        (0..w * h)
            .map(|j| escape(j % w, j / w, w, h, maxit))
            .collect()
    }
}

/// Three mappings of the Mandelbrot set.
pub const MANDELBROT: Study = Study {
    name: "mandelbrot",
    seed: "001",
    claim: "How pixels are mapped to waves sets the divergence of the escape loop: scattered pixels are the worst mapping.",
    run: run_mandelbrot,
};

fn run_mandelbrot(_seed: u64, width: u32) -> Result<StudyResult, Error> {
    let pixels = WIDTH * HEIGHT;
    let cfg = config(pixels / GROUP, GROUP, width);
    let expected = oracle::image(WIDTH, HEIGHT, MAX_ITERATIONS);
    let mut rows = Vec::new();
    let mut out = vec![0u32; pixels as usize];
    let stats = coherent::launch(&cfg, &mut out, WIDTH, HEIGHT, MAX_ITERATIONS)?;
    rows.push(row(
        "coherent",
        &coherent::PROGRAM,
        GROUP,
        &stats,
        out == expected,
        None,
    ));
    out.fill(0);
    let stats = scattered::launch(&cfg, &mut out, WIDTH, HEIGHT, MAX_ITERATIONS)?;
    rows.push(row(
        "scattered",
        &scattered::PROGRAM,
        GROUP,
        &stats,
        out == expected,
        None,
    ));
    out.fill(0);
    let stats = tiled_8x4::launch(&cfg, &mut out, WIDTH, HEIGHT, MAX_ITERATIONS)?;
    rows.push(row(
        "tiled_8x4",
        &tiled_8x4::PROGRAM,
        GROUP,
        &stats,
        out == expected,
        None,
    ));

    let lanes = |n: usize| rows[n].stats.simd_efficiency();
    let divergence = |n: usize| rows[n].stats.divergence_pct();
    let relations = vec![
        Relation::new(
            "lanes per issue, scattered / coherent",
            "< 1 (scattered worst)",
            lanes(1) / lanes(0),
            lanes(1) < lanes(0),
        ),
        Relation::new(
            "lanes per issue, scattered / tiled_8x4",
            "< 1 (scattered worst)",
            lanes(1) / lanes(2),
            lanes(1) < lanes(2),
        ),
        Relation::new(
            "divergence %, scattered - max(coherent, tiled_8x4)",
            "> 0 (scattered worst)",
            divergence(1) - divergence(0).max(divergence(2)),
            divergence(1) > divergence(0).max(divergence(2)),
        ),
        Relation::new(
            "issues, scattered / coherent",
            "> 1 (waves wait for their slowest pixel)",
            ratio(rows[1].stats.instructions, rows[0].stats.instructions),
            rows[1].stats.instructions > rows[0].stats.instructions,
        ),
    ];
    Ok(super::result(&MANDELBROT, width, rows, relations))
}
