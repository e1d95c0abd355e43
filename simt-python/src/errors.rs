//! The exceptions: a kernel that does not compile, a launch that fails.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyOSError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use simt::Diagnostics;

create_exception!(
    _simt,
    CompileError,
    PyException,
    "A kernel's text did not compile. `str(e)` is the rendered diagnostic, \
     `e.labels` a list of `(line, column, message)`, one per error and note."
);

create_exception!(
    _simt,
    LaunchError,
    PyException,
    "A launch failed. `e.kernel` names the kernel. A fault also sets \
     `e.line`, `e.workgroup`, `e.wave`, `e.lane` and `e.address` (`None` \
     where the fault has none); for other failures (a bad configuration such \
     as an impossible grid, the instruction budget) they are all `None`."
);

/// `diagnostics` as a [`CompileError`].
pub fn compile_error(py: Python<'_>, diagnostics: &Diagnostics) -> PyErr {
    let labels: Vec<(usize, usize, String)> = diagnostics
        .as_errors()
        .into_iter()
        .map(|(place, message)| (place.line, place.column, message))
        .collect();
    let err = CompileError::new_err(diagnostics.render(false));
    let value = err.value(py);
    if let Err(e) = value.setattr("labels", labels) {
        return e;
    }
    err
}

/// PTX that does not lower, as a [`CompileError`] whose labels are PTX
/// places.
pub fn ptx_error(py: Python<'_>, diagnostics: &simt::ptx::Diagnostics) -> PyErr {
    let labels: Vec<(u32, u32, String)> = diagnostics
        .errors
        .iter()
        .map(|e| (e.at.line, e.at.column, e.message.clone()))
        .collect();
    let err = CompileError::new_err(diagnostics.render(false));
    if let Err(e) = err.value(py).setattr("labels", labels) {
        return e;
    }
    err
}

/// A CUDA file that gave no kernels: `FileNotFoundError` without nvcc (the
/// message says how to install it), `OSError` when a file cannot be read or
/// written, else a [`CompileError`] (nvcc's messages, or the PTX's).
pub fn cuda_error(py: Python<'_>, error: &simt::ptx::CudaError) -> PyErr {
    use simt::ptx::CudaError;
    match error {
        CudaError::NoNvcc(_) => PyFileNotFoundError::new_err(error.to_string()),
        CudaError::Io { .. } => PyOSError::new_err(error.to_string()),
        CudaError::Ptx(diagnostics) => ptx_error(py, diagnostics),
        CudaError::Nvcc { .. } => {
            let err = CompileError::new_err(error.to_string());
            let labels: Vec<(u32, u32, String)> = Vec::new();
            if let Err(e) = err.value(py).setattr("labels", labels) {
                return e;
            }
            err
        }
    }
}

/// A failed launch of `kernel` as a [`LaunchError`].
pub fn launch_error(py: Python<'_>, kernel: &str, error: &simt::core::Error) -> PyErr {
    let err = LaunchError::new_err(error.to_string());
    let value = err.value(py);
    let fault = match error {
        simt::core::Error::Fault(fault) => Some(fault),
        _ => None,
    };
    let fields: [(&str, Option<u64>); 4] = [
        ("line", fault.map(|f| u64::from(f.loc.line))),
        ("wave", fault.map(|f| u64::from(f.wave))),
        ("lane", fault.and_then(|f| f.lane.map(u64::from))),
        ("address", fault.and_then(|f| f.address)),
    ];
    let set = || -> PyResult<()> {
        value.setattr("kernel", kernel)?;
        for (name, v) in fields {
            value.setattr(name, v)?;
        }
        let workgroup = fault.map(|f| PyTuple::new(py, f.workgroup)).transpose()?;
        value.setattr("workgroup", workgroup)
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}
