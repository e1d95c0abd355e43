//! A part of the statistics as a Python object: fields as attributes,
//! `to_dict()` for the whole.

use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;
use serde_json::Value;

/// A JSON object of the statistics' schema, read as attributes (`r.name`) or
/// as a whole (`r.to_dict()`).
#[pyclass(module = "simt", frozen)]
pub struct Record {
    value: Value,
}

impl Record {
    pub fn new(value: Value) -> Record {
        Record { value }
    }
}

#[pymethods]
impl Record {
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        match self.value.get(name) {
            Some(v) => to_object(py, v, true),
            None => Err(PyAttributeError::new_err(format!("no field `{name}`"))),
        }
    }

    fn __dir__(&self) -> Vec<String> {
        match &self.value {
            Value::Object(map) => map.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// The record as plain dicts, lists, numbers and strings.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_object(py, &self.value, false)
    }

    fn __repr__(&self) -> String {
        let text = self.value.to_string();
        match text.char_indices().nth(200) {
            Some((cut, _)) => format!("Record({}...)", &text[..cut]),
            None => format!("Record({text})"),
        }
    }
}

/// `value` as Python: objects as [`Record`]s when `records` holds, else as
/// dicts.
pub fn to_object(py: Python<'_>, value: &Value, records: bool) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_py_any(py)?,
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_py_any(py)?,
            (None, Some(i)) => i.into_py_any(py)?,
            _ => n.as_f64().unwrap_or(f64::NAN).into_py_any(py)?,
        },
        Value::String(s) => s.into_py_any(py)?,
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_object(py, item, records)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(map) if records => {
            Py::new(py, Record::new(Value::Object(map.clone())))?.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_object(py, v, records)?)?;
            }
            dict.into_any().unbind()
        }
    })
}
