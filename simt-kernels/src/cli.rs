//! The report's command line, parsed by hand: a handful of options do not need a
//! dependency.

use crate::registry::{self, KernelSpec};
use simt::core::MemoryModel;
use std::fmt;
use std::path::{Path, PathBuf};

/// The usage text printed by `--help`.
pub const USAGE: &str = "\
Runs the reference kernels on the simt interpreter, checks them against their
scalar oracles, prints their counters and writes them as JSON.

Usage: report [OPTIONS]

Options:
  --kernels A,B,...   kernels to run (default: all); names as in the table
  --width 32|64|both  wave width (default: both)
  --seed N            seed of the generated inputs (default: 42)
  --model NAME        memory model: reference or nvidia (default: reference)
  --out PATH          where to write the JSON (default: results/results.json
                      at the workspace root)
  --launches N        timed launches per kernel and width; the median is
                      reported (default: 11)
  -h, --help          print this help

Exits with status 1 when a kernel's output differs from its oracle or a launch
fails, and 2 when the command line is wrong.";

/// The default seed, the one of the published figures.
pub const DEFAULT_SEED: u64 = 42;
/// The default number of timed launches.
pub const DEFAULT_LAUNCHES: usize = 11;

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// Print [`USAGE`].
    Help,
    /// Run the report.
    Run(Options),
}

/// The report's options.
#[derive(Debug, PartialEq)]
pub struct Options {
    /// The kernels to run, in table order.
    pub kernels: Vec<&'static KernelSpec>,
    /// The wave widths, 32 and/or 64.
    pub widths: Vec<u32>,
    /// The seed of the inputs.
    pub seed: u64,
    /// The memory model.
    pub model: MemoryModel,
    /// Where to write the JSON.
    pub out: PathBuf,
    /// Timed launches per kernel and width.
    pub launches: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            kernels: registry::KERNELS.iter().collect(),
            widths: vec![32, 64],
            seed: DEFAULT_SEED,
            model: MemoryModel::reference(),
            out: default_out(),
            launches: DEFAULT_LAUNCHES,
        }
    }
}

/// `results/results.json` at the root of the workspace this crate was built in.
pub fn default_out() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .unwrap_or(manifest)
        .join("results")
        .join("results.json")
}

/// A command-line mistake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CliError {
    /// An argument that is not an option.
    Unknown(String),
    /// An option given without its value.
    MissingValue(&'static str),
    /// An option's value that cannot be used.
    BadValue {
        /// The option.
        option: &'static str,
        /// The value given.
        value: String,
        /// What was expected.
        expected: String,
    },
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Unknown(arg) => write!(f, "unknown argument `{arg}` (try --help)"),
            CliError::MissingValue(option) => write!(f, "{option} needs a value"),
            CliError::BadValue {
                option,
                value,
                expected,
            } => write!(f, "{option}: `{value}` is not {expected}"),
        }
    }
}

impl std::error::Error for CliError {}

const OPTIONS: &[&str] = &[
    "--kernels",
    "--width",
    "--seed",
    "--model",
    "--out",
    "--launches",
];

/// Parses the arguments after the program name. Options take their value as the
/// next argument or after `=` (`--seed 7`, `--seed=7`); a later option overrides an
/// earlier one.
pub fn parse<I, S>(args: I) -> Result<Command, CliError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut options = Options::default();
    let mut args = args.into_iter().map(Into::into);
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(Command::Help);
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
            None => (arg.clone(), None),
        };
        let Some(&option) = OPTIONS.iter().find(|&&o| o == name) else {
            return Err(CliError::Unknown(arg));
        };
        let value = match inline {
            Some(v) => v,
            None => args.next().ok_or(CliError::MissingValue(option))?,
        };
        let bad = |expected: &str| CliError::BadValue {
            option,
            value: value.clone(),
            expected: expected.to_owned(),
        };
        match option {
            "--kernels" => options.kernels = parse_kernels(&value).map_err(|e| bad(&e))?,
            "--width" => {
                options.widths = match value.as_str() {
                    "32" => vec![32],
                    "64" => vec![64],
                    "both" => vec![32, 64],
                    _ => return Err(bad("32, 64 or both")),
                }
            }
            "--seed" => options.seed = value.parse().map_err(|_| bad("an unsigned integer"))?,
            "--model" => {
                options.model = MemoryModel::preset(&value)
                    .ok_or_else(|| bad(&format!("one of {}", MemoryModel::PRESETS.join(", "))))?
            }
            "--out" if value.is_empty() => return Err(bad("a path")),
            "--out" => options.out = PathBuf::from(value),
            "--launches" => {
                options.launches = match value.parse() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(bad("a positive integer")),
                }
            }
            _ => return Err(CliError::Unknown(arg)),
        }
    }
    Ok(Command::Run(options))
}

/// The registry entries named in a comma-separated list, in table order; the error
/// lists the known names.
fn parse_kernels(list: &str) -> Result<Vec<&'static KernelSpec>, String> {
    let names: Vec<&str> = list.split(',').map(str::trim).collect();
    let known = || {
        format!(
            "a comma-separated list of kernels from: {}",
            registry::names().collect::<Vec<_>>().join(", ")
        )
    };
    if names.iter().any(|n| registry::find(n).is_none()) {
        return Err(known());
    }
    Ok(registry::KERNELS
        .iter()
        .filter(|k| names.contains(&k.name))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Options {
        match parse(args.iter().copied()) {
            Ok(Command::Run(o)) => o,
            other => panic!("expected options, got {other:?}"),
        }
    }

    #[test]
    fn defaults_run_everything_at_both_widths() {
        let o = run(&[]);
        assert_eq!(o.kernels.len(), registry::KERNELS.len());
        assert_eq!(o.widths, vec![32, 64]);
        assert_eq!(o.seed, 42);
        assert_eq!(o.model, MemoryModel::reference());
        assert!(o.out.ends_with("results/results.json"));
        assert_eq!(o.launches, DEFAULT_LAUNCHES);
    }

    #[test]
    fn every_option_in_both_spellings() {
        let o = run(&[
            "--kernels",
            "reduce_f32,vecadd_i32",
            "--width",
            "64",
            "--seed=7",
            "--model",
            "nvidia",
            "--out=/tmp/x.json",
            "--launches",
            "3",
        ]);
        // Table order, not command-line order.
        let names: Vec<_> = o.kernels.iter().map(|k| k.name).collect();
        assert_eq!(names, vec!["vecadd_i32", "reduce_f32"]);
        assert_eq!(o.widths, vec![64]);
        assert_eq!(o.seed, 7);
        assert_eq!(o.model, MemoryModel::nvidia());
        assert_eq!(o.out, PathBuf::from("/tmp/x.json"));
        assert_eq!(o.launches, 3);
        assert_eq!(run(&["--width=32"]).widths, vec![32]);
        assert_eq!(run(&["--width", "both"]).widths, vec![32, 64]);
        assert_eq!(run(&["--seed", "1", "--seed", "2"]).seed, 2);
    }

    #[test]
    fn help_wins() {
        assert_eq!(parse(["--seed", "1", "--help"]), Ok(Command::Help));
        assert_eq!(parse(["-h"]), Ok(Command::Help));
        assert!(USAGE.contains("--kernels") && USAGE.contains("--model"));
    }

    #[test]
    fn mistakes_are_reported() {
        assert_eq!(
            parse(["--frobnicate"]),
            Err(CliError::Unknown("--frobnicate".into()))
        );
        assert_eq!(parse(["stray"]), Err(CliError::Unknown("stray".into())));
        assert_eq!(parse(["--seed"]), Err(CliError::MissingValue("--seed")));
        for (option, value) in [
            ("--seed", "-1"),
            ("--seed", "x"),
            ("--width", "48"),
            ("--model", "amd"),
            ("--launches", "0"),
            ("--kernels", "vecadd_i32,nope"),
            ("--out", ""),
        ] {
            match parse([option, value]) {
                Err(CliError::BadValue {
                    option: o,
                    value: v,
                    ..
                }) => {
                    assert_eq!((o, v.as_str()), (option, value));
                }
                other => panic!("{option} {value}: {other:?}"),
            }
        }
        let message = parse(["--kernels", "nope"]).unwrap_err().to_string();
        assert!(message.contains("matmul_tiled_f32"), "{message}");
        let message = parse(["--model", "amd"]).unwrap_err().to_string();
        assert!(message.contains("reference, nvidia"), "{message}");
    }
}
