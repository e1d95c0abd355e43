//! CUDA kernels as nvcc's PTX (`.ptx`), and `.cu` files through nvcc:
//! kernels by any of their names, parameters by their PTX names, 64-bit
//! scalars given whole, listings and faults by CUDA line, and errors that
//! say where and what.

use crate::common;

use common::{assert_has, cell, simt, simt_env, table_row, Scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// nvcc's PTX of `seeds.cu`, and the CUDA file its `.loc` lines number.
fn seeds() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../calibration");
    (dir.join("seeds.ptx"), dir.join("seeds.cu"))
}

/// A scratch folder holding `seeds.ptx` and, beside it, `seeds.cu` (which
/// the PTX names as `calibration/seeds.cu`: found by its file name).
fn seeds_scratch(tag: &str) -> Scratch {
    let dir = Scratch::new(tag);
    let (ptx, cu) = seeds();
    std::fs::copy(ptx, dir.path().join("seeds.ptx")).unwrap();
    std::fs::copy(cu, dir.path().join("seeds.cu")).unwrap();
    dir
}

/// A kernel whose 64-bit scalars are two words each: it stores `v`'s low
/// and high words, `s`'s high word and the high word of `v + s`.
const WIDE_CU: &str = "\
// A 64-bit scalar's words, and a sum that needs both.
__global__ void words(unsigned long long v, long long s, unsigned* out) {
  out[0] = (unsigned)v;
  out[1] = (unsigned)(v >> 32);
  out[2] = (unsigned)(s >> 32);
  out[3] = (unsigned)((v + (unsigned long long)s) >> 32);
}
";

/// `nvcc -arch=sm_90 -ptx -lineinfo` of [`WIDE_CU`] (its `.file` made
/// relative).
const WIDE_PTX: &str = "\
.version 9.5
.target sm_90
.address_size 64

	// .globl	_Z5wordsyxPj

.visible .entry _Z5wordsyxPj(
	.param .u64 _Z5wordsyxPj_param_0,
	.param .u64 _Z5wordsyxPj_param_1,
	.param .u64 _Z5wordsyxPj_param_2
)
{
	.reg .b64 	%rd<9>;
	.loc	1 2 0


	ld.param.u64 	%rd1, [_Z5wordsyxPj_param_0];
	ld.param.u64 	%rd2, [_Z5wordsyxPj_param_1];
	ld.param.u64 	%rd3, [_Z5wordsyxPj_param_2];
	.loc	1 3 3
	cvta.to.global.u64 	%rd4, %rd3;
	st.global.u32 	[%rd4], %rd1;
	.loc	1 4 3
	shr.u64 	%rd5, %rd1, 32;
	st.global.u32 	[%rd4+4], %rd5;
	.loc	1 5 3
	shr.u64 	%rd6, %rd2, 32;
	st.global.u32 	[%rd4+8], %rd6;
	.loc	1 6 3
	add.s64 	%rd7, %rd2, %rd1;
	shr.u64 	%rd8, %rd7, 32;
	st.global.u32 	[%rd4+12], %rd8;
	.loc	1 7 1
	ret;

}

	.file	1 \"wide.cu\"
";

fn read_u32s(path: &Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap()
}

fn read_f32s(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap()
}

#[test]
fn check_lowers_every_kernel_of_seeds_ptx() {
    let (ptx, _) = seeds();
    let dir = Scratch::new("ptx-check");
    let out = simt(dir.path(), &["check", ptx.to_str().unwrap()]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 18, "{}", out.stdout);
    assert_has(
        &out.stdout,
        "ok: kernel saxpy(_Z5saxpyifPKfPf_param_0: u32, _Z5saxpyifPKfPf_param_1: f32, \
         _Z5saxpyifPKfPf_param_2: &[f32], _Z5saxpyifPKfPf_param_3: &mut [f32]) \
         (.entry _Z5saxpyifPKfPf)",
    );
    // The static tile of a transpose is the one LDS window, `shared`.
    let transpose = out
        .stdout
        .lines()
        .find(|l| l.starts_with("ok: kernel transpose_padded("))
        .unwrap();
    assert!(transpose.ends_with("4224 bytes of LDS"), "{transpose}");
    // The proved-race check runs on PTX kernels as on any other.
    let out = simt(
        dir.path(),
        &["check", ptx.to_str().unwrap(), "--size", "256"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_has(
        &out.stdout,
        "(.entry _Z6vecaddiPKfS0_Pf): 24 instructions, 8 vector, 0 scalar and 2 mask registers, 0 bytes of LDS; no race for workgroups of 256 at wave32",
    );
}

/// saxpy computes `y = a * x + y` below `n` and leaves the rest; its
/// listing counts CUDA lines and shows them.
#[test]
fn saxpy_from_ptx_runs_by_any_of_its_names() {
    let dir = seeds_scratch("ptx-saxpy");
    for name in [
        "saxpy",
        "saxpy(int, float, float const*, float*)",
        "_Z5saxpyifPKfPf",
    ] {
        let out = simt(
            dir.path(),
            &[
                "run",
                "seeds.ptx",
                "--kernel",
                name,
                "--groups",
                "2",
                "--size",
                "64",
                "--arg",
                "_Z5saxpyifPKfPf_param_0=100",
                "--arg",
                "_Z5saxpyifPKfPf_param_1=2",
                "--buffer",
                "_Z5saxpyifPKfPf_param_2=iota",
                "--buffer",
                "_Z5saxpyifPKfPf_param_3=fill:1",
                "--out-dir",
                "out",
                "--html",
                "page.html",
            ],
        );
        assert_eq!(out.code, Some(0), "{name}: {}{}", out.stdout, out.stderr);
        let y = read_f32s(&dir.path().join("out/_Z5saxpyifPKfPf_param_3.npy"));
        let expected: Vec<f32> = (0..128)
            .map(|i| if i < 100 { 2.0 * i as f32 + 1.0 } else { 1.0 })
            .collect();
        assert_eq!(y, expected, "{name}");
        let row = table_row(&out.stdout, "saxpy");
        // 4 waves; the last two straddle or pass n = 100, so the store is
        // divergent in one of them and skipped in another.
        assert_eq!(cell(&row, "glb acc"), "12", "{}", out.stdout);
        // The listing's rows are seeds.cu's lines, shown as written.
        assert_has(&out.stdout, "  source\n");
        let line = out
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with("159 "))
            .unwrap_or_else(|| panic!("no line 159 in {}", out.stdout));
        assert!(
            line.ends_with("if (i < n) y[i] = alpha * x[i] + y[i];"),
            "{line}"
        );
        // The page lists the same lines, beside the instructions.
        let html = std::fs::read_to_string(dir.path().join("page.html")).unwrap();
        assert_has(&html, "<th class=\"text\">source</th>");
        assert_has(
            &html,
            "<td class=\"text\">if (i &lt; n) y[i] = alpha * x[i] + y[i];</td>",
        );
    }
}

/// Without the CUDA file, the listing keeps the lines' numbers and says
/// why it shows instructions.
#[test]
fn a_missing_cuda_file_leaves_the_instructions_with_a_note() {
    let dir = Scratch::new("ptx-no-cu");
    std::fs::copy(seeds().0, dir.path().join("seeds.ptx")).unwrap();
    let out = simt(
        dir.path(),
        &[
            "run",
            "seeds.ptx",
            "--kernel",
            "vecadd",
            "--groups",
            "1",
            "--size",
            "32",
            "--arg",
            "_Z6vecaddiPKfS0_Pf_param_0=32",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_has(
        &out.stdout,
        "note: calibration/seeds.cu, whose lines the PTX's .loc gives, was found neither from here nor beside seeds.ptx",
    );
    assert_has(&out.stdout, "  instruction\n");
    assert!(out
        .stdout
        .lines()
        .any(|l| l.trim_start().starts_with("235 ")));
}

#[test]
fn a_64_bit_scalar_is_given_whole_and_split_into_its_words() {
    let dir = Scratch::new("ptx-wide");
    dir.write("wide.ptx", WIDE_PTX);
    dir.write("wide.cu", WIDE_CU);
    let run = |v: &str, s: &str| {
        simt(
            dir.path(),
            &[
                "run",
                "wide.ptx",
                "--groups",
                "1",
                "--size",
                "1",
                "--arg",
                &format!("_Z5wordsyxPj_param_0={v}"),
                "--arg",
                &format!("_Z5wordsyxPj_param_1={s}"),
                "--buffer",
                "_Z5wordsyxPj_param_2=zeros:4",
                "--out-dir",
                "out",
            ],
        )
    };
    let out = run("0x100000002", "-1");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let words = read_u32s(&dir.path().join("out/_Z5wordsyxPj_param_2.npy"));
    // v's words; s = -1's high word; (2^32 + 2) - 1 = 2^32 + 1.
    assert_eq!(words, [2, 1, 0xffff_ffff, 1]);
    assert_has(&out.stdout, "out[1] = (unsigned)(v >> 32);");
    let out = run("18446744073709551615", "9223372036854775807");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let words = read_u32s(&dir.path().join("out/_Z5wordsyxPj_param_2.npy"));
    assert_eq!(words, [u32::MAX, u32::MAX, 0x7fff_ffff, 0x7fff_ffff]);

    // Past 64 bits, or not a number: a usage error naming both words.
    for bad in ["18446744073709551616", "1x", "2.5"] {
        let out = run(bad, "0");
        assert_eq!(out.code, Some(2), "{}", out.stderr);
        assert_has(
            &out.stderr,
            &format!("--arg _Z5wordsyxPj_param_0={bad}: `_Z5wordsyxPj_param_0` is a 64-bit integer (the words `_Z5wordsyxPj_param_0` and `_Z5wordsyxPj_param_0.hi`)"),
        );
    }

    // A sweep records the value given, not its low word.
    let out = simt(
        dir.path(),
        &[
            "sweep",
            "wide.ptx",
            "--groups",
            "1",
            "--size",
            "1",
            "--arg",
            "_Z5wordsyxPj_param_0=1,4294967296",
            "--arg",
            "_Z5wordsyxPj_param_1=-5",
            "--buffer",
            "_Z5wordsyxPj_param_2=4",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["_Z5wordsyxPj_param_0"], 4294967296u64);
    assert_eq!(lines[1]["_Z5wordsyxPj_param_1"], -5);
}

#[test]
fn an_unknown_kernel_is_named_with_the_kernels_there_are() {
    let dir = seeds_scratch("ptx-unknown");
    let out = simt(
        dir.path(),
        &[
            "run",
            "seeds.ptx",
            "--kernel",
            "saxpi",
            "--groups",
            "1",
            "--size",
            "32",
        ],
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_has(
        &out.stderr,
        "error: --kernel saxpi: seeds.ptx has no kernel `saxpi`; its kernels are: diverge (_Z7divergeiiPf), ",
    );
    assert_has(&out.stderr, "saxpy (_Z5saxpyifPKfPf)");
    // Without --kernel, a file of several kernels asks for one.
    let out = simt(
        dir.path(),
        &["run", "seeds.ptx", "--groups", "1", "--size", "32"],
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_has(&out.stderr, "seeds.ptx holds 18 kernels");
}

#[test]
fn malformed_ptx_is_an_error_at_its_line_and_column() {
    let dir = Scratch::new("ptx-bad");
    dir.write(
        "bad.ptx",
        &WIDE_PTX.replace("shr.u64 \t%rd5", "frob.u64 \t%rd5"),
    );
    let out = simt(dir.path(), &["check", "bad.ptx"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(
        &out.stderr,
        "error: `frob.u64` is not an instruction simt runs\n  --> bad.ptx:24:2",
    );
    assert_has(&out.stderr, "error: could not lower `bad.ptx` (1 error)");
    // Cut short inside a parameter list: the token where it went wrong.
    dir.write(
        "cut.ptx",
        ".version 9.5\n.target sm_90\n.address_size 64\n.visible .entry k(\n  .param .u64 p\n{\n ret;\n}\n",
    );
    let out = simt(
        dir.path(),
        &["run", "cut.ptx", "--groups", "1", "--size", "1"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(
        &out.stderr,
        "error: expected `,`, found `{`\n --> cut.ptx:6:1",
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

/// A fault in a PTX kernel is shown in the CUDA line it comes from.
#[test]
fn a_fault_is_shown_at_its_cuda_line() {
    let dir = seeds_scratch("ptx-fault");
    let out = simt(
        dir.path(),
        &[
            "run",
            "seeds.ptx",
            "--kernel",
            "saxpy",
            "--groups",
            "1",
            "--size",
            "64",
            "--arg",
            "_Z5saxpyifPKfPf_param_0=64",
            "--arg",
            "_Z5saxpyifPKfPf_param_1=1",
            "--buffer",
            "_Z5saxpyifPKfPf_param_2=16",
        ],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(&out.stderr, "error: out-of-bounds load");
    assert_has(&out.stderr, "seeds.cu:159:");
    assert_has(&out.stderr, "if (i < n) y[i] = alpha * x[i] + y[i];");
    assert_has(&out.stderr, "lane 16");
}

/// `extern __shared__` memory is as large as --shared-bytes says: a kernel
/// that stores into it faults without, and runs with.
#[test]
fn shared_bytes_sizes_dynamic_shared_memory() {
    let dir = seeds_scratch("ptx-shared");
    let args = [
        "run",
        "seeds.ptx",
        "--kernel",
        "copy_stride",
        "--groups",
        "1",
        "--size",
        "64",
        // n = 0: nothing to copy; every thread stores into `pad`.
        "--arg",
        "_Z11copy_stridemPKfPf_param_0=0",
    ];
    let out = simt(dir.path(), &args);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(&out.stderr, "seeds.cu:171");
    let out = simt(
        dir.path(),
        &[&args[..], &["--shared-bytes", "256"]].concat(),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(cell(&table_row(&out.stdout, "copy_stride"), "lds acc"), "2");
    // .simt files size their LDS themselves.
    dir.write(
        "k.simt",
        "kernel k(out: &mut [u32]) {\n    global_store out[global_id.x], 1\n}\n",
    );
    let out = simt(dir.path(), &["check", "k.simt", "--shared-bytes", "16"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_has(
        &out.stderr,
        "--shared-bytes sizes the `extern __shared__` memory of .ptx and .cu kernels",
    );
    let out = simt(dir.path(), &["check", "seeds.ptx", "--const", "PAD=1"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_has(
        &out.stderr,
        "--const PAD: constants are given to .simt templates",
    );
}

/// Without nvcc, a `.cu` file is an error that says how to install it.
#[test]
fn a_cuda_file_without_nvcc_says_how_to_install_it() {
    let dir = Scratch::new("cu-no-nvcc");
    dir.write("wide.cu", WIDE_CU);
    let run = ["run", "wide.cu", "--groups", "1", "--size", "1"];
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    // No nvcc, and no python3 to find one with.
    let out = simt_env(
        dir.path(),
        &run,
        &[("SIMT_NVCC", None), ("PATH", Some(empty.to_str().unwrap()))],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(
        &out.stderr,
        "pip install nvidia-cuda-nvcc nvidia-cuda-crt nvidia-nvvm nvidia-cuda-runtime",
    );
    let out = simt_env(dir.path(), &run, &[("SIMT_NVCC", Some("/no/such/nvcc"))]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(
        &out.stderr,
        "SIMT_NVCC is `/no/such/nvcc`, which is not a file",
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

/// A `.cu` file runs through nvcc when there is one (else the test says it
/// was skipped): the same words as from the PTX, listed by CUDA line; a CUDA
/// error is nvcc's message.
#[test]
fn a_cuda_file_runs_through_nvcc() {
    let dir = Scratch::new("cu-nvcc");
    dir.write("wide.cu", WIDE_CU);
    let out = simt(
        dir.path(),
        &[
            "run",
            "wide.cu",
            "--kernel",
            "words",
            "--groups",
            "1",
            "--size",
            "1",
            "--arg",
            "_Z5wordsyxPj_param_0=0x100000002",
            "--arg",
            "_Z5wordsyxPj_param_1=-1",
            "--buffer",
            "_Z5wordsyxPj_param_2=zeros:4",
            "--out-dir",
            "out",
        ],
    );
    if out.stderr.contains("nvcc was not found") {
        eprintln!("skipped: no nvcc here ({})", out.stderr.trim());
        return;
    }
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    let words = read_u32s(&dir.path().join("out/_Z5wordsyxPj_param_2.npy"));
    assert_eq!(words, [2, 1, 0xffff_ffff, 1]);
    assert_has(&out.stdout, "words from wide.cu: 1 workgroup");
    let line = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("6 "))
        .unwrap_or_else(|| panic!("no line 6 in {}", out.stdout));
    assert!(
        line.ends_with("out[3] = (unsigned)((v + (unsigned long long)s) >> 32);"),
        "{line}"
    );

    dir.write(
        "broken.cu",
        "__global__ void k(int* p) { p[0] = undeclared; }\n",
    );
    let out = simt(dir.path(), &["check", "broken.cu"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_has(&out.stderr, "-arch=sm_90 -ptx -lineinfo broken.cu");
    assert_has(&out.stderr, "identifier \"undeclared\" is undefined");
}

#[test]
fn a_double_scalar_takes_any_number_and_double_buffers_print_as_floats() {
    let dir = Scratch::new("ptx-doubles");
    let ptx =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../simt-ptx/tests/ptx/corpus/doubles.ptx");
    std::fs::copy(ptx, dir.path().join("doubles.ptx")).unwrap();
    let p = |k: usize| format!("_Z5daxpyidPKdPd_param_{k}");
    let run = |a: &str| {
        simt(
            dir.path(),
            &[
                "run",
                "doubles.ptx",
                "--kernel",
                "daxpy",
                "--groups",
                "1",
                "--size",
                "8",
                "--arg",
                &format!("{}=6", p(0)),
                "--arg",
                &format!("{}={a}", p(1)),
                "--buffer",
                &format!("{}=iota:8", p(2)),
                "--buffer",
                &format!("{}=fill:0.5:8", p(3)),
                "--print",
                &format!("{}[4..8]", p(3)),
            ],
        )
    };
    // `a = 2` is the double 2.0: y[i] = 2 i + 0.5 below n = 6.
    let out = run("2");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_has(
        &out.stdout,
        &format!("{}[4..8] (f64, 8 elements): 8.5 10.5 0.5 0.5", p(3)),
    );
    let out = run("-0.25");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_has(&out.stdout, "(f64, 8 elements): -0.5 -0.75 0.5 0.5");
    let out = run("two");
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_has(&out.stderr, "is a double (the words");
}
