//! Counted loops unrolled as ptxas unrolls them: the body runs as often as
//! in the loop as written for every count, each lane its own, and fewer
//! instructions issue.

use crate::common::launch;
use crate::instructions::{check, kernel_with};
use simt_core::{Arg, LaunchConfig};

/// A loop nvcc's shape: the counter `%r10` steps by `step` to zero, the
/// body folds `b` and `c` into `%r8` in an order that tells every count
/// apart.
fn counted(start: &str, step: i32, pragma: &str) -> String {
    format!(
        "	mov.u32 %r8, 0;
	{start}
$L__head:
	{pragma}
	mad.lo.s32 %r8, %r8, 3, %r6;
	xor.b32 %r8, %r8, %r7;
	add.s32 %r10, %r10, {step};
	setp.ne.s32 %p1, %r10, 0;
	@%p1 bra $L__head;"
    )
}

fn folded(trips: u32, b: u32, c: u32) -> u32 {
    (0..trips).fold(0u32, |r, _| r.wrapping_mul(3).wrapping_add(b) ^ c)
}

#[test]
fn down_counted_loops_run_their_body_once_per_iteration() {
    // Counts 4 to 100 in steps of 4, per lane: every remainder after the
    // sixteen-at-a-time loop, and lanes of one wave leaving at different
    // trips.
    let inputs: Vec<(u32, u32, u32)> = (0..128u32)
        .map(|i| (4 * (1 + i % 25), i.wrapping_mul(0x9e37_79b9), i ^ 0x55))
        .collect();
    let body = counted("mov.u32 %r10, %r5;", -4, "");
    check(&body, &inputs, |a, b, c| folded(a / 4, b, c));
}

#[test]
fn up_counted_loops_run_their_body_once_per_iteration() {
    let inputs: Vec<(u32, u32, u32)> = (0..128u32)
        .map(|i| (1 + i % 41, i.wrapping_mul(0x85eb_ca6b), !i))
        .collect();
    let body = counted("neg.s32 %r10, %r5;", 1, "");
    check(&body, &inputs, folded);
}

/// The vector instructions one lane-uniform launch of `body` issues, with
/// its loops unrolled or as written.
fn issued(body: &str, count: u32, unroll: bool) -> (u64, u32) {
    let options = simt_ptx::Options {
        unroll,
        ..Default::default()
    };
    let k = kernel_with(body, &options);
    let a = vec![count; 64];
    let b = vec![7u32; 64];
    let c = vec![1u32; 64];
    let mut out = vec![0u32; 64];
    let stats = launch(
        &k,
        &LaunchConfig::new(1, 64).wave_width(32),
        &mut [
            Arg::buffer(&a),
            Arg::buffer(&b),
            Arg::buffer(&c),
            Arg::buffer_mut(&mut out),
        ],
    );
    (stats.totals.vector_instructions, out[0])
}

#[test]
fn unrolling_issues_fewer_instructions_for_the_same_result() {
    let body = counted("mov.u32 %r10, %r5;", -4, "");
    for count in [4, 12, 16, 64, 68, 76] {
        let (unrolled, a) = issued(&body, count, true);
        let (written, b) = issued(&body, count, false);
        assert_eq!(a, b, "count {count}");
        assert_eq!(a, folded(count / 4, 7, 1));
        if count >= 16 {
            assert!(unrolled < written, "count {count}: {unrolled} >= {written}");
        }
    }
    // A loop nvcc marks `nounroll` runs as written.
    let marked = counted("mov.u32 %r10, %r5;", -4, ".pragma \"nounroll\";");
    assert_eq!(issued(&marked, 64, true), issued(&marked, 64, false));
}

#[test]
fn a_loop_with_a_shuffle_runs_as_written() {
    // Lanes leaving at different counts would run one iteration in
    // different copies, with different partners: such a loop is left alone.
    let body = "	mov.u32 %r8, 0;
	mov.u32 %r10, %r5;
$L__head:
	shfl.sync.idx.b32 %r11, %r8, 0, 31, -1;
	add.s32 %r8, %r11, %r6;
	add.s32 %r10, %r10, -4;
	setp.ne.s32 %p1, %r10, 0;
	@%p1 bra $L__head;";
    assert_eq!(issued(body, 64, true), issued(body, 64, false));
}
