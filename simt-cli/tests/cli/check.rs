//! `simt check` and `simt --help`.

use crate::common;

use common::{assert_has, simt, Scratch};

const CLEAN: &str = "\
/// out[i] = x[i] + y[i]
kernel vecadd(x: &[u32], y: &[u32], out: &mut [u32]) {
    vreg a, b;
    global_load  a, x[global_id.x]
    global_load  b, y[global_id.x]
    v_add_u32    a, a, b
    global_store out[global_id.x], a
}

kernel fill(out: &mut [f32], v: f32) {
    global_store out[global_id.x], v
}
";

#[test]
fn a_clean_file_passes_with_one_line_per_kernel() {
    let dir = Scratch::new("check-clean");
    dir.write("k.simt", CLEAN);
    let out = simt(dir.path(), &["check", "k.simt"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    assert!(
        lines[0].starts_with(
            "ok: kernel vecadd(x: &[u32], y: &[u32], out: &mut [u32]): 5 instructions"
        ),
        "{}",
        out.stdout
    );
    assert!(
        lines[1].starts_with("ok: kernel fill(out: &mut [f32], v: f32): 2 instructions"),
        "{}",
        out.stdout
    );
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

#[test]
fn two_mistakes_are_both_shown_where_they_are_as_rustc_shows_them() {
    let dir = Scratch::new("check-mistakes");
    dir.write(
        "bad.simt",
        "kernel broken(out: &mut [u32]) {\n    vreg a;\n    v_mov a, nope\n    v_add_u33 a, a, 1\n    global_store out[global_id.x], a\n}\n",
    );
    let out = simt(dir.path(), &["check", "bad.simt"]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    let e = &out.stderr;
    // `nope` is the 14th character of line 3, `v_add_u33` starts line 4 after
    // four spaces: column 5.
    for expected in [
        "error: unknown name `nope`",
        " --> bad.simt:3:14\n  |\n3 |     v_mov a, nope\n  |              ^^^^\n",
        "error: unknown mnemonic `v_add_u33`",
        " --> bad.simt:4:5\n  |\n4 |     v_add_u33 a, a, 1\n  |     ^^^^^^^^^\n",
        "error: could not compile `bad.simt` (2 errors)",
    ] {
        assert_has(e, expected);
    }
    // No colour when stderr is not a terminal.
    assert!(!e.contains('\u{1b}'), "{e}");
    // The same diagnostics stop `simt run` before any launch.
    let out = simt(
        dir.path(),
        &["run", "bad.simt", "--groups", "1", "--size", "32"],
    );
    assert_eq!(out.code, Some(1));
    assert_has(&out.stderr, " --> bad.simt:4:5");
    assert!(!out.stdout.contains("| kernel"), "{}", out.stdout);
}

#[test]
fn a_missing_file_is_an_error() {
    let dir = Scratch::new("check-missing");
    let out = simt(dir.path(), &["check", "nothing.simt"]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr.starts_with("error: cannot read nothing.simt:"),
        "{}",
        out.stderr
    );
}

#[test]
fn help_shows_examples() {
    let dir = Scratch::new("help");
    for args in [&["--help"][..], &["run", "--help"], &["check", "--help"]] {
        let out = simt(dir.path(), args);
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr);
        let help = &out.stdout;
        for expected in [
            "Examples:",
            "simt check kernels.simt",
            "simt run vecadd.simt --groups 4 --size 64",
            "--buffer x=x.npy",
            "SplitMix64",
            "Exit status:",
        ] {
            assert_has(help, expected);
        }
    }
    let run = simt(dir.path(), &["run", "--help"]).stdout;
    for option in [
        "--kernel <NAME>",
        "--groups <N>",
        "--size <M>",
        "--width <32|64>",
        "--model <NAME>",
        "--schedule <ORDER>",
        "--sanitize",
        "--arg <NAME=VALUE>",
        "--buffer <NAME=SPEC>",
        "--print <NAME[a..b]>",
        "--html <PATH>",
        "--json <PATH>",
        "--out-dir <DIR>",
    ] {
        assert_has(&run, option);
    }
}
