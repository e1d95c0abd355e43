//! `simt run`: one kernel of a file, launched once with the details the
//! report records and once plainly, timed, on one thread; printed and written
//! with the report's own table, listing, JSON and HTML.

use crate::args::{shape_text, Deny, OutFormat, Run};
use crate::inputs::{self, Given, Inputs};
use crate::load::{self, Loaded};
use crate::{failure, npy, usage};
use simt::core::{LaunchConfig, OwnedArg, ParamKind, Program};
use simt_report::args as cli;
use simt_report::results::{self as report, has_major_findings, Results};
use simt_report::{html, metrics, table};
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// Launches of fewer work-items than this run the sanitizers by default.
pub const SANITIZE_BELOW: u64 = 1 << 16;

/// Runs `options`' kernel; prints what the report prints for it.
pub fn run(options: &Run) -> ExitCode {
    let loaded = match compile_one(
        &options.file,
        &options.consts,
        options.shared_bytes,
        options.kernel.as_deref(),
    ) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    let kernel = &loaded.kernel;
    let program = kernel.program();
    let given = Given {
        scalars: &options.args,
        buffers: &options.buffers,
        default_len: options.groups.count().saturating_mul(options.size.count()),
        seed: options.seed,
        doubles: &loaded.doubles,
    };
    let Inputs {
        mut values,
        from_file,
    } = match inputs::bind(program, &given) {
        Ok(inputs) => inputs,
        Err(message) => return usage(&message),
    };
    if let Some(unknown) = options.print.iter().find(|s| {
        !program
            .host_params()
            .iter()
            .any(|p| p.name == s.name && matches!(p.kind, ParamKind::Buffer { .. }))
    }) {
        return usage(&format!(
            "--print {0}: `{1}` has no buffer parameter `{0}`",
            unknown.name, program.name
        ));
    }
    let model = options
        .part
        .as_ref()
        .map_or_else(|| options.model.clone(), |p| p.memory.clone());
    let config = LaunchConfig::new(options.groups, options.size)
        .wave_width(options.width)
        .model(model.clone())
        .schedule(options.schedule);

    // The timed launch runs on a copy of the inputs, after the detailed one
    // has warmed the interpreter up, so that in-place kernels see the same
    // inputs in both.
    let before = values.clone();
    let mut initial = values.clone();
    let work_items = options.groups.count().saturating_mul(options.size.count());
    let sanitize = options.sanitize || (!options.no_sanitize && work_items < SANITIZE_BELOW);
    let mut detailed = report::detailed(&config).sanitize(sanitize);
    if let Some(part) = &options.part {
        detailed = detailed.timing(part.clone());
    }
    let stats = match simt::core::launch(kernel, &detailed, &mut OwnedArg::lend(&mut values)) {
        Ok(stats) => stats,
        Err(simt::core::Error::Fault(fault)) if fault.loc.line > 0 => {
            return fault_at_source(&fault, &loaded)
        }
        Err(e) => return failure(&e.to_string()),
    };
    let start = Instant::now();
    let timed = simt::core::launch(
        kernel,
        &config.clone().threads(1),
        &mut OwnedArg::lend(&mut initial),
    );
    let elapsed = start.elapsed();
    if let Err(e) = timed {
        return failure(&e.to_string());
    }
    let mut row = report::row(&program.name, program, &config, stats, &mut [elapsed]);
    if let (true, Some((_, text))) = (loaded.shows_source(), &loaded.source) {
        row.listing.set_source(text);
    }
    let results = Results {
        version: env!("CARGO_PKG_VERSION"),
        seed: options.seed,
        model,
        schedule: options.schedule,
        metrics: metrics::METRICS,
        rows: vec![row],
        failures: Vec::new(),
        studies: Vec::new(),
        study_failures: Vec::new(),
    };
    print(&results, options, loaded.note.as_deref());
    for slice in &options.print {
        let shown = program
            .host_params()
            .iter()
            .zip(&values)
            .find_map(|(p, v)| match v {
                OwnedArg::Buffer { elem, bytes, .. } if p.name == slice.name => {
                    Some(slice.show(*elem, bytes))
                }
                _ => None,
            });
        cli::print(format!("{}\n", shown.unwrap_or_default()));
    }
    let mut ok = write_outputs(&results, program, [&values, &before], &from_file, options);
    let row = &results.rows[0];
    if has_major_findings(&row.findings) {
        eprintln!(
            "error: the sanitizers found a race or an uninitialised read in `{}`",
            row.kernel
        );
        ok = false;
    }
    if !sanitize {
        let why = if options.no_sanitize {
            "--no-sanitize".to_owned()
        } else {
            format!("{work_items} work-items, at least {SANITIZE_BELOW}")
        };
        let proved = simt::core::proved_races(kernel, &config);
        for race in &proved {
            eprintln!("warning: {race}");
        }
        cli::print(format!(
            "note: the sanitizers did not run ({why}): races and uninitialised reads {}were not checked; add --sanitize to check them\n",
            if proved.is_empty() { "" } else { "other than the proved ones above " }
        ));
        if !proved.is_empty() && options.deny == Some(Deny::Warnings) {
            eprintln!("error: warnings are denied (--deny warnings)");
            ok = false;
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A fault shown as the front end shows its errors: the message, the source
/// line with the faulting instruction underlined, and who faulted.
fn fault_at_source(fault: &simt::core::Fault, loaded: &Loaded) -> ExitCode {
    let Some((file, source)) = &loaded.source else {
        return failure(&fault.to_string());
    };
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    eprintln!(
        "{}",
        simt_front::render_at(
            file,
            source,
            [fault.loc.line as usize, fault.loc.column as usize],
            &fault.kind.to_string(),
            &[format!(
                "in kernel `{}`, {}",
                fault.kernel,
                fault.work_item()
            )],
            colour,
        )
    );
    ExitCode::FAILURE
}

/// The kernel called `name` of `file` (its only kernel when no name is
/// given), compiled; or the exit status that says why not.
pub fn compile_one(
    file: &Path,
    consts: &[(String, String)],
    shared_bytes: Option<u32>,
    name: Option<&str>,
) -> Result<Loaded, ExitCode> {
    load::choose(load::load(file, consts, shared_bytes, name)?, file, name)
}

/// The report's text for the one row of `results`: the launch, the counters
/// table, the occupancy note, the listing with hints and the sanitizers'
/// findings.
fn print(results: &Results, options: &Run, note: Option<&str>) {
    let row = &results.rows[0];
    cli::print(format!("{} from {}: {} workgroup{} of {} work-items, wave{}, model {}, seed {}; speed of one launch on one thread\n\n",
        row.kernel,
        options.file.display(),
        shape_text(options.groups),
        if options.groups.count() == 1 { "" } else { "s" },
        shape_text(options.size),
        row.wave_width,
        results.model.name,
        results.seed
    ));
    cli::print(table::table(&results.rows));
    if let Some(line) = table::occupancy_note(&results.rows) {
        cli::print(format!("\n{line}\n"));
    }
    if let Some(t) = &row.estimate {
        cli::print(format!("\n{}\n", table::estimate_text(t)));
    }
    if let Some(note) = note {
        cli::print(format!("\n{note}\n"));
    }
    cli::print(format!("\n{}", row.listing));
    if let Some(list) = table::findings_list(&results.rows) {
        cli::print(format!("\n{list}"));
    }
    if let Some(list) = table::prints_list(row) {
        cli::print(format!("\n{list}"));
    }
}

/// Writes the JSON, the HTML and the buffers that `options` asks for (the
/// writable ones after the launch, `values`, and those not read from files,
/// by `from_file`, as they were before it, `before`); whether all were
/// written.
fn write_outputs(
    results: &Results,
    program: &Program,
    [values, before]: [&[OwnedArg]; 2],
    from_file: &[bool],
    options: &Run,
) -> bool {
    let mut ok = true;
    let mut wrote = |path: &Path, written: std::io::Result<()>| match written {
        Ok(()) => cli::print(format!("wrote {}\n", path.display())),
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            ok = false;
        }
    };
    if let Some(path) = &options.json {
        wrote(path, table::write_json(results, path));
    }
    if let Some(path) = &options.html {
        let find = |name: &str| (name == program.name).then_some(program);
        wrote(
            path,
            html::write_page(&html::render_with(results, 1, &find), path),
        );
    }
    if let Some(dir) = &options.out_dir {
        if let Err(e) = std::fs::create_dir_all(dir) {
            wrote(dir, Err(e));
            return false;
        }
        let outputs = program
            .host_params()
            .iter()
            .zip(values)
            .filter_map(|(p, v)| match v {
                OwnedArg::Buffer {
                    elem,
                    writable: true,
                    bytes,
                } => Some((p, *elem, bytes, "")),
                _ => None,
            });
        let inputs = program
            .host_params()
            .iter()
            .zip(before.iter().zip(from_file))
            .filter_map(|(p, v)| match v {
                (OwnedArg::Buffer { elem, bytes, .. }, false) => Some((p, *elem, bytes, ".input")),
                _ => None,
            });
        for (param, elem, bytes, suffix) in outputs.chain(inputs) {
            let (path, written) = match options.out_format {
                OutFormat::Npy => {
                    let path = dir.join(format!("{}{suffix}.npy", param.name));
                    let written = npy::write(&path, elem, bytes);
                    (path, written)
                }
                OutFormat::Raw => {
                    let path = dir.join(format!("{}{suffix}.bin", param.name));
                    let written = std::fs::write(&path, bytes);
                    (path, written)
                }
            };
            wrote(&path, written);
        }
    }
    ok
}
