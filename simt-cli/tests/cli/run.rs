//! `simt run`: arguments, inputs, outputs, counters and errors.

use crate::common;

use common::{assert_has, cell, simt, table_row, Scratch};
use std::path::Path;

const VECADD: &str = "\
kernel vecadd(x: &[u32], y: &[u32], out: &mut [u32]) {
    vreg a, b;
    global_load  a, x[global_id.x]
    global_load  b, y[global_id.x]
    v_add_u32    a, a, b
    global_store out[global_id.x], a
}
";

/// Two kernels: a copy, and 3i^2 + 2 by Horner's rule.
const TWO: &str = "\
kernel copy(x: &[u32], out: &mut [u32]) {
    vreg v;
    global_load  v, x[global_id.x]
    global_store out[global_id.x], v
}

kernel poly(out: &mut [u32]) {
    vreg x, acc;
    v_mov     x, global_id.x
    v_mov     acc, 0
    v_mad_u32 acc, acc, x, 3
    v_mad_u32 acc, acc, x, 0
    v_mad_u32 acc, acc, x, 2
    global_store out[global_id.x], acc
}
";

fn read_npy<T: npyz::Deserialize>(path: &Path) -> Vec<T> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap()
}

fn write_npy<T: npyz::AutoSerialize>(path: &Path, values: &[T]) {
    use npyz::WriterBuilder;
    let mut file = std::fs::File::create(path).unwrap();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[values.len() as u64])
        .writer(&mut file)
        .begin_nd()
        .unwrap();
    w.extend(values.iter()).unwrap();
    w.finish().unwrap();
}

#[test]
fn vecadd_writes_the_sum_of_its_inputs_to_the_out_dir() {
    let dir = Scratch::new("vecadd");
    dir.write("vecadd.simt", VECADD);
    // x from raw little-endian bytes, y from a .npy file.
    let x: Vec<u32> = (0..128).map(|i| 3 * i).collect();
    let y: Vec<u32> = (0..128).map(|i| 1000 + i).collect();
    let raw: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.path().join("x.raw"), raw).unwrap();
    write_npy(&dir.path().join("y.npy"), &y);
    let args = [
        "run",
        "vecadd.simt",
        "--groups",
        "2",
        "--size",
        "64",
        "--buffer",
        "x=x.raw",
        "--buffer",
        "y=y.npy",
    ];
    let out = simt(dir.path(), &[&args[..], &["--out-dir", "out"]].concat());
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert_has(&out.stdout, "wrote out/out.npy");
    let sum: Vec<u32> = read_npy(&dir.path().join("out/out.npy"));
    // out[i] = 3i + (1000 + i) = 4i + 1000.
    assert_eq!(sum, (0..128).map(|i| 4 * i + 1000).collect::<Vec<u32>>());
    // Read-only buffers are not written back.
    assert!(!dir.path().join("out/x.npy").exists());

    let out = simt(
        dir.path(),
        &[&args[..], &["--out-dir", "raw", "--out-format", "raw"]].concat(),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let bytes = std::fs::read(dir.path().join("raw/out.bin")).unwrap();
    let expected: Vec<u8> = sum.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(bytes, expected);
}

#[test]
fn a_coalesced_copy_prints_the_hand_computed_counters() {
    let dir = Scratch::new("copy");
    dir.write("two.simt", TWO);
    // 256 u32 at wave32: 8 waves, each issuing a load, a store and `end`: 24
    // instructions, 16 of them vector. Each wave's load and store is one
    // access of 32 lanes x 4 bytes = 128 contiguous bytes, two 64-byte lines
    // of the reference model: 16 accesses, 32 transactions.
    let out = simt(
        dir.path(),
        &[
            "run", "two.simt", "--kernel", "copy", "--groups", "2", "--size", "128",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let row = table_row(&out.stdout, "copy");
    for (column, value) in [
        ("wave", "32"),
        ("instr", "24"),
        ("vector", "16"),
        ("div %", "0.00"),
        ("SIMD eff", "32.00"),
        ("lds acc", "0"),
        ("lds conflict cyc", "0"),
        ("glb acc", "16"),
        ("glb trans", "32"),
        ("trans/acc", "2.00"),
        ("findings", "0"),
        ("oracle", "none"),
    ] {
        assert_eq!(cell(&row, column), value, "{column} in {}", out.stdout);
    }
    // At wave64, 4 waves issue half as many instructions; a wave64 access
    // counts as two 32-lane phases, so the memory figures stay.
    let out = simt(
        dir.path(),
        &[
            "run", "two.simt", "--kernel", "copy", "--groups", "2", "--size", "128", "--width",
            "64",
        ],
    );
    let row = table_row(&out.stdout, "copy");
    assert_eq!(
        ["instr", "vector", "glb acc", "glb trans"].map(|c| cell(&row, c)),
        ["12", "8", "16", "32"],
        "{}",
        out.stdout
    );
    // The listing per source line: the load is line 3, issued by 8 waves.
    let load = out
        .stdout
        .lines()
        .find(|l| l.ends_with("global_load v, x[global_id.x]"))
        .unwrap_or_else(|| panic!("no listing line in {}", out.stdout));
    let fields: Vec<&str> = load.split_whitespace().collect();
    assert_eq!(fields[..2], ["3", "4"], "{load}");
}

#[test]
fn scalars_are_typed_by_the_kernel_and_mistakes_are_named() {
    let dir = Scratch::new("args");
    dir.write(
        "fill.simt",
        "kernel fill(out: &mut [i32], v: i32, n: u32, f: f32) {\n    global_store out[global_id.x], v\n}\n",
    );
    let run = |extra: &[&str]| {
        let base = [
            "run",
            "fill.simt",
            "--groups",
            "1",
            "--size",
            "32",
            "--out-dir",
            "o",
        ];
        simt(dir.path(), &[&base[..], extra].concat())
    };
    let good = ["--arg", "v=-7", "--arg", "n=0x10", "--arg", "f=2.5"];
    let out = run(&good);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(read_npy::<i32>(&dir.path().join("o/out.npy")), vec![-7; 32]);
    // Hex gives an i32's bits.
    let out = run(&["--arg", "v=0xffffffff", "--arg", "n=1", "--arg", "f=0"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(read_npy::<i32>(&dir.path().join("o/out.npy")), vec![-1; 32]);

    for (args, message) in [
        (
            &["--arg", "v=1", "--arg", "n=abc", "--arg", "f=0"][..],
            "error: --arg n=abc: `n` is a u32, and `abc` is not one; expected an integer in 0..=4294967295",
        ),
        (
            &["--arg", "v=1", "--arg", "n=-1", "--arg", "f=0"],
            "`n` is a u32, and `-1` is not one",
        ),
        (
            &["--arg", "v=1.5", "--arg", "n=1", "--arg", "f=0"],
            "`v` is an i32, and `1.5` is not one",
        ),
        (
            &["--arg", "v=1", "--arg", "n=1", "--arg", "f=x"],
            "`f` is an f32, and `x` is not one; expected a number",
        ),
        (
            &["--arg", "v=1", "--arg", "n=1", "--arg", "f=0", "--arg", "m=1"],
            "--arg m: `fill` has no parameter `m`; its parameters are: out: &mut [i32], v: i32, n: u32, f: f32",
        ),
        (
            &["--arg", "v=1", "--arg", "f=0"],
            "`fill` needs a value for its scalar `n` (u32): give it with --arg n=VALUE",
        ),
        (
            &["--arg", "v=1", "--arg", "v=2", "--arg", "n=1", "--arg", "f=0"],
            "--arg v is given twice",
        ),
        (
            &["--arg", "v=1", "--arg", "n=1", "--arg", "f=0", "--arg", "out=3"],
            "--arg out: `out` is a buffer (&mut [i32]); give it with --buffer out=LEN|FILE",
        ),
        (
            &["--arg", "v=1", "--arg", "n=1", "--buffer", "f=3"],
            "--buffer f: `f` is a scalar (f32); give it with --arg f=VALUE",
        ),
        (&["--arg", "v"], "expected NAME=VALUE, found `v`"),
    ] {
        let out = run(args);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert_has(&out.stderr, message);
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    }
}

#[test]
fn kernel_chooses_among_the_kernels_of_a_file() {
    let dir = Scratch::new("kernel");
    dir.write("two.simt", TWO);
    let base = ["run", "two.simt", "--groups", "2", "--size", "64"];
    let out = simt(dir.path(), &base);
    assert_eq!(out.code, Some(2));
    assert_has(
        &out.stderr,
        "two.simt holds 2 kernels (copy, poly): choose one with --kernel NAME",
    );
    let out = simt(dir.path(), &[&base[..], &["--kernel", "nope"]].concat());
    assert_eq!(out.code, Some(2));
    assert_has(
        &out.stderr,
        "two.simt has no kernel `nope`; its kernels are: copy, poly",
    );
    let out = simt(
        dir.path(),
        &[&base[..], &["--kernel", "poly", "--out-dir", "o"]].concat(),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    table_row(&out.stdout, "poly");
    assert!(!out.stdout.contains("| copy "), "{}", out.stdout);
    let values: Vec<u32> = read_npy(&dir.path().join("o/out.npy"));
    assert_eq!(
        values,
        (0..128).map(|i| 3 * i * i + 2).collect::<Vec<u32>>()
    );
}

#[test]
fn npy_inputs_are_read_as_the_buffer_type() {
    let dir = Scratch::new("npy");
    dir.write(
        "double.simt",
        "kernel double(x: &[f32], out: &mut [f32]) {\n    vreg v;\n    global_load v, x[global_id.x]\n    v_add_f32 v, v, v\n    global_store out[global_id.x], v\n}\n",
    );
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 3.25).collect();
    write_npy(&dir.path().join("x.npy"), &x);
    let run = |buffer: &str| {
        simt(
            dir.path(),
            &[
                "run",
                "double.simt",
                "--groups",
                "1",
                "--size",
                "64",
                "--buffer",
                buffer,
                "--out-dir",
                "o",
            ],
        )
    };
    let out = run("x=x.npy");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doubled: Vec<f32> = read_npy(&dir.path().join("o/out.npy"));
    // Halves doubled are exact: 2 * (i/2 - 3.25) = i - 6.5.
    assert_eq!(
        doubled,
        (0..64).map(|i| i as f32 - 6.5).collect::<Vec<f32>>()
    );

    write_npy(&dir.path().join("ints.npy"), &[1i32, 2, 3]);
    let out = run("x=ints.npy");
    assert_eq!(out.code, Some(2));
    assert_has(
        &out.stderr,
        "--buffer x: ints.npy holds elements of dtype '<i4', not f32 (expected '<f4')",
    );
    dir.write("odd.raw", "12345");
    let out = run("x=odd.raw");
    assert_eq!(out.code, Some(2));
    assert_has(
        &out.stderr,
        "odd.raw holds 5 bytes, not a whole number of 4-byte f32 elements",
    );
    dir.write("fake.npy", "not numpy");
    let out = run("x=fake.npy");
    assert_eq!(out.code, Some(2));
    assert_has(&out.stderr, "fake.npy is not a .npy file");
}

#[test]
fn json_and_html_are_the_reports() {
    let dir = Scratch::new("json");
    dir.write("two.simt", TWO);
    let out = simt(
        dir.path(),
        &[
            "run",
            "two.simt",
            "--kernel",
            "copy",
            "--groups",
            "2",
            "--size",
            "128",
            "--json",
            "r/copy.json",
            "--html",
            "r/copy.html",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let text = std::fs::read_to_string(dir.path().join("r/copy.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let row = &json["rows"][0];
    assert_eq!(row["kernel"], "copy");
    assert_eq!(row["has_oracle"], false);
    // The figures of the copy above: 16 accesses, 32 transactions.
    assert_eq!(
        (
            row["global_accesses"].as_u64(),
            row["global_transactions"].as_u64()
        ),
        (Some(16), Some(32))
    );
    assert_eq!(json["seed"], 42);
    assert_eq!(json["model"]["name"], "reference");
    let html = std::fs::read_to_string(dir.path().join("r/copy.html")).unwrap();
    assert_has(&html, "<section class=\"kernel\" id=\"copy-wave32\">");
    assert_has(&html, "global_load v, x[global_id.x]");
}

/// A fault is shown as the compile errors are: the message naming the
/// buffer and index, the source line with the instruction underlined, and
/// the work-item; never an instruction number.
#[test]
fn a_fault_is_the_typed_error() {
    let dir = Scratch::new("fault");
    dir.write("two.simt", TWO);
    // 64 work-items store into a buffer of 10: lane 10 is the first outside.
    let out = simt(
        dir.path(),
        &[
            "run", "two.simt", "--kernel", "copy", "--groups", "1", "--size", "64", "--buffer",
            "out=10",
        ],
    );
    assert_eq!(out.code, Some(1));
    assert_has(
        &out.stderr,
        "error: out-of-bounds store of 4 bytes at index 10",
    );
    assert_has(&out.stderr, " --> two.simt:4:5");
    assert_has(
        &out.stderr,
        "4 |     global_store out[global_id.x], v\n  |     ^^^^^^^^^^^^",
    );
    assert_has(
        &out.stderr,
        "note: in kernel `copy`, workgroup (0, 0, 0), wave 0, lane 10",
    );
    assert!(!out.stderr.contains("instruction"), "{}", out.stderr);
}

/// Below 65,536 work-items the sanitizers run by default and a race fails
/// the run; without them, the race the facts prove for the launch is still a
/// warning, an error under `--deny warnings`, and a note says what was not
/// checked.
#[test]
fn a_race_never_passes_quietly() {
    let dir = Scratch::new("sanitize");
    dir.write(
        "race.simt",
        "kernel race(out: &mut [u32]) {\n    global_store out[0], global_id.x\n}\n",
    );
    let base = ["run", "race.simt", "--groups", "1", "--size", "64"];
    for extra in [&[][..], &["--sanitize"]] {
        let out = simt(dir.path(), &[&base[..], extra].concat());
        assert_eq!(out.code, Some(1), "{}", out.stderr);
        // Two waves store different values to word 0 with no barrier between.
        assert_has(&out.stdout, "global race, write after write, between waves");
        assert_has(&out.stderr, "the sanitizers found a race");
    }
    let proved = "warning: global race proved for this launch's shape, between lanes of one wave";
    let out = simt(dir.path(), &[&base[..], &["--no-sanitize"]].concat());
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(!out.stdout.contains("sanitizer findings"));
    assert_has(&out.stderr, proved);
    assert_has(
        &out.stdout,
        "note: the sanitizers did not run (--no-sanitize)",
    );
    let out = simt(
        dir.path(),
        &[&base[..], &["--no-sanitize", "--deny", "warnings"]].concat(),
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(&out.stderr, "error: warnings are denied (--deny warnings)");
    // 1,024 workgroups of 64: too many to sanitize by default.
    let big = [
        "run",
        "race.simt",
        "--groups",
        "1024",
        "--size",
        "64",
        "--buffer",
        "out=1",
    ];
    let out = simt(dir.path(), &big);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_has(&out.stderr, proved);
    assert_has(
        &out.stdout,
        "note: the sanitizers did not run (65536 work-items, at least 65536)",
    );
    // `simt check --size` proves it for a shape, as an error.
    let out = simt(dir.path(), &["check", "race.simt", "--size", "64"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(
        &out.stderr,
        "error: `race`, workgroups of 64 at wave32: global race proved",
    );
    let out = simt(dir.path(), &["check", "race.simt"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // No workgroup holds 2,000 work-items; a kernel declaring its shape is
    // checked under it, whatever --size says.
    let out = simt(dir.path(), &["check", "race.simt", "--size", "2000"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_has(&out.stderr, "past the limit of 1024");
    dir.write(
        "shaped.simt",
        "#[workgroup_size(64)]\nkernel shaped(out: &mut [u32]) {\n    global_store out[global_id.x], local_id.x\n}\n",
    );
    let out = simt(dir.path(), &["check", "shaped.simt", "--size", "32"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_has(
        &out.stdout,
        "declares workgroups of 64, so none of 32 launches it",
    );
}

/// `--groups` and `--size` take `XxY` (and `XxYxZ`) shapes, so a kernel
/// declaring `#[workgroup_size(16, 16)]` runs; another shape is refused with
/// the kernel's own launch error.
#[test]
fn shapes_of_two_dimensions_launch_a_kernel_that_declares_one() {
    let dir = Scratch::new("shapes");
    dir.write(
        "tile.simt",
        "#[workgroup_size(16, 16)]
kernel tile(out: &mut [u32]) {
    vreg i;
    v_mad_u32 i, global_id.y, 32, global_id.x
    global_store out[i], local_id.y
}
",
    );
    let out = simt(
        dir.path(),
        &[
            "run",
            "tile.simt",
            "--groups",
            "2x2",
            "--size",
            "16x16",
            "--out-dir",
            "out",
        ],
    );
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert_has(&out.stdout, "2x2 workgroups of 16x16 work-items");
    // 32 x 32 work-items, row-major: element (x, y) holds y mod 16.
    let got: Vec<u32> = read_npy(&dir.path().join("out/out.npy"));
    let expected: Vec<u32> = (0..32 * 32).map(|i| (i / 32) % 16).collect();
    assert_eq!(got, expected);

    let out = simt(
        dir.path(),
        &["run", "tile.simt", "--groups", "4", "--size", "256"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(&out.stderr, "declares #[workgroup_size(16, 16, 1)]");
    let out = simt(
        dir.path(),
        &["run", "tile.simt", "--groups", "2", "--size", "16x0"],
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_has(&out.stderr, "expected N, XxY or XxYxZ");
}

/// A template the file leaves without instances runs with its constants
/// from `--const`, under its own name; each value makes another kernel.
#[test]
fn const_gives_a_template_its_constants() {
    let dir = Scratch::new("template");
    dir.write(
        "pitched.simt",
        "const BASE = 100;\n\
         kernel pitched<const PITCH: u32>(out: &mut [u32]) {\n\
         \x20   lds tile: [u32; 32 * PITCH];\n\
         \x20   vreg v, j;\n\
         \x20   v_mul_u32 j, lane_id, PITCH\n\
         \x20   lds_store tile[j], lane_id\n\
         \x20   lds_load v, tile[j]\n\
         \x20   v_add_u32 v, v, BASE\n\
         \x20   global_store out[global_id.x], v\n\
         }\n",
    );
    let base = [
        "run",
        "pitched.simt",
        "--groups",
        "1",
        "--size",
        "32",
        "--out-dir",
        "o",
    ];
    for (pitch, conflict_cycles) in [("32", "62"), ("BASE / 3", "0")] {
        let out = simt(
            dir.path(),
            &[&base[..], &["--const", &format!("PITCH={pitch}")]].concat(),
        );
        assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
        // Stride 32 words: every lane in bank 0, 31 cycles on the store and
        // 31 on the load; stride 33 (100 / 3): no two lanes share a bank.
        let row = table_row(&out.stdout, "pitched");
        assert_eq!(
            cell(&row, "lds conflict cyc"),
            conflict_cycles,
            "{}",
            out.stdout
        );
        let values: Vec<u32> = read_npy(&dir.path().join("o/out.npy"));
        assert_eq!(values, (100..132).collect::<Vec<u32>>());
    }
    // Without its constants the template is no kernel, and a constant no
    // template declares is an error of its own.
    let out = simt(dir.path(), &base);
    assert_eq!(out.code, Some(1));
    assert_has(
        &out.stderr,
        "`pitched` is a template and nothing instantiates it",
    );
    let out = simt(
        dir.path(),
        &[&base[..], &["--const", "PITCH=32", "--const", "PAD=1"]].concat(),
    );
    assert_eq!(out.code, Some(1));
    assert_has(&out.stderr, "`--const PAD=...` sets no constant");
}

/// A file's inline functions are written out at each call: the run computes
/// through them, the listing counts their lines, and a barrier in one called
/// under a divergent `if` is an error at the barrier labelled at the call.
#[test]
fn inline_functions_run_and_their_errors_name_the_call() {
    let dir = Scratch::new("functions");
    dir.write(
        "scaled.simt",
        "fn scaled(y: vreg, x: vreg, const N: u32) {\n\
         \x20   vreg t;\n\
         \x20   v_mov t, x\n\
         \x20   v_mul_u32 y, t, N\n\
         }\n\
         fn sync(x: vreg) {\n\
         \x20   barrier\n\
         }\n\
         kernel k(out: &mut [u32]) {\n\
         \x20   vreg v;\n\
         \x20   call scaled(v, global_id.x, 3)\n\
         \x20   call scaled(v, v, 2 + 2)\n\
         \x20   global_store out[global_id.x], v\n\
         }\n\
         kernel divergent(out: &mut [u32]) {\n\
         \x20   mreg m;\n\
         \x20   v_cmp_lt_u32 m, lane_id, 3\n\
         \x20   if m\n\
         \x20       call sync(m)\n\
         \x20   endif\n\
         }\n",
    );
    let run_k = || {
        simt(
            dir.path(),
            &[
                "run",
                "scaled.simt",
                "--kernel",
                "k",
                "--groups",
                "1",
                "--size",
                "32",
                "--out-dir",
                "o",
            ],
        )
    };
    let out = run_k();
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    // The file does not compile while `divergent` is wrong: every kernel of
    // a file is checked.
    assert_has(&out.stderr, "barrier under divergent control flow");
    assert_has(&out.stderr, " --> scaled.simt:7:5");
    assert_has(&out.stderr, "in this call of `sync`");
    assert_has(&out.stderr, "19 |         call sync(m)");

    let fixed = std::fs::read_to_string(dir.path().join("scaled.simt"))
        .expect("source")
        .replace(
            "    if m\n        call sync(m)\n    endif\n",
            "    call sync(m)\n",
        );
    dir.write("scaled.simt", &fixed);
    let out = run_k();
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    let values: Vec<u32> = read_npy(&dir.path().join("o/out.npy"));
    assert_eq!(values, (0..32).map(|i| i * 12).collect::<Vec<u32>>());
    // Both calls' instructions are counted on the function's lines: two
    // issues each on lines 3 and 4, one wave.
    assert_has(&out.stdout, "v_mov t, global_id.x; v_mov t, v");
}

/// A histogram counts into a buffer started at zero; the generated input is
/// written beside the output, so the counts can be checked against it, and
/// `--print` shows a slice of a buffer after the launch.
#[test]
fn buffers_start_as_given_and_generated_inputs_are_written_out() {
    let dir = Scratch::new("buffers");
    dir.write(
        "hist.simt",
        "kernel histogram(x: &[u32], bins: &mut [u32]) {\n\
         \x20   vreg v, b;\n\
         \x20   global_load v, x[global_id.x]\n\
         \x20   v_rem_u32 b, v, 16\n\
         \x20   global_atomic_add_u32 bins[b], 1\n\
         }\n",
    );
    let run = |extra: &[&str]| {
        let base = [
            "run",
            "hist.simt",
            "--groups",
            "4",
            "--size",
            "64",
            "--out-dir",
            "o",
        ];
        simt(dir.path(), &[&base[..], extra].concat())
    };
    let out = run(&["--buffer", "bins=zeros:16", "--print", "bins[0..4]"]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    let input: Vec<u32> = read_npy(&dir.path().join("o/x.input.npy"));
    let bins: Vec<u32> = read_npy(&dir.path().join("o/bins.npy"));
    assert_eq!(input.len(), 256);
    let mut expected = vec![0u32; 16];
    for v in &input {
        expected[(v % 16) as usize] += 1;
    }
    assert_eq!(bins, expected);
    assert_eq!(bins.iter().sum::<u32>(), 256);
    let shown: Vec<String> = expected[..4].iter().map(u32::to_string).collect();
    assert_has(
        &out.stdout,
        &format!("bins[0..4] (u32, 16 elements): {}", shown.join(" ")),
    );
    let before: Vec<u32> = read_npy(&dir.path().join("o/bins.input.npy"));
    assert_eq!(before, vec![0; 16]);

    // iota: element k is k, so each bin gets 256 / 16 on top of the fill.
    let out = run(&["--buffer", "x=iota", "--buffer", "bins=fill:300:16"]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    let bins: Vec<u32> = read_npy(&dir.path().join("o/bins.npy"));
    assert_eq!(bins, vec![316; 16]);

    // A value the element type cannot hold, and a slice of no buffer, are
    // command-line errors.
    let out = run(&["--buffer", "bins=fill:-1"]);
    assert_eq!(out.code, Some(2));
    assert_has(
        &out.stderr,
        "--buffer bins=fill:-1: `bins` holds u32, and `-1` is not one",
    );
    let out = run(&["--print", "count"]);
    assert_eq!(out.code, Some(2));
    assert_has(&out.stderr, "`histogram` has no buffer parameter `count`");
}

/// A file includes another's constants and functions, read relative to it:
/// the run computes through them, their instructions are counted on the
/// call's line, and an error in the included file is shown there, labelled
/// at the call in the including one.
#[test]
fn an_included_files_functions_run_and_their_errors_show_both_files() {
    let dir = Scratch::new("include");
    std::fs::create_dir_all(dir.path().join("lib")).unwrap();
    dir.write(
        "lib/common.simt",
        "const SCALE = 3;\n\
         fn scaled(y: vreg, x: vreg) {\n\
         \x20   v_mul_u32 y, x, SCALE\n\
         \x20   barrier\n\
         }\n",
    );
    dir.write(
        "main.simt",
        "include \"lib/common.simt\";\n\
         kernel k(out: &mut [u32]) {\n\
         \x20   vreg v;\n\
         \x20   call scaled(v, global_id.x)\n\
         \x20   global_store out[global_id.x], v\n\
         }\n",
    );
    let run = [
        "run",
        "main.simt",
        "--groups",
        "1",
        "--size",
        "32",
        "--print",
        "out[0..4]",
    ];
    let out = simt(dir.path(), &run);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert_has(&out.stdout, "out[0..4] (u32, 32 elements): 0 3 6 9");
    // Both instructions of the function on line 4, the call's.
    assert_has(&out.stdout, "   4       2 ");
    assert_has(&out.stdout, "v_mul_u32 v, global_id.x, 3; barrier");

    dir.write(
        "divergent.simt",
        "include \"lib/common.simt\";\n\
         kernel d(out: &mut [u32]) {\n\
         \x20   vreg v;\n\
         \x20   mreg m;\n\
         \x20   v_cmp_lt_u32 m, lane_id, 3\n\
         \x20   if m\n\
         \x20       call scaled(v, global_id.x)\n\
         \x20   endif\n\
         \x20   global_store out[global_id.x], v\n\
         }\n",
    );
    let out = simt(dir.path(), &["check", "divergent.simt"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(&out.stderr, "barrier under divergent control flow");
    assert_has(&out.stderr, " --> lib/common.simt:4:5");
    assert_has(&out.stderr, "::: divergent.simt:5:5");
    assert_has(&out.stderr, "in this call of `scaled`");

    // A cycle, a missing file and a kernel in an included file.
    dir.write("a.simt", "include \"b.simt\";\n");
    dir.write("b.simt", "include \"a.simt\";\n");
    let out = simt(dir.path(), &["check", "a.simt"]);
    assert_eq!(out.code, Some(1));
    assert_has(
        &out.stderr,
        "`a.simt` includes itself (a.simt -> b.simt -> a.simt)",
    );
    dir.write("missing.simt", "include \"nope.simt\";\n");
    let out = simt(dir.path(), &["check", "missing.simt"]);
    assert_has(&out.stderr, "cannot read `nope.simt`");
    // A diamond: two files include one, which is read once.
    dir.write("lib/one.simt", "fn one(x: vreg) {\n    v_mov x, 1\n}\n");
    dir.write("lib/two.simt", "include \"one.simt\";\n");
    dir.write("lib/three.simt", "include \"one.simt\";\n");
    dir.write(
        "diamond.simt",
        "include \"lib/two.simt\";\ninclude \"lib/three.simt\";\n\
         kernel k(out: &mut [u32]) {\n    vreg v;\n    call one(v)\n    global_store out[global_id.x], v\n}\n",
    );
    let out = simt(dir.path(), &["check", "diamond.simt"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    dir.write("uses.simt", "include \"main.simt\";\n");
    let out = simt(dir.path(), &["check", "uses.simt"]);
    assert_has(
        &out.stderr,
        "an included file holds constants and functions",
    );
}

/// `print` from a file's kernel: the lines after the statistics, with who
/// printed them, in the JSON too; a format error is shown at the string.
#[test]
fn prints_are_shown_after_the_statistics() {
    let dir = Scratch::new("print");
    dir.write(
        "show.simt",
        "kernel show(x: &[u32]) {\n    vreg v;\n    global_load v, x[global_id.x]\n    print \"x[{}] = {}\", global_id.x, v;\n}\n",
    );
    let out = simt(
        dir.path(),
        &[
            "run",
            "show.simt",
            "--groups",
            "2",
            "--size",
            "2",
            "--buffer",
            "x=iota",
            "--json",
            "show.json",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_has(
        &out.stdout,
        "printed (4 lines):\n  [workgroup (0, 0, 0) wave 0 lane 0, line 4] x[0] = 0\n  [workgroup (0, 0, 0) wave 0 lane 1, line 4] x[1] = 1\n  [workgroup (1, 0, 0) wave 0 lane 0, line 4] x[2] = 2\n  [workgroup (1, 0, 0) wave 0 lane 1, line 4] x[3] = 3\n",
    );
    let text = std::fs::read_to_string(dir.path().join("show.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let prints = &json["rows"][0]["prints"];
    assert_eq!(prints["lines"][3]["text"], "x[3] = 3");
    assert_eq!(prints["lines"][3]["workgroup"][0], 1);
    assert_eq!(prints["dropped"], 0);

    dir.write(
        "bad.simt",
        "kernel bad(x: &[u32]) {\n    print \"{d} and {}\", lane_id;\n}\n",
    );
    let out = simt(dir.path(), &["check", "bad.simt"]);
    assert_ne!(out.code, Some(0));
    assert_has(&out.stderr, "`{d}` is no placeholder");
    assert_has(&out.stderr, "bad.simt:2:11");
}

/// Half-precision buffers: filled, generated and printed as their values,
/// written to `.npy` as `f2` (`f16`) and as bit patterns `u2` (`bf16`), and
/// read back.
#[test]
fn half_precision_buffers_are_filled_printed_and_written() {
    let dir = Scratch::new("half");
    dir.write(
        "half.simt",
        "kernel halve(x: &[f16], y: &mut [bf16]) {\n\
         \x20   vreg v;\n\
         \x20   global_load v, x[global_id.x]\n\
         \x20   v_mul_f16 v, v, 0.5\n\
         \x20   v_cvt_f32_f16 v, v\n\
         \x20   v_cvt_bf16_f32 v, v\n\
         \x20   global_store y[global_id.x], v\n\
         }\n",
    );
    let run = |x: &str, extra: &[&str]| {
        let base = [
            "run",
            "half.simt",
            "--groups",
            "1",
            "--size",
            "4",
            "--buffer",
            x,
        ];
        let out = simt(dir.path(), &[&base[..], &["--print", "y"], extra].concat());
        assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
        assert_has(&out.stdout, "y[0..4] (bf16, 4 elements): 0 0.5 1 1.5");
        out
    };
    let out = run(
        "x=iota:4",
        &["--buffer", "y=fill:0.1:4", "--print", "x", "--out-dir", "o"],
    );
    assert_has(&out.stdout, "x[0..4] (f16, 4 elements): 0 1 2 3");
    let y: Vec<u16> = read_npy(&dir.path().join("o/y.npy"));
    assert_eq!(y, [0x0000, 0x3f00, 0x3f80, 0x3fc0]);
    // 0.1 as a bf16 is 0x3dcd (0.10009765625), the fill before the launch.
    let before: Vec<u16> = read_npy(&dir.path().join("o/y.input.npy"));
    assert_eq!(before, [0x3dcd; 4]);
    let x: Vec<simt::core::half::f16> = read_npy(&dir.path().join("o/x.input.npy"));
    assert_eq!(x[3].to_f32(), 3.0);
    // The file written is read back as the f16 buffer it was.
    run("x=o/x.input.npy", &[]);
}

/// A device, a FIFO or a file larger than a buffer could be is refused at
/// once, as a `--buffer` file and as the kernel file: reading it would never
/// end (`/dev/zero`) or wait for a writer (a FIFO).
#[test]
fn inputs_that_never_end_are_refused_at_once() {
    let dir = Scratch::new("unbounded");
    dir.write(
        "copy.simt",
        "kernel copy(x: &[u32], out: &mut [u32]) {\n    vreg v;\n    global_load v, x[global_id.x]\n    global_store out[global_id.x], v\n}\n",
    );
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    for input in ["/dev/zero", "fifo", "fifo.npy"] {
        if input == "fifo.npy" {
            std::fs::rename(&fifo, dir.path().join("fifo.npy")).unwrap();
        }
        let buffer = format!("x={input}");
        let out = simt(
            dir.path(),
            &[
                "run",
                "copy.simt",
                "--groups",
                "1",
                "--size",
                "32",
                "--buffer",
                &buffer,
            ],
        );
        assert_eq!(out.code, Some(2), "{input}: {}", out.stderr);
        assert_has(&out.stderr, "not a regular file");
    }
    let out = simt(dir.path(), &["check", "/dev/zero"]);
    assert_ne!(out.code, Some(0), "{}", out.stderr);
    assert_has(&out.stderr, "not a regular file");
}

/// Only what runs needs instantiating: a plain kernel of a file runs beside
/// a template nothing instantiates, which `simt check` and running the
/// template itself still refuse.
#[test]
fn a_plain_kernel_runs_beside_a_template_with_no_instance() {
    let dir = Scratch::new("template-beside");
    dir.write(
        "k.simt",
        "kernel scale<const K: u32>(out: &mut [u32]) {
    vreg v;
    v_mul_u32 v, global_id.x, K
    global_store out[global_id.x], v
}

kernel plain(out: &mut [u32]) {
    global_store out[global_id.x], global_id.x
}
",
    );
    let ran = simt(
        dir.path(),
        &[
            "run", "k.simt", "--kernel", "plain", "--groups", "1", "--size", "32",
        ],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_has(&ran.stdout, "plain from k.simt");
    let template = simt(
        dir.path(),
        &[
            "run", "k.simt", "--kernel", "scale", "--groups", "1", "--size", "32",
        ],
    );
    assert_eq!(template.code, Some(1));
    assert_has(
        &template.stderr,
        "`scale` is a template and nothing instantiates it",
    );
    let checked = simt(dir.path(), &["check", "k.simt"]);
    assert_eq!(checked.code, Some(1));
    assert_has(
        &checked.stderr,
        "`scale` is a template and nothing instantiates it",
    );
}

/// `out[i] = x[i] * 2 + k[i]`: f64 from a .npy file, i64 and u64 filled on
/// the command line.
const DOUBLES: &str = "\
kernel doubles(x: &[f64], k: &[i64], out: &mut [f64], bits: &mut [u64]) {
    vreg a0, a1, b0, b1;
    global_load_x2 [a0, a1], x[global_id.x]
    v_add_f64 [a0, a1], [a0, a1], [a0, a1]
    global_load_x2 [b0, b1], k[global_id.x]
    v_cvt_f64_i64 [b0, b1], [b0, b1]
    v_add_f64 [a0, a1], [a0, a1], [b0, b1]
    global_store_x2 out[global_id.x], [a0, a1]
    global_store_x2 bits[global_id.x], [a0, a1]
}
";

#[test]
fn sixty_four_bit_buffers_read_and_write_npy_and_fill_from_the_command_line() {
    let dir = Scratch::new("doubles");
    dir.write("doubles.simt", DOUBLES);
    let x: Vec<f64> = (0..64).map(|i| f64::from(i) * 0.1 - 1.0).collect();
    write_npy(&dir.path().join("x.npy"), &x);
    let out = simt(
        dir.path(),
        &[
            "run",
            "doubles.simt",
            "--groups",
            "1",
            "--size",
            "64",
            "--buffer",
            "x=x.npy",
            "--buffer",
            "k=fill:-3",
            "--buffer",
            "out=64",
            "--buffer",
            "bits=iota:64",
            "--print",
            "out[0..1]",
            "--print",
            "k[0..1]",
            "--out-dir",
            "out",
        ],
    );
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    let got: Vec<f64> = read_npy(&dir.path().join("out/out.npy"));
    let expected: Vec<f64> = x.iter().map(|v| v * 2.0 - 3.0).collect();
    assert_eq!(got, expected);
    let bits: Vec<u64> = read_npy(&dir.path().join("out/bits.npy"));
    assert_eq!(
        bits,
        expected.iter().map(|v| v.to_bits()).collect::<Vec<u64>>()
    );
    assert_has(&out.stdout, "out[0..1] (f64, 64 elements): -5");
    assert_has(&out.stdout, "k[0..1] (i64, 64 elements): -3");
    // An f64 .npy given for an i64 buffer names both types.
    write_npy(&dir.path().join("k.npy"), &x);
    let out = simt(
        dir.path(),
        &[
            "run",
            "doubles.simt",
            "--groups",
            "1",
            "--size",
            "64",
            "--buffer",
            "k=k.npy",
            "--buffer",
            "x=x.npy",
        ],
    );
    assert_ne!(out.code, Some(0));
    assert_has(&out.stderr, "not i64 (expected '<i8')");
}
