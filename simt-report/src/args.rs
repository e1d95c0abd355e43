//! Command-line values the report and the `simt` command share, and how both
//! print.

use simt::core::{Engine, MemoryModel, Schedule};
use std::path::PathBuf;

/// The seed of the inputs when none is given: the one of the published figures.
pub const DEFAULT_SEED: u64 = 42;

/// The memory model preset called `name`; the error lists the presets.
pub fn parse_model(name: &str) -> Result<MemoryModel, String> {
    MemoryModel::preset(name)
        .ok_or_else(|| format!("expected one of {}", MemoryModel::PRESETS.join(", ")))
}

/// The part called `name` (a preset of `simt::core::Part`, optionally cut
/// down as `name/units`).
pub fn parse_part(name: &str) -> Result<simt::core::Part, String> {
    simt::core::Part::preset(name).ok_or_else(|| {
        format!(
            "expected one of {}, each optionally cut down to N units as NAME/N",
            simt::core::Part::PRESETS.join(", ")
        )
    })
}

/// The schedule called `name` (`until-barrier` or `round-robin`).
pub fn parse_schedule(name: &str) -> Result<Schedule, String> {
    match name {
        "until-barrier" => Ok(Schedule::UntilBarrier),
        "round-robin" => Ok(Schedule::RoundRobin),
        _ => Err("expected until-barrier or round-robin".to_owned()),
    }
}

/// An engine's name: `native` or `interpreter`.
pub fn parse_engine(name: &str) -> Result<Engine, String> {
    match name {
        "native" => Ok(Engine::Native),
        "interpreter" => Ok(Engine::Interpreter),
        _ => Err("expected native or interpreter".to_owned()),
    }
}

/// A path, which must not be empty.
pub fn parse_path(value: &str) -> Result<PathBuf, String> {
    if value.is_empty() {
        Err("expected a path".to_owned())
    } else {
        Ok(PathBuf::from(value))
    }
}

/// Writes `text` to standard output. A reader that has gone (`report | head`)
/// ends the command quietly with status 0, as it ends a C program, instead of
/// the panic of `print!`; any other failure to write ends it with status 1.
pub fn print(text: impl std::fmt::Display) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = write!(out, "{text}").and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}
