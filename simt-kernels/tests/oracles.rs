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
