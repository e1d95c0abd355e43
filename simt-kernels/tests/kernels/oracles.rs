//! Every kernel against its scalar oracle, at both wave widths, and the
//! determinism the published figures rely on.

use simt::core::MemoryModel;
use simt_kernels::{KernelSpec, Values, KERNELS};

const SEED: u64 = 42;

fn run(spec: &KernelSpec, seed: u64, width: u32) -> simt_kernels::Run {
    spec.run(seed, &spec.config(width, MemoryModel::reference()))
        .unwrap_or_else(|e| panic!("{} at wave{width}: {e}", spec.name))
}

#[test]
fn every_kernel_matches_its_oracle_bit_for_bit_at_both_widths() {
    for spec in KERNELS {
        for width in [32, 64] {
            let r = run(spec, SEED, width);
            assert!(!r.expected.is_empty(), "{}", spec.name);
            if let Some(m) = r.mismatch() {
                panic!("{} at wave{width}: {m}", spec.name);
            }
        }
    }
}

#[test]
fn wave32_and_wave64_outputs_are_identical() {
    for spec in KERNELS {
        let a = run(spec, SEED, 32).output;
        let b = run(spec, SEED, 64).output;
        assert_eq!(a.bits(), b.bits(), "{}", spec.name);
    }
}

#[test]
fn the_same_seed_gives_the_same_outputs_and_statistics() {
    for spec in KERNELS {
        for width in [32, 64] {
            let a = run(spec, SEED, width);
            let b = run(spec, SEED, width);
            assert_eq!(a.output, b.output, "{} wave{width}", spec.name);
            assert_eq!(a.stats, b.stats, "{} wave{width}", spec.name);
        }
    }
}

#[test]
fn another_seed_gives_other_outputs_and_they_still_match() {
    for spec in KERNELS {
        let a = run(spec, SEED, 32);
        let b = run(spec, 7, 32);
        assert_ne!(a.output, b.output, "{}", spec.name);
        assert!(b.passed(), "{}: {:?}", spec.name, b.mismatch());
    }
}

#[test]
fn relaunching_a_reset_workload_repeats_the_first_launch() {
    // The report times relaunches of one workload; they must redo the same work.
    for spec in KERNELS {
        let config = spec.config(32, MemoryModel::reference());
        let mut w = (spec.prepare)(SEED);
        let first = w.launch(&config).unwrap();
        let out: Values = w.output();
        w.reset();
        let second = w.launch(&config).unwrap();
        assert_eq!(first, second, "{}", spec.name);
        assert_eq!(out, w.output(), "{}", spec.name);
    }
}

#[test]
fn outputs_do_not_depend_on_the_memory_model() {
    for spec in KERNELS {
        let r = spec
            .run(SEED, &spec.config(32, MemoryModel::nvidia()))
            .unwrap();
        assert!(r.passed(), "{}: {:?}", spec.name, r.mismatch());
        assert_eq!(r.stats.model, "nvidia");
    }
}

#[test]
fn bounds_guards_idle_the_lanes_past_n() {
    // n = 3984 = 124.5 waves of 32: wave 124 runs half its lanes, waves 125 to 127
    // none, and elements from n on are left alone.
    let n = 3984;
    let a: Vec<f32> = (0..4096).map(|i| i as f32).collect();
    let b = vec![0.5f32; 4096];
    let mut c = vec![-1.0f32; 4096];
    let config = simt::core::LaunchConfig::new(16, 256);
    let stats = simt_kernels::kernels::vecadd_f32::launch(&config, &a, &b, &mut c, n).unwrap();
    assert!(c[..3984]
        .iter()
        .enumerate()
        .all(|(i, &x)| x == i as f32 + 0.5));
    assert!(c[3984..].iter().all(|&x| x == -1.0));
    let t = stats.totals;
    // The half wave's two loads, add and store are its only divergent issues.
    assert_eq!(t.divergent_vector_instructions, 4);
    assert!(t.skipped_instructions > 0);
    // Its phases still count, each touching a single 64-byte line.
    assert_eq!(t.global_accesses, 124 * 3 + 3);
    assert_eq!(t.global_transactions, 124 * 3 * 2 + 3);
}

/// The kernels are race-free, so the order the waves of a workgroup take turns
/// in changes nothing: outputs and every counter are the same when the waves
/// issue one instruction each in turn. Under a model with an L1 only the L1
/// figures may differ (the order decides what is resident).
#[test]
fn the_round_robin_schedule_changes_nothing_but_l1_figures() {
    use simt::core::{Counters, Schedule};
    let without_l1 = |c: &Counters| Counters {
        l1_hit_sectors: 0,
        l1_miss_sectors: 0,
        ..*c
    };
    for spec in KERNELS {
        for width in [32, 64] {
            for model in [MemoryModel::reference(), MemoryModel::nvidia()] {
                let config = spec.config(width, model);
                let a = spec.run(SEED, &config).unwrap();
                let b = spec
                    .run(SEED, &config.clone().schedule(Schedule::RoundRobin))
                    .unwrap();
                let what = format!("{} wave{width} {}", spec.name, config.model.name);
                assert_eq!(a.output, b.output, "{what}");
                assert!(b.passed(), "{what}");
                assert_eq!(
                    without_l1(&a.stats.totals),
                    without_l1(&b.stats.totals),
                    "{what}"
                );
                assert_eq!(
                    a.stats.active_lanes_histogram,
                    b.stats.active_lanes_histogram
                );
                let loads =
                    |s: &simt::core::Stats| s.totals.l1_hit_sectors + s.totals.l1_miss_sectors;
                assert_eq!(loads(&a.stats), loads(&b.stats), "{what}");
            }
        }
    }
}

/// The reference kernels have no race, read nothing before writing it, and give
/// the same bytes with their workgroups and waves shuffled.
#[test]
fn the_sanitizers_find_nothing_in_the_reference_kernels() {
    for spec in KERNELS {
        for width in [32, 64] {
            let config = spec
                .config(width, MemoryModel::reference())
                .sanitize(true)
                .schedule_check(Some(simt::core::Order::Shuffled(7)));
            let run = spec.run(SEED, &config).unwrap();
            assert!(run.passed(), "{} wave{width}", spec.name);
            assert!(
                run.stats.findings.is_empty(),
                "{} wave{width}: {:#?}",
                spec.name,
                run.stats.findings
            );
        }
    }
}

/// Every kernel gives the same bytes and every statistic, the cache figures
/// included, on 1, 2 and 7 threads (7 workers share the machine's cores).
#[test]
fn the_thread_count_changes_nothing() {
    for spec in KERNELS {
        for width in [32, 64] {
            for model in [
                MemoryModel::reference(),
                MemoryModel::nvidia(),
                MemoryModel::cdna3(),
            ] {
                let config = spec.config(width, model);
                let one = spec.run(SEED, &config.clone().threads(1)).unwrap();
                assert!(one.passed(), "{} wave{width}", spec.name);
                for threads in [2, 7] {
                    let many = spec.run(SEED, &config.clone().threads(threads)).unwrap();
                    let what = format!(
                        "{} wave{width} {} {threads} threads",
                        spec.name, config.model.name
                    );
                    assert_eq!(one.output, many.output, "{what}");
                    assert_eq!(one.stats, many.stats, "{what}");
                }
            }
        }
    }
}

/// The report's checked launch records, traces and sanitizes; it finds nothing
/// in the reference kernels and counts exactly what a plain launch counts.
#[test]
fn the_reports_checked_launch_finds_nothing_and_counts_as_a_plain_launch() {
    use simt::core::{Engine, Schedule};
    let model = MemoryModel::reference();
    for spec in KERNELS {
        for width in [32, 64] {
            let options = simt_kernels::cli::Options {
                seed: SEED,
                model: model.clone(),
                schedule: Schedule::UntilBarrier,
                engine: Engine::Native,
                launches: 1,
                ..simt_kernels::cli::Options::default()
            };
            let row = simt_kernels::report::measure(spec, width, &options).unwrap();
            assert!(row.oracle_pass, "{} wave{width}", spec.name);
            assert!(
                row.findings.is_empty(),
                "{} wave{width}: {:#?}",
                spec.name,
                row.findings
            );
            assert_eq!(
                row.totals,
                run(spec, SEED, width).stats.totals,
                "{} wave{width}",
                spec.name
            );
        }
    }
}
