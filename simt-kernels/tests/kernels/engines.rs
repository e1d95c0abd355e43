//! The native runners `simt_kernel!` writes and the interpreter are one
//! machine: every reference kernel gives the same output bytes and the same
//! statistics (every counter, per instruction, the
//! histogram, findings) on both, at both widths, under every memory model,
//! on one thread and on several; and a launch that runs out of budget
//! faults on the same instruction, wave and workgroup.

use simt::core::__native::{available as native_available, native_turns};
use simt::core::{Engine, Error, LaunchConfig, MemoryModel, Stats, Threads};
use simt_kernels::registry::KERNELS;

const SEED: u64 = 42;

fn json(stats: &Stats) -> serde_json::Value {
    serde_json::to_value(stats).unwrap()
}

fn models() -> [MemoryModel; 3] {
    [
        MemoryModel::reference(),
        MemoryModel::nvidia(),
        MemoryModel::cdna3(),
    ]
}

#[test]
fn every_reference_kernel_runs_the_same_on_both_engines() {
    for spec in KERNELS {
        for width in [32, 64] {
            for model in models() {
                for threads in [Threads::Count(1), Threads::Count(3)] {
                    let mut config = spec.config(width, model.clone());
                    config.threads = threads;
                    let what = format!("{} wave{width} {} {threads:?}", spec.name, model.name);
                    let turns = native_turns();
                    let native = spec.run(SEED, &config).unwrap();
                    // Elsewhere than on CPUs with AVX2, FMA, BMI1/2, LZCNT and
                    // POPCNT every launch is interpreted, and the comparison
                    // is moot.
                    if native_available() {
                        assert!(native_turns() > turns, "{what}: no native turn ran");
                    }
                    let turns = native_turns();
                    let interpreted = spec
                        .run(SEED, &config.clone().engine(Engine::Interpreter))
                        .unwrap();
                    assert_eq!(
                        native_turns(),
                        turns,
                        "{what}: the interpreter ran natively"
                    );
                    assert!(native.passed(), "{what}: {:?}", native.mismatch());
                    assert_eq!(native.output, interpreted.output, "{what}");
                    assert_eq!(json(&native.stats), json(&interpreted.stats), "{what}");
                }
            }
        }
    }
}

/// Under every budget from 1 instruction to past the launch's need, both
/// engines fault on the same instruction of the same wave, or both finish
/// with the same figures: a native block never runs past the budget.
#[test]
fn a_budget_ends_both_engines_on_the_same_instruction() {
    for spec in KERNELS {
        let config = spec.config(32, MemoryModel::reference());
        let full = spec.run(SEED, &config).unwrap().stats.totals.instructions;
        let budgets = [1, 2, 3, 5, 7, 11, full / 3, full / 2 + 1, full - 1, full];
        for budget in budgets {
            let mut config = config.clone();
            config.instruction_budget = budget;
            config.threads = Threads::Count(1);
            let native = spec.run(SEED, &config);
            let interpreted = spec.run(SEED, &config.clone().engine(Engine::Interpreter));
            let what = format!("{} budget {budget}", spec.name);
            match (native, interpreted) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.output, b.output, "{what}");
                    assert_eq!(json(&a.stats), json(&b.stats), "{what}");
                }
                (Err(Error::Fault(a)), Err(Error::Fault(b))) => assert_eq!(a, b, "{what}"),
                (a, b) => panic!("{what}: {:?} against {:?}", a.err(), b.err()),
            }
        }
    }
}

/// Native runners run plain launches only: a sanitized launch runs on the
/// interpreter whatever the engine.
#[test]
fn a_sanitized_launch_runs_on_the_interpreter() {
    assert_eq!(LaunchConfig::new(1, 32).engine, Engine::Native);
    let spec = &KERNELS[0];
    let config = spec.config(32, MemoryModel::reference()).sanitize(true);
    let turns = native_turns();
    let run = spec.run(SEED, &config).unwrap();
    assert!(run.passed());
    assert_eq!(native_turns(), turns);
}
