//! `simt sweep`: one JSON line per point, in the axes' order, with the
//! counters computed by hand for a strided copy; bad axes and failing points.

use crate::common;

use common::{simt, Scratch};
use serde_json::Value;

const STRIDED: &str = "
kernel strided_copy(src: &[u32], out: &mut [u32], stride: u32) {
    vreg i, x;
    v_mul_u32 i, global_id, stride
    global_load x, src[i]
    global_store out[global_id], x
}
";

fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_sweep_prints_one_line_per_point_with_hand_computed_counters() {
    let dir = Scratch::new("sweep");
    dir.write("strided.simt", STRIDED);
    let out = simt(
        dir.path(),
        &[
            "sweep",
            "strided.simt",
            "--groups",
            "1",
            "--size",
            "32",
            "--width",
            "32,64",
            "--arg",
            "stride=0,1,2,16,32",
            "--buffer",
            "src=iota:1024",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines = lines(&out.stdout);
    assert_eq!(lines.len(), 10);
    // One wave of 32 lanes: 4-byte loads 4 * stride bytes apart over 64-byte
    // lines, plus 2 transactions for the unit-stride store
    // (`tests/simt/launch.rs`, `coalescing_follows_the_stride`).
    let expected = [(0, 1), (1, 2), (2, 4), (16, 32), (32, 32)];
    for (k, line) in lines.iter().enumerate() {
        let width = if k < 5 { 32 } else { 64 };
        let (stride, transactions) = expected[k % 5];
        assert_eq!(line["wave_width"], width, "{line}");
        assert_eq!(line["stride"], stride, "{line}");
        assert_eq!(line["kernel"], "strided_copy");
        assert_eq!(line["model"], "reference");
        assert_eq!(line["waves"], 1);
        assert_eq!(line["global_accesses"], 2);
        if width == 32 {
            assert_eq!(line["global_transactions"], transactions + 2, "{line}");
        }
    }
}

#[test]
fn a_sweep_over_parts_carries_estimates() {
    let dir = Scratch::new("sweep-part");
    dir.write("strided.simt", STRIDED);
    let out = simt(
        dir.path(),
        &[
            "sweep",
            "strided.simt",
            "--groups",
            "4,8",
            "--size",
            "64",
            "--part",
            "h100-sxm/2",
            "--arg",
            "stride=1",
            "--out",
            "s.jsonl",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.is_empty());
    let text = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    let lines = lines(&text);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["groups"], "4");
    assert_eq!(lines[1]["workgroups"], 8);
    for line in &lines {
        assert_eq!(line["part"], "h100-sxm/2");
        assert!(line["estimate_cycles"].as_f64().unwrap() > 0.0, "{line}");
    }
}

#[test]
fn a_failing_point_is_a_line_with_its_error_and_exit_status_1() {
    let dir = Scratch::new("sweep-fault");
    dir.write("strided.simt", STRIDED);
    // `src` holds 32 elements: stride 2 reads past it.
    let out = simt(
        dir.path(),
        &[
            "sweep",
            "strided.simt",
            "--groups",
            "1",
            "--size",
            "32",
            "--arg",
            "stride=1,2",
            "--buffer",
            "src=iota:32",
        ],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let lines = lines(&out.stdout);
    assert_eq!(lines.len(), 2);
    assert!(lines[0].get("error").is_none());
    assert!(
        lines[1]["error"].as_str().unwrap().contains("strided_copy"),
        "{}",
        lines[1]
    );
}

#[test]
fn a_wrong_argument_is_a_usage_error() {
    let dir = Scratch::new("sweep-usage");
    dir.write("strided.simt", STRIDED);
    let out = simt(
        dir.path(),
        &[
            "sweep",
            "strided.simt",
            "--groups",
            "1",
            "--size",
            "32",
            "--arg",
            "strides=1",
        ],
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("no parameter `strides`"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"));
}

#[test]
fn a_bad_value_in_a_later_point_stops_the_sweep_before_its_first_line() {
    let dir = Scratch::new("sweep-later");
    dir.write("strided.simt", STRIDED);
    let out = simt(
        dir.path(),
        &[
            "sweep",
            "strided.simt",
            "--groups",
            "1",
            "--size",
            "32",
            "--arg",
            "stride=1,-1",
        ],
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(out.stderr.contains("--arg stride=-1"), "{}", out.stderr);
}

#[test]
fn a_scalar_given_as_a_buffer_is_a_usage_error_before_any_line() {
    let dir = Scratch::new("sweep-misnamed");
    dir.write("strided.simt", STRIDED);
    let out = simt(
        dir.path(),
        &[
            "sweep",
            "strided.simt",
            "--groups",
            "1",
            "--size",
            "32",
            "--buffer",
            "stride=5",
        ],
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr.contains("`stride` is a scalar"),
        "{}",
        out.stderr
    );
}
