//! What the `simt` command's tests share: a scratch folder and the built
//! binary.

#![allow(dead_code)] // Each test file uses its own part.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch folder, removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new, empty folder named after `tag` and this process.
    pub fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("simt-cli-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` to the file `name` in the folder; its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one run of the command did.
pub struct Outcome {
    /// The exit status (`None` when killed by a signal).
    pub code: Option<i32>,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

/// Runs `simt` with `args` in `dir`.
pub fn simt(dir: &Path, args: &[&str]) -> Outcome {
    simt_env(dir, args, &[])
}

/// Runs `simt` with `args` in `dir`, each of `env` set to its value or,
/// for `None`, removed.
pub fn simt_env(dir: &Path, args: &[&str], env: &[(&str, Option<&str>)]) -> Outcome {
    let mut command = Command::new(env!("CARGO_BIN_EXE_simt"));
    command.args(args).current_dir(dir).env_remove("NO_COLOR");
    for (name, value) in env {
        match value {
            Some(v) => command.env(name, v),
            None => command.env_remove(name),
        };
    }
    let out = command.output().unwrap();
    Outcome {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The cells of the counters table's row for `kernel`, by column name.
pub fn table_row(stdout: &str, kernel: &str) -> Vec<(String, String)> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let header = stdout
        .lines()
        .find(|l| l.starts_with("| kernel "))
        .unwrap_or_else(|| panic!("no table in {stdout}"));
    let row = stdout
        .lines()
        .find(|l| l.starts_with(&format!("| {kernel} ")))
        .unwrap_or_else(|| panic!("no row for {kernel} in {stdout}"));
    cells(header).into_iter().zip(cells(row)).collect()
}

/// The cell of `column` in `row`.
pub fn cell<'r>(row: &'r [(String, String)], column: &str) -> &'r str {
    &row.iter()
        .find(|(c, _)| c == column)
        .unwrap_or_else(|| panic!("no column {column} in {row:?}"))
        .1
}

/// Fails, showing `text`, unless `text` contains `expected`.
pub fn assert_has(text: &str, expected: &str) {
    assert!(text.contains(expected), "{expected:?} in\n{text}");
}
