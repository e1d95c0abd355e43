//! The report: every chosen kernel at every chosen width, checked against its
//! oracle and by the sanitizers, timed; then the chosen studies. How the
//! results are shown (tables, JSON, the HTML page) is `simt_report`'s.

use crate::cli::Options;
use crate::reference;
use crate::registry::KernelSpec;
use simt::core::{Error, MemoryModel};
pub use simt_report::results::{
    detailed, hardware_for, row, Failure, Results, Row, StudyFailure, Timing, TRACED_WORKGROUP,
};
pub use simt_report::table::{
    findings_list, limiter_name, occupancy_cell, occupancy_note, oracle_cell, reference_summary,
    table, write_json,
};
use std::time::Instant;

/// Runs `spec` at `wave_width` with the seed, model, part, schedule and
/// engine of `options`: one launch whose output is checked, then
/// `options.launches` timed launches on one thread (each on freshly reset
/// buffers), so that the speed column compares with single-threaded
/// simulators whatever the machine's cores.
pub fn measure(spec: &KernelSpec, wave_width: u32, options: &Options) -> Result<Row, Error> {
    let model = &options.model;
    let config = spec
        .config(wave_width, model.clone())
        .schedule(options.schedule)
        .engine(options.engine);
    let mut workload = (spec.prepare)(options.seed);
    // The checked launch, untimed, also records the worst phases for the hints
    // and the pictures, and one workgroup for the timeline, runs the
    // sanitizers, and estimates the time on the part if there is one.
    let mut checked = detailed(&config).sanitize(true);
    if let Some(part) = &options.part {
        checked = checked.timing(part.clone());
    }
    let stats = workload.launch(&checked)?;
    let output = workload.output();
    let expected = workload.expected();
    let mismatch = output.first_mismatch(&expected).map(|m| m.to_string());

    let timed = config.clone().threads(1);
    let mut times = Vec::with_capacity(options.launches);
    for _ in 0..options.launches.max(1) {
        workload.reset();
        let start = Instant::now();
        workload.launch(&timed)?;
        times.push(start.elapsed());
    }
    let mut row = row(spec.name, spec.program, &config, stats, &mut times);
    row.has_oracle = true;
    row.oracle_pass = mismatch.is_none();
    row.mismatch = mismatch;
    row.matches_reference_memory = (*model == MemoryModel::reference())
        .then(|| reference::find(spec.name).is_some_and(|p| p.memory_matches(&row.totals)));
    Ok(row)
}

/// Runs every kernel and width `options` asks for, then every study at every
/// width.
pub fn run(options: &Options) -> Results {
    run_with_progress(options, |_, _, _| {})
}

/// Like [`run`], calling `progress(done, total, next)` before each kernel or
/// study and width (`next` names it) and once at the end (with `next` empty).
pub fn run_with_progress(
    options: &Options,
    mut progress: impl FnMut(usize, usize, &str),
) -> Results {
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    let total = (options.kernels.len() + options.studies.len()) * options.widths.len();
    let mut done = 0;
    for spec in &options.kernels {
        for &width in &options.widths {
            progress(done, total, &format!("{} wave{width}", spec.name));
            done += 1;
            match measure(spec, width, options) {
                Ok(row) => rows.push(row),
                Err(e) => failures.push(Failure {
                    kernel: spec.name.to_owned(),
                    wave_width: width,
                    error: e.to_string(),
                }),
            }
        }
    }
    let mut study_results = Vec::new();
    let mut study_failures = Vec::new();
    for study in &options.studies {
        for &width in &options.widths {
            progress(done, total, &format!("study {} wave{width}", study.name));
            done += 1;
            match (study.run)(options.seed, width) {
                Ok(result) => study_results.push(result),
                Err(e) => study_failures.push(StudyFailure {
                    study: study.name.to_owned(),
                    wave_width: width,
                    error: e.to_string(),
                }),
            }
        }
    }
    progress(done, total, "");
    Results {
        version: env!("CARGO_PKG_VERSION"),
        seed: options.seed,
        model: options.model.clone(),
        schedule: options.schedule,
        metrics: simt_report::metrics::METRICS,
        rows,
        failures,
        studies: study_results,
        study_failures,
    }
}
