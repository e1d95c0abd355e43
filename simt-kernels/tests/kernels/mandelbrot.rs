//! The Mandelbrot study's three kernels on 1, 2 and 7 threads, at both widths,
//! against a host computation of every pixel: the same f32 operations in the
//! kernels' order, the `v_fma_f32` as `f32::mul_add`.

use simt::core::LaunchConfig;
use simt_kernels::studies::mandelbrot::{
    coherent, scattered, tiled_8x4, HEIGHT, MAX_ITERATIONS, WIDTH,
};

/// Pixel `(col, row)`'s escape count: iterations of `z = z^2 + c` before
/// `|z|^2 >= 4`, at most `maxit`.
fn host_escape(col: u32, row: u32) -> u32 {
    let (w, h) = (WIDTH as f32, HEIGHT as f32);
    let cx = col as f32 * 3.0 / w + -2.2;
    let cy = row as f32 * 2.4 / h + -1.2;
    let (mut x, mut y) = (0.0f32, 0.0f32);
    for it in 0..MAX_ITERATIONS {
        let (xx, yy) = (x * x, y * y);
        if xx + yy >= 4.0 {
            return it;
        }
        let t = xx - yy + cx;
        y = (x * 2.0).mul_add(y, cy);
        x = t;
    }
    MAX_ITERATIONS
}

type Launch =
    fn(&LaunchConfig, &mut [u32], u32, u32, u32) -> Result<simt::core::Stats, simt::core::Error>;

#[test]
fn every_mapping_on_any_thread_count_gives_the_host_image() {
    let want: Vec<u32> = (0..WIDTH * HEIGHT)
        .map(|j| host_escape(j % WIDTH, j / WIDTH))
        .collect();
    // Not a degenerate image: some pixels escape at once, some never.
    assert!(want.contains(&MAX_ITERATIONS) && want.iter().any(|&n| n <= 1));
    let kernels: [(&str, Launch); 3] = [
        ("coherent", coherent::launch),
        ("scattered", scattered::launch),
        ("tiled_8x4", tiled_8x4::launch),
    ];
    for (name, launch) in kernels {
        for width in [32, 64] {
            for threads in [1, 2, 7] {
                let config = LaunchConfig::new(WIDTH * HEIGHT / 256, 256)
                    .wave_width(width)
                    .threads(threads);
                let mut out = vec![u32::MAX; (WIDTH * HEIGHT) as usize];
                launch(&config, &mut out, WIDTH, HEIGHT, MAX_ITERATIONS).unwrap();
                for (j, (&got, &want)) in out.iter().zip(&want).enumerate() {
                    assert_eq!(
                        got,
                        want,
                        "{name} wave{width} {threads} threads: pixel ({}, {})",
                        j as u32 % WIDTH,
                        j as u32 / WIDTH
                    );
                }
            }
        }
    }
}
