//! Kernels given as text: the same front end as the macro, with diagnostics
//! located in the text and rendered as rustc renders its own.

use simt_front::{compile, compile_file, compile_rust_file};
use std::path::Path;

#[test]
fn a_kernel_as_text_compiles_to_its_program() {
    let k = compile("kernel double(x: &mut [u32]) {\n    vreg v;\n    global_load v, x[global_id.x]\n    v_add_u32 v, v, v\n    global_store x[global_id.x], v\n}\n")
        .expect("compiles");
    assert_eq!(k.name, "double");
    assert_eq!(k.file, "<text>");
    // Three instructions and the implicit `end`, the first on line 3.
    assert_eq!(k.insts.len(), 4);
    assert_eq!((k.locs[0].line, k.locs[0].column), (3, 5));
}

#[test]
fn a_mistake_is_located_and_rendered_as_rustc_does() {
    let src = "kernel k(x: &mut [u32]) {\n    vreg v;\n    v_add_u32 v, v, frob\n    global_store x[0], v\n}\n";
    let e = compile_file("k.simt", src).expect_err("an unknown name is an error");
    let d = e.iter().next().expect("one diagnostic");
    assert_eq!((d.at.line, d.at.column), (3, 21));
    assert_eq!(&src[d.at.bytes.clone()], "frob");
    let text = e.to_string();
    assert!(text.contains("error: unknown name `frob`"), "{text}");
    assert!(text.contains("--> k.simt:3:21"), "{text}");
    assert!(text.contains("v_add_u32 v, v, frob"), "{text}");
    assert!(text.contains("^^^^"), "{text}");
}

/// One error of a trybuild `.stderr` file: `error: MESSAGE` (or
/// `error[CODE]: MESSAGE`), its message's further lines, then
/// ` --> FILE:LINE:COLUMN`.
#[derive(Debug)]
struct ShownError {
    /// rustc's error code, for errors rustc raises itself.
    code: Option<String>,
    file: String,
    line: usize,
    column: usize,
    message: String,
}

/// The errors `stderr` shows, in order. Warnings and everything below an
/// error's location line (the source, underlines, rustc's notes) are skipped.
fn shown_errors(stderr: &str) -> Vec<ShownError> {
    let mut errors = Vec::new();
    let mut lines = stderr.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("error") else {
            continue;
        };
        let (code, first) = match rest.strip_prefix('[') {
            Some(coded) => {
                let (code, after) = coded.split_once("]: ").expect("error[CODE]: message");
                (Some(code.to_owned()), after)
            }
            None => (None, rest.strip_prefix(": ").expect("error: message")),
        };
        let mut message = vec![first.to_owned()];
        let location = loop {
            let next = lines.next().expect("an error has a ` --> ` line");
            match next.trim_start().strip_prefix("--> ") {
                Some(at) => break at,
                None => message.push(next.trim().to_owned()),
            }
        };
        let mut parts = location.rsplitn(3, ':');
        let column = parts.next().and_then(|c| c.parse().ok()).expect("column");
        let line = parts.next().and_then(|l| l.parse().ok()).expect("line");
        let file = parts.next().expect("file").to_owned();
        errors.push(ShownError {
            code,
            file,
            line,
            column,
            message: message.join("\n"),
        });
    }
    errors
}

/// A message's lines without their indentation, which rustc adds to the lines
/// after the first of an error's message.
fn unindented(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every compile-fail case of `tests/ui`, compiled from its file's text, gives
/// exactly the errors (file, line, column, message, in order) that its
/// `.stderr` shows rustc giving for the `simt_kernel!` invocation, so that the
/// macro and the text path word and place every mistake alike, whatever the
/// `.stderr` files say.
///
/// The rule for errors left out: an error with a code (`error[E0308]`) is
/// rustc's own, raised type-checking the Rust around the invocation (a
/// `launch` call with wrong arguments); the macro's errors are
/// `compile_error!`s, which have none. A case showing only such errors must
/// compile through the text path without a diagnostic.
#[test]
fn every_ui_case_gives_the_errors_its_stderr_shows() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/ui")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    cases.sort();
    let mut mismatches = Vec::new();
    let mut rustc_only = Vec::new();
    let mut compared = 0;
    for case in &cases {
        let name = format!(
            "tests/ui/{}",
            case.file_name().and_then(|n| n.to_str()).expect("name")
        );
        let source = std::fs::read_to_string(case).expect("case");
        let stderr = std::fs::read_to_string(case.with_extension("stderr"))
            .unwrap_or_else(|e| panic!("{name} has no .stderr: {e}"));
        let shown = shown_errors(&stderr);
        assert!(!shown.is_empty(), "{name}: its .stderr shows no error");
        let expected: Vec<(String, usize, usize, String)> = shown
            .iter()
            .filter(|e| e.code.is_none())
            .map(|e| (e.file.clone(), e.line, e.column, unindented(&e.message)))
            .collect();
        if expected.is_empty() {
            rustc_only.push(name.clone());
        }
        let got: Vec<(String, usize, usize, String)> = match compile_rust_file(&name, &source) {
            Ok(kernels) => {
                assert!(!kernels.is_empty(), "{name}: no kernel found");
                Vec::new()
            }
            Err(d) => d
                .as_errors()
                .iter()
                .map(|(at, m)| (name.clone(), at.line, at.column, unindented(m)))
                .collect(),
        };
        if got != expected {
            mismatches.push(format!(
                "{name}:\n  .stderr: {expected:#?}\n  text:    {got:#?}"
            ));
        }
        compared += 1;
    }
    assert!(
        mismatches.is_empty(),
        "{} of {compared} cases differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    // Nearly every case is about the kernel, not the Rust around it.
    assert!(compared >= 80, "only {compared} cases");
    assert!(rustc_only.len() * 10 < compared, "{rustc_only:?}");
    println!("{compared} cases; rustc's own errors only: {rustc_only:?}");
}
