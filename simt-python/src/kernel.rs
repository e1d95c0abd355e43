//! `simt.compile` and the kernel it returns.

use crate::args;
use crate::errors::{compile_error, cuda_error, launch_error, ptx_error};
use crate::stats::Stats;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use simt::core::{Dim3, LaunchConfig, MemoryModel, OwnedArg, Part};
use simt::ptx::PtxModule;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Compiles the one kernel of `text`, written as inside `simt_kernel!` (its
/// signature included). Raises `CompileError` with the rendered diagnostics.
#[pyfunction]
pub fn compile(py: Python<'_>, text: &str) -> PyResult<Kernel> {
    match simt::compile(text) {
        Ok(kernel) => Ok(Kernel::new(kernel)),
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
        Ok(kernels) => Ok(kernels.into_iter().map(Kernel::new).collect()),
        Err(diagnostics) => Err(compile_error(py, &diagnostics)),
    }
}

/// Compiles every kernel of the PTX text `text` (as nvcc writes it; `file`
/// names it in messages and, without `-lineinfo`, in listings), in `.entry`
/// order. `shared_bytes` sizes `extern __shared__` memory. Raises
/// `CompileError`.
#[pyfunction]
#[pyo3(signature = (text, file = "<ptx>", shared_bytes = 0))]
pub fn compile_ptx(
    py: Python<'_>,
    text: &str,
    file: &str,
    shared_bytes: u32,
) -> PyResult<Vec<Kernel>> {
    let options = simt::ptx::Options {
        dynamic_shared_bytes: shared_bytes,
        ..Default::default()
    };
    let module = simt::compile_ptx_with(file, text, &options).map_err(|d| ptx_error(py, &d))?;
    // The file's folder is where a relative `.file` of `-lineinfo` is
    // looked for, after the current folder.
    let beside = Path::new(file).parent();
    Ok(kernels_of(module, |cuda_file| match cuda_file {
        Some(cu) => simt::ptx::read_cuda_source(cu, beside).map(|(_, text)| text),
        None => Some(text.to_owned()),
    }))
}

/// Compiles every kernel of a CUDA file through nvcc's PTX, as `simt run
/// FILE.cu` does: `source` is a path (a `str` naming a file, or an
/// `os.PathLike`) or CUDA source text. Raises `FileNotFoundError` when no
/// nvcc is found (saying how to install one), `CompileError` when nvcc or
/// the PTX lowering fails.
#[pyfunction]
#[pyo3(signature = (source, shared_bytes = 0))]
pub fn compile_cuda(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    shared_bytes: u32,
) -> PyResult<Vec<Kernel>> {
    let options = simt::ptx::Options {
        dynamic_shared_bytes: shared_bytes,
        ..Default::default()
    };
    // Text that names a file is a path; other text is the source, unless it
    // reads as a path to a `.cu` file that is not there.
    let path = match source.extract::<String>() {
        Ok(t) if Path::new(&t).is_file() => PathBuf::from(t),
        Ok(t) if !t.contains('\n') && t.trim_end().ends_with(".cu") => {
            return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
                "no CUDA file `{t}`"
            )))
        }
        Ok(text) => {
            let module = py
                .detach(|| simt::ptx::compile_cuda_source("kernels.cu", &text, &options))
                .map_err(|e| cuda_error(py, &e))?;
            // nvcc read the text from a file gone by now: the lines of
            // kernels.cu are the text's own.
            return Ok(kernels_of(module, |cuda_file| {
                cuda_file
                    .filter(|cu| Path::new(cu).file_name() == Some("kernels.cu".as_ref()))
                    .map(|_| text.clone())
            }));
        }
        Err(_) => source.extract::<PathBuf>().map_err(|_| {
            PyTypeError::new_err("compile_cuda takes CUDA source text or a path to a .cu file")
        })?,
    };
    let module = py
        .detach(|| simt::compile_cuda(&path, &options))
        .map_err(|e| cuda_error(py, &e))?;
    let beside = path.parent().map(Path::to_path_buf);
    Ok(kernels_of(module, |cuda_file| {
        let cu = cuda_file?;
        simt::ptx::read_cuda_source(cu, beside.as_deref()).map(|(_, text)| text)
    }))
}

/// The nvcc `compile_cuda` runs (`SIMT_NVCC`, else `nvcc` on `PATH`, else
/// the one NVIDIA's PyPI packages install), or `None` when there is none.
#[pyfunction]
pub fn find_nvcc() -> Option<String> {
    simt::ptx::find_nvcc().ok().map(|p| p.display().to_string())
}

/// The kernels of `module`, each with the text its lines number, which
/// `source` gives from its kernel's CUDA file (`None` without `-lineinfo`).
fn kernels_of(module: PtxModule, source: impl Fn(Option<&str>) -> Option<String>) -> Vec<Kernel> {
    module
        .kernels
        .into_iter()
        .map(|k| {
            let text = source(k.cuda_file.as_deref());
            Kernel {
                kernel: Arc::new(k.kernel),
                ptx_names: Some((k.demangled, k.mangled)),
                source: text.map(Arc::from),
                doubles: k.doubles,
            }
        })
        .collect()
}

/// A compiled kernel.
#[pyclass(module = "simt", frozen)]
pub struct Kernel {
    kernel: Arc<simt::core::Kernel>,
    /// A PTX kernel's full demangled name and its name in the PTX.
    ptx_names: Option<(String, String)>,
    /// The text a PTX kernel's lines number, shown in its listing.
    source: Option<Arc<str>>,
    /// A PTX kernel's 64-bit scalars that are doubles, whose value is a
    /// float.
    doubles: Vec<String>,
}

impl Kernel {
    fn new(kernel: simt::core::Kernel) -> Kernel {
        Kernel {
            kernel: Arc::new(kernel),
            ptx_names: None,
            source: None,
            doubles: Vec::new(),
        }
    }
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

    /// A PTX kernel's full demangled name (`saxpy(int, float, float const*,
    /// float*)`); `None` for a kernel of simt's language.
    #[getter]
    fn demangled(&self) -> Option<String> {
        self.ptx_names.as_ref().map(|(d, _)| d.clone())
    }

    /// A PTX kernel's name in the PTX (`_Z5saxpyifPKfPf`); `None` for a
    /// kernel of simt's language.
    #[getter]
    fn mangled(&self) -> Option<String> {
        self.ptx_names.as_ref().map(|(_, m)| m.clone())
    }

    /// Its parameters in order, as `(name, type)` with the type as Rust
    /// spells it (`&[f32]`, `&mut [u32]`, `u32`).
    #[getter]
    fn params(&self) -> Vec<(String, String)> {
        self.kernel
            .program()
            .host_params()
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
        let objects = args::objects(program, args, &self.doubles)?;
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
            self.source.as_deref(),
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
