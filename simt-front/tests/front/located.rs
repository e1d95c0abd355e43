//! The text path over the robustness and round-trip generators, in process:
//! whatever the input, a rejected one gets at least one diagnostic, and every
//! place a diagnostic names lies in the text and agrees with its line and
//! column; an accepted one round-trips (`roundtrip::round_trip_all`). The
//! mutations of `roundtrip::mutated_kernels_round_trip` go through it too.

use crate::cases::VOCABULARY;
use crate::roundtrip::{arbitrary, generated, round_trip_all};
use proptest::prelude::*;
use simt_front::{compile_file, Place};

/// Pieces of text that are not tokens of the language, or not tokens at all:
/// unbalanced delimiters, unterminated literals and comments, characters
/// wider than a byte (columns count characters, byte ranges count bytes).
const RAW: &[&str] = &[
    "kernel k(x: &mut [u32]) {",
    "}",
    "{",
    "(",
    ")]",
    "\"",
    "'",
    "/*",
    "*/",
    "//",
    "\n",
    "\t",
    "é",
    "名前",
    "v_mov",
    "x",
    ",",
    ";",
    "1.5",
    "0x",
    "r#",
    "#",
    "🦀",
    " ",
];

/// Asserts that `at` is a place in `src`: a byte range on character
/// boundaries, whose first character is at `at.line`, `at.column`.
#[track_caller]
fn assert_in(src: &str, at: &Place, what: &str) {
    let (start, end) = (at.bytes.start, at.bytes.end);
    assert!(
        start <= end && end <= src.len(),
        "{what}: bytes {start}..{end} outside a text of {} in\n{src}",
        src.len()
    );
    assert!(
        src.is_char_boundary(start) && src.is_char_boundary(end),
        "{what}: bytes {start}..{end} split a character in\n{src}"
    );
    let before = &src[..start];
    let line = 1 + before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |n| n + 1);
    let column = 1 + src[line_start..start].chars().count();
    assert_eq!(
        (at.line, at.column),
        (line, column),
        "{what}: at byte {start} in\n{src}"
    );
}

/// The property for one input; returns how many kernels it had accepted
/// and round-tripped (none when it was rejected).
#[track_caller]
pub(crate) fn located_or_round_trip(src: &str) -> usize {
    match compile_file("<fuzz>", src) {
        Ok(kernels) => {
            assert_eq!(
                round_trip_all(src),
                kernels.len(),
                "accepted kernels of\n{src}"
            );
            kernels.len()
        }
        Err(diagnostics) => {
            assert!(
                !diagnostics.is_empty(),
                "rejected without a diagnostic:\n{src}"
            );
            for d in &diagnostics {
                assert_in(src, &d.at, &d.message);
                for label in &d.labels {
                    assert_in(src, &label.at, &label.message);
                }
            }
            for (at, message) in diagnostics.as_errors() {
                assert_in(src, &at, &message);
            }
            0
        }
    }
}

/// Declarations of one class written apart, around another's: the printer
/// groups them by class, and the program it prints is the same.
#[test]
fn declarations_printed_grouped_build_the_same_program() {
    located_or_round_trip("kernel k(x: &mut [u32], n: u32) { vreg i; mreg m; vreg t ; }");
    located_or_round_trip("kernel k(x: &mut [u32]) { mreg m; sreg s; vreg i; mreg n; vreg t; }");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_edits_are_located_or_round_trip(picks in prop::collection::vec(any::<u32>(), 0..40)) {
        located_or_round_trip(&arbitrary(&picks));
    }

    #[test]
    fn generated_kernels_are_located_or_round_trip(picks in prop::collection::vec(any::<u32>(), 0..120)) {
        located_or_round_trip(&generated(&picks));
    }

    #[test]
    fn word_soups_are_located_or_round_trip(picks in prop::collection::vec(0..VOCABULARY.len(), 0..40)) {
        let words: Vec<&str> = picks.iter().map(|&i| VOCABULARY[i]).collect();
        let text = words.join(" ");
        located_or_round_trip(&text);
        located_or_round_trip(&format!("kernel k(x: &mut [u32], n: u32) {{ vreg i; mreg m; {text} }}"));
    }

    #[test]
    fn raw_text_is_located_or_round_trips(picks in prop::collection::vec(0..RAW.len(), 0..30)) {
        let text: String = picks.iter().map(|&i| RAW[i]).collect();
        located_or_round_trip(&text);
    }
}
