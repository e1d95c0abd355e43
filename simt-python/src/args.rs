//! A launch's arguments from Python: numpy arrays for buffers, numbers for
//! scalars, each checked against its parameter.
//!
//! Buffers are copied in before the launch and writable ones copied back
//! after it, so that the launch itself runs without the GIL and without
//! borrowing Python's memory.

use numpy::{PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyMapping;
use simt::core::{ElemType, OwnedArg, ParamKind, Program, ScalarType};

/// Runs `$body` with `$t` the Rust type of element type `$elem` (bf16 as its
/// bits, `u16`: numpy has no bfloat16).
macro_rules! with_elem {
    ($elem:expr, $t:ident => $body:expr) => {
        match $elem {
            ElemType::U8 => {
                type $t = u8;
                $body
            }
            ElemType::I8 => {
                type $t = i8;
                $body
            }
            ElemType::U16 | ElemType::BF16 => {
                type $t = u16;
                $body
            }
            ElemType::I16 => {
                type $t = i16;
                $body
            }
            ElemType::U32 => {
                type $t = u32;
                $body
            }
            ElemType::I32 => {
                type $t = i32;
                $body
            }
            ElemType::F32 => {
                type $t = f32;
                $body
            }
            ElemType::F16 => {
                type $t = half::f16;
                $body
            }
            ElemType::U64 => {
                type $t = u64;
                $body
            }
            ElemType::I64 => {
                type $t = i64;
                $body
            }
            ElemType::F64 => {
                type $t = f64;
                $body
            }
        }
    };
}

/// The objects `args` gives for `program`'s parameters, in their order: a
/// dict by name or a sequence in parameter order.
pub fn objects<'py>(
    program: &Program,
    args: &Bound<'py, PyAny>,
    doubles: &[String],
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let names: Vec<&str> = program.host_params().iter().map(|p| &*p.name).collect();
    if let Ok(dict) = args.cast::<PyMapping>() {
        for key in dict.keys()?.iter() {
            let key: String = key.extract()?;
            if !names.contains(&key.as_str()) {
                return Err(PyTypeError::new_err(format!(
                    "`{}` has no parameter `{key}`; its parameters are {}",
                    program.name,
                    names.join(", ")
                )));
            }
        }
        let py = args.py();
        let scalar = |n: &str| {
            program
                .host_params()
                .iter()
                .any(|p| p.name == n && matches!(p.kind, ParamKind::Scalar(_)))
        };
        names
            .iter()
            .map(|name| {
                // A 64-bit scalar given whole (`NAME` without `NAME.hi`, as
                // a PTX kernel's are lowered) gives both its words.
                let hi = format!("{name}.hi");
                let low = name.strip_suffix(".hi").filter(|low| scalar(low));
                if scalar(name) && scalar(&hi) && dict.contains(name)? && !dict.contains(&hi)? {
                    let double = doubles.iter().any(|d| d == name);
                    let (lo, _) = words(name, &dict.get_item(name)?, double)?;
                    Ok(lo.into_pyobject(py)?.into_any())
                } else if dict.contains(name)? {
                    dict.get_item(name)
                } else if let Some(low) = low.filter(|low| dict.contains(low).unwrap_or(false)) {
                    let double = doubles.iter().any(|d| d == low);
                    let (_, hi) = words(low, &dict.get_item(low)?, double)?;
                    Ok(hi.into_pyobject(py)?.into_any())
                } else {
                    Err(PyTypeError::new_err(format!(
                        "missing argument `{name}` of `{}`",
                        program.name
                    )))
                }
            })
            .collect()
    } else {
        let given: Vec<Bound<'py, PyAny>> = args.try_iter()?.collect::<PyResult<_>>()?;
        if given.len() != names.len() {
            return Err(PyTypeError::new_err(format!(
                "`{}` takes {} arguments ({}), {} given",
                program.name,
                names.len(),
                names.join(", "),
                given.len()
            )));
        }
        Ok(given)
    }
}

/// The low and high words of `object`, the whole value of the 64-bit scalar
/// `name`: for a `double` a number (its bits as a float), else an int in
/// -2**63..2**64 (a negative one as two's complement).
fn words(name: &str, object: &Bound<'_, PyAny>, double: bool) -> PyResult<(u32, u32)> {
    let v = if double {
        object.extract::<f64>().map(f64::to_bits).map_err(|_| {
            PyTypeError::new_err(format!(
                "argument `{name}` is a double (the words `{name}` and `{name}.hi`): it must be a number, got {}",
                type_name(object)
            ))
        })?
    } else {
        object
            .extract::<u64>()
            .or_else(|_| object.extract::<i64>().map(|v| v as u64))
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "argument `{name}` is a 64-bit integer (the words `{name}` and `{name}.hi`): it must be an int in -2**63..2**64, got {}",
                    type_name(object)
                ))
            })?
    };
    Ok((v as u32, (v >> 32) as u32))
}

/// `object` as the argument of `program`'s parameter `k`.
pub fn bind(program: &Program, k: usize, object: &Bound<'_, PyAny>) -> PyResult<OwnedArg> {
    let param = &program.host_params()[k];
    let name = &param.name;
    match param.kind {
        ParamKind::Buffer { elem, writable } => {
            let array = object.cast::<PyUntypedArray>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "argument `{name}` must be a numpy array of {}, got {}",
                    simt_report::sweep::numpy_name(elem),
                    type_name(object)
                ))
            })?;
            if !array.is_c_contiguous() {
                return Err(PyValueError::new_err(format!(
                    "argument `{name}` must be a C-contiguous array \
                     (numpy.ascontiguousarray makes one)"
                )));
            }
            let want = simt_report::sweep::numpy_name(elem);
            let got = array.dtype().to_string();
            if got != want {
                return Err(PyTypeError::new_err(format!(
                    "argument `{name}` must have dtype {want}, got {got}"
                )));
            }
            let bytes = with_elem!(elem, T => read::<T>(object, name, writable))?;
            Ok(OwnedArg::Buffer {
                elem,
                writable,
                bytes,
            })
        }
        ParamKind::Scalar(t) => {
            let wrong = |what: &str| {
                PyTypeError::new_err(format!(
                    "argument `{name}` must be {what}, got {}",
                    type_name(object)
                ))
            };
            match t {
                ScalarType::U32 => object
                    .extract::<u32>()
                    .map(OwnedArg::U32)
                    .map_err(|_| wrong("an int in 0..2**32")),
                ScalarType::I32 => object
                    .extract::<i32>()
                    .map(OwnedArg::I32)
                    .map_err(|_| wrong("an int in -2**31..2**31")),
                // Any number with `__float__` (int, float, numpy scalars),
                // not a string.
                ScalarType::F32 => object
                    .extract::<f64>()
                    .map(|v| OwnedArg::F32(v as f32))
                    .map_err(|_| wrong("a float")),
            }
        }
    }
}

/// The bytes of `object`, a numpy array of `T`, checked writable when
/// `writable` holds.
fn read<T>(object: &Bound<'_, PyAny>, name: &str, writable: bool) -> PyResult<Vec<u8>>
where
    T: numpy::Element + bytemuck::Pod,
{
    let array = object.cast::<PyArrayDyn<T>>()?;
    if writable {
        let array = array.try_readwrite().map_err(|e| {
            PyValueError::new_err(format!(
                "argument `{name}` is a writable buffer: pass a writable array ({e})"
            ))
        })?;
        Ok(bytemuck::cast_slice::<T, u8>(contiguous(array.as_slice(), name)?).to_vec())
    } else {
        let array = array
            .try_readonly()
            .map_err(|e| PyValueError::new_err(format!("argument `{name}`: {e}")))?;
        Ok(bytemuck::cast_slice::<T, u8>(contiguous(array.as_slice(), name)?).to_vec())
    }
}

fn contiguous<'a, T>(slice: Result<&'a [T], numpy::AsSliceError>, name: &str) -> PyResult<&'a [T]> {
    slice.map_err(|_| {
        PyValueError::new_err(format!(
            "argument `{name}` must be a contiguous array (numpy.ascontiguousarray makes one)"
        ))
    })
}

/// Copies the launch's results into the writable arrays among `objects`.
pub fn write_back(values: &[OwnedArg], objects: &[Bound<'_, PyAny>]) -> PyResult<()> {
    for (value, object) in values.iter().zip(objects) {
        if let OwnedArg::Buffer {
            elem,
            writable: true,
            bytes,
        } = value
        {
            with_elem!(*elem, T => {
                let array = object.cast::<PyArrayDyn<T>>()?;
                let mut array = array
                    .try_readwrite()
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                let slice = array
                    .as_slice_mut()
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                let slice = bytemuck::cast_slice_mut::<T, u8>(slice);
                if slice.len() != bytes.len() {
                    return Err(PyValueError::new_err(
                        "a writable array changed size during the launch",
                    ));
                }
                slice.copy_from_slice(bytes);
            });
        }
    }
    Ok(())
}

fn type_name(object: &Bound<'_, PyAny>) -> String {
    object
        .get_type()
        .name()
        .map_or_else(|_| "an object".to_owned(), |n| n.to_string())
}
