//! The exceptions: a kernel that does not compile, a launch that fails.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
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
