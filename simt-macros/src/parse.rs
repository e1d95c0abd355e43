//! Parsing the macro's tokens into the syntax tree.
//!
//! Token streams carry no line breaks, so instructions are delimited by the
//! comma rule: a mnemonic is followed by comma-separated operands, and an
//! operand not followed by a comma ends the instruction. A mnemonic that takes
//! no operands (`else`, `endif`, `loop`, `barrier`) ends at once, and a known
//! mnemonic or declaration keyword never starts an operand, so a missing
//! operand does not swallow the next instruction. An optional `;` may end any
//! instruction.
//!
//! Syntax errors are collected: after one, the parser skips to the next `;` or
//! the next word that starts an instruction, and goes on.

use crate::ast::{
    BinOp, Expr, Instruction, Kernel, LdsDecl, Operand, Param, ParamType, RegClass, RegDecl, Stmt,
};
use crate::isa;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use simt_core::{ElemType, ScalarType};
use syn::buffer::Cursor;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{
    braced, bracketed, parenthesized, token, Attribute, Error, Ident, LitFloat, LitInt, Result,
    Token, Visibility,
};

/// A kernel and the syntax errors found in its body.
pub struct Parsed {
    /// The kernel, with the statements that parsed.
    pub kernel: Kernel,
    /// Syntax errors in the body; when there are any, the body is incomplete.
    pub errors: Vec<Error>,
}

/// Parses every kernel of an invocation. Kernels whose header does not parse
/// are left out and their errors returned.
pub fn parse(tokens: TokenStream) -> (Vec<Parsed>, Vec<Error>) {
    let mut errors = Vec::new();
    let parser = |input: ParseStream| {
        let mut kernels = Vec::new();
        while !input.is_empty() {
            match kernel(input) {
                Ok(k) => kernels.push(k),
                Err(e) => {
                    errors.push(e);
                    skip_item(input);
                }
            }
        }
        Ok(kernels)
    };
    match parser.parse2(tokens) {
        Ok(kernels) => (kernels, errors),
        Err(e) => {
            errors.push(e);
            (Vec::new(), errors)
        }
    }
}

fn kernel(input: ParseStream) -> Result<Parsed> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    let keyword = input
        .call(Ident::parse_any)
        .map_err(|e| Error::new(e.span(), "expected `kernel`"))?;
    if keyword != "kernel" {
        let hint = if keyword == "fn" {
            ": kernels are declared with `kernel`, not `fn`"
        } else {
            ""
        };
        return Err(Error::new(
            keyword.span(),
            format!("expected `kernel`{hint}"),
        ));
    }
    let name: Ident = input.parse()?;
    let content;
    parenthesized!(content in input);
    let params = all(&content, |c| {
        let list = c.parse_terminated(param, Token![,])?;
        Ok(list.into_iter().collect())
    })?;
    let body;
    let brace = braced!(body in input);
    let mut errors = Vec::new();
    let body = statements(&body, &mut errors);
    Ok(Parsed {
        kernel: Kernel {
            attrs,
            vis,
            name,
            params,
            body,
            close: brace.span.close(),
        },
        errors,
    })
}

fn param(input: ParseStream) -> Result<Param> {
    let name: Ident = input.parse()?;
    input.parse::<Token![:]>()?;
    let ty_span = input.span();
    let ty = if input.peek(Token![&]) {
        input.parse::<Token![&]>()?;
        let writable = input.parse::<Option<Token![mut]>>()?.is_some();
        if !input.peek(token::Bracket) {
            return Err(
                input.error("expected `[`: a buffer parameter is a slice, `&[T]` or `&mut [T]`")
            );
        }
        let inner;
        bracketed!(inner in input);
        let elem = all(&inner, |c| elem_type(&c.parse()?))?;
        ParamType::Buffer { elem, writable }
    } else {
        let id: Ident = input.parse()?;
        ParamType::Scalar(match id.to_string().as_str() {
            "u32" => ScalarType::U32,
            "i32" => ScalarType::I32,
            "f32" => ScalarType::F32,
            other => {
                return Err(Error::new(
                    id.span(),
                    format!("unsupported parameter type `{other}`: expected `u32`, `i32`, `f32`, `&[T]` or `&mut [T]`"),
                ))
            }
        })
    };
    Ok(Param { name, ty, ty_span })
}

fn elem_type(id: &Ident) -> Result<ElemType> {
    Ok(match id.to_string().as_str() {
        "u8" => ElemType::U8,
        "i8" => ElemType::I8,
        "u16" => ElemType::U16,
        "i16" => ElemType::I16,
        "u32" => ElemType::U32,
        "i32" => ElemType::I32,
        "f32" => ElemType::F32,
        other => {
            return Err(Error::new(
                id.span(),
                format!(
                "unsupported element type `{other}`: expected u8, i8, u16, i16, u32, i32 or f32"
            ),
            ))
        }
    })
}

/// Runs `f` on the contents of a delimited group and consumes whatever it left,
/// reporting leftovers as an error: syn turns tokens left in a group into an
/// error of the whole parse, which would hide every collected error.
fn all<T>(content: ParseStream, f: impl FnOnce(ParseStream) -> Result<T>) -> Result<T> {
    let result = f(content).and_then(|v| {
        if content.is_empty() {
            Ok(v)
        } else {
            Err(content.error("unexpected token"))
        }
    });
    skip_rest(content);
    result
}

/// Consumes whatever is left of a delimited group.
fn skip_rest(content: ParseStream) {
    let _ = content.step(|cursor| {
        let mut rest = *cursor;
        while let Some((_, next)) = rest.token_tree() {
            rest = next;
        }
        Ok(((), rest))
    });
}

/// After a kernel whose header did not parse: skips past the next `{ ... }`.
fn skip_item(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            rest = next;
            if matches!(&tt, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace) {
                break;
            }
        }
        Ok(((), rest))
    });
}

fn statements(input: ParseStream, errors: &mut Vec<Error>) -> Vec<Stmt> {
    let mut stmts = Vec::new();
    while !input.is_empty() {
        let before = input.cursor();
        match stmt(input) {
            Ok(Some(s)) => stmts.push(s),
            Ok(None) => {}
            Err(e) => {
                errors.push(e);
                recover(input, before);
            }
        }
    }
    stmts
}

/// Skips to the next `;` (consumed) or word that starts an instruction or
/// declaration, skipping at least one token when the failed statement consumed none.
fn recover(input: ParseStream, before: Cursor) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        let mut must_skip = rest == before;
        while !rest.eof() {
            if !must_skip {
                if let Some((p, next)) = rest.punct() {
                    if p.as_char() == ';' {
                        rest = next;
                        break;
                    }
                }
                if let Some((id, _)) = rest.ident() {
                    if isa::is_reserved(&id.to_string()) {
                        break;
                    }
                }
            }
            must_skip = false;
            match rest.token_tree() {
                Some((_, next)) => rest = next,
                None => break,
            }
        }
        Ok(((), rest))
    });
}

fn stmt(input: ParseStream) -> Result<Option<Stmt>> {
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
        return Ok(None);
    }
    if input.peek(Token![#]) {
        // `///` comments arrive as `#[doc]` attributes: they are comments here.
        for attr in input.call(Attribute::parse_outer)? {
            if !attr.path().is_ident("doc") {
                return Err(Error::new_spanned(
                    attr,
                    "attributes are not allowed inside a kernel body",
                ));
            }
        }
        return Ok(None);
    }
    let Some((word, _)) = input.cursor().ident() else {
        return Err(input.error("expected an instruction or a declaration"));
    };
    Ok(Some(match word.to_string().as_str() {
        "vreg" => Stmt::Regs(regs(input, RegClass::V)?),
        "sreg" => Stmt::Regs(regs(input, RegClass::S)?),
        "mreg" => Stmt::Regs(regs(input, RegClass::M)?),
        "lds" => Stmt::Lds(lds(input)?),
        _ => Stmt::Inst(instruction(input)?),
    }))
}

fn semicolon(input: ParseStream, after: &str) -> Result<()> {
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
        Ok(())
    } else {
        Err(input.error(format!("expected `;` after {after}")))
    }
}

fn regs(input: ParseStream, class: RegClass) -> Result<RegDecl> {
    input.call(Ident::parse_any)?;
    let mut names = Vec::new();
    loop {
        if input.cursor().ident().is_none() {
            return Err(input.error("expected a register name"));
        }
        names.push(input.call(Ident::parse_any)?);
        if !input.peek(Token![,]) {
            break;
        }
        input.parse::<Token![,]>()?;
        if input.peek(Token![;]) {
            break;
        }
    }
    semicolon(input, "the register declaration")?;
    Ok(RegDecl { class, names })
}

fn lds(input: ParseStream) -> Result<LdsDecl> {
    input.call(Ident::parse_any)?;
    if input.cursor().ident().is_none() {
        return Err(input.error("expected the LDS array's name"));
    }
    let name = input.call(Ident::parse_any)?;
    input.parse::<Token![:]>()?;
    if !input.peek(token::Bracket) {
        return Err(input.error("expected `[T; N]`: an LDS array's type"));
    }
    let content;
    bracketed!(content in input);
    let (elem, len) = all(&content, |c| {
        let elem = elem_type(&c.parse()?)?;
        c.parse::<Token![;]>()?;
        let len = expr(c, 0)?;
        Ok((elem, len))
    })?;
    semicolon(input, "the LDS declaration")?;
    Ok(LdsDecl { name, elem, len })
}

fn instruction(input: ParseStream) -> Result<Instruction> {
    let mnemonic = input.call(Ident::parse_any)?;
    let takes_operands = isa::takes_operands(&mnemonic.to_string());
    let mut operands = Vec::new();
    if takes_operands && starts_operand(input) {
        loop {
            operands.push(operand(input, false)?);
            if !input.peek(Token![,]) {
                break;
            }
            input.parse::<Token![,]>()?;
            // A trailing comma before the next instruction: the operand count
            // check reports the missing operand at the mnemonic.
            if !starts_operand(input) {
                break;
            }
        }
    }
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
    }
    Ok(Instruction { mnemonic, operands })
}

/// Whether the next token begins an operand: anything but the end, `;`, `#`, or
/// a word that starts an instruction or declaration.
fn starts_operand(input: ParseStream) -> bool {
    if input.is_empty() || input.peek(Token![;]) || input.peek(Token![#]) {
        return false;
    }
    match input.cursor().ident() {
        Some((id, _)) => !isa::is_reserved(&id.to_string()),
        None => true,
    }
}

/// An operand; `in_index` inside a memory operand's brackets.
fn operand(input: ParseStream, in_index: bool) -> Result<Operand> {
    if input.peek(Token![-])
        || input.peek(LitInt)
        || input.peek(LitFloat)
        || input.peek(token::Paren)
    {
        return Ok(Operand::Number(expr(input, 0)?));
    }
    if input.peek(token::Bracket) && !in_index {
        let content;
        let bracket = bracketed!(content in input);
        let items = all(&content, |c| {
            let list = c.parse_terminated(|c| operand(c, true), Token![,])?;
            Ok(list.into_iter().collect())
        })?;
        return Ok(Operand::List {
            items,
            open: bracket.span.open(),
            close: bracket.span.close(),
        });
    }
    if input.cursor().ident().is_some() {
        let base = input.call(Ident::parse_any)?;
        if input.peek(Token![.]) {
            input.parse::<Token![.]>()?;
            if input.cursor().ident().is_none() {
                return Err(input.error("expected `x`, `y`, `z` or `bytes` after `.`"));
            }
            let field = input.call(Ident::parse_any)?;
            if field == "bytes" && input.peek(token::Bracket) {
                return memory(input, base, true, in_index);
            }
            return Ok(Operand::Dotted { base, field });
        }
        if input.peek(token::Bracket) {
            return memory(input, base, false, in_index);
        }
        return Ok(Operand::Name(base));
    }
    Err(input.error(
        "expected an operand: a register, parameter, special value, immediate or memory reference",
    ))
}

fn memory(input: ParseStream, base: Ident, bytes: bool, in_index: bool) -> Result<Operand> {
    let content;
    let bracket = bracketed!(content in input);
    if in_index {
        // A memory operand used as an index is an error the checker reports at
        // `base`; its own brackets are not parsed, so nesting costs no recursion.
        skip_rest(&content);
        let index = Box::new(Operand::Name(base.clone()));
        let close = bracket.span.close();
        return Ok(Operand::Mem {
            base,
            bytes,
            index,
            offset: None,
            close,
        });
    }
    let (index, offset) = all(&content, |c| {
        if c.is_empty() {
            return Err(Error::new(bracket.span.join(), "expected an index"));
        }
        let index = operand(c, true)?;
        let offset = if c.peek(Token![+]) || c.peek(Token![-]) {
            let negative = c.peek(Token![-]);
            if negative {
                c.parse::<Token![-]>()?;
            } else {
                c.parse::<Token![+]>()?;
            }
            Some((negative, Box::new(operand(c, true)?)))
        } else {
            None
        };
        if !c.is_empty() {
            return Err(c.error("expected `]` after the index, or `+ offset`"));
        }
        Ok((index, offset))
    })?;
    Ok(Operand::Mem {
        base,
        bytes,
        index: Box::new(index),
        offset,
        close: bracket.span.close(),
    })
}

/// The binary operator at the cursor with its binding power, if any.
fn peek_op(input: ParseStream) -> Option<(BinOp, u8)> {
    Some(if input.peek(Token![<<]) {
        (BinOp::Shl, 3)
    } else if input.peek(Token![>>]) {
        (BinOp::Shr, 3)
    } else if input.peek(Token![|]) && !input.peek(Token![||]) {
        (BinOp::Or, 0)
    } else if input.peek(Token![^]) {
        (BinOp::Xor, 1)
    } else if input.peek(Token![&]) && !input.peek(Token![&&]) {
        (BinOp::And, 2)
    } else if input.peek(Token![+]) {
        (BinOp::Add, 4)
    } else if input.peek(Token![-]) {
        (BinOp::Sub, 4)
    } else if input.peek(Token![*]) {
        (BinOp::Mul, 5)
    } else if input.peek(Token![/]) {
        (BinOp::Div, 5)
    } else if input.peek(Token![%]) {
        (BinOp::Rem, 5)
    } else {
        return None;
    })
}

fn skip_op(input: ParseStream, op: BinOp) -> Result<()> {
    match op {
        BinOp::Shl => input.parse::<Token![<<]>().map(drop),
        BinOp::Shr => input.parse::<Token![>>]>().map(drop),
        BinOp::Or => input.parse::<Token![|]>().map(drop),
        BinOp::Xor => input.parse::<Token![^]>().map(drop),
        BinOp::And => input.parse::<Token![&]>().map(drop),
        BinOp::Add => input.parse::<Token![+]>().map(drop),
        BinOp::Sub => input.parse::<Token![-]>().map(drop),
        BinOp::Mul => input.parse::<Token![*]>().map(drop),
        BinOp::Div => input.parse::<Token![/]>().map(drop),
        BinOp::Rem => input.parse::<Token![%]>().map(drop),
    }
}

/// A constant expression whose operators bind tighter than `min`: literals,
/// parentheses, unary `-`, and the integer operators of Rust with Rust's
/// precedence. Range, suffix and type are checked where it is used. Inside a
/// memory operand's brackets `+` and `-` after an index start its offset, so
/// an index expression with them must be parenthesized.
fn expr(input: ParseStream, min: u8) -> Result<Expr> {
    let mut lhs = if input.peek(Token![-]) {
        let minus: Token![-] = input.parse()?;
        if input.peek(LitInt) || input.peek(LitFloat) {
            Expr::Lit {
                lit: input.parse()?,
                minus: Some(minus.span),
            }
        } else if input.peek(token::Paren) {
            Expr::Neg(Box::new(expr(input, 6)?), minus.span)
        } else {
            return Err(input.error("expected a number after `-`"));
        }
    } else if input.peek(token::Paren) {
        let content;
        parenthesized!(content in input);
        all(&content, |c| expr(c, 0))?
    } else if input.peek(LitInt) || input.peek(LitFloat) {
        Expr::Lit {
            lit: input.parse()?,
            minus: None,
        }
    } else {
        return Err(input.error("expected a number"));
    };
    while let Some((op, power)) = peek_op(input) {
        if power < min {
            break;
        }
        skip_op(input, op)?;
        let rhs = expr(input, power + 1)?;
        lhs = Expr::Binary(Box::new(lhs), op, Box::new(rhs));
    }
    Ok(lhs)
}
