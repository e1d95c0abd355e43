//! `simt`: checks and runs kernels written in files (`.simt`), each exactly as
//! inside `simt_kernel!`, and CUDA kernels as nvcc's PTX (`.ptx`, or `.cu`
//! through nvcc). `simt check FILE` prints the front end's diagnostics
//! as rustc does; `simt run FILE ...` launches one kernel on the interpreter
//! and prints the report's counters table and listing; `simt sweep FILE ...`
//! launches it at every point of a grid and prints JSON lines (`simt --help`).

mod args;
mod inputs;
mod load;
mod npy;
mod run;
mod sweep;

use args::shape_text;
use args::{Cli, Command};
use clap::Parser;
use simt::core::{Dim3, LaunchConfig, Program};
use simt_report::args as cli;
use std::path::Path;
use std::process::ExitCode;

/// The exit status of a wrong command line, as clap's own.
const USAGE: u8 = 2;

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Check {
            file,
            consts,
            shared_bytes,
            size,
            groups,
            width,
        } => check(
            &file,
            &consts,
            shared_bytes,
            size.map(|size| (groups, size, width)),
        ),
        Command::Run(options) => run::run(&options),
        Command::Sweep(options) => sweep::sweep(&options),
    }
}

/// An error about the command line: printed, and exit status [`USAGE`].
fn usage(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(USAGE)
}

/// Any other failure: printed, and exit status 1.
fn failure(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// Checks `file`; with `launch` (grid, workgroup shape, wave width), also
/// reports the races the facts prove for it, as errors.
fn check(
    file: &Path,
    consts: &[(String, String)],
    shared_bytes: Option<u32>,
    launch: Option<(Dim3, Dim3, u32)>,
) -> ExitCode {
    let kernels = match load::load(file, consts, shared_bytes, None) {
        Ok(kernels) => kernels,
        Err(status) => return status,
    };
    if let Some((_, size, _)) = launch {
        let limit = simt::core::limits::MAX_WORKGROUP_SIZE;
        if size.count() > u64::from(limit) {
            return usage(&format!(
                "--size {}: {} work-items, past the limit of {limit} a workgroup holds",
                shape_text(size),
                size.count()
            ));
        }
    }
    let mut failed = false;
    for loaded in &kernels {
        let kernel = &loaded.kernel;
        let program = kernel.program();
        let summary = |program: &Program| summary(program, loaded);
        let Some((groups, size, width)) = launch else {
            cli::print(format!("{}\n", summary(program)));
            continue;
        };
        if let Some(declared) = program.workgroup_size {
            if declared != size.to_array() {
                // No launch has that shape; its own shape's races are
                // compile errors, which it has none of.
                cli::print(format!(
                    "{}; declares workgroups of {}, so none of {} launches it (its races under its own shape are compile errors)\n",
                    summary(program),
                    shape_text(Dim3::new(declared[0], declared[1], declared[2])),
                    shape_text(size)
                ));
                continue;
            }
        }
        let config = LaunchConfig::new(groups, size).wave_width(width);
        let races = simt::core::proved_races(kernel, &config);
        if races.is_empty() {
            cli::print(format!(
                "{}; no race for workgroups of {} at wave{width}\n",
                summary(program),
                shape_text(size)
            ));
        }
        for race in &races {
            eprintln!(
                "error: `{}`, workgroups of {} at wave{width}: {race}",
                program.name,
                shape_text(size)
            );
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// One line about a checked kernel: its signature (and for PTX its
/// `.entry` name) and what it takes.
fn summary(program: &Program, loaded: &load::Loaded) -> String {
    let params: Vec<String> = program
        .host_params()
        .iter()
        .map(|p| format!("{}: {}", p.name, p.kind.rust_type()))
        .collect();
    let entry = match &loaded.ptx_names {
        Some((_, mangled)) if *mangled != program.name => format!(" (.entry {mangled})"),
        _ => String::new(),
    };
    let local = match program.scratch_words {
        0 => String::new(),
        words => format!(
            ", {} bytes of local memory per work-item",
            u64::from(words) * 4
        ),
    };
    format!(
        "ok: kernel {}({}){entry}: {} instructions, {} vector, {} scalar and {} mask registers, {} bytes of LDS{local}",
        program.name,
        params.join(", "),
        program.insts.len(),
        program.vregs,
        program.sregs,
        program.mregs,
        program.lds_bytes
    )
}
