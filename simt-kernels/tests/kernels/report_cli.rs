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

/// Runs the report with `args`, writing the JSON to a temporary folder named by
/// `tag`; checks that it succeeds and returns what it printed and the JSON (the
/// folder removed).
fn run_ok(tag: &str, args: &[&str]) -> (String, serde_json::Value) {
    let out = temp_json(tag);
    let result = report().args(args).arg("--out").arg(&out).output().unwrap();
    let stdout = String::from_utf8(result.stdout).unwrap();
    assert!(
        result.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let json = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
    (stdout, json)
}

#[test]
fn a_run_prints_the_table_and_writes_the_json() {
    let (stdout, json) = run_ok(
        "run",
        &[
            "--kernels",
            "reduce_f32,copy_strided_f32",
            "--width",
            "64",
            "--launches",
            "1",
            "--seed",
            "42",
        ],
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
    // The listing per kernel, with its hints, and the profilers' names.
    let hints = rows[1]["listing"]["hints"].as_array().unwrap();
    assert_eq!(hints[0]["kind"], "uncoalesced", "{hints:?}");
    assert!(rows[1]["listing"]["lines"].as_array().unwrap().len() > 3);
    let metrics = json["metrics"].as_array().unwrap();
    let conflicts = metrics
        .iter()
        .find(|m| m["counter"] == "lds_conflict_cycles")
        .unwrap();
    assert_eq!(conflicts["rocprof"], "SQ_LDS_BANK_CONFLICT");
    assert_eq!(json["schedule"], "UntilBarrier");
    // Occupancy on the AMD hardware of the run's width, whole; the sanitizers'
    // findings, whole (none).
    assert_eq!(rows[0]["occupancy"]["hardware"], "cdna3");
    assert_eq!(rows[0]["occupancy"]["limited_by"], "WaveSlots");
    assert_eq!(rows[0]["occupancy"]["waves_per_unit"], 32);
    assert_eq!(rows[0]["findings"]["list"].as_array().unwrap().len(), 0);
    assert_eq!(json["studies"].as_array().unwrap().len(), 0);
    assert!(stdout.contains("| 32/32 waves "), "{stdout}");
    assert!(stdout.contains("on cdna3 for wave64"), "{stdout}");
    assert!(!stdout.contains("sanitizer findings"), "{stdout}");
}

#[test]
fn studies_print_their_tables_after_the_kernels_and_go_into_the_json() {
    let (stdout, json) = run_ok(
        "studies",
        &[
            "--kernels=vecadd_i32",
            "--width=32",
            "--launches=1",
            "--seed=7",
            "--studies=transpose",
        ],
    );
    let kernels = stdout.find("| vecadd_i32 ").expect("the kernel table");
    let study = stdout
        .find("### transpose (wave32)")
        .expect("the study's table");
    assert!(kernels < study, "{stdout}");
    // The variants side by side, the stated and measured figures of each relation.
    assert!(
        stdout.contains("| | transpose_naive | transpose_lds | transpose_padded |"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "| conflict cycles per column-read phase, [32][32] | 31 (32-way) | 31 | yes |"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("divergent_paths"), "{stdout}");

    assert_eq!(json["seed"], 7);
    assert_eq!(json["rows"].as_array().unwrap().len(), 1);
    let studies = json["studies"].as_array().unwrap();
    assert_eq!(studies.len(), 1);
    let transpose = &studies[0];
    assert_eq!(transpose["study"], "transpose");
    assert_eq!(transpose["width"], 32);
    assert_eq!(transpose["passed"], true);
    let variants: Vec<&str> = transpose["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        variants,
        ["transpose_naive", "transpose_lds", "transpose_padded"]
    );
    assert_eq!(
        transpose["variants"][1]["stats"]["lds_conflict_cycles"],
        3968
    );
    assert_eq!(transpose["relations"][0]["measured"], 31.0);
    assert_eq!(transpose["relations"][0]["holds"], true);
    assert_eq!(json["study_failures"].as_array().unwrap().len(), 0);
}

#[test]
fn annotate_prints_the_listing_with_its_hints() {
    let result = report()
        .args(["--annotate", "lds_conflict_heavy_i32", "--width", "32"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(result.stdout).unwrap();
    assert!(result.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("lds_conflict_heavy_i32, wave32, model reference"),
        "{stdout}"
    );
    assert!(
        stdout.contains("* lds_store scratch[word], value"),
        "{stdout}"
    );
    assert!(
        stdout.contains("32 lanes ask bank 0 for 32 different words"),
        "{stdout}"
    );
    // Quiet when not on a terminal: no progress bar in what a pipe receives.
    assert!(
        result.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
}

#[test]
fn the_cdna3_model_and_the_round_robin_schedule_are_accepted() {
    let out = temp_json("cdna3");
    let result = report()
        .args(["--kernels=copy_coalesced_f32", "--width=64", "--launches=1"])
        .args(["--model", "cdna3", "--schedule", "round-robin", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["model"]["name"], "cdna3");
    assert_eq!(json["schedule"], "RoundRobin");
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
    let help = String::from_utf8(help.stdout).unwrap();
    for option in [
        "--width <32|64|both>",
        "--model <NAME>",
        "--schedule <ORDER>",
        "--annotate <KERNEL>",
        "--html <PATH>",
        "--studies [<A,B,...>]",
    ] {
        assert!(help.contains(option), "{option} in {help}");
    }

    for args in [
        &["--width", "48"][..],
        &["--kernels", "nope"],
        &["--seed"],
        &["extra"],
        &["--model", "amd"],
        &["--schedule", "fifo"],
        &["--annotate", "nope"],
        &["--studies", "nope"],
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

#[test]
fn a_default_run_leaves_the_committed_results_alone() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned();
    let committed = root.join("results").join("results.json");
    let before = std::fs::read(&committed).ok();
    let result = report()
        .args([
            "--kernels",
            "vecadd_i32",
            "--width",
            "32",
            "--launches",
            "1",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(result.stdout).unwrap();
    assert!(result.status.success(), "{stdout}");
    // Cargo's target folder, wherever `CARGO_TARGET_DIR` moved it.
    let written = simt_kernels::cli::default_out();
    assert!(
        stdout.contains(&format!("wrote {}", written.display())),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    assert_eq!(json["rows"][0]["kernel"], "vecadd_i32", "{json}");
    assert_eq!(std::fs::read(&committed).ok(), before);
}

/// A reader that stops early (`report | head -1`) ends the report quietly:
/// status 0 and nothing on standard error, where `print!` would panic.
#[test]
fn a_closed_standard_output_ends_the_report_quietly() {
    let out = temp_json("closed-pipe");
    let mut child = report()
        .args([
            "--kernels",
            "vecadd_i32",
            "--width",
            "32",
            "--launches",
            "1",
        ])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Closing the only reader before the report writes makes its first write
    // fail with a broken pipe.
    drop(child.stdout.take());
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{:?}\n{stderr}", result.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}
