//! The sweep record: one point of a sweep and what its launch counted, the
//! one shape that `simt sweep`'s JSON lines and Python's `simt.sweep` records
//! share, and the names of the launch options a point may set.
//!
//! A record is flat, so that a table of records (a `pandas.DataFrame`, a
//! `jq` query) reads it as it is. It holds `kernel`, `groups`, `size`,
//! `wave_width`, `model` and, for a timed launch, `part`; the point's own
//! values (the kernel's scalar arguments as `simt sweep --arg` gave them, or
//! the axes of a Python sweep that are not launch options); and
//! `workgroups`, `waves`, every counter and, for a timed launch,
//! `estimate_cycles`, `estimate_us` and `limited_by`. A launch that failed
//! has `error` in place of what it would have counted. A value of the point
//! whose name is one of these fields is kept as `point.NAME` (a Python
//! sweep's `wave_width`, `model` and `part` axes are the launch's own and
//! are not repeated).

use serde_json::{json, Map, Value as Json};
use simt::core::{Counters, Dim3, Timing};

/// The launch options a sweep's point may set, by the names its record and
/// Python's `Kernel.launch` give them; every other value of a point is the
/// caller's own (a scalar argument, a size).
pub const LAUNCH_OPTIONS: [&str; 5] = ["wave_width", "model", "part", "sanitize", "threads"];

/// What a point launched: the kernel and the launch's shape and options.
#[derive(Clone, Debug)]
pub struct Point<'a> {
    /// The kernel's name.
    pub kernel: &'a str,
    /// Workgroups per axis.
    pub groups: Dim3,
    /// Work-items per workgroup per axis.
    pub size: Dim3,
    /// 32 or 64.
    pub wave_width: u32,
    /// The memory model's name.
    pub model: &'a str,
    /// The part's name, for a timed launch.
    pub part: Option<&'a str>,
}

/// What one launch counted.
#[derive(Clone, Copy, Debug)]
pub struct Counted<'a> {
    /// Workgroups launched.
    pub workgroups: u64,
    /// Waves launched.
    pub waves: u64,
    /// The launch's totals.
    pub totals: &'a Counters,
    /// The timing model's estimate, for a timed launch.
    pub estimate: Option<&'a Timing>,
}

/// A shape as the command line writes it: `64`, `8x8`, `4x4x2`.
pub fn shape_text(d: Dim3) -> String {
    match d.to_array() {
        [x, 1, 1] => x.to_string(),
        [x, y, 1] => format!("{x}x{y}"),
        [x, y, z] => format!("{x}x{y}x{z}"),
    }
}

/// The name under which a point's value called `name` goes into `record`:
/// its own, unless the record already has a field of that name.
pub fn value_key(record: &Map<String, Json>, name: &str) -> String {
    if record.contains_key(name) {
        format!("point.{name}")
    } else {
        name.to_owned()
    }
}

/// The record of `point`, whose own values are `values`, and of what it
/// counted, or the error it failed with.
pub fn record(
    point: &Point<'_>,
    values: impl IntoIterator<Item = (String, Json)>,
    launched: Result<Counted<'_>, &str>,
) -> Map<String, Json> {
    let mut line = launch_fields(point, launched);
    for (name, value) in values {
        let key = value_key(&line, &name);
        line.insert(key, value);
    }
    line
}

/// The launch's own fields of a record: the point's kernel, shape and
/// options, then what it counted or its error.
fn launch_fields(point: &Point<'_>, launched: Result<Counted<'_>, &str>) -> Map<String, Json> {
    let mut line = Map::new();
    line.insert("kernel".into(), json!(point.kernel));
    line.insert("groups".into(), json!(shape_text(point.groups)));
    line.insert("size".into(), json!(shape_text(point.size)));
    line.insert("wave_width".into(), json!(point.wave_width));
    line.insert("model".into(), json!(point.model));
    if let Some(part) = point.part {
        line.insert("part".into(), json!(part));
    }
    let counted = match launched {
        Ok(counted) => counted,
        Err(error) => {
            line.insert("error".into(), json!(error));
            return line;
        }
    };
    line.insert("workgroups".into(), json!(counted.workgroups));
    line.insert("waves".into(), json!(counted.waves));
    if let Ok(Json::Object(counters)) = serde_json::to_value(counted.totals) {
        line.extend(counters);
    }
    if let Some(t) = counted.estimate {
        line.insert("estimate_cycles".into(), json!(t.cycles));
        line.insert("estimate_us".into(), json!(t.microseconds));
        line.insert("limited_by".into(), json!(t.bound().name()));
    }
    line
}

/// How NumPy holds each element type: its dtype's name and its type string
/// without the byte order (`.npy` headers write `<` before it). NumPy has no
/// bfloat16: a `bf16` buffer is its bits, `uint16`.
pub const DTYPES: [(simt::core::ElemType, &str, &str); 12] = {
    use simt::core::ElemType::*;
    [
        (U8, "uint8", "u1"),
        (I8, "int8", "i1"),
        (U16, "uint16", "u2"),
        (I16, "int16", "i2"),
        (U32, "uint32", "u4"),
        (I32, "int32", "i4"),
        (F32, "float32", "f4"),
        (F16, "float16", "f2"),
        (BF16, "uint16", "u2"),
        (U64, "uint64", "u8"),
        (I64, "int64", "i8"),
        (F64, "float64", "f8"),
    ]
};

/// NumPy's dtype name for `elem` (`float32`).
pub fn numpy_name(elem: simt::core::ElemType) -> &'static str {
    DTYPES.iter().find(|d| d.0 == elem).map_or("uint8", |d| d.1)
}

/// NumPy's type string for `elem`, without the byte order (`f4`).
pub fn numpy_descr(elem: simt::core::ElemType) -> &'static str {
    DTYPES.iter().find(|d| d.0 == elem).map_or("u1", |d| d.2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use simt::core::ElemType;

    #[test]
    fn every_element_type_has_one_numpy_dtype_of_its_size() {
        for (elem, name, descr) in DTYPES {
            assert_eq!(numpy_name(elem), name);
            assert_eq!(numpy_descr(elem), descr);
            let bytes: u32 = descr[1..].parse().unwrap();
            assert_eq!(bytes, elem.size(), "{elem:?}");
            let kind = match elem {
                ElemType::F32 | ElemType::F16 | ElemType::F64 => 'f',
                ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64 => 'i',
                _ => 'u',
            };
            assert!(
                descr.starts_with(kind)
                    && name.starts_with(match kind {
                        'f' => "float",
                        'i' => "int",
                        _ => "uint",
                    })
            );
        }
    }

    #[test]
    fn a_record_is_the_point_then_its_values_then_what_it_counted() {
        let point = Point {
            kernel: "k",
            groups: Dim3::new(4, 2, 1),
            size: Dim3::new(64, 1, 1),
            wave_width: 32,
            model: "nvidia",
            part: None,
        };
        let totals = Counters {
            instructions: 7,
            ..Counters::default()
        };
        let counted = Counted {
            workgroups: 8,
            waves: 16,
            totals: &totals,
            estimate: None,
        };
        let line = record(&point, [("n".to_owned(), json!(3))], Ok(counted));
        for (key, value) in [
            ("kernel", json!("k")),
            ("groups", json!("4x2")),
            ("size", json!("64")),
            ("wave_width", json!(32)),
            ("model", json!("nvidia")),
            ("n", json!(3)),
            ("workgroups", json!(8)),
            ("waves", json!(16)),
        ] {
            assert_eq!(line[key], value, "{key}");
        }
        assert!(!line.contains_key("part"));
        // A value named as one of the record's own fields keeps its value
        // under `point.NAME`.
        let clash = record(
            &point,
            [
                ("size".to_owned(), json!(1024)),
                ("waves".to_owned(), json!(2)),
            ],
            Ok(counted),
        );
        assert_eq!(
            (&clash["size"], &clash["point.size"]),
            (&json!("64"), &json!(1024))
        );
        assert_eq!(
            (&clash["waves"], &clash["point.waves"]),
            (&json!(16), &json!(2))
        );
        assert_eq!(line["instructions"], json!(7));
        let failed = record(&point, [], Err("out of bounds"));
        assert_eq!(failed["error"], json!("out of bounds"));
        assert!(!failed.contains_key("instructions"));
    }
}
