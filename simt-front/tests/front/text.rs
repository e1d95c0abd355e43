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
fn a_declared_shape_and_contracts_compile_from_text_as_from_the_macro() {
    let k = compile("#[workgroup_size(64)]\n#[race_free]\nkernel k(y: &[u32], x: &mut [u32]) {\n    vreg v;\n    #[coalesced]\n    global_load v, y[lane_id]\n    global_store x[global_id.x], v\n}\n")
        .expect("compiles");
    assert_eq!(k.workgroup_size, Some([64, 1, 1]));
    // Four rows of 16: work-items (x, 0) and (x, 2), in two waves at wave32,
    // store to one `x[global_id.x]`; the contract is disproved with them.
    let e = compile("#[workgroup_size(16, 4)]\n#[race_free]\nkernel k(x: &mut [u32]) {\n    global_store x[global_id.x], 0\n}\n")
        .expect_err("rows of one workgroup store to one element");
    assert!(
        e.iter().any(|d| d.message.starts_with("`#[race_free]` does not hold")
            && d.notes.iter().any(|n| n.contains("work-item (0, 0, 0) (wave 0) writes it at line 4 and work-item (0, 2, 0) (wave 1)"))),
        "{e}"
    );
    // The contract is proved from the same facts: lanes 4 bytes apart.
    let e = compile("kernel k(x: &mut [u32]) {\n    vreg v, j;\n    v_mul_u32 j, lane_id, 2\n    #[coalesced]\n    global_load v, x[j]\n    global_store x[global_id.x], v\n}\n")
        .expect_err("lanes 8 bytes apart are not coalesced");
    let d = e.iter().next().expect("one diagnostic");
    assert_eq!((d.at.line, d.at.column), (5, 20));
    assert!(
        d.message.starts_with(
            "`#[coalesced]` does not hold: lanes are 8 bytes apart for 4-byte accesses"
        ),
        "{}",
        d.message
    );
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

#[test]
fn a_suggestion_is_data_and_is_shown_written_into_the_line() {
    let src = "kernel k(x: &mut [u32]) {\n    vreg inside;\n    v_mov insid, 1\n    global_store x[0], inside\n}\n";
    let e = compile_file("k.simt", src).expect_err("an unknown name is an error");
    let d = e.iter().next().expect("one diagnostic");
    assert_eq!(d.message, "unknown name `insid`");
    let help = d.help.as_ref().expect("a help");
    assert_eq!(help.replacement.as_deref(), Some("inside"));
    assert_eq!(&src[d.at.bytes.clone()], "insid");
    let text = e.to_string();
    assert!(text.contains("help: a similar name exists"), "{text}");
    // The source line again under the help, with the replacement in place
    // of the mistake (rustc's rendering marks the one inserted letter).
    let help_at = text.find("help: a similar name exists").expect("help");
    assert!(
        text[help_at..].contains("3 |     v_mov inside, 1"),
        "{text}"
    );
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
    /// How many columns its `^^^` underline spans, where it is on one line.
    width: Option<usize>,
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
        // The first underline below the location: `  |     ^^^^`; a span
        // over several lines is drawn with `_` and is not compared.
        let width = lines.clone().take_while(|l| !l.is_empty()).find_map(|l| {
            let (_, after) = l.split_once('|')?;
            let marks = after.trim();
            (!marks.is_empty() && marks.chars().all(|c| c == '^')).then_some(marks.len())
        });
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
            width,
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
/// exactly the errors (file, line, column, underline width, message, in order) that its
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
    let (mut errors, mut underlined) = (0, 0);
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
        type Shown = (String, usize, usize, Option<usize>, String);
        let expected: Vec<Shown> = shown
            .iter()
            .filter(|e| e.code.is_none())
            .map(|e| {
                let message = unindented(&e.message);
                (e.file.clone(), e.line, e.column, e.width, message)
            })
            .collect();
        if expected.is_empty() {
            rustc_only.push(name.clone());
        }
        errors += expected.len();
        underlined += expected.iter().filter(|e| e.3.is_some()).count();
        let got: Vec<Shown> = match compile_rust_file(&name, &source) {
            Ok(kernels) => {
                assert!(!kernels.is_empty(), "{name}: no kernel found");
                Vec::new()
            }
            Err(d) => d
                .as_errors()
                .iter()
                .map(|(at, m)| {
                    let text = &source[at.bytes.clone()];
                    let width = (!text.contains('\n')).then(|| text.chars().count().max(1));
                    (name.clone(), at.line, at.column, width, unindented(m))
                })
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
    // Nearly every error's underline is on one line, and compared.
    assert!(underlined * 10 > errors * 9, "{underlined} of {errors}");
    println!("{compared} cases; rustc's own errors only: {rustc_only:?}");
}

/// `include` of a device or a FIFO ends at once with an error at the
/// include: its text would never end (`/dev/zero`) or never come (a FIFO
/// with no writer).
#[test]
fn an_include_that_never_ends_is_an_error_at_once() {
    let dir = std::env::temp_dir().join(format!("simt-front-include-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.simt");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    for path in ["/dev/zero".to_owned(), fifo.display().to_string()] {
        let source = format!(
            "include \"{path}\";\nkernel k(out: &mut [u32]) {{ global_store out[0], 1 }}\n"
        );
        let file = dir.join("main.simt").display().to_string();
        let e = simt_front::compile_file_including(&file, &source, &[]).unwrap_err();
        let text = e.render(false);
        assert!(text.contains("not a regular file"), "{path}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
