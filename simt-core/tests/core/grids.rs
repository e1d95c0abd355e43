//! Grids of every size the per-axis check accepts: a launch streams its
//! workgroups, so a huge grid stopped by the instruction budget faults like a
//! small one, and a grid too large to number is refused with a typed error.
//! The orders of the schedule check visit every workgroup exactly once.

use crate::exec_util;

use exec_util::*;
use simt_core::{
    launch, Arg, ElemType, Error, Fault, FaultKind, FindingKind, Kernel, LaunchConfig,
    LaunchErrorKind, Order, ProgramBuilder, Scope, Space,
};

fn fault(result: Result<simt_core::Stats, Error>) -> Fault {
    match result {
        Err(Error::Fault(f)) => *f,
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// Two instructions per wave, `end` included, and no memory access.
fn idle_kernel() -> Kernel {
    let mut p = ProgramBuilder::new("idle");
    p.extend([mov(0, gid())]);
    p.build().expect("valid")
}

/// Every configuration a huge grid is tried with: each must run its workgroups
/// in the normal order until the budget.
fn variants(grid: [u32; 3]) -> Vec<LaunchConfig> {
    let base = LaunchConfig::new(grid, 1).instruction_budget(1000);
    vec![
        base.clone(),
        base.clone().threads(1),
        base.clone().threads(2),
        base.clone().schedule_check(Some(Order::Reversed)),
        base.clone().schedule_check(Some(Order::Shuffled(9))),
        base.sanitize(true),
    ]
}

#[test]
fn huge_grids_stop_at_the_budget() {
    let program = idle_kernel();
    for grid in [
        [u32::MAX, 1, 1],
        [65536, 65536, 1],
        [65536, 65536, 65536],
        [1, u32::MAX, 1],
        // (2^32 - 1)^2 = 2^64 - 2^33 + 1 workgroups: the most that still number.
        [u32::MAX, u32::MAX, 1],
    ] {
        for config in variants(grid) {
            let f = fault(launch(&program, &config, &mut []));
            assert_eq!(f.kind, FaultKind::BudgetExceeded { budget: 1000 });
            // Two issues per workgroup: workgroups 0..500 fit the 1000, the
            // 1001st issue is workgroup 500's first instruction (a schedule
            // check's normal pass runs first and faults there).
            let linear = 500u64;
            let gx = u64::from(grid[0]);
            let gy = u64::from(grid[1]);
            let expected = [
                (linear % gx) as u32,
                (linear / gx % gy) as u32,
                (linear / (gx * gy)) as u32,
            ];
            assert_eq!((f.workgroup, f.inst, f.wave), (expected, 0, 0), "{grid:?}");
        }
    }
}

#[test]
fn a_grid_of_more_workgroups_than_a_u64_counts_is_refused() {
    let program = idle_kernel();
    for grid in [
        [u32::MAX; 3],
        [u32::MAX, u32::MAX, 2],
        [2, u32::MAX, u32::MAX],
    ] {
        for config in variants(grid) {
            match launch(&program, &config, &mut []) {
                Err(Error::Launch(e)) => {
                    assert_eq!(e.kernel, "idle");
                    assert_eq!(
                        e.kind,
                        LaunchErrorKind::TooManyWorkgroups {
                            x: grid[0],
                            y: grid[1],
                            z: grid[2],
                        }
                    );
                    let message = e.to_string();
                    assert!(message.contains("2^64 - 1"), "{message}");
                }
                other => panic!("expected a launch error, got {other:?}"),
            }
        }
    }
}

/// The sanitizers name a finding's workgroup by its id; a grid whose x and y
/// sizes multiply past 32 bits must not overflow doing so.
#[test]
fn a_race_in_a_wide_grid_is_found_and_placed() {
    // Every workgroup's one work-item stores its global id to `out[0]`.
    let mut p = ProgramBuilder::new("k");
    let out = p.buffer_mut::<u32>("out");
    p.extend([store(ElemType::U32, gref(out, imm(0)), gid())]);
    let program = p.build().expect("valid");
    let mut out = vec![0u32; 1];
    // Two issues per workgroup (store, end): workgroups 0 and 1 run whole.
    let config = LaunchConfig::new([65536, 65536, 1], 1)
        .sanitize(true)
        .instruction_budget(4);
    let f = fault(launch(&program, &config, &mut [Arg::buffer_mut(&mut out)]));
    assert_eq!(f.kind, FaultKind::BudgetExceeded { budget: 4 });
    assert_eq!(f.workgroup, [2, 0, 0]);
    // A grid that finishes gives the findings back: each workgroup after the
    // first overwrites the one before it, placed by id across the x boundary.
    let config = LaunchConfig::new([65536, 2, 1], 1).sanitize(true);
    let mut out = vec![0u32; 1];
    let stats = launch(&program, &config, &mut [Arg::buffer_mut(&mut out)]).expect("runs");
    // The facts prove the race before the launch runs (every workgroup's
    // work-item 0 stores to byte 0), then the sanitizer sees it.
    let [proved, f] = &stats.findings.list[..] else {
        panic!("two findings: {:#?}", stats.findings);
    };
    assert_eq!(
        proved.kind,
        FindingKind::ProvedRace {
            space: Space::Global,
            scope: Scope::Workgroups
        }
    );
    assert_eq!(proved.at.workgroup, [1, 0, 0]);
    assert_eq!(proved.other.map(|o| o.workgroup), Some([0, 0, 0]));
    assert_eq!(f.at.workgroup, [1, 0, 0]);
    assert_eq!(f.other.as_ref().map(|o| o.workgroup), Some([0, 0, 0]));
    // Workgroups 1 .. 2 * 65536 each race with the one before.
    assert_eq!(f.occurrences, 2 * 65536 - 1);
    // The last workgroup, [65535, 1, 0], stores its global x id.
    assert_eq!(out[0], 65535);
}

/// Each workgroup adds 1 to its own word: any order that runs every workgroup
/// exactly once leaves all ones, which the schedule check compares with the
/// normal order's.
#[test]
fn reordered_launches_run_every_workgroup_once() {
    let mut p = ProgramBuilder::new("k");
    let out = p.buffer_mut::<u32>("out");
    p.extend([
        load(ElemType::U32, 0, gref(out, gid())),
        add(0, v(0), imm(1)),
        store(ElemType::U32, gref(out, gid()), v(0)),
    ]);
    let program = p.build().expect("valid");
    for groups in [1u32, 2, 3, 7, 64, 100, 1000] {
        for order in [Order::Reversed, Order::Shuffled(0), Order::Shuffled(12345)] {
            let mut out = vec![0u32; groups as usize];
            let config = LaunchConfig::new(groups, 1).schedule_check(Some(order));
            let stats = launch(&program, &config, &mut [Arg::buffer_mut(&mut out)]).expect("runs");
            assert!(stats.findings.is_empty(), "{groups} {order:?}");
            assert_eq!(out, vec![1; groups as usize]);
            assert_eq!(stats.workgroups, u64::from(groups));
        }
    }
}

/// Whether `order` lists each of `0..n` exactly once.
fn is_permutation(order: Order, n: u64) -> bool {
    let mut seen = vec![false; n as usize];
    (0..n).all(|i| {
        let j = order.at(i, n);
        j < n && !std::mem::replace(&mut seen[j as usize], true)
    })
}

#[test]
fn every_order_is_a_permutation() {
    for n in (0..=600).chain([1023, 1024, 1025, 4095, 4096, 4097, 65537]) {
        assert!(is_permutation(Order::Normal, n));
        assert!(is_permutation(Order::Reversed, n));
        for seed in [0, 1, 2, 3, 7, 0xdead_beef, u64::MAX] {
            assert!(is_permutation(Order::Shuffled(seed), n), "{n} {seed}");
        }
    }
    for n in [5u64, 100, 4097] {
        assert_eq!(Order::Normal.at(3, n), 3);
        assert_eq!(Order::Reversed.at(3, n), n - 4);
    }
    // The largest counts map into range too.
    for n in [u64::MAX, u64::MAX - 1, 1 << 63, (1 << 33) + 1] {
        for i in [0, 1, n / 2, n - 1] {
            assert!(Order::Shuffled(5).at(i, n) < n);
            assert_eq!(Order::Reversed.at(i, n), n - 1 - i);
        }
    }
}

#[test]
fn shuffles_differ_by_seed_and_from_the_normal_order() {
    let n = 1000;
    let list = |seed| {
        (0..n)
            .map(|i| Order::Shuffled(seed).at(i, n))
            .collect::<Vec<_>>()
    };
    let (a, b) = (list(1), list(2));
    assert_ne!(a, b);
    // A shuffle of 1000 fixes about one index on average; far fewer than 100.
    let fixed = a
        .iter()
        .enumerate()
        .filter(|&(i, &j)| i as u64 == j)
        .count();
    assert!(fixed < 100, "{fixed}");
    assert_eq!(list(1), a, "a seed gives one order");
}

mod random {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn shuffles_are_permutations(n in 0u64..3000, seed in any::<u64>()) {
            prop_assert!(is_permutation(Order::Shuffled(seed), n));
        }

        #[test]
        fn shuffles_of_huge_counts_stay_in_range(
            n in 1u64..,
            seed in any::<u64>(),
            i in any::<u64>(),
        ) {
            prop_assert!(Order::Shuffled(seed).at(i % n, n) < n);
        }
    }
}
