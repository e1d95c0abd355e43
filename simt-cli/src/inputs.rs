//! A kernel's launch arguments from the command line: each parameter, by its
//! name in the kernel's signature, gets a value from `--arg`, a buffer from
//! `--buffer` or one generated from the seed.

use crate::npy;
use simt::core::{ElemType, OwnedArg, Param, ParamKind, Program, ScalarType};
use simt_report::SplitMix64;
use std::collections::HashMap;
use std::path::Path;

/// The arguments the command line gives, in the kernel's parameter order.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// One per parameter.
    pub values: Vec<OwnedArg>,
    /// Per parameter, whether its buffer was read from a file (else made
    /// from `--buffer`'s fill or the seed, and worth writing out beside the
    /// outputs).
    pub from_file: Vec<bool>,
}

/// What the command line says for a kernel's parameters.
pub struct Given<'a> {
    /// `--arg NAME=VALUE`, in order.
    pub scalars: &'a [(String, String)],
    /// `--buffer NAME=SPEC` (a length, a fill or a file), in order.
    pub buffers: &'a [(String, String)],
    /// The length of a buffer not given a length or a file.
    pub default_len: u64,
    /// The seed of generated buffers.
    pub seed: u64,
    /// The 64-bit scalars (`NAME` and `NAME.hi`) that are doubles, whose
    /// value given whole is a float (a PTX kernel's `.f64` parameters).
    pub doubles: &'a [String],
}

/// One value per parameter of `program`, in order; the error says which
/// option is wrong and how.
pub fn bind(program: &Program, given: &Given<'_>) -> Result<Inputs, String> {
    let params = program.host_params();
    let signature = || {
        params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.kind.rust_type()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lookup = |option: &str, list: &[(String, String)]| {
        let mut found: HashMap<String, String> = HashMap::new();
        for (name, value) in list {
            if !params.iter().any(|p| p.name == *name) {
                return Err(format!(
                    "{option} {name}: `{}` has no parameter `{name}`; its parameters are: {}",
                    program.name,
                    signature()
                ));
            }
            if found.insert(name.clone(), value.clone()).is_some() {
                return Err(format!("{option} {name} is given twice"));
            }
        }
        Ok(found)
    };
    let scalars = lookup("--arg", &split_wide(program, given.scalars, given.doubles)?)?;
    let buffers = lookup("--buffer", given.buffers)?;
    let bound: Vec<(OwnedArg, bool)> = params
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
                Ok((scalar(p, ty, value)?, false))
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
                let spec = buffers.get(p.name.as_ref()).map(String::as_str);
                let (bytes, from_file) = match Fill::parse(spec, given.default_len) {
                    Some(Ok(fill)) => {
                        let bytes = filled(p, elem, &fill, seed).map_err(|e| match spec {
                            Some(spec) => format!("--buffer {}={spec}: {e}", p.name),
                            None => e,
                        })?;
                        (bytes, false)
                    }
                    Some(Err(message)) => {
                        return Err(format!(
                            "--buffer {}={}: {message}",
                            p.name,
                            spec.unwrap_or("")
                        ))
                    }
                    None => (read(p, elem, Path::new(spec.unwrap_or("")))?, true),
                };
                let buffer = OwnedArg::Buffer {
                    elem,
                    writable,
                    bytes,
                };
                Ok((buffer, from_file))
            }
        })
        .collect::<Result<_, String>>()?;
    let (values, from_file) = bound.into_iter().unzip();
    Ok(Inputs { values, from_file })
}

/// The error [`bind`] gives for `scalars` (`--arg`) and for the `buffers`
/// (`--buffer`) that name no buffer parameter, if any, without making a
/// buffer: what a sweep checks of every point before its first launch.
pub fn check_scalars(
    program: &Program,
    scalars: &[(String, String)],
    buffers: &[(String, String)],
    doubles: &[String],
) -> Result<(), String> {
    let is_buffer = |name: &str| {
        let param = program.host_params().iter().find(|p| p.name == name);
        param.is_some_and(|p| matches!(p.kind, ParamKind::Buffer { .. }))
    };
    let misnamed: Vec<(String, String)> = buffers
        .iter()
        .filter(|(name, _)| !is_buffer(name))
        .cloned()
        .collect();
    let given = Given {
        scalars,
        buffers: &misnamed,
        default_len: 0,
        seed: 0,
        doubles,
    };
    bind(program, &given).map(drop)
}

/// Whether `program` takes its scalar `name` as the low word of a 64-bit
/// value whose high word is `NAME.hi` (how a PTX kernel's 64-bit scalars
/// are lowered).
pub fn is_wide(program: &Program, name: &str) -> bool {
    let scalar = |n: &str| {
        program
            .host_params()
            .iter()
            .any(|p| p.name == n && matches!(p.kind, ParamKind::Scalar(_)))
    };
    scalar(name) && scalar(&format!("{name}.hi"))
}

/// Whether `scalars` give the 64-bit scalar `name` whole: the kernel takes
/// `NAME` and `NAME.hi`, and `NAME.hi` is not given on its own.
pub fn given_whole(program: &Program, scalars: &[(String, String)], name: &str) -> bool {
    let hi = format!("{name}.hi");
    is_wide(program, name) && !scalars.iter().any(|(n, _)| *n == hi)
}

/// A 64-bit integer as `--arg` writes it: decimal (negative ones as two's
/// complement) or 0x hex; `None` for anything else.
pub fn wide_value(text: &str) -> Option<i128> {
    let v = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => i128::from(u64::from_str_radix(hex, 16).ok()?),
        None => text.parse::<i128>().ok()?,
    };
    (i128::from(i64::MIN)..=i128::from(u64::MAX))
        .contains(&v)
        .then_some(v)
}

/// The value of a `double` given whole: any number `f64` parses (`2`,
/// `0.5`, `1e-3`, `inf`, `nan`).
pub fn double_value(text: &str) -> Option<f64> {
    text.parse::<f64>().ok()
}

/// `scalars` with each 64-bit one given whole (`NAME=V` where the kernel
/// takes `NAME` and `NAME.hi`, and `NAME.hi` is not given) as its two words:
/// an integer's, or for one of `doubles` a float's bits.
fn split_wide(
    program: &Program,
    scalars: &[(String, String)],
    doubles: &[String],
) -> Result<Vec<(String, String)>, String> {
    let mut words = Vec::with_capacity(scalars.len());
    for (name, value) in scalars {
        if !given_whole(program, scalars, name) {
            words.push((name.clone(), value.clone()));
            continue;
        }
        let hi = format!("{name}.hi");
        let bits = if doubles.contains(name) {
            double_value(value).map(f64::to_bits).ok_or_else(|| {
                format!(
                    "--arg {name}={value}: `{name}` is a double (the words `{name}` and `{hi}`), and `{value}` is not a number"
                )
            })?
        } else {
            wide_value(value).map(|v| v as u64).ok_or_else(|| {
                format!(
                    "--arg {name}={value}: `{name}` is a 64-bit integer (the words `{name}` and `{hi}`), and `{value}` is not one; expected an integer in -2^63..2^64, in decimal or 0x hex"
                )
            })?
        };
        words.push((name.clone(), (bits as u32).to_string()));
        words.push((hi, ((bits >> 32) as u32).to_string()));
    }
    Ok(words)
}

/// The scalar `value` of parameter `p`, of type `ty`.
fn scalar(p: &Param, ty: ScalarType, value: &str) -> Result<OwnedArg, String> {
    let hex = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"));
    let bits = || match hex {
        Some(digits) => u32::from_str_radix(digits, 16).ok(),
        None => None,
    };
    let parsed = match ty {
        ScalarType::U32 => bits().or_else(|| value.parse().ok()).map(OwnedArg::U32),
        // Hex gives the bits, as in kernel text: 0xffffffff is -1.
        ScalarType::I32 => bits()
            .map(|b| b as i32)
            .or_else(|| value.parse().ok())
            .map(OwnedArg::I32),
        ScalarType::F32 => value.parse().ok().map(OwnedArg::F32),
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

/// How `--buffer` fills a buffer that is not read from a file.
#[derive(Clone, Debug, PartialEq)]
enum Fill {
    /// `LEN`: elements from the seed.
    Seeded(u64),
    /// `zeros[:LEN]`.
    Zeros(u64),
    /// `fill:V[:LEN]`: every element `V`, as the element type reads it.
    Value(String, u64),
    /// `iota[:LEN]`: element `k` is `k` (wrapping at the type's width).
    Iota(u64),
}

impl Fill {
    /// The fill `spec` says (`None`: the default, seeded at `default_len`),
    /// or `None` when `spec` names a file; the error says what is malformed.
    fn parse(spec: Option<&str>, default_len: u64) -> Option<Result<Fill, String>> {
        let Some(spec) = spec else {
            return Some(Ok(Fill::Seeded(default_len)));
        };
        if let Ok(len) = spec.parse::<u64>() {
            return Some(Ok(Fill::Seeded(len)));
        }
        let mut parts = spec.split(':');
        let kind = parts.next()?;
        if !matches!(kind, "zeros" | "fill" | "iota") {
            return None;
        }
        let rest: Vec<&str> = parts.collect();
        let len = |text: Option<&&str>| match text {
            None => Ok(default_len),
            Some(t) => t
                .parse::<u64>()
                .map_err(|_| format!("expected a length, found `{t}`")),
        };
        Some(match (kind, &rest[..]) {
            ("zeros", [] | [_]) => len(rest.first()).map(Fill::Zeros),
            ("iota", [] | [_]) => len(rest.first()).map(Fill::Iota),
            ("fill", [value] | [value, _]) => {
                len(rest.get(1)).map(|n| Fill::Value((*value).to_owned(), n))
            }
            _ => {
                Err("expected LEN, zeros[:LEN], fill:VALUE[:LEN], iota[:LEN] or a file".to_owned())
            }
        })
    }

    fn len(&self) -> u64 {
        match self {
            Fill::Seeded(n) | Fill::Zeros(n) | Fill::Value(_, n) | Fill::Iota(n) => *n,
        }
    }
}

/// Buffer `p`'s elements as `fill` says (`seed` for a seeded one).
fn filled(p: &Param, elem: ElemType, fill: &Fill, seed: u64) -> Result<Vec<u8>, String> {
    let size = elem.size() as usize;
    let len = fill.len();
    let value = match fill {
        Fill::Seeded(_) => return generated(p, elem, len, seed),
        Fill::Value(v, _) => Some(element(p, elem, v)?),
        _ => None,
    };
    let mut bytes = reserve(p, len, size)?;
    match fill {
        Fill::Seeded(_) => {}
        // `reserve` checked that the product fits.
        Fill::Zeros(_) => bytes.resize(len as usize * size, 0),
        Fill::Value(..) => {
            let one = value.unwrap_or_default();
            for _ in 0..len {
                bytes.extend_from_slice(&one);
            }
        }
        Fill::Iota(_) => {
            for k in 0..len {
                match elem {
                    ElemType::F32 => bytes.extend_from_slice(&(k as f32).to_le_bytes()),
                    ElemType::F64 => bytes.extend_from_slice(&(k as f64).to_le_bytes()),
                    ElemType::F16 | ElemType::BF16 => {
                        bytes.extend_from_slice(&half_bits(elem, k as f32))
                    }
                    _ => bytes.extend_from_slice(&k.to_le_bytes()[..size]),
                }
            }
        }
    }
    Ok(bytes)
}

/// Room for `len` elements of `size` bytes, or the error for a buffer too
/// large to hold.
fn reserve(p: &Param, len: u64, size: usize) -> Result<Vec<u8>, String> {
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
    Ok(bytes)
}

/// One element `text` of type `elem`, as little-endian bytes: an integer in
/// the type's range (decimal, or 0x hex for its bits) or an `f32`.
fn element(p: &Param, elem: ElemType, text: &str) -> Result<Vec<u8>, String> {
    let size = elem.size() as usize;
    if elem == ElemType::F64 {
        return text
            .parse::<f64>()
            .map(|v| v.to_le_bytes().to_vec())
            .map_err(|_| format!("`{}` holds f64, and `{text}` is not a number", p.name));
    }
    if matches!(elem, ElemType::F32 | ElemType::F16 | ElemType::BF16) {
        return text
            .parse::<f32>()
            .map(|v| match elem {
                ElemType::F32 => v.to_le_bytes().to_vec(),
                _ => half_bits(elem, v).to_vec(),
            })
            .map_err(|_| {
                format!(
                    "`{}` holds {}, and `{text}` is not a number",
                    p.name,
                    elem.name()
                )
            });
    }
    let bits = u64::from(elem.size()) * 8;
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16)
            .ok()
            .filter(|v| bits == 64 || *v >> bits == 0)
            .map(i128::from),
        None => text.parse::<i128>().ok().filter(|v| {
            let signed = matches!(
                elem,
                ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64
            );
            let (lo, hi) = if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            (lo..=hi).contains(v)
        }),
    };
    parsed
        .map(|v| v.to_le_bytes()[..size].to_vec())
        .ok_or_else(|| {
            format!(
                "`{}` holds {}, and `{text}` is not one",
                p.name,
                elem.name()
            )
        })
}

/// `len` elements from SplitMix64(`seed`): integers uniform in 0..=99 (which
/// every element type holds), floats uniform in [-1, 1).
fn generated(p: &Param, elem: ElemType, len: u64, seed: u64) -> Result<Vec<u8>, String> {
    let size = elem.size() as usize;
    let mut bytes = reserve(p, len, size)?;
    let mut rng = SplitMix64::new(seed);
    for _ in 0..len {
        match elem {
            ElemType::F32 => bytes.extend_from_slice(&rng.f32_in(-1.0, 1.0).to_le_bytes()),
            // The same values as an f32 buffer's, exactly.
            ElemType::F64 => {
                bytes.extend_from_slice(&f64::from(rng.f32_in(-1.0, 1.0)).to_le_bytes())
            }
            ElemType::F16 | ElemType::BF16 => {
                bytes.extend_from_slice(&half_bits(elem, rng.f32_in(-1.0, 1.0)))
            }
            _ => bytes.extend_from_slice(&i64::from(rng.i32_in(0, 99)).to_le_bytes()[..size]),
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
    // A buffer holds at most 4 GiB: its elements are indexed in 32 bits.
    let bytes = simt_front::read_bounded(path, 1 << 32)
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

/// Which elements of a buffer `--print` shows: `NAME`, `NAME[a..b]`,
/// `NAME[a..]`, `NAME[..b]` or `NAME[k]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// The buffer parameter's name.
    pub name: String,
    /// The first element shown.
    pub start: u64,
    /// Past the last element shown (`None`: to the end, at most
    /// [`Slice::UNBOUNDED_MAX`] elements).
    pub end: Option<u64>,
}

impl Slice {
    /// How many elements a slice without an end shows at most.
    pub const UNBOUNDED_MAX: u64 = 64;

    /// Reads `NAME[a..b]` and its shorter forms.
    pub fn parse(text: &str) -> Result<Slice, String> {
        let usage = || {
            format!("expected NAME, NAME[a..b], NAME[a..], NAME[..b] or NAME[k], found `{text}`")
        };
        let (name, range) = match text.split_once('[') {
            None => (text, None),
            Some((name, rest)) => (name, Some(rest.strip_suffix(']').ok_or_else(usage)?)),
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(usage());
        }
        let number = |t: &str| t.trim().parse::<u64>().map_err(|_| usage());
        let (start, end) = match range {
            None => (0, None),
            Some(r) => match r.split_once("..") {
                None => {
                    let k = number(r)?;
                    (k, Some(k.checked_add(1).ok_or_else(usage)?))
                }
                Some((a, b)) => (
                    if a.trim().is_empty() { 0 } else { number(a)? },
                    if b.trim().is_empty() {
                        None
                    } else {
                        Some(number(b)?)
                    },
                ),
            },
        };
        if end.is_some_and(|e| e < start) {
            return Err(format!("`{text}` ends before it starts"));
        }
        Ok(Slice {
            name: name.to_owned(),
            start,
            end,
        })
    }

    /// The elements of `bytes` (of `elem`s) this slice shows, one line:
    /// `out[0..4] (u32, 32 elements): 0 1 2 3`, with a note when it was cut
    /// short or runs past the end.
    pub fn show(&self, elem: ElemType, bytes: &[u8]) -> String {
        let size = elem.size() as usize;
        let len = (bytes.len() / size) as u64;
        let start = self.start.min(len);
        let end = self
            .end
            .unwrap_or(start.saturating_add(Self::UNBOUNDED_MAX))
            .min(len);
        let values: Vec<String> = bytes[start as usize * size..end as usize * size]
            .chunks_exact(size)
            .map(|b| match elem {
                ElemType::U8 => b[0].to_string(),
                ElemType::I8 => (b[0] as i8).to_string(),
                ElemType::U16 => u16::from_le_bytes([b[0], b[1]]).to_string(),
                ElemType::I16 => i16::from_le_bytes([b[0], b[1]]).to_string(),
                ElemType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string(),
                ElemType::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string(),
                ElemType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string(),
                ElemType::U64 => u64::from_le_bytes(eight(b)).to_string(),
                ElemType::I64 => i64::from_le_bytes(eight(b)).to_string(),
                ElemType::F64 => f64::from_le_bytes(eight(b)).to_string(),
                ElemType::F16 | ElemType::BF16 => {
                    let bits = u32::from(u16::from_le_bytes([b[0], b[1]]));
                    f32::from_bits(half_format(elem).to_f32(bits)).to_string()
                }
            })
            .collect();
        let mut line = format!(
            "{}[{start}..{end}] ({}, {len} elements): {}",
            self.name,
            elem.name(),
            values.join(" ")
        );
        if self.end.is_none() && end < len {
            line += &format!(
                " ... ({} more: --print {}[{end}..{}])",
                len - end,
                self.name,
                len.min(end + Self::UNBOUNDED_MAX)
            );
        } else if self.end.is_some_and(|e| e > len) || self.start > len {
            line += &format!(" (the buffer ends at {len})");
        }
        line
    }
}

/// The 8 bytes of a 64-bit element.
fn eight(b: &[u8]) -> [u8; 8] {
    <[u8; 8]>::try_from(b).unwrap_or_default()
}

/// The half-precision format of a 16-bit float element type.
fn half_format(elem: ElemType) -> simt::core::float16::Half {
    match elem {
        ElemType::BF16 => simt::core::float16::Half::Bf16,
        _ => simt::core::float16::Half::F16,
    }
}

/// `v` rounded to `elem` (`f16` or `bf16`), as little-endian bytes.
fn half_bits(elem: ElemType, v: f32) -> [u8; 2] {
    (half_format(elem).round_f32(v.to_bits()) as u16).to_le_bytes()
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

    fn param(elem: ElemType) -> Param {
        Param {
            name: "b".into(),
            kind: ParamKind::Buffer {
                elem,
                writable: true,
            },
        }
    }

    #[test]
    fn fills_give_each_element_as_the_type_reads_it() {
        let spec = |s: &str| Fill::parse(Some(s), 8);
        assert_eq!(spec("zeros"), Some(Ok(Fill::Zeros(8))));
        assert_eq!(spec("iota:3"), Some(Ok(Fill::Iota(3))));
        assert_eq!(spec("fill:-2:4"), Some(Ok(Fill::Value("-2".into(), 4))));
        assert_eq!(spec("5"), Some(Ok(Fill::Seeded(5))));
        assert_eq!(spec("x.npy"), None);
        assert!(matches!(spec("zeros:many"), Some(Err(_))));
        assert!(matches!(spec("fill"), Some(Err(_))));

        let i16s = |fill: Fill| -> Vec<i16> {
            filled(&param(ElemType::I16), ElemType::I16, &fill, 1)
                .unwrap()
                .chunks_exact(2)
                .map(|b| i16::from_le_bytes([b[0], b[1]]))
                .collect()
        };
        assert_eq!(i16s(Fill::Zeros(3)), [0, 0, 0]);
        assert_eq!(i16s(Fill::Value("-2".into(), 2)), [-2, -2]);
        assert_eq!(i16s(Fill::Value("0xffff".into(), 1)), [-1]);
        assert_eq!(i16s(Fill::Iota(4)), [0, 1, 2, 3]);
        // u8 wraps at its width; f32 counts in floats.
        let u8s = filled(&param(ElemType::U8), ElemType::U8, &Fill::Iota(258), 1).unwrap();
        assert_eq!(&u8s[254..], [254, 255, 0, 1]);
        let f = filled(
            &param(ElemType::F32),
            ElemType::F32,
            &Fill::Value("2.5".into(), 1),
            1,
        );
        assert_eq!(f.unwrap(), 2.5f32.to_le_bytes());
        // Out of the type's range, or not a number of it: an error naming both.
        let e = filled(
            &param(ElemType::U8),
            ElemType::U8,
            &Fill::Value("256".into(), 1),
            1,
        );
        assert_eq!(e.unwrap_err(), "`b` holds u8, and `256` is not one");
        let e = filled(
            &param(ElemType::U16),
            ElemType::U16,
            &Fill::Value("-1".into(), 1),
            1,
        );
        assert!(e.is_err());
    }

    #[test]
    fn sixty_four_bit_fills_take_the_whole_range() {
        let one = |elem: ElemType, v: &str| element(&param(elem), elem, v);
        assert_eq!(
            one(ElemType::U64, "18446744073709551615").unwrap(),
            u64::MAX.to_le_bytes()
        );
        assert_eq!(
            one(ElemType::I64, "-9223372036854775808").unwrap(),
            i64::MIN.to_le_bytes()
        );
        assert_eq!(
            one(ElemType::U64, "0xffffffffffffffff").unwrap(),
            u64::MAX.to_le_bytes()
        );
        assert!(one(ElemType::U64, "18446744073709551616").is_err());
        assert!(one(ElemType::U64, "-1").is_err());
        assert!(one(ElemType::I64, "9223372036854775808").is_err());
        assert_eq!(one(ElemType::F64, "0.1").unwrap(), 0.1f64.to_le_bytes());
        let iota = filled(&param(ElemType::F64), ElemType::F64, &Fill::Iota(3), 1).unwrap();
        assert_eq!(
            iota,
            [0f64, 1.0, 2.0]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>()
        );
        // Seeded integers are 0..=99 at every width; seeded f64 elements are
        // the f32 stream's values, exactly.
        let i64s = generated(&param(ElemType::I64), ElemType::I64, 50, 9).unwrap();
        let ints: Vec<i64> = i64s
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert!(ints.iter().all(|v| (0..=99).contains(v)), "{ints:?}");
        assert!(ints.iter().any(|&v| v != ints[0]));
        let f32s = generated(&param(ElemType::F32), ElemType::F32, 4, 9).unwrap();
        let f64s = generated(&param(ElemType::F64), ElemType::F64, 4, 9).unwrap();
        for (a, b) in f32s.chunks_exact(4).zip(f64s.chunks_exact(8)) {
            let a = f32::from_le_bytes(a.try_into().unwrap());
            let b = f64::from_le_bytes(b.try_into().unwrap());
            assert_eq!(f64::from(a), b);
        }
    }

    #[test]
    fn slices_show_what_they_name() {
        let bytes: Vec<u8> = (0..100u32).flat_map(|v| v.to_le_bytes()).collect();
        let show = |s: &str| Slice::parse(s).unwrap().show(ElemType::U32, &bytes);
        assert_eq!(show("out[2..5]"), "out[2..5] (u32, 100 elements): 2 3 4");
        assert_eq!(show("out[7]"), "out[7..8] (u32, 100 elements): 7");
        assert_eq!(show("out[98..]"), "out[98..100] (u32, 100 elements): 98 99");
        assert_eq!(
            show("out[99..120]"),
            "out[99..100] (u32, 100 elements): 99 (the buffer ends at 100)"
        );
        assert!(show("out").ends_with("62 63 ... (36 more: --print out[64..100])"));
        assert!(Slice::parse("out[5..2]").is_err());
        assert!(Slice::parse("out[a..]").is_err());
        assert!(Slice::parse("[1..2]").is_err());
    }

    #[test]
    fn hex_gives_the_bits() {
        let p = Param {
            name: "n".into(),
            kind: ParamKind::Scalar(ScalarType::I32),
        };
        assert_eq!(
            scalar(&p, ScalarType::I32, "0xffffffff"),
            Ok(OwnedArg::I32(-1))
        );
        assert_eq!(scalar(&p, ScalarType::U32, "0x10"), Ok(OwnedArg::U32(16)));
        assert_eq!(scalar(&p, ScalarType::U32, "17"), Ok(OwnedArg::U32(17)));
        assert!(scalar(&p, ScalarType::U32, "-1").is_err());
    }
}
