//! `simt sweep`: one kernel of a file launched at every point of a grid of
//! shapes, widths, models or parts and scalar values, one JSON line each,
//! the record `simt_report::sweep` shapes (as Python's sweeps do).

use crate::args::Sweep;
use crate::inputs::{self, Given};
use crate::run::compile_one;
use crate::{failure, usage};
use serde_json::{json, Map, Value as Json};
use simt::core::{Dim3, LaunchConfig, MemoryModel, OwnedArg, Part};
use simt_report::sweep as record;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// What one point names: its shape, width, model (and part) and scalars.
struct Point<'o> {
    groups: Dim3,
    size: Dim3,
    width: u32,
    model: MemoryModel,
    part: Option<&'o Part>,
    scalars: Vec<(String, String)>,
}

/// Runs `options`' sweep; prints (or writes) one JSON line per point.
pub fn sweep(options: &Sweep) -> ExitCode {
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
    let points = points(options);
    // Every point's scalar values are checked before the first line is
    // written, so that a mistake in a later one stops the sweep before it
    // starts (buffers are made, and checked, point by point).
    let mut checked = std::collections::HashSet::new();
    for point in &points {
        if !checked.insert(&point.scalars) {
            continue;
        }
        let program = kernel.program();
        if let Err(message) =
            inputs::check_scalars(program, &point.scalars, &options.buffers, &loaded.doubles)
        {
            return usage(&message);
        }
    }
    let mut out: Box<dyn Write> = match &options.out {
        Some(path) => match std::fs::File::create(path) {
            Ok(file) => Box::new(std::io::BufWriter::new(file)),
            Err(e) => return failure(&format!("cannot write {}: {e}", path.display())),
        },
        None => Box::new(std::io::stdout().lock()),
    };
    let progress = std::io::stderr().is_terminal();
    let mut failed = false;
    for (k, point) in points.iter().enumerate() {
        let line = match launch(kernel, point, options, &loaded.doubles) {
            Ok(line) => line,
            Err(Failure::Usage(message)) => return usage(&message),
            Err(Failure::Launch(line)) => {
                failed = true;
                Json::Object(line)
            }
        };
        if let Err(e) = writeln!(out, "{line}") {
            return failure(&format!("cannot write the sweep: {e}"));
        }
        if progress {
            eprint!("\rsweep {}/{}", k + 1, points.len());
        }
    }
    if progress {
        eprintln!();
    }
    if let Err(e) = out.flush() {
        return failure(&format!("cannot write the sweep: {e}"));
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Every point of `options`' axes, the last `--arg` varying fastest.
fn points(options: &Sweep) -> Vec<Point<'_>> {
    let models: Vec<(MemoryModel, Option<&Part>)> = if options.part.is_empty() {
        options.model.iter().map(|m| (m.clone(), None)).collect()
    } else {
        options
            .part
            .iter()
            .map(|p| (p.memory.clone(), Some(p)))
            .collect()
    };
    let mut scalars: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (name, values) in &options.args {
        scalars = scalars
            .into_iter()
            .flat_map(|given| {
                values.split(',').map(move |v| {
                    let mut given = given.clone();
                    given.push((name.clone(), v.trim().to_owned()));
                    given
                })
            })
            .collect();
    }
    let mut points = Vec::new();
    for &groups in &options.groups {
        for &size in &options.size {
            for &width in &options.width {
                for (model, part) in &models {
                    for given in &scalars {
                        points.push(Point {
                            groups,
                            size,
                            width,
                            model: model.clone(),
                            part: *part,
                            scalars: given.clone(),
                        });
                    }
                }
            }
        }
    }
    points
}

enum Failure {
    /// The command line is wrong for this kernel (exit status 2).
    Usage(String),
    /// The launch failed: the point's fields and the error.
    Launch(Map<String, Json>),
}

/// One point's line: the point, then the counters (and the estimate).
fn launch(
    kernel: &simt::core::Kernel,
    point: &Point<'_>,
    options: &Sweep,
    doubles: &[String],
) -> Result<Json, Failure> {
    let program = kernel.program();
    let given = Given {
        scalars: &point.scalars,
        buffers: &options.buffers,
        default_len: point.groups.count().saturating_mul(point.size.count()),
        seed: options.seed,
        doubles,
    };
    let mut values = inputs::bind(program, &given)
        .map_err(Failure::Usage)?
        .values;
    let mut config = LaunchConfig::new(point.groups, point.size)
        .wave_width(point.width)
        .model(point.model.clone());
    if let Some(part) = point.part {
        config = config.timing(part.clone());
    }
    let mut args = Vec::new();
    for (name, text) in &point.scalars {
        let whole = inputs::given_whole(program, &point.scalars, name);
        // A 64-bit scalar given whole reads as the number given, not as
        // its low word.
        let double = doubles.contains(name);
        let wide = (whole && !double)
            .then(|| inputs::wide_value(text))
            .flatten();
        let float = (whole && double)
            .then(|| inputs::double_value(text))
            .flatten();
        let value = match (wide, float) {
            (Some(v), _) if v < 0 => json!(v as i64),
            (Some(v), _) => json!(v as u64),
            // JSON has no number for infinity or NaN: their text.
            (None, Some(d)) => {
                serde_json::Number::from_f64(d).map_or_else(|| json!(d.to_string()), Json::Number)
            }
            (None, None) => {
                let bound = program.host_params().iter().position(|p| p.name == *name);
                scalar_json(bound.and_then(|k| values.get(k)), text)
            }
        };
        args.push((name.clone(), value));
    }
    let head = record::Point {
        kernel: &program.name,
        groups: point.groups,
        size: point.size,
        wave_width: point.width,
        model: &point.model.name,
        part: point.part.map(|p| p.name.as_ref()),
    };
    match simt::core::launch(kernel, &config, &mut OwnedArg::lend(&mut values)) {
        Ok(stats) => {
            let counted = record::Counted {
                workgroups: stats.workgroups,
                waves: stats.waves,
                totals: &stats.totals,
                estimate: stats.timing.as_ref(),
            };
            Ok(Json::Object(record::record(&head, args, Ok(counted))))
        }
        Err(e) => Err(Failure::Launch(record::record(
            &head,
            args,
            Err(&e.to_string()),
        ))),
    }
}

/// A scalar's value in a line: the number it was bound to (for an `f32`, the
/// number as written when it rounds to the bound value, so that `0.1` reads
/// `0.1`), or, where JSON has no number for it, the bound value's text
/// (`inf`, `NaN`).
fn scalar_json(value: Option<&OwnedArg>, text: &str) -> Json {
    let number = |v: f64| serde_json::Number::from_f64(v).map(Json::Number);
    let bound = match value {
        Some(OwnedArg::U32(v)) => Some(json!(v)),
        Some(OwnedArg::I32(v)) => Some(json!(v)),
        Some(OwnedArg::F32(v)) => match text.parse::<f64>() {
            Ok(written) if v.is_finite() && written as f32 == *v => number(written),
            _ => number(f64::from(*v)),
        }
        .or_else(|| Some(json!(v.to_string()))),
        _ => None,
    };
    bound.unwrap_or_else(|| json!(text))
}

#[cfg(test)]
mod tests {
    use super::scalar_json;
    use serde_json::json;
    use simt::core::OwnedArg;

    #[test]
    fn scalars_read_as_the_numbers_the_kernel_was_given() {
        assert_eq!(scalar_json(Some(&OwnedArg::U32(16)), "0x10"), json!(16));
        assert_eq!(
            scalar_json(Some(&OwnedArg::I32(-1)), "0xffffffff"),
            json!(-1)
        );
        // As written when that is the bound f32, not its nearest f64.
        assert_eq!(scalar_json(Some(&OwnedArg::F32(0.1)), "0.1"), json!(0.1));
        // Past f32's range the kernel got infinity, which JSON spells as text.
        let inf = "1e39".parse::<f32>().unwrap();
        assert_eq!(scalar_json(Some(&OwnedArg::F32(inf)), "1e39"), json!("inf"));
        assert_eq!(
            scalar_json(Some(&OwnedArg::F32(f32::NAN)), "nan"),
            json!("NaN")
        );
    }
}
