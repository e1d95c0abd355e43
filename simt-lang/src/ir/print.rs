//! `print`'s format strings: how a kernel's text names the values it prints.
//!
//! A format is written as a string literal whose `{}` placeholders take the
//! instruction's values in order. A register holds 32 bits of no declared
//! type, so the placeholder says how to read them: `{}` or `{u}` unsigned,
//! `{i}` signed, `{f}` as an `f32`, `{x}` in hexadecimal. `{{` and `}}` are
//! literal braces.

use serde::Serialize;
use std::fmt::Write;

/// The most values one `print` takes.
pub const MAX_PRINT_VALUES: usize = 4;

/// A `print` instruction's format: which of the program's
/// [`formats`](crate::Program::formats) it prints, and how many values it
/// reads (the placeholders of that format).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct PrintFormat {
    /// The index in [`Program::formats`](crate::Program::formats).
    pub index: u16,
    /// The values read, at most [`MAX_PRINT_VALUES`].
    pub values: u8,
}

/// How a placeholder shows its 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Placeholder {
    /// `{}` or `{u}`: unsigned decimal.
    Unsigned,
    /// `{i}`: signed decimal.
    Signed,
    /// `{f}`: the bits as an `f32`, as Rust prints it.
    Float,
    /// `{x}`: hexadecimal, with `0x`.
    Hex,
}

/// A piece of a parsed format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text printed as it is (braces unescaped).
    Text(std::borrow::Cow<'a, str>),
    /// A value.
    Value(Placeholder),
}

/// Why a format string is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// The byte offset in the format where the problem starts.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

/// The pieces of `format`, or where it goes wrong.
pub fn parse_format(format: &str) -> Result<Vec<Piece<'_>>, FormatError> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = format.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|&(_, c)| c) == Some('{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek().map(|&(_, c)| c) == Some('}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut spec = String::new();
                let closed = loop {
                    match chars.next() {
                        Some((_, '}')) => break true,
                        Some((_, c)) => spec.push(c),
                        None => break false,
                    }
                };
                if !closed {
                    return Err(FormatError {
                        offset: at,
                        message: "a `{` with no `}`: write `{{` for a brace".to_owned(),
                    });
                }
                let placeholder = match spec.as_str() {
                    "" | "u" => Placeholder::Unsigned,
                    "i" => Placeholder::Signed,
                    "f" => Placeholder::Float,
                    "x" => Placeholder::Hex,
                    other => {
                        return Err(FormatError {
                            offset: at,
                            message: format!(
                                "`{{{other}}}` is no placeholder: `{{}}` or `{{u}}` unsigned, `{{i}}` signed, `{{f}}` f32, `{{x}}` hexadecimal"
                            ),
                        })
                    }
                };
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text).into()));
                }
                pieces.push(Piece::Value(placeholder));
            }
            '}' => {
                return Err(FormatError {
                    offset: at,
                    message: "a `}` with no `{`: write `}}` for a brace".to_owned(),
                })
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text.into()));
    }
    Ok(pieces)
}

/// The number of values `format` reads, or where it goes wrong.
pub fn format_values(format: &str) -> Result<usize, FormatError> {
    Ok(parse_format(format)?
        .iter()
        .filter(|p| matches!(p, Piece::Value(_)))
        .count())
}

/// `format` with its placeholders filled from `values` in order (a missing
/// value shows as `?`; a format that does not parse prints as written).
pub fn render(format: &str, values: &[u32]) -> String {
    let Ok(pieces) = parse_format(format) else {
        return format.to_owned();
    };
    let mut out = String::new();
    let mut values = values.iter();
    for piece in pieces {
        match piece {
            Piece::Text(t) => out.push_str(&t),
            Piece::Value(p) => {
                let Some(&v) = values.next() else {
                    out.push('?');
                    continue;
                };
                let _ = match p {
                    Placeholder::Unsigned => write!(out, "{v}"),
                    Placeholder::Signed => write!(out, "{}", v as i32),
                    Placeholder::Float => write!(out, "{:?}", f32::from_bits(v)),
                    Placeholder::Hex => write!(out, "{v:#x}"),
                };
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_read_the_bits_as_they_say() {
        let f = "u={} u={u} i={i} f={f} x={x} {{}}";
        assert_eq!(format_values(f), Ok(5));
        assert_eq!(
            render(f, &[7, u32::MAX, (-3i32) as u32, 1.5f32.to_bits(), 255]),
            "u=7 u=4294967295 i=-3 f=1.5 x=0xff {}"
        );
        assert_eq!(render("{f}", &[f32::NAN.to_bits()]), "NaN");
        assert_eq!(render("{} and {}", &[1]), "1 and ?");
    }

    #[test]
    fn malformed_formats_say_where() {
        assert_eq!(parse_format("ab{").map_err(|e| e.offset), Err(2));
        assert_eq!(parse_format("a}b").map_err(|e| e.offset), Err(1));
        let e = parse_format("x {d}").unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(
            e.message.contains("`{d}` is no placeholder"),
            "{}",
            e.message
        );
    }
}
