//! `cargo run --release -p simt-kernels --bin report [-- --help]`: runs the
//! reference kernels, checks them against their oracles and with the sanitizers,
//! prints their counters and writes `target/simt-report/results.json` (the
//! committed `results/results.json` with `--update-results`; and, with `--html`,
//! a page with pictures); with `--studies`, also the studies' tables.

use clap::error::ErrorKind;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use simt_kernels::cli::{self, Command, Options};
use simt_kernels::registry::KernelSpec;
use simt_kernels::studies::{finding_count, has_major_findings};
use simt_kernels::{html, report};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How long the report runs before it shows a progress bar: a short run should
/// print its table and nothing else.
const PROGRESS_AFTER: Duration = Duration::from_millis(300);

fn main() -> ExitCode {
    let command = match cli::parse(std::env::args_os().skip(1)) {
        Ok(command) => command,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            cli::print(&e);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let message = e.to_string();
            eprint!(
                "report: {}",
                message.strip_prefix("error: ").unwrap_or(&message)
            );
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Run(options) => run(&options),
        Command::Annotate(spec, options) => annotate(spec, &options),
    }
}

/// A progress bar on stderr that appears only once the run has taken
/// [`PROGRESS_AFTER`], and never when stdout or stderr is not a terminal (a
/// redirected report stays clean).
struct Progress {
    bar: ProgressBar,
    start: Instant,
    visible: bool,
    attended: bool,
}

impl Progress {
    fn new() -> Self {
        let bar = ProgressBar::hidden();
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
            bar.set_style(style);
        }
        Progress {
            bar,
            start: Instant::now(),
            visible: false,
            attended: std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
        }
    }

    fn update(&mut self, done: usize, total: usize, next: &str) {
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        self.bar.set_message(next.to_owned());
        if self.attended && !self.visible && self.start.elapsed() >= PROGRESS_AFTER {
            self.visible = true;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    fn finish(self) {
        self.bar.finish_and_clear();
    }
}

fn run(options: &Options) -> ExitCode {
    cli::print(format!(
        "seed {}, model {}, {} per row on one thread\n\n",
        options.seed,
        options.model.name,
        simt_report::table::launches_text(options.launches)
    ));
    let mut progress = Progress::new();
    let results = report::run_with_progress(options, |done, total, next| {
        progress.update(done, total, next)
    });
    progress.finish();
    cli::print(report::table(&results.rows));
    if let Some(line) = report::occupancy_note(&results.rows) {
        cli::print(format!("\n{line}\n"));
    }
    if let Some(line) = report::reference_summary(&results.rows) {
        cli::print(format!("\n{line}\n"));
    }
    if let Some(list) = report::findings_list(&results.rows) {
        cli::print(format!("\n{list}"));
    }
    for study in &results.studies {
        cli::print(format!("\n{}", study.table()));
    }
    for row in results.rows.iter().filter(|r| !r.oracle_pass) {
        eprintln!(
            "report: {} at wave{} differs from its oracle: {}",
            row.kernel,
            row.wave_width,
            row.mismatch.as_deref().unwrap_or("?")
        );
    }
    for row in results
        .rows
        .iter()
        .filter(|r| has_major_findings(&r.findings))
    {
        eprintln!(
            "report: the sanitizers found {} problem(s) in {} at wave{}",
            finding_count(&row.findings),
            row.kernel,
            row.wave_width
        );
    }
    for f in &results.failures {
        eprintln!(
            "report: {} at wave{} failed: {}",
            f.kernel, f.wave_width, f.error
        );
    }
    for s in results.studies.iter().filter(|s| !s.passed) {
        eprintln!(
            "report: study {} at wave{} does not pass: a variant differs from its oracle, \
             has a sanitizer finding, or a relation does not hold",
            s.study, s.width
        );
    }
    for f in &results.study_failures {
        eprintln!(
            "report: study {} at wave{} failed: {}",
            f.study, f.wave_width, f.error
        );
    }
    let mut ok = results.all_passed();
    match report::write_json(&results, &options.out) {
        Ok(()) => cli::print(format!("\nwrote {}\n", options.out.display())),
        Err(e) => {
            eprintln!("report: cannot write {}: {e}", options.out.display());
            ok = false;
        }
    }
    if let Some(path) = &options.html {
        match html::write(&results, options, path) {
            Ok(()) => cli::print(format!("wrote {}\n", path.display())),
            Err(e) => {
                eprintln!("report: cannot write {}: {e}", path.display());
                ok = false;
            }
        }
    }
    status(ok)
}

/// Prints `spec`'s listing at each chosen width.
fn annotate(spec: &KernelSpec, options: &Options) -> ExitCode {
    let mut ok = true;
    for (i, &width) in options.widths.iter().enumerate() {
        let mut config = spec
            .config(width, options.model.clone())
            .schedule(options.schedule)
            .record_worst_phases();
        if let Some(part) = &options.part {
            config = config.timing(part.clone());
        }
        match spec.run(options.seed, &config) {
            Ok(run) => {
                if i > 0 {
                    cli::print("\n");
                }
                cli::print(run.stats.listing(spec.program));
                if let Some(mismatch) = run.mismatch() {
                    eprintln!(
                        "report: {} at wave{width} differs from its oracle: {mismatch}",
                        spec.name
                    );
                    ok = false;
                }
            }
            Err(e) => {
                eprintln!("report: {} at wave{width} failed: {e}", spec.name);
                ok = false;
            }
        }
    }
    status(ok)
}

fn status(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
