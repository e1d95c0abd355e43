//! The report's command line, with clap's derive API: the options keep growing,
//! and clap gives every one of them the same spellings (`--seed 7`, `--seed=7`),
//! errors that name the option and the accepted values, and a generated `--help`.

use crate::registry::{self, KernelSpec};
use crate::studies::{self, Study};
use clap::Parser;
use simt::core::{Engine, MemoryModel, Part, Schedule};
pub use simt_report::args::{
    parse_engine, parse_model, parse_part, parse_path, parse_schedule, print, DEFAULT_SEED,
};
use std::path::{Path, PathBuf};
/// The default number of timed launches.
pub const DEFAULT_LAUNCHES: usize = 11;

/// The command line as clap parses it; [`Args::into_command`] turns it into
/// [`Options`].
#[derive(Debug, Parser)]
#[command(
    name = "report",
    args_override_self = true,
    about = "Runs the reference kernels on the simt interpreter, checks them against their \
             scalar oracles and with the sanitizers, prints their counters and writes them as \
             JSON; with --studies, also the studies of the seed documents.",
    after_help = "Exits with status 1 when a kernel's output differs from its oracle, the \
                  sanitizers find a race or an uninitialised read in a kernel, a study does not \
                  pass (a variant differs from its oracle or has a finding, or a claim does not \
                  hold), a launch fails or an output cannot be written, and 2 when the \
                  command line is wrong."
)]
pub struct Args {
    /// Kernels to run (default: all), comma-separated; names as in the table.
    #[arg(long, value_name = "A,B,...", value_parser = parse_kernels)]
    kernels: Option<KernelList>,
    /// Wave width.
    #[arg(long, value_name = "32|64|both", default_value = "both", value_parser = parse_width)]
    width: Widths,
    /// Seed of the generated inputs.
    // A negative number is a wrong seed, not an unknown option.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED, allow_hyphen_values = true)]
    seed: u64,
    /// Memory model: one of the presets of `simt::core::MemoryModel`.
    #[arg(long, value_name = "NAME", default_value = "reference", value_parser = parse_model)]
    model: MemoryModel,
    /// Estimate each kernel's time on this part with the timing model (its
    /// memory model replaces --model's): h100-sxm, h200-sxm, mi300x or
    /// rx7900xtx, each also as NAME/N for N units.
    #[arg(long, value_name = "PART", value_parser = parse_part, conflicts_with = "model")]
    part: Option<Part>,
    /// How the waves of a workgroup take turns.
    #[arg(long, value_name = "ORDER", default_value = "until-barrier", value_parser = parse_schedule)]
    schedule: Schedule,
    /// What runs the kernels' waves: their native runners, or the
    /// interpreter (to compare the two).
    #[arg(long, value_name = "ENGINE", default_value = "native", value_parser = parse_engine)]
    engine: Engine,
    /// Where to write the JSON (default: simt-report/results.json in cargo's
    /// target folder, so that a run leaves the checkout clean).
    #[arg(long, value_name = "PATH", value_parser = parse_path)]
    out: Option<PathBuf>,
    /// Write the JSON to the committed results/results.json instead, to
    /// refresh it (timings included).
    #[arg(long, conflicts_with = "out")]
    update_results: bool,
    /// Timed launches per kernel and width; the median is reported.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_LAUNCHES, value_parser = parse_launches)]
    launches: usize,
    /// Print KERNEL's counters per source line with hints for its costliest
    /// lines, instead of the table.
    #[arg(long, value_name = "KERNEL", value_parser = parse_kernel)]
    annotate: Option<&'static KernelSpec>,
    /// Also write the report as one self-contained HTML page (tables, annotated
    /// listings and pictures).
    #[arg(long, value_name = "PATH", value_parser = parse_path)]
    html: Option<PathBuf>,
    /// Also run studies (default: all), comma-separated, at each chosen width and
    /// with the chosen seed, and print each one's table after the kernels' (the
    /// kernels still run: choose them with --kernels). Each study picks its own
    /// memory models.
    #[arg(
        long,
        value_name = "A,B,...",
        num_args = 0..=1,
        value_parser = parse_studies
    )]
    studies: Option<Option<StudyList>>,
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// Run the report.
    Run(Options),
    /// Print one kernel's annotated listing.
    Annotate(&'static KernelSpec, Options),
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
    /// The part whose time the timing model estimates, if any (then `model`
    /// is its memory model).
    pub part: Option<Part>,
    /// How the waves of a workgroup take turns.
    pub schedule: Schedule,
    /// What runs the waves.
    pub engine: Engine,
    /// Where to write the JSON.
    pub out: PathBuf,
    /// Timed launches per kernel and width.
    pub launches: usize,
    /// Where to write the HTML report, if anywhere.
    pub html: Option<PathBuf>,
    /// The studies to run after the kernels, in [`studies::STUDIES`] order (none
    /// unless asked for).
    pub studies: Vec<&'static Study>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            kernels: registry::KERNELS.iter().collect(),
            widths: vec![32, 64],
            seed: DEFAULT_SEED,
            model: MemoryModel::reference(),
            part: None,
            schedule: Schedule::UntilBarrier,
            engine: Engine::Native,
            out: default_out(),
            launches: DEFAULT_LAUNCHES,
            html: None,
            studies: Vec::new(),
        }
    }
}

/// `simt-report/results.json` in `$CARGO_TARGET_DIR`, or else in `target/` at
/// the root of the workspace this crate was built in: a run's output is a
/// build product, and the committed results
/// change only when asked ([`committed_results`]).
pub fn default_out() -> PathBuf {
    // Cargo's own target folder when the caller moved it.
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
        .join("simt-report")
        .join("results.json")
}

/// `results/results.json` at the root of the workspace: the results committed
/// with the code, rewritten by `--update-results`.
pub fn committed_results() -> PathBuf {
    workspace_root().join("results").join("results.json")
}

fn workspace_root() -> &'static Path {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest)
}

/// Parses the arguments after the program name. A later option overrides an
/// earlier one. The error is clap's: `--help` comes back as an error of kind
/// [`clap::error::ErrorKind::DisplayHelp`], whose text is the help.
pub fn parse<I, S>(args: I) -> Result<Command, clap::Error>
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    let args = Args::try_parse_from(
        std::iter::once("report".into()).chain(args.into_iter().map(Into::into)),
    )?;
    Ok(args.into_command())
}

impl Args {
    /// What the parsed arguments ask for.
    pub fn into_command(self) -> Command {
        let options = Options {
            kernels: self
                .kernels
                .map_or_else(|| registry::KERNELS.iter().collect(), |k| k.0),
            widths: self.width.0,
            seed: self.seed,
            model: self.part.as_ref().map_or(self.model, |p| p.memory.clone()),
            part: self.part,
            schedule: self.schedule,
            engine: self.engine,
            out: match (self.out, self.update_results) {
                (_, true) => committed_results(),
                (Some(out), false) => out,
                (None, false) => default_out(),
            },
            launches: self.launches,
            html: self.html,
            studies: match self.studies {
                None => Vec::new(),
                Some(None) => studies::STUDIES.iter().collect(),
                Some(Some(list)) => list.0,
            },
        };
        match self.annotate {
            Some(kernel) => Command::Annotate(kernel, options),
            None => Command::Run(options),
        }
    }
}

/// The kernels of `--kernels`, in table order.
#[derive(Clone, Debug)]
struct KernelList(Vec<&'static KernelSpec>);

/// The studies of `--studies`, in [`studies::STUDIES`] order.
#[derive(Clone, Debug)]
struct StudyList(Vec<&'static Study>);

/// The widths of `--width`.
#[derive(Clone, Debug)]
struct Widths(Vec<u32>);

/// The registry entries named in a comma-separated list, in table order; the error
/// lists the known names.
fn parse_kernels(list: &str) -> Result<KernelList, String> {
    select(list, ("kernel", "kernels"), registry::KERNELS, |k| k.name).map(KernelList)
}

/// The studies named in a comma-separated list, in [`studies::STUDIES`] order; the
/// error lists the known names.
fn parse_studies(list: &str) -> Result<StudyList, String> {
    select(list, ("study", "studies"), studies::STUDIES, |s| s.name).map(StudyList)
}

/// The entries of `all` named in the comma-separated `list`, in `all`'s order; an
/// error naming the first unknown name and listing the known ones (`what`: the
/// singular and the plural of what the entries are).
fn select<T>(
    list: &str,
    (what, whats): (&str, &str),
    all: &'static [T],
    name: impl Fn(&T) -> &'static str,
) -> Result<Vec<&'static T>, String> {
    let names: Vec<&str> = list.split(',').map(str::trim).collect();
    if let Some(unknown) = names.iter().find(|n| !all.iter().any(|e| name(e) == **n)) {
        let known: Vec<&str> = all.iter().map(&name).collect();
        return Err(format!(
            "no {what} `{unknown}`; the {whats} are: {}",
            known.join(", ")
        ));
    }
    Ok(all.iter().filter(|e| names.contains(&name(e))).collect())
}

fn parse_kernel(name: &str) -> Result<&'static KernelSpec, String> {
    registry::find(name.trim())
        .ok_or_else(|| format!("no kernel `{name}`; the kernels are: {}", known_kernels()))
}

fn known_kernels() -> String {
    registry::names().collect::<Vec<_>>().join(", ")
}

fn parse_width(value: &str) -> Result<Widths, String> {
    match value {
        "32" => Ok(Widths(vec![32])),
        "64" => Ok(Widths(vec![64])),
        "both" => Ok(Widths(vec![32, 64])),
        _ => Err("expected 32, 64 or both".to_owned()),
    }
}

fn parse_launches(value: &str) -> Result<usize, String> {
    match value.parse() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("expected a positive integer".to_owned()),
    }
}
