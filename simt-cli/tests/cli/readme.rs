//! The generated-kernel example of the book's chapter on the `simt` command
//! (`docs/src/guide/simt-command.md`), run as it is written there.

use crate::common;

use common::{cell, table_row, Scratch};
use std::path::Path;
use std::process::Command;

/// The fenced block of kind `lang` in `text` after `from` that contains `marker`.
fn block<'t>(text: &'t str, from: &str, lang: &str, marker: &str) -> &'t str {
    let section = &text[text.find(from).expect("the section")..];
    section
        .split(&format!("```{lang}\n"))
        .skip(1)
        .map(|rest| &rest[..rest.find("```").expect("a closing fence")])
        .find(|b| b.contains(marker))
        .unwrap_or_else(|| panic!("no ```{lang} block with {marker}"))
}

#[test]
fn the_generated_kernel_example_runs_as_the_book_says() {
    let chapter = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/guide/simt-command.md"),
    )
    .unwrap();
    let section = "# The `simt` command";
    let script = block(&chapter, section, "sh", "horner() {");
    let printed = block(&chapter, section, "text", "ok: kernel horner");

    let dir = Scratch::new("readme");
    let bin = Path::new(env!("CARGO_BIN_EXE_simt")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_owned()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let out = Command::new("sh")
        .args(["-e", "-c", script])
        .current_dir(dir.path())
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // What it prints is what the chapter shows, but for the two speed columns.
    let row = table_row(&stdout, "horner");
    let shown = table_row(printed, "horner");
    assert_eq!(row[..row.len() - 2], shown[..shown.len() - 2], "{stdout}");
    let without_row = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with("| horner "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(without_row(&stdout), without_row(printed), "{stdout}");
    // 2 x 64 work-items are 4 waves of 32, each issuing 2 moves, 3 v_mad_u32,
    // a store and `end`: 28 instructions, 24 of them vector; each store is 128
    // contiguous bytes, two 64-byte lines.
    assert_eq!(
        ["instr", "vector", "glb acc", "glb trans"].map(|c| cell(&row, c)),
        ["28", "24", "4", "8"]
    );

    let bytes = std::fs::read(dir.path().join("horner-out/out.npy")).unwrap();
    let values: Vec<u32> = npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap();
    assert_eq!(
        values,
        (0..128).map(|i| 3 * i * i + 2).collect::<Vec<u32>>()
    );
}
