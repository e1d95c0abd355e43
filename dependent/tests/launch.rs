//! The kernels run from a crate outside simt's workspace, with the counters
//! computed by hand.

use simt::core::LaunchConfig;
use simt_dependent::{block_sum, vecadd, vecadd_median};

#[test]
fn vecadd_adds_and_counts_its_accesses() {
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b = vec![0.5f32; n as usize];
    let mut c = vec![0.0f32; 1024];
    let stats = vecadd::launch(&LaunchConfig::new(4, 256), &a, &b, &mut c, n).unwrap();
    assert!((0..n as usize).all(|i| c[i] == i as f32 + 0.5));
    assert!(c[n as usize..].iter().all(|&v| v == 0.0));
    // 32 waves; 31 full ones and one with 8 of its 32 lanes inside: each
    // issues two loads and a store, one access per wave each.
    assert_eq!(stats.totals.global_accesses, 3 * 32);
    // 1,000 elements of 4 bytes in 64-byte lines: 63 lines per buffer (the
    // last one half used), each wave's 128 contiguous bytes two lines.
    assert_eq!(stats.totals.global_transactions, 3 * (31 * 2 + 1));
}

#[test]
fn block_sum_adds_each_workgroup() {
    let input: Vec<u32> = (0..256).collect();
    let mut partial = vec![0u32; 4];
    block_sum::launch(&LaunchConfig::new(4, 64), &input, &mut partial).unwrap();
    let expected: Vec<u32> = (0..4).map(|g| (g * 64..(g + 1) * 64).sum()).collect();
    assert_eq!(partial, expected);
    // The declared shape is the kernel's own: another is refused.
    assert!(block_sum::launch(&LaunchConfig::new(8, 32), &input, &mut partial).is_err());
}

/// Prints vecadd's launch time under this build's profile (run
/// `cargo test --release` beside `cargo test` to compare): no assertion on
/// time, which shared machines make noisy; every timed launch must add right.
#[test]
fn vecadd_launch_time_is_printed() {
    let median = vecadd_median(1 << 16, 21).expect("every launch adds right");
    println!("vecadd, 65,536 elements, median of 21 launches: {median:?}");
}
