//! The report program end to end: its exit status, its table and its JSON.

use std::path::PathBuf;
use std::process::Command;

fn report() -> Command {
    Command::new(env!("CARGO_BIN_EXE_report"))
}

fn temp_json(tag: &str) -> PathBuf {
    std::env::temp_dir()
        .join(format!("simt-report-{}-{tag}", std::process::id()))
        .join("results.json")
}

#[test]
fn a_run_prints_the_table_and_writes_the_json() {
    let out = temp_json("run");
    let result = report()
        .args(["--kernels", "reduce_f32,copy_strided_f32", "--width", "64"])
        .args(["--launches", "1", "--seed", "42", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8(result.stdout).unwrap();
    assert!(
        result.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert!(stdout.contains("| kernel "), "{stdout}");
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("| ")).collect();
    // Header plus one row per kernel (at one width), in table order.
    assert_eq!(rows.len(), 3, "{stdout}");
    assert!(
        rows[1].starts_with("| reduce_f32 ") && rows[1].contains("| pass "),
        "{stdout}"
    );
    assert!(rows[2].starts_with("| copy_strided_f32 ") && rows[2].contains(" 17.00 |"));
    assert!(stdout.contains("published table: 2 of 2 rows"), "{stdout}");

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["seed"], 42);
    assert_eq!(json["model"]["name"], "reference");
    assert_eq!(json["failures"].as_array().unwrap().len(), 0);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["kernel"], "reduce_f32");
    assert_eq!(rows[0]["wave_width"], 64);
    assert_eq!(rows[0]["oracle_pass"], true);
    assert_eq!(rows[0]["lds_accesses"], 720);
    assert_eq!(rows[0]["global_transactions"], 272);
    assert_eq!(
        rows[0]["active_lanes_histogram"].as_array().unwrap().len(),
        65
    );
    assert_eq!(rows[0]["timing"]["launches"], 1);
    assert_eq!(rows[0]["matches_reference_memory"], true);
    assert_eq!(rows[1]["global_transactions"], 4352);
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}

#[test]
fn the_nvidia_model_changes_the_line_counts() {
    let out = temp_json("nvidia");
    let result = report()
        .args([
            "--kernels=vecadd_f32",
            "--width=32",
            "--launches=1",
            "--model=nvidia",
        ])
        .arg(format!("--out={}", out.display()))
        .output()
        .unwrap();
    assert!(result.status.success());
    // The reference simulator's figures are for its own model only.
    assert!(!String::from_utf8(result.stdout)
        .unwrap()
        .contains("published table"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["model"]["line_bytes"], 128);
    assert_eq!(json["rows"][0]["global_transactions"], 384);
    assert_eq!(json["rows"][0]["global_sectors"], 1536);
    assert_eq!(
        json["rows"][0]["matches_reference_memory"],
        serde_json::Value::Null
    );
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}

#[test]
fn help_succeeds_and_mistakes_exit_with_status_2() {
    let help = report().arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8(help.stdout)
        .unwrap()
        .contains("--width 32|64|both"));

    for args in [
        &["--width", "48"][..],
        &["--kernels", "nope"],
        &["--seed"],
        &["extra"],
    ] {
        let result = report().args(args).output().unwrap();
        assert_eq!(result.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(result.stderr).unwrap();
        assert!(stderr.starts_with("report: "), "{stderr}");
    }
}

#[test]
fn an_unwritable_output_fails_the_run() {
    // A path below a regular file cannot be created.
    let file = std::env::temp_dir().join(format!("simt-report-{}-file", std::process::id()));
    std::fs::write(&file, b"").unwrap();
    let result = report()
        .args([
            "--kernels",
            "vecadd_i32",
            "--width",
            "32",
            "--launches",
            "1",
            "--out",
        ])
        .arg(file.join("results.json"))
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(1));
    let _ = std::fs::remove_file(&file);
}
