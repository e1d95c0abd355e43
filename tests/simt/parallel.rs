//! Launches on several threads give the bytes and statistics of one thread:
//! for race-free kernels, for kernels with races between workgroups (which
//! fall back to one thread), for global atomics, faults and the budget.

use simt::core::{Arg, Error, FaultKind, LaunchConfig, Machine, MemoryModel, Stats, Threads};
use simt::simt_kernel;

simt_kernel! {
    /// A Mandelbrot set with one work-item per pixel: uneven work per workgroup.
    kernel mandelbrot(out: &mut [u32], width: u32, height: u32, limit: u32) {
        vreg x, y, cr, ci, zr, zi, zr2, zi2, t, n, inside;
        mreg escaped, done, more;
        v_mov x, global_id.x
        v_mov y, global_id.y
        v_cvt_f32_u32 cr, x
        v_cvt_f32_u32 ci, y
        v_mul_f32 cr, cr, 3.0
        v_mul_f32 ci, ci, 2.0
        v_cvt_f32_u32 t, width
        v_div_f32 cr, cr, t
        v_cvt_f32_u32 t, height
        v_div_f32 ci, ci, t
        v_sub_f32 cr, cr, 2.0
        v_sub_f32 ci, ci, 1.0
        v_mov zr, 0.0
        v_mov zi, 0.0
        v_mov n, 0
        loop
            v_mul_f32 zr2, zr, zr
            v_mul_f32 zi2, zi, zi
            v_add_f32 t, zr2, zi2
            v_cmp_ge_f32 escaped, t, 4.0
            v_cmp_ge_u32 done, n, limit
            m_or escaped, escaped, done
            break escaped
            v_mul_f32 t, zr, zi
            v_sub_f32 zr, zr2, zi2
            v_add_f32 zr, zr, cr
            v_fma_f32 zi, t, 2.0, ci
            v_add_u32 n, n, 1
            v_cmp_eq_u32 more, n, n
        endloop more
        v_mad_u32 inside, y, width, x
        global_store out[inside], n
    }

    /// Each workgroup stores its id to `out[0]` and to its own word: the first
    /// store races with every other workgroup's.
    kernel last_writer_wins(out: &mut [u32]) {
        vreg t;
        mreg first;
        v_cmp_eq_u32 first, local_id, 0
        if first
            global_store out[0], group_id
            v_add_u32 t, group_id, 1
            global_store out[t], group_id
        endif
    }

    /// Workgroup `g` reads the word workgroup `g - 1` writes: a read-after-write
    /// race between workgroups.
    kernel read_neighbour(out: &mut [u32]) {
        vreg v, at;
        mreg first, later;
        v_cmp_eq_u32 first, local_id, 0
        if first
            v_cmp_gt_u32 later, group_id, 0
            v_mov v, 7
            if later
                v_sub_u32 at, group_id, 1
                global_load v, out[at]
                v_add_u32 v, v, 1
            endif
            global_store out[group_id], v
        endif
    }

    /// Every work-item adds 0.1 to one float and keeps the old value: the
    /// returned values depend on the order of the workgroups.
    kernel float_total(out: &mut [f32], old: &mut [f32]) {
        vreg v;
        global_atomic_add_f32 v, out[0], 0.1
        global_store old[global_id], v
    }

    /// Work-item `n` of the grid faults by indexing past `out`.
    kernel fault_at(out: &mut [u32], n: u32) {
        vreg at;
        mreg bad;
        v_mov at, global_id
        v_cmp_eq_u32 bad, global_id, n
        if bad
            v_add_u32 at, at, 1000000
        endif
        global_store out[at], global_id
    }
}

/// A launch of `groups` workgroups of `size` work-items on `threads` threads.
fn cfg(groups: u32, size: u32, threads: usize) -> LaunchConfig {
    LaunchConfig::new(groups, size).threads(threads)
}

const THREADS: [usize; 3] = [1, 2, 7];

/// A `w` by `h` Mandelbrot of at most `limit` iterations: the image, the
/// statistics and how many workers the results came from.
fn mandelbrot(config: &LaunchConfig, w: u32, h: u32, limit: u32) -> (Vec<u32>, Stats, usize) {
    let mut out = vec![0u32; (w * h) as usize];
    let mut machine = Machine::new();
    let args = &mut [Arg::buffer_mut(&mut out), w.into(), h.into(), limit.into()];
    let stats = machine.launch(&mandelbrot::KERNEL, config, args).unwrap();
    (out, stats, machine.workers())
}

/// Runs `kernel` with one writable `u32` buffer of `len` zeros: the buffer
/// and how many workers the results came from.
fn launch_one_buffer(
    kernel: &simt::core::Kernel,
    config: &LaunchConfig,
    len: usize,
) -> (Vec<u32>, usize) {
    let mut out = vec![0u32; len];
    let mut machine = Machine::new();
    machine
        .launch(kernel, config, &mut [Arg::buffer_mut(&mut out)])
        .unwrap();
    (out, machine.workers())
}

#[test]
fn a_mandelbrot_gives_the_same_bytes_and_statistics_on_any_thread_count() {
    let (w, h) = (128u32, 64u32);
    for model in [
        MemoryModel::reference(),
        MemoryModel::nvidia(),
        MemoryModel::cdna3(),
    ] {
        for width in [32, 64] {
            let mut runs: Vec<(Vec<u32>, Stats, usize)> = Vec::new();
            for threads in THREADS {
                let config = LaunchConfig::new([w / 16, h / 4], [16, 4])
                    .wave_width(width)
                    .model(model.clone())
                    .threads(threads);
                let run = mandelbrot(&config, w, h, 64);
                // Race-free: every worker's results are kept.
                assert_eq!(run.2, threads, "{} wave{width}", model.name);
                runs.push(run);
            }
            for (threads, run) in THREADS.iter().zip(&runs).skip(1) {
                assert_eq!(
                    run.0, runs[0].0,
                    "{} wave{width} {threads} threads",
                    model.name
                );
                assert_eq!(
                    run.1, runs[0].1,
                    "{} wave{width} {threads} threads",
                    model.name
                );
            }
            // Not a degenerate image: some pixels escape early, some never.
            let out = &runs[0].0;
            assert!(out.contains(&64) && out.iter().any(|&n| n < 4));
            if model.l1.is_some() {
                assert!(runs[0].1.totals.dram_sectors > 0);
            }
        }
    }
}

/// The escape count of pixel `(x, y)` of [`mandelbrot`], on the host, with the
/// kernel's f32 operations in its order (the `v_fma_f32` as `mul_add`).
fn host_escape(x: u32, y: u32, w: u32, h: u32, limit: u32) -> u32 {
    let cr = x as f32 * 3.0 / w as f32 - 2.0;
    let ci = y as f32 * 2.0 / h as f32 - 1.0;
    let (mut zr, mut zi, mut n) = (0.0f32, 0.0f32, 0u32);
    loop {
        let (zr2, zi2) = (zr * zr, zi * zi);
        if zr2 + zi2 >= 4.0 || n >= limit {
            return n;
        }
        let t = zr * zi;
        zr = zr2 - zi2 + cr;
        zi = t.mul_add(2.0, ci);
        n += 1;
    }
}

#[test]
fn the_threaded_mandelbrot_is_the_host_image() {
    let (w, h, limit) = (128u32, 64u32, 64u32);
    let want: Vec<u32> = (0..w * h)
        .map(|p| host_escape(p % w, p / w, w, h, limit))
        .collect();
    for width in [32, 64] {
        for threads in THREADS {
            let config = LaunchConfig::new([w / 16, h / 4], [16, 4])
                .wave_width(width)
                .threads(threads);
            let (image, _, workers) = mandelbrot(&config, w, h, limit);
            assert_eq!(workers, threads);
            for (p, (&got, &want)) in image.iter().zip(&want).enumerate() {
                assert_eq!(
                    got,
                    want,
                    "pixel ({}, {}) wave{width} {threads} threads",
                    p as u32 % w,
                    p as u32 / w
                );
            }
        }
    }
}

#[test]
fn the_automatic_thread_count_gives_the_same_results_as_one_thread() {
    let (w, h) = (256u32, 256u32);
    let config = LaunchConfig::new([w / 16, h / 16], [16, 16]).model(MemoryModel::nvidia());
    assert_eq!(config.threads, Threads::Auto);
    let auto = mandelbrot(&config, w, h, 32);
    let one = mandelbrot(&config.clone().threads(1), w, h, 32);
    assert_eq!(auto.0, one.0);
    assert_eq!(auto.1, one.1);
    assert_eq!(one.2, 1);
}

#[test]
fn a_race_between_workgroups_gives_the_bytes_of_one_thread() {
    for threads in THREADS {
        let (out, workers) =
            launch_one_buffer(&last_writer_wins::KERNEL, &cfg(64, 32, threads), 65);
        // One thread runs the workgroups in order: the last one's store stays.
        assert_eq!(out[0], 63, "{threads} threads");
        assert_eq!(out[1..], (0..64).collect::<Vec<u32>>()[..]);
        assert_eq!(workers, 1, "the race is run again on one thread");
    }
}

#[test]
fn a_read_of_another_workgroups_store_gives_the_bytes_of_one_thread() {
    for threads in THREADS {
        let (out, workers) = launch_one_buffer(&read_neighbour::KERNEL, &cfg(40, 32, threads), 40);
        // In order, each workgroup reads its predecessor's value.
        let expected: Vec<u32> = (0..40).map(|g| 7 + g).collect();
        assert_eq!(out, expected, "{threads} threads");
        assert_eq!(workers, 1, "the race is run again on one thread");
    }
}

#[test]
fn global_float_atomics_apply_in_workgroup_order() {
    let mut first: Option<(Vec<f32>, Vec<f32>, Stats)> = None;
    for threads in THREADS {
        let mut total = vec![0.0f32];
        let mut old = vec![0.0f32; 32 * 64];
        let stats = float_total::launch(&cfg(32, 64, threads), &mut total, &mut old).unwrap();
        // The sum of 2048 additions of 0.1 in f32, in work-item order.
        let mut expected = 0.0f32;
        for (i, &o) in old.iter().enumerate() {
            assert_eq!(o.to_bits(), expected.to_bits(), "work-item {i}");
            expected += 0.1;
        }
        assert_eq!(total[0].to_bits(), expected.to_bits());
        match &first {
            None => first = Some((total, old, stats)),
            Some((t, o, s)) => {
                assert_eq!((t, o, s), (&total, &old, &stats), "{threads} threads");
            }
        }
    }
}

#[test]
fn a_fault_is_the_first_in_workgroup_order_and_leaves_the_same_bytes() {
    for threads in THREADS {
        let mut out = vec![0u32; 64 * 32];
        let Err(Error::Fault(f)) = fault_at::launch(&cfg(64, 32, threads), &mut out, 40 * 32 + 5)
        else {
            panic!("{threads} threads: no fault");
        };
        assert_eq!(f.workgroup, [40, 0, 0], "{threads} threads");
        assert_eq!(f.lane, Some(5));
        assert!(
            matches!(f.kind, FaultKind::GlobalOutOfBounds { .. }),
            "{:?}",
            f.kind
        );
        // Workgroups before the faulting one stored; none after it did.
        let expected: Vec<u32> = (0..64 * 32)
            .map(|i| if i < 40 * 32 { i } else { 0 })
            .collect();
        assert_eq!(out, expected, "{threads} threads");
    }
}

#[test]
fn the_budget_is_the_launchs_whatever_the_thread_count() {
    let mut out = vec![0u32; 64 * 32];
    let issued = fault_at::launch(&cfg(64, 32, 1), &mut out, u32::MAX)
        .unwrap()
        .totals
        .instructions;
    for threads in THREADS {
        let config = cfg(64, 32, threads).instruction_budget(issued);
        fault_at::launch(&config, &mut out, u32::MAX).unwrap();
        let config = cfg(64, 32, threads).instruction_budget(issued - 1);
        let Err(Error::Fault(f)) = fault_at::launch(&config, &mut out, u32::MAX) else {
            panic!("{threads} threads: the budget held");
        };
        assert!(matches!(f.kind, FaultKind::BudgetExceeded { .. }));
        assert_eq!(f.workgroup, [63, 0, 0], "{threads} threads");
    }
}

#[test]
fn workers_take_whole_compute_units() {
    // Two units: at most two workers, each running one unit's workgroups in
    // order, so each L1 sees what it sees on one thread.
    let mut model = MemoryModel::nvidia();
    model.compute_units = 2;
    let config = LaunchConfig::new([8, 16], [16, 4]).model(model);
    let one = mandelbrot(&config.clone().threads(1), 128, 64, 64);
    let many = mandelbrot(&config.threads(7), 128, 64, 64);
    assert_eq!(many.2, 2);
    assert_eq!(many.0, one.0);
    assert_eq!(many.1, one.1);
    assert!(one.1.totals.dram_sectors > 0);
}

#[test]
fn the_generated_launch_says_how_many_workers_ran() {
    // The launch of the host-image test above: 128 workgroups, no byte touched
    // by two of them, so every worker's results stand.
    let (w, h, limit) = (128u32, 64u32, 64u32);
    for threads in THREADS {
        let mut out = vec![0u32; (w * h) as usize];
        let config = LaunchConfig::new([w / 16, h / 4], [16, 4]).threads(threads);
        let stats = mandelbrot::launch(&config, &mut out, w, h, limit).unwrap();
        assert_eq!(stats.workers, threads, "{threads} threads");
    }
    // A race between workgroups sends the launch back to one thread.
    let mut out = vec![0u32; 65];
    let stats = last_writer_wins::launch(&cfg(64, 32, 2), &mut out).unwrap();
    assert_eq!(stats.workers, 1);
}
