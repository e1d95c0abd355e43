//! simt from Python: `simt.compile(text)` gives a kernel (`compile_ptx` and
//! `compile_cuda` the kernels of nvcc's PTX), `kernel.launch(...)`
//! runs it on numpy arrays and returns its statistics, in the schema of the
//! `simt` command's JSON.

mod args;
mod errors;
mod kernel;
mod record;
mod stats;

use pyo3::prelude::*;

/// The extension module, `simt._simt`; `simt/__init__.py` re-exports it.
#[pymodule]
fn _simt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(kernel::compile, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::compile_rust, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::compile_ptx, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::compile_cuda, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::find_nvcc, m)?)?;
    m.add_class::<kernel::Kernel>()?;
    m.add_class::<stats::Stats>()?;
    m.add_class::<record::Record>()?;
    m.add("CompileError", py.get_type::<errors::CompileError>())?;
    m.add("LaunchError", py.get_type::<errors::LaunchError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("LAUNCH_OPTIONS", simt_report::sweep::LAUNCH_OPTIONS)?;
    Ok(())
}
