//! A launch's memory does not grow with its number of workgroups: measured
//! with a counting allocator. Other tests running beside it would count too,
//! so the test runs itself again in a process of its own (this binary,
//! filtered to it), and measures there.

use crate::exec_util;

use exec_util::*;
use simt_core::{launch, Error, FaultKind, LaunchConfig, Order, ProgramBuilder};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, size) };
        if !q.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(size);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes a launch below may hold beyond what was live before it:
/// its workers' registers, LDS (64 KiB each), caches and statistics, with
/// room to spare. One index per workgroup of 2^24 would be 128 MiB.
const BOUND: usize = 4 << 20;

/// Set in the process the test starts for itself.
const ALONE: &str = "SIMT_GRID_MEMORY_ALONE";

#[test]
fn a_huge_grid_stopped_by_the_budget_allocates_nothing_per_workgroup() {
    if std::env::var_os(ALONE).is_some() {
        measure();
        return;
    }
    let name = "grid_memory::a_huge_grid_stopped_by_the_budget_allocates_nothing_per_workgroup";
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(ALONE, "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn measure() {
    // Two instructions per workgroup (a move and `end`).
    let mut p = ProgramBuilder::new("idle");
    p.extend([mov(0, gid())]);
    let program = p.build().expect("valid");
    let grid = 1u32 << 24;
    let budget = 1_000_000;
    let base = LaunchConfig::new(grid, 1).instruction_budget(budget);
    let mut report = Vec::new();
    for (what, config) in [
        ("auto threads", base.clone()),
        ("one thread", base.clone().threads(1)),
        ("two threads", base.clone().threads(2)),
        (
            "reversed check",
            base.clone().schedule_check(Some(Order::Reversed)),
        ),
        (
            "shuffled check",
            base.clone().schedule_check(Some(Order::Shuffled(1))),
        ),
        ("sanitized", base.clone().sanitize(true)),
    ] {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let result = launch(&program, &config, &mut []);
        let peak = PEAK.load(Ordering::Relaxed) - before;
        match result {
            // 10^6 issues fit: workgroups 0..500,000 run whole.
            Err(Error::Fault(f)) => {
                assert_eq!(f.kind, FaultKind::BudgetExceeded { budget });
                assert_eq!(f.workgroup, [500_000, 0, 0], "{what}");
            }
            other => panic!("{what}: expected the budget fault, got {other:?}"),
        }
        report.push(format!("{what}: {peak} bytes"));
        assert!(peak < BOUND, "{what}: {peak} bytes at the peak");
    }
    // A schedule check that runs both passes to the end, on 2^20 workgroups
    // (8 MiB as one index each).
    for order in [Order::Reversed, Order::Shuffled(1)] {
        let config = LaunchConfig::new(1u32 << 20, 1).schedule_check(Some(order));
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let stats = launch(&program, &config, &mut []).expect("runs");
        let peak = PEAK.load(Ordering::Relaxed) - before;
        assert_eq!(stats.workgroups, 1 << 20);
        assert!(stats.findings.is_empty());
        report.push(format!("{order:?} check, whole: {peak} bytes"));
        assert!(peak < BOUND, "{order:?}: {peak} bytes at the peak");
    }
    println!("{}", report.join("\n"));
}
