//! Number literals and constant expressions: their values, and why one is
//! no 32-bit immediate.

use crate::ast::{self, Expr};
use proc_macro2::Span;
use syn::Lit;

/// A constant expression's value: an error names the span at fault.
pub(super) fn eval(expr: &Expr) -> Result<Number, (Span, String)> {
    match expr {
        Expr::Lit { lit, minus } => {
            number(lit, minus.is_some()).map_err(|message| (lit.span(), message))
        }
        Expr::Neg(e, minus) => match eval(e)? {
            Number::Int(v) => int(-i128::from(v), *minus),
            Number::Float(f) => Ok(Number::Float(-f)),
        },
        Expr::Binary(a, op, b) => int(binary(a, *op, b)?, a.spans().0),
    }
}

/// The value of `a op b` before it is checked to fit an immediate: an LDS
/// array's length may exceed one, and should then be told it exceeds the LDS.
pub(super) fn binary(a: &Expr, op: ast::BinOp, b: &Expr) -> Result<i128, (Span, String)> {
    let (x, y) = match (eval(a)?, eval(b)?) {
        (Number::Int(x), Number::Int(y)) => (i128::from(x), i128::from(y)),
        _ => {
            return Err((
                a.spans().0,
                "constant expressions combine integers only: write a float as one literal"
                    .to_owned(),
            ))
        }
    };
    let at = b.spans().0;
    let value = match op {
        ast::BinOp::Add => x + y,
        ast::BinOp::Sub => x - y,
        ast::BinOp::Mul => x * y,
        ast::BinOp::Div | ast::BinOp::Rem if y == 0 => {
            return Err((at, "division by zero in a constant expression".to_owned()))
        }
        ast::BinOp::Div => x / y,
        ast::BinOp::Rem => x % y,
        ast::BinOp::Shl | ast::BinOp::Shr if !(0..32).contains(&y) => {
            return Err((at, "shift amount must be in 0..32".to_owned()))
        }
        ast::BinOp::Shl => x << y,
        ast::BinOp::Shr => x >> y,
        ast::BinOp::And => x & y,
        ast::BinOp::Xor => x ^ y,
        ast::BinOp::Or => x | y,
    };
    Ok(value)
}

/// An integer result of a constant expression, if it fits an immediate.
pub(super) fn int(value: i128, at: Span) -> Result<Number, (Span, String)> {
    if (i128::from(i32::MIN)..=i128::from(u32::MAX)).contains(&value) {
        Ok(Number::Int(value as i64))
    } else {
        Err((
            at,
            format!("constant expression is {value}: immediates must fit in `u32` or `i32`"),
        ))
    }
}

/// A number literal's value.
pub(super) enum Number {
    /// In `i32::MIN..=u32::MAX`.
    Int(i64),
    /// Finite.
    Float(f32),
}

/// Checks a number literal's suffix and range.
fn number(lit: &Lit, negative: bool) -> Result<Number, String> {
    let float = |value: f32| {
        if value.is_finite() {
            Ok(Number::Float(if negative { -value } else { value }))
        } else {
            Err("float literal out of range for `f32`".to_owned())
        }
    };
    match lit {
        Lit::Int(int) => match int.suffix() {
            "" | "u32" | "i32" => {
                let out_of_range = || {
                    "integer literal out of range: immediates must fit in `u32` or `i32`".to_owned()
                };
                // A literal token may carry its own `-` (`- -1` can arrive as
                // `-` and the literal `-1`): it is then the negative literal,
                // which must fit, negated (which always fits).
                let digits = int.base10_digits();
                let own = digits.starts_with('-');
                let abs: u64 = digits
                    .trim_start_matches('-')
                    .parse()
                    .map_err(|_| out_of_range())?;
                // A suffix narrows the range to its own type.
                let (min, max) = match int.suffix() {
                    "u32" => (0, u64::from(u32::MAX)),
                    "i32" => (1 << 31, i32::MAX as u64),
                    _ => (1 << 31, u64::from(u32::MAX)),
                };
                let value = if own != negative {
                    -(abs as i64)
                } else {
                    abs as i64
                };
                match own || negative {
                    true if abs <= min => Ok(Number::Int(value)),
                    false if abs <= max => Ok(Number::Int(value)),
                    _ if int.suffix().is_empty() => Err(out_of_range()),
                    _ => Err(format!(
                        "integer literal out of range for its suffix `{}`",
                        int.suffix()
                    )),
                }
            }
            "f32" => float(int.base10_parse().map_err(|e| e.to_string())?),
            other => Err(format!(
                "unsupported suffix `{other}`: immediates are 32-bit (`u32`, `i32` or `f32`)"
            )),
        },
        Lit::Float(f) => match f.suffix() {
            "" | "f32" => float(f.base10_parse().map_err(|e| e.to_string())?),
            other => Err(format!(
                "unsupported suffix `{other}`: float immediates are `f32`"
            )),
        },
        _ => Err("expected a number".to_owned()),
    }
}
