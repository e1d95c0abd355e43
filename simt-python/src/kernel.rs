//! `simt.compile` and the kernel it returns.

use crate::args;
use crate::errors::{compile_error, launch_error};
use crate::stats::Stats;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use simt::core::{Dim3, LaunchConfig, MemoryModel, OwnedArg, Part};
use std::sync::Arc;
use std::time::Instant;

/// Compiles the one kernel of `text`, written as inside `simt_kernel!` (its
/// signature included). Raises `CompileError` with the rendered diagnostics.
#[pyfunction]
pub fn compile(py: Python<'_>, text: &str) -> PyResult<Kernel> {
    match simt::compile(text) {
        Ok(kernel) => Ok(Kernel {
            kernel: Arc::new(kernel),
        }),
        Err(diagnostics) => Err(compile_error(py, &diagnostics)),
    }
}

/// Compiles the kernels of every `simt_kernel!` invocation in `source`, the
/// Rust source of the file `file`, as the macro would when that file compiles
/// (diagnostics name `file` and its lines). Raises `CompileError`.
#[pyfunction]
#[pyo3(signature = (source, file = "<rust>"))]
pub fn compile_rust(py: Python<'_>, source: &str, file: &str) -> PyResult<Vec<Kernel>> {
    match simt::compile_rust_file(file, source) {
        Ok(kernels) => Ok(kernels
            .into_iter()
            .map(|kernel| Kernel {
                kernel: Arc::new(kernel),
            })
            .collect()),
        Err(diagnostics) => Err(compile_error(py, &diagnostics)),
    }
}

/// A compiled kernel.
#[pyclass(module = "simt", frozen)]
pub struct Kernel {
    kernel: Arc<simt::core::Kernel>,
}

/// `object`, the launch's `what` (grid or block), as a shape: an int or a
/// tuple of up to three ints, each in 0..2**32.
fn shape(what: &str, object: &Bound<'_, PyAny>) -> PyResult<Dim3> {
    let wrong = || {
        PyTypeError::new_err(format!(
            "{what} must be an int or a tuple of up to three ints, each in 0..2**32"
        ))
    };
    if let Ok(x) = object.extract::<u32>() {
        return Ok(x.into());
    }
    let dims: Vec<u32> = object.extract().map_err(|_| wrong())?;
    match dims[..] {
        [x] => Ok(x.into()),
        [x, y] => Ok([x, y].into()),
        [x, y, z] => Ok([x, y, z].into()),
        _ => Err(wrong()),
    }
}

/// The launch's configuration from `launch`'s keyword options: `wave_width`
/// (32), `model` ("reference"), `part` (none), `sanitize` (false) and
/// `threads` (all cores); any other keyword is a `TypeError`.
fn config(grid: Dim3, block: Dim3, options: Option<&Bound<'_, PyDict>>) -> PyResult<LaunchConfig> {
    let mut config = LaunchConfig::new(grid, block);
    let Some(options) = options else {
        return Ok(config);
    };
    for (key, value) in options.iter() {
        let key: String = key.extract()?;
        config = match key.as_str() {
            "wave_width" => config.wave_width(value.extract()?),
            "sanitize" => config.sanitize(value.extract()?),
            "threads" => match value.extract::<Option<usize>>()? {
                Some(n) => config.threads(n),
                None => config,
            },
            "model" | "part" => config,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "launch() got an unexpected keyword argument `{key}`"
                )))
            }
        };
    }
    let model: String = match options.get_item("model")? {
        Some(v) => v.extract()?,
        None => "reference".to_owned(),
    };
    let memory = MemoryModel::preset(&model)
        .ok_or_else(|| PyValueError::new_err(format!("no memory model `{model}`")))?;
    config = config.model(memory);
    if let Some(name) = options.get_item("part")? {
        if let Some(name) = name.extract::<Option<String>>()? {
            let part = Part::preset(&name)
                .ok_or_else(|| PyValueError::new_err(format!("no part `{name}`")))?;
            config = config.model(part.memory.clone()).timing(part);
        }
    }
    Ok(config)
}

#[pymethods]
impl Kernel {
    /// The kernel's name.
    #[getter]
    fn name(&self) -> String {
        self.kernel.program().name.to_string()
    }

    /// Its parameters in order, as `(name, type)` with the type as Rust
    /// spells it (`&[f32]`, `&mut [u32]`, `u32`).
    #[getter]
    fn params(&self) -> Vec<(String, String)> {
        self.kernel
            .program()
            .params
            .iter()
            .map(|p| (p.name.to_string(), p.kind.rust_type()))
            .collect()
    }

    /// Launches the kernel on `grid` workgroups of `block` work-items (each an
    /// int or a tuple of up to three). `args` is a dict by parameter name or a
    /// sequence in parameter order: numpy arrays of the parameter's dtype for
    /// buffers (writable ones are updated in place), numbers for scalars.
    /// `model` names a memory model (`reference`, `nvidia`, `cdna3`, ...);
    /// `part` a part to time the launch on (`h100-sxm`, `mi300x/4`, ...),
    /// whose memory model replaces `model`. The launch runs without the GIL.
    #[pyo3(
        signature = (grid, block, args, **options),
        text_signature = "(self, grid, block, args, *, wave_width=32, model='reference', part=None, sanitize=False, threads=None)"
    )]
    fn launch(
        &self,
        py: Python<'_>,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Stats> {
        let program = self.kernel.program();
        let objects = args::objects(program, args)?;
        let mut values = objects
            .iter()
            .enumerate()
            .map(|(k, o)| args::bind(program, k, o))
            .collect::<PyResult<Vec<_>>>()?;
        let config = config(shape("grid", grid)?, shape("block", block)?, options)?;
        let detailed = simt_report::results::detailed(&config);
        let kernel = Arc::clone(&self.kernel);
        let (result, elapsed) = py.detach(|| {
            let start = Instant::now();
            let result = simt::core::launch(&kernel, &detailed, &mut OwnedArg::lend(&mut values));
            (result, start.elapsed())
        });
        let stats = result.map_err(|e| launch_error(py, &program.name, &e))?;
        args::write_back(&values, &objects)?;
        Ok(Stats::new(
            Arc::clone(&self.kernel),
            &config,
            stats,
            elapsed,
        ))
    }

    fn __repr__(&self) -> String {
        let params: Vec<String> = self
            .params()
            .into_iter()
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        format!("<simt.Kernel {}({})>", self.name(), params.join(", "))
    }
}
