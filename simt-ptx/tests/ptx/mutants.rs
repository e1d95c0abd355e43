//! PTX that is not quite nvcc's: 1,000 mutants of the committed PTX files
//! (lines deleted, duplicated, swapped or corrupted, operands swapped,
//! words replaced by others of the file, branches added, files cut short),
//! each lowered. Whatever the text, `compile_ptx` returns, with kernels or with
//! located errors: it never panics, and never loops (the whole run takes
//! seconds).
//!
//! Each mutant is one kernel of a file with the file's header (so that a
//! lowering takes milliseconds), changed one to three times, from a seed:
//! a failure names the seed that rebuilds it. `SIMT_PTX_MUTANTS=100000`
//! runs more of them (100,000 take half a minute).

use crate::common::workspace;
use crate::corpus::{Rng, DIR, FILES};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// The PTX files mutated: the corpus and the seeds.
fn sources() -> Vec<(String, String)> {
    let mut paths: Vec<String> = FILES.iter().map(|f| format!("{DIR}/{f}.ptx")).collect();
    paths.push("calibration/seeds.ptx".to_owned());
    paths
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(workspace(&p)).unwrap_or_else(|e| panic!("{p}: {e}"));
            (p, text)
        })
        .collect()
}

/// A file's header (everything before its first kernel) and its kernels'
/// texts.
fn split(text: &str) -> (String, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(".entry"))
        .map(|(k, _)| k)
        .collect();
    let header = lines[..starts[0]].join("\n");
    let kernels = starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let end = starts.get(k + 1).copied().unwrap_or(lines.len());
            lines[s..end].join("\n")
        })
        .collect();
    (header, kernels)
}

/// Things nvcc never writes where a mutation puts them.
const JUNK: &[&str] = &[
    "%r99999",
    "%rd0",
    "%p0",
    "%f1",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "|",
    "!",
    "@",
    "_",
    "0x",
    "0f",
    "0d",
    "-",
    "+",
    "4294967295",
    "-2147483648",
    "18446744073709551615",
    "99999999999999999999999",
    "9223372036854775807",
    "-9223372036854775808",
    "0fFFFFFFFF",
    "0d7FF0000000000000",
    ".v4",
    ".v8",
    ".u64",
    ".b8",
    ".f64",
    ".pred",
    ".shared",
    ".local",
    ".const",
    ".global",
    ".param",
    ".reg .b32 %x<4294967295>;",
    ".reg .pred %q<100000>;",
    ".shared .align 0 .b8 big[4294967295];",
    ".shared .align 4294967295 .b8 odd[3];",
    "bra $L__BB0_1;",
    "bra.uni $nowhere;",
    "$L__BB0_1:",
    "ret;",
    "exit;",
    "bar.sync 0;",
    "bar.sync 1;",
    "@%p1 bra $L__BB0_2;",
    "shl.b64 %rd1, %rd1, 64;",
    "shr.s32 %r1, %r1, 4294967295;",
    "mov.u32 %r1, WARP_SZ;",
    "ld.param.u64 %rd1, [x+8];",
    "st.global.v4.f32 [%rd1+-4], {%f1, %f2};",
    "prmt.b32 %r1, %r2, %r3, 0xffffffff;",
    "bfe.u32 %r1, %r2, 300, 300;",
    "bfi.b32 %r1, %r2, %r3, 31, 255;",
    "shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;",
    "cvt.rni.s32.f32 %r1, %f1;",
    "fma.rm.f32 %f1, %f1, %f1, %f1;",
    "ex2.approx.ftz.f32 %f1, %f1;",
    "call.uni (retval0), f, (param0);",
    "//",
    "/*",
    "\"",
    ".loc 1 4294967295 4294967295",
    ".loc 99 1 1",
    ".file 99 \"x\"",
    "é",
    "\u{0}",
];

/// One mutation of `lines`.
fn mutate(lines: &mut Vec<String>, rng: &mut Rng) -> &'static str {
    if lines.is_empty() {
        lines.push(String::new());
    }
    let n = lines.len();
    let at = (rng.next() % n as u64) as usize;
    match rng.next() % 12 {
        8 | 9 => {
            // A register, label or opcode of the line replaced by another
            // the text has: type confusion, other branch targets (loops
            // entered in their middle), other instructions.
            let words: Vec<String> = lines
                .iter()
                .flat_map(|l| l.split(|c: char| c.is_whitespace() || ",;[]{}|!".contains(c)))
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect();
            let mut toks: Vec<String> = lines[at].split_whitespace().map(str::to_owned).collect();
            if !toks.is_empty() && !words.is_empty() {
                let k = (rng.next() % toks.len() as u64) as usize;
                let kind = |w: &str| {
                    w.chars()
                        .next()
                        .map(|c| (c == '%', c == '$', c.is_ascii_alphabetic()))
                };
                let want = kind(toks[k].trim_matches(|c: char| ",;[]{}|!@".contains(c)));
                let same: Vec<&String> = words.iter().filter(|w| kind(w) == want).collect();
                if let Some(w) = same.get((rng.next() % same.len().max(1) as u64) as usize) {
                    let punct: String = toks[k].chars().filter(|c| ",;]".contains(*c)).collect();
                    toks[k] = format!("{w}{punct}");
                }
            }
            lines[at] = toks.join(" ");
            "replace a word by another of the text"
        }
        10 => {
            // Two operands of an instruction swapped.
            let l = lines[at].clone();
            if let Some((op, rest)) = l.trim().split_once(char::is_whitespace) {
                let mut args: Vec<&str> = rest.trim_end_matches(';').split(',').collect();
                if args.len() >= 2 {
                    let i = (rng.next() % args.len() as u64) as usize;
                    let j = (rng.next() % args.len() as u64) as usize;
                    args.swap(i, j);
                    lines[at] = format!("{op} {};", args.join(","));
                }
            }
            "swap two operands"
        }
        11 => {
            // A branch to a label of the text inserted.
            let labels: Vec<String> = lines
                .iter()
                .filter_map(|l| l.trim().strip_suffix(':').map(str::to_owned))
                .collect();
            if let Some(label) = labels.get((rng.next() % labels.len().max(1) as u64) as usize) {
                let guard = if rng.next().is_multiple_of(2) {
                    "@%p1 "
                } else {
                    ""
                };
                lines.insert(at, format!("{guard}bra.uni {label};"));
            }
            "insert a branch"
        }
        0 => {
            lines.remove(at);
            "delete a line"
        }
        1 => {
            let l = lines[at].clone();
            lines.insert(at, l);
            "duplicate a line"
        }
        2 => {
            let other = (rng.next() % n as u64) as usize;
            lines.swap(at, other);
            "swap two lines"
        }
        3 => {
            // A character replaced by another, where nvcc's lines have
            // letters, digits and punctuation that matter.
            let l: Vec<char> = lines[at].chars().collect();
            if !l.is_empty() {
                let k = (rng.next() % l.len() as u64) as usize;
                const CHARS: &[u8] = b"%.,;[]{}|!@0123456789xfdrpu-+_ $";
                let c = CHARS[(rng.next() % CHARS.len() as u64) as usize] as char;
                let mut l = l;
                l[k] = c;
                lines[at] = l.into_iter().collect();
            }
            "replace a character"
        }
        4 => {
            // A token of the line replaced by junk.
            let mut toks: Vec<String> = lines[at].split_whitespace().map(str::to_owned).collect();
            let junk = JUNK[(rng.next() % JUNK.len() as u64) as usize].to_owned();
            if toks.is_empty() {
                toks.push(junk);
            } else {
                let k = (rng.next() % toks.len() as u64) as usize;
                toks[k] = junk;
            }
            lines[at] = toks.join(" ");
            "replace a token"
        }
        5 => {
            lines.insert(
                at,
                JUNK[(rng.next() % JUNK.len() as u64) as usize].to_owned(),
            );
            "insert a line"
        }
        6 => {
            // A number of the line changed: an operand's value, a vector
            // width, an offset, a label's number.
            let l = lines[at].clone();
            let digits: Vec<usize> = l
                .char_indices()
                .filter(|(_, c)| c.is_ascii_digit())
                .map(|(k, _)| k)
                .collect();
            if let Some(&k) = digits.get((rng.next() % digits.len().max(1) as u64) as usize) {
                let big = [
                    "0",
                    "1",
                    "31",
                    "32",
                    "33",
                    "63",
                    "64",
                    "255",
                    "256",
                    "65535",
                    "4294967296",
                ];
                let with = big[(rng.next() % big.len() as u64) as usize];
                lines[at] = format!("{}{}{}", &l[..k], with, &l[k + 1..]);
            }
            "change a number"
        }
        _ => {
            // Cut short: the file ends here, mid-line.
            lines.truncate(at + 1);
            let l = &lines[at];
            let cut = l
                .char_indices()
                .map(|(k, _)| k)
                .nth((rng.next() % (l.chars().count() as u64 + 1)) as usize);
            if let Some(cut) = cut {
                lines[at] = l[..cut].to_owned();
            }
            "truncate"
        }
    }
}

#[test]
fn a_thousand_mutants_lower_or_fail_without_panicking() {
    let files: Vec<(String, String, Vec<String>)> = sources()
        .into_iter()
        .map(|(p, t)| {
            let (h, k) = split(&t);
            (p, h, k)
        })
        .collect();
    let mut panics = Vec::new();
    let (mut lowered, mut refused) = (0, 0);
    let mut slowest = (Duration::ZERO, 0u64);
    let start = Instant::now();
    let count: u64 = std::env::var("SIMT_PTX_MUTANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    for seed in 0..count {
        let mut rng = Rng::new(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5eed);
        let (path, header, kernels) = &files[(rng.next() % files.len() as u64) as usize];
        let kernel = &kernels[(rng.next() % kernels.len() as u64) as usize];
        let text = format!("{header}\n{kernel}\n");
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let mut done = Vec::new();
        for _ in 0..1 + rng.next() % 3 {
            done.push(mutate(&mut lines, &mut rng));
        }
        let mutant = lines.join("\n");
        let t = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| {
            let options = simt_ptx::Options {
                dynamic_shared_bytes: 1024,
                ..Default::default()
            };
            simt_ptx::compile_ptx_with(path, &mutant, &options).map(|m| m.kernels.len())
        }));
        let took = t.elapsed();
        if took > slowest.0 {
            slowest = (took, seed);
        }
        match result {
            Ok(Ok(_)) => lowered += 1,
            Ok(Err(d)) => {
                // Every error is located in the text.
                assert!(!d.errors.is_empty(), "seed {seed}: an error without errors");
                let rendered = d.render(false);
                assert!(rendered.contains("error"), "seed {seed}: {rendered}");
                refused += 1;
            }
            Err(_) => panics.push((seed, path.clone(), done.clone())),
        }
    }
    println!(
        "{lowered} mutants lowered, {refused} refused, in {:?}; the slowest took {:?} (seed {})",
        start.elapsed(),
        slowest.0,
        slowest.1
    );
    assert!(
        panics.is_empty(),
        "{} mutants panicked: {:?}",
        panics.len(),
        &panics[..panics.len().min(20)]
    );
    // Both outcomes are common: the mutations are neither all fatal nor
    // all harmless.
    assert!(
        lowered > 100 && refused > 100,
        "{lowered} lowered, {refused} refused"
    );
}

/// A kernel of `inserts` bit-field inserts at register positions (a dozen
/// temporaries each).
fn inserts(inserts: usize) -> String {
    let mut text = String::from(
        ".version 9.5\n.target sm_90\n.address_size 64\n\n.visible .entry big(\n\
         \t.param .u64 big_param_0\n)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<3>;\n\
         \tld.param.u64 %rd1, [big_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
         \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, 3;\n",
    );
    for _ in 0..inserts {
        text.push_str("\tbfi.b32 %r3, %r1, %r3, %r1, %r2;\n");
    }
    text + "\tst.global.u32 [%rd2], %r3;\n\tret;\n}\n"
}

/// Lowering numbers its registers in 16 bits: a kernel that needs more is
/// refused, not lowered with registers sharing numbers (which left an empty
/// kernel); and a declaration of billions of registers is refused before
/// anything is allocated for them.
#[test]
fn kernels_beyond_sixteen_bit_registers_are_refused() {
    assert!(simt_ptx::compile_ptx("small.ptx", &inserts(300)).is_ok());
    let e = simt_ptx::compile_ptx("big.ptx", &inserts(7000)).expect_err("too large");
    assert!(
        e.render(false)
            .contains("more than 65,535 virtual registers"),
        "{}",
        e.render(false)
    );
    let huge = inserts(1).replace("%r<8>", "%r<4294967295>");
    let e = simt_ptx::compile_ptx("huge.ptx", &huge).expect_err("too many registers");
    assert!(
        e.render(false).contains("registers are declared"),
        "{}",
        e.render(false)
    );
}
