//! A kernel's launch arguments from the command line: each parameter, by its
//! name in the kernel's signature, gets a value from `--arg`, a buffer from
//! `--buffer` or one generated from the seed.

use crate::npy;
use simt::core::{Arg, ElemType, Param, ParamKind, Program, ScalarType};
use simt_report::SplitMix64;
use std::collections::HashMap;
use std::path::Path;

/// One argument, owned, in the kernel's parameter order.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A buffer's elements, as bytes (little-endian).
    Buffer {
        /// The element type.
        elem: ElemType,
        /// Whether the kernel may write it (`&mut`).
        writable: bool,
        /// The elements.
        bytes: Vec<u8>,
    },
    /// A `u32` scalar.
    U32(u32),
    /// An `i32` scalar.
    I32(i32),
    /// An `f32` scalar.
    F32(f32),
}

/// The launch arguments over `values`.
pub fn launch_args(values: &mut [Value]) -> Vec<Arg<'_>> {
    values
        .iter_mut()
        .map(|v| match v {
            Value::Buffer {
                elem,
                writable: false,
                bytes,
            } => Arg::Buffer { elem: *elem, bytes },
            Value::Buffer {
                elem,
                writable: true,
                bytes,
            } => Arg::BufferMut { elem: *elem, bytes },
            Value::U32(v) => Arg::U32(*v),
            Value::I32(v) => Arg::I32(*v),
            Value::F32(v) => Arg::F32(*v),
        })
        .collect()
}

/// What the command line says for a kernel's parameters.
pub struct Given<'a> {
    /// `--arg NAME=VALUE`, in order.
    pub scalars: &'a [(String, String)],
    /// `--buffer NAME=LEN|FILE`, in order.
    pub buffers: &'a [(String, String)],
    /// The length of a buffer not given a length or a file.
    pub default_len: u64,
    /// The seed of generated buffers.
    pub seed: u64,
}

/// One value per parameter of `program`, in order; the error says which
/// option is wrong and how.
pub fn bind<'g>(program: &Program, given: &Given<'g>) -> Result<Vec<Value>, String> {
    let params = &program.params;
    let signature = || {
        params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.kind.rust_type()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lookup = |option: &str, list: &'g [(String, String)]| {
        let mut found: HashMap<&str, &str> = HashMap::new();
        for (name, value) in list {
            if !params.iter().any(|p| p.name == *name) {
                return Err(format!(
                    "{option} {name}: `{}` has no parameter `{name}`; its parameters are: {}",
                    program.name,
                    signature()
                ));
            }
            if found.insert(name, value).is_some() {
                return Err(format!("{option} {name} is given twice"));
            }
        }
        Ok(found)
    };
    let scalars = lookup("--arg", given.scalars)?;
    let buffers = lookup("--buffer", given.buffers)?;
    params
        .iter()
        .enumerate()
        .map(|(k, p)| match p.kind {
            ParamKind::Scalar(ty) => {
                if buffers.contains_key(p.name.as_ref()) {
                    return Err(format!(
                        "--buffer {0}: `{0}` is a scalar ({1}); give it with --arg {0}=VALUE",
                        p.name,
                        ty.name()
                    ));
                }
                let value = scalars.get(p.name.as_ref()).ok_or_else(|| {
                    format!(
                        "`{}` needs a value for its scalar `{}` ({}): give it with --arg {1}=VALUE",
                        program.name,
                        p.name,
                        ty.name()
                    )
                })?;
                scalar(p, ty, value)
            }
            ParamKind::Buffer { elem, writable } => {
                if scalars.contains_key(p.name.as_ref()) {
                    return Err(format!(
                        "--arg {0}: `{0}` is a buffer ({1}); give it with --buffer {0}=LEN|FILE",
                        p.name,
                        p.kind.rust_type()
                    ));
                }
                let seed = given.seed.wrapping_add(k as u64);
                let bytes = match buffers.get(p.name.as_ref()) {
                    None => generated(p, elem, given.default_len, seed)?,
                    Some(value) => match value.parse::<u64>() {
                        Ok(len) => generated(p, elem, len, seed)?,
                        Err(_) => read(p, elem, Path::new(value))?,
                    },
                };
                Ok(Value::Buffer {
                    elem,
                    writable,
                    bytes,
                })
            }
        })
        .collect()
}

/// The scalar `value` of parameter `p`, of type `ty`.
fn scalar(p: &Param, ty: ScalarType, value: &str) -> Result<Value, String> {
    let hex = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"));
    let bits = || match hex {
        Some(digits) => u32::from_str_radix(digits, 16).ok(),
        None => None,
    };
    let parsed = match ty {
        ScalarType::U32 => bits().or_else(|| value.parse().ok()).map(Value::U32),
        // Hex gives the bits, as in kernel text: 0xffffffff is -1.
        ScalarType::I32 => bits()
            .map(|b| b as i32)
            .or_else(|| value.parse().ok())
            .map(Value::I32),
        ScalarType::F32 => value.parse().ok().map(Value::F32),
    };
    parsed.ok_or_else(|| {
        let expected = match ty {
            ScalarType::U32 => "an integer in 0..=4294967295, in decimal or 0x hex",
            ScalarType::I32 => "an integer in -2147483648..=2147483647, in decimal or 0x hex",
            ScalarType::F32 => "a number such as 2.5, -1e-3, inf or NaN",
        };
        format!(
            "--arg {0}={value}: `{0}` is {1} {2}, and `{value}` is not one; expected {expected}",
            p.name,
            if ty == ScalarType::U32 { "a" } else { "an" },
            ty.name()
        )
    })
}

/// `len` elements from SplitMix64(`seed`): integers uniform in 0..=99 (which
/// every element type holds), floats uniform in [-1, 1).
fn generated(p: &Param, elem: ElemType, len: u64, seed: u64) -> Result<Vec<u8>, String> {
    let size = elem.size() as usize;
    let mut bytes = Vec::new();
    usize::try_from(len)
        .ok()
        .and_then(|len| len.checked_mul(size))
        .and_then(|total| bytes.try_reserve_exact(total).ok())
        .ok_or_else(|| {
            format!(
                "buffer `{}` of {len} elements does not fit in memory; give a shorter one with --buffer {0}=LEN",
                p.name
            )
        })?;
    let mut rng = SplitMix64::new(seed);
    for _ in 0..len {
        match elem {
            ElemType::F32 => bytes.extend_from_slice(&rng.f32_in(-1.0, 1.0).to_le_bytes()),
            _ => bytes.extend_from_slice(&rng.i32_in(0, 99).to_le_bytes()[..size]),
        }
    }
    Ok(bytes)
}

/// Buffer `p`'s elements from the file at `path`: `.npy`, or else raw.
fn read(p: &Param, elem: ElemType, path: &Path) -> Result<Vec<u8>, String> {
    let in_buffer = |e: String| format!("--buffer {}: {e}", p.name);
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
    {
        return npy::read(path, elem).map_err(in_buffer);
    }
    let bytes = std::fs::read(path)
        .map_err(|e| in_buffer(format!("cannot read {}: {e}", path.display())))?;
    if bytes.len() % elem.size() as usize != 0 {
        return Err(in_buffer(format!(
            "{} holds {} bytes, not a whole number of {}-byte {} elements",
            path.display(),
            bytes.len(),
            elem.size(),
            elem.name()
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_integers_stay_in_range_and_fill_every_byte() {
        let p = Param {
            name: "x".into(),
            kind: ParamKind::Buffer {
                elem: ElemType::I16,
                writable: false,
            },
        };
        let bytes = generated(&p, ElemType::I16, 1000, 7).unwrap();
        assert_eq!(bytes.len(), 2000);
        let values: Vec<i16> = bytes
            .chunks_exact(2)
            .map(bytemuck::pod_read_unaligned)
            .collect();
        assert!(values.iter().all(|v| (0..=99).contains(v)));
        // Not all alike: the seed's stream is used.
        assert!(values.iter().any(|&v| v != values[0]));
        let huge = generated(&p, ElemType::I16, u64::MAX, 7).unwrap_err();
        assert!(huge.contains("does not fit in memory"), "{huge}");
    }

    #[test]
    fn hex_gives_the_bits() {
        let p = Param {
            name: "n".into(),
            kind: ParamKind::Scalar(ScalarType::I32),
        };
        assert_eq!(
            scalar(&p, ScalarType::I32, "0xffffffff"),
            Ok(Value::I32(-1))
        );
        assert_eq!(scalar(&p, ScalarType::U32, "0x10"), Ok(Value::U32(16)));
        assert_eq!(scalar(&p, ScalarType::U32, "17"), Ok(Value::U32(17)));
        assert!(scalar(&p, ScalarType::U32, "-1").is_err());
    }
}
