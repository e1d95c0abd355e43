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
//! the next word that starts an instruction, and goes on. Mistakes that leave
//! the structure plain (a missing comma between two operands, `.byte[i]`, a
//! call such as `get_global_id(0)`) are reported where they are and parsed as
//! what was meant, so that what follows is read as intended.

use super::{attrs, consts, functions, suggest, words};
use crate::ast::{
    BinOp, Contract, Expr, Instruction, Kernel, LdsDecl, Operand, Param, ParamType, RegClass,
    RegDecl, Stmt,
};
use crate::check::SPECIALS;
use crate::diagnostic::{Diagnostic, Help, Kind, Location};
use crate::resolve::numbered;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::ToTokens;
use simt_lang::{ElemType, ScalarType};
use std::collections::HashSet;
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
    pub errors: Vec<Diagnostic>,
}

/// Parses every kernel of an invocation. Kernels whose header does not parse
/// are left out and their errors returned.
pub fn parse(tokens: TokenStream) -> (Vec<Parsed>, Vec<Diagnostic>) {
    parse_in(tokens, None)
}

/// [`parse`] of an invocation [`consts::expand`] resolved, each kernel with
/// the constants in scope in it.
pub(crate) fn parse_in(
    tokens: TokenStream,
    scopes: Option<&consts::Expanded>,
) -> (Vec<Parsed>, Vec<Diagnostic>) {
    let mut errors = Vec::new();
    let parser = |input: ParseStream| {
        let mut kernels = Vec::new();
        while !input.is_empty() {
            match kernel(input, scopes) {
                Ok(k) => kernels.push(k),
                Err(e) => {
                    errors.push(e.into());
                    skip_item(input);
                }
            }
        }
        Ok(kernels)
    };
    match parser.parse2(tokens) {
        Ok(kernels) => (kernels, errors),
        Err(e) => {
            errors.push(e.into());
            (Vec::new(), errors)
        }
    }
}

fn kernel(input: ParseStream, scopes: Option<&consts::Expanded>) -> Result<Parsed> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    let keyword = input
        .call(Ident::parse_any)
        .map_err(|e| Error::new(e.span(), "expected `kernel`"))?;
    if keyword != "kernel" {
        let hint = match keyword.to_string().as_str() {
            "fn" => ": kernels are declared with `kernel`, not `fn`",
            "include" => {
                ": `include` reads a file into a file of kernels the `simt` command reads (`simt_front::compile_file_including`); in Rust, the kernels of one `simt_kernel!` share its constants and functions"
            }
            "__global__" | "__device__" | "__host__" | "extern" | "void" => {
                ": this is CUDA; a kernel here is `kernel name(out: &mut [f32], n: u32) { ... }`, its buffers slices and its scalars numbers"
            }
            _ => "",
        };
        return Err(Error::new(
            keyword.span(),
            format!("expected `kernel`{hint}"),
        ));
    }
    let name: Ident = input.parse()?;
    functions::reset();
    consts::enter(scopes.map_or_else(Default::default, |s| s.scope(&name.unraw().to_string())));
    let content;
    parenthesized!(content in input);
    let params: Vec<Param> = all(&content, |c| {
        let list = c.parse_terminated(param, Token![,])?;
        Ok(list.into_iter().collect())
    })?;
    let body;
    let brace = braced!(body in input);
    let mut errors = Vec::new();
    let attrs = attrs::kernel(attrs, &mut errors);
    let names = declared_names(&params, &body);
    let body = statements(&body, &name, &names, &mut errors);
    if errors.is_empty() {
        else_if(&body, &mut errors);
    }
    Ok(Parsed {
        kernel: Kernel {
            attrs: attrs.rest,
            vis,
            name,
            workgroup_size: attrs.workgroup_size,
            race_free: attrs.race_free,
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
        "f16" => ElemType::F16,
        "bf16" => ElemType::BF16,
        "u64" => ElemType::U64,
        "i64" => ElemType::I64,
        "f64" => ElemType::F64,
        other => {
            return Err(Error::new(
                id.span(),
                format!(
                "unsupported element type `{other}`: expected u8, i8, u16, i16, u32, i32, f32, f16, bf16, u64, i64 or f64"
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

/// The names a kernel declares (parameters, registers, LDS arrays), found
/// from the tokens before the body is parsed, since declarations may follow
/// their use: a declared name after a finished operand is an operand.
fn declared_names(params: &[Param], body: ParseStream) -> HashSet<String> {
    let mut names: HashSet<String> = params.iter().map(|p| p.name.to_string()).collect();
    // In a register list; right after `lds`.
    let (mut in_regs, mut after_lds) = (false, false);
    let mut cursor = body.cursor();
    while let Some((tt, next)) = cursor.token_tree() {
        cursor = next;
        match tt {
            TokenTree::Ident(id) => {
                let word = id.to_string();
                let keyword = words::DECLARATIONS.contains(&word.as_str());
                if (in_regs || after_lds) && !words::is_reserved(&word) {
                    names.insert(word.clone());
                } else {
                    in_regs = false;
                }
                after_lds = word == "lds";
                in_regs = (in_regs || keyword) && !after_lds;
            }
            TokenTree::Punct(p) if p.as_char() == ',' => after_lds = false,
            _ => (in_regs, after_lds) = (false, false),
        }
    }
    names
}

/// The statements of the body of kernel `open`.
fn statements(
    input: ParseStream,
    open: &Ident,
    names: &HashSet<String>,
    errors: &mut Vec<Diagnostic>,
) -> Vec<Stmt> {
    let mut stmts = Vec::new();
    // Whether the last statement kept was already blamed for an error.
    let mut reported = false;
    // Contracts read and not yet attached to an instruction.
    let mut pending: Vec<Contract> = Vec::new();
    while !input.is_empty() {
        let before = input.cursor();
        match stmt(input, open, names, errors, &mut pending) {
            Ok(Some(mut s)) => {
                match &mut s {
                    Stmt::Inst(inst) => inst.contracts = std::mem::take(&mut pending),
                    _ => errors.extend(
                        pending
                            .drain(..)
                            .map(|c| attrs::stray(c, "not before a declaration")),
                    ),
                }
                stmts.push(s);
                reported = false;
            }
            Ok(None) => {}
            Err(e) => {
                // The statement that does not parse, or the instruction before
                // it when that one's mnemonic is misspelt and so took operands
                // it may not have.
                let previous = match stmts.last() {
                    Some(Stmt::Inst(inst)) if !reported => misspelt(&inst.mnemonic),
                    _ => None,
                };
                if let Some(near) = misspelt_start(before).or(previous) {
                    errors.push(near);
                }
                reported = true;
                errors.push(functions::at_calls(*e, &functions::calls()));
                recover(input, before);
            }
        }
    }
    errors.extend(
        pending
            .into_iter()
            .map(|c| attrs::stray(c, "not at the end of the body")),
    );
    stmts
}

/// When a statement that does not parse begins with a word close to a
/// mnemonic, that word is the likelier mistake: the tokens after a misspelt
/// mnemonic are read with the operands of what it may mean. Not so for an
/// assignment (`v = x[i]`), which has its own error.
fn misspelt_start(start: Cursor) -> Option<Diagnostic> {
    if assignment(start).is_some() {
        return None;
    }
    misspelt(&start.ident()?.0)
}

/// The span of `=` where a statement starts as a C assignment, `NAME = ...`
/// (not `==`).
fn assignment(start: Cursor) -> Option<Span> {
    let (_, rest) = start.ident()?;
    let (eq, after) = rest.punct()?;
    let alone = eq.as_char() == '='
        && eq.spacing() == proc_macro2::Spacing::Alone
        && after.punct().is_none_or(|(p, _)| p.as_char() != '=');
    alone.then(|| eq.span())
}

/// "unknown mnemonic" for a word close to one (a Rust keyword is told
/// apart by [`rust_keyword`]).
fn misspelt(word: &Ident) -> Option<Diagnostic> {
    let name = word.to_string();
    if words::is_reserved(&name)
        || rust_keyword(&name).is_some()
        || suggest::cuda_habit(&name).is_some()
    {
        return None;
    }
    let suggestions = suggest::mnemonics(&name);
    if suggestions.is_empty() {
        return None;
    }
    Some(
        Diagnostic::new(
            Kind::UnknownMnemonic,
            Location::token(word.span()),
            format!("unknown mnemonic `{name}`"),
        )
        .with_help(suggest::similar(suggest::MNEMONIC, &suggestions)),
    )
}

/// Reads a marker [`functions::inline`] left around an inlined body
/// (`MARK_BEGIN name (args) ;` or `MARK_END ;`) and enters or leaves the call.
fn call_marker(input: ParseStream) -> Result<()> {
    let marker: Ident = input.parse()?;
    if marker == functions::MARK_BEGIN {
        let name: Ident = input.parse()?;
        let args;
        let parens = parenthesized!(args in input);
        functions::enter(functions::CallSite {
            name,
            at: Location::tokens(marker.span(), parens.span.close()),
        });
    } else {
        functions::leave();
    }
    input.parse::<Token![;]>()?;
    Ok(())
}

/// The error for a statement that starts with a CUDA word: it covers the word
/// and the arguments in parentheses after it, or, for a `__shared__` array,
/// the whole declaration, rewritten as an `lds` one.
/// Consumes what the error covers, so that recovery starts after it.
fn cuda_habit(input: ParseStream, word: &Ident, habit: suggest::Habit) -> Diagnostic {
    let mut last = word.span();
    let mut replacement = habit.replacement;
    let Some((_, rest)) = input.cursor().ident() else {
        return Diagnostic::new(Kind::Syntax, Location::token(last), habit.message);
    };
    // Token trees the error covers.
    let mut covered = 1;
    if let Some((_, args, _)) = rest.group(Delimiter::Parenthesis) {
        last = args.close();
        covered = 2;
    }
    if word == "__shared__" {
        let array = (|| {
            let (ty, r) = rest.ident()?;
            let (name, r) = r.ident()?;
            let (len, brackets, after) = r.group(Delimiter::Bracket)?;
            // One dimension, of a type simt has.
            let elem = match ty.to_string().as_str() {
                "float" => "f32",
                "int" | "int32_t" => "i32",
                "unsigned" | "uint" | "uint32_t" => "u32",
                _ => return None,
            };
            after
                .group(Delimiter::Bracket)
                .is_none()
                .then_some((elem, name, len, brackets))
        })();
        if let Some((elem, name, len, brackets)) = array {
            covered = 4;
            last = brackets.close();
            replacement = Some(format!("lds {name}: [{elem}; {}]", len.token_stream()));
        }
    }
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        for _ in 0..covered {
            if let Some((_, next)) = rest.token_tree() {
                rest = next;
            }
        }
        Ok(((), rest))
    });
    Diagnostic::new(
        Kind::Syntax,
        Location::tokens(word.span(), last),
        habit.message,
    )
    .with_help(replacement.map(|r| Help {
        message: "write instead".to_owned(),
        replacement: Some(r),
    }))
}

/// What a Rust keyword that starts a statement would be in the kernel
/// language, for the keywords a Rust programmer reaches for.
fn rust_keyword(word: &str) -> Option<&'static str> {
    Some(match word {
        "let" => "declare a register with `vreg name;` (or `sreg`, `mreg`) and set it with an instruction, `v_mov name, value`",
        "fn" => "kernels are declared with `kernel` at the top level of `simt_kernel!`, and a body holds instructions",
        "while" | "for" => "repeat with `loop` ... `endloop m`, which runs again while mask `m` has an active lane (set it with a compare such as `v_cmp_lt_u32 m, i, n`); `break m` and `continue m` leave or restart it",
        "match" => "choose with `if m` / `else` / `endif` on a mask set by a compare",
        "return" => "a kernel ends at its closing `}`; `break m` leaves a loop for the lanes of `m`",
        "const" | "static" | "struct" | "enum" | "use" | "impl" | "unsafe" | "mod" | "type"
        | "trait" => {
            "a body holds declarations (`vreg`, `sreg`, `mreg`, `lds`) and instructions, one mnemonic and its operands each"
        }
        _ => return None,
    })
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
                    let word = id.to_string();
                    if words::is_reserved(&word)
                        || rust_keyword(&word).is_some()
                        || suggest::cuda_habit(&word).is_some()
                        || [functions::MARK_BEGIN, functions::MARK_END].contains(&word.as_str())
                    {
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

fn stmt(
    input: ParseStream,
    open: &Ident,
    names: &HashSet<String>,
    errors: &mut Vec<Diagnostic>,
    pending: &mut Vec<Contract>,
) -> std::result::Result<Option<Stmt>, Box<Diagnostic>> {
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
        return Ok(None);
    }
    if input.peek(Token![#]) {
        // `///` comments arrive as `#[doc]` attributes: they are comments here.
        attrs::body(input.call(Attribute::parse_outer)?, pending)?;
        return Ok(None);
    }
    let Some((word, _)) = input.cursor().ident() else {
        return Err(input
            .error("expected an instruction or a declaration")
            .into());
    };
    let text = word.to_string();
    if text == functions::MARK_BEGIN || text == functions::MARK_END {
        // A contract states a fact of one instruction, not of a call's.
        let place = if text == functions::MARK_BEGIN {
            "not before a call"
        } else {
            "not at the end of a function's body"
        };
        errors.extend(pending.drain(..).map(|c| attrs::stray(c, place)));
        call_marker(input)?;
        return Ok(None);
    }
    if text == "const" {
        let tokens = input.step(|cursor| {
            let mut rest = *cursor;
            let mut out = Vec::new();
            while let Some((tt, next)) = rest.token_tree() {
                rest = next;
                let end = matches!(&tt, TokenTree::Punct(p) if p.as_char() == ';');
                out.push(tt);
                if end {
                    break;
                }
            }
            Ok((out, rest))
        })?;
        consts::define_in_body(tokens)?;
        return Ok(None);
    }
    let nested = match input.cursor().ident().and_then(|(_, rest)| rest.ident()) {
        Some((next, _)) => text == "pub" && next == "kernel" || text == "kernel",
        None => text == "pub",
    };
    if nested {
        return Err(Box::new(Diagnostic::new(
            Kind::Syntax,
            Location::token(word.span()),
            format!(
                "kernels cannot nest: this kernel starts inside the body of `{open}`, which is still open; close `{open}` with `}}` before it"
            ),
        )
        .label(
            Location::token(open.span()),
            format!("the body of `{open}` opens here"),
        )));
    }
    if let Some(habit) = suggest::cuda_habit(&text) {
        return Err(Box::new(cuda_habit(input, &word, habit)));
    }
    if let Some(instead) = rust_keyword(&text) {
        return Err(Box::new(Diagnostic::new(
            Kind::Syntax,
            Location::token(word.span()),
            format!("`{text}` is Rust, and the kernel language has no Rust statements: {instead}"),
        )));
    }
    if let Some(eq) = assignment(input.cursor()) {
        return Err(Box::new(
            Diagnostic::new(
                Kind::Syntax,
                Location::tokens(word.span(), eq),
                format!(
                    "`{text} = ...` is an assignment, and the kernel language has none: an instruction is a mnemonic and its operands, the destination first"
                ),
            )
            .help(
                format!(
                    "a load is `global_load {text}, x[i]` (`lds_load` from an `lds` array), a copy `v_mov {text}, value`, arithmetic `v_add_u32 {text}, a, b`"
                ),
                None,
            ),
        ));
    }
    let names_follow = input
        .cursor()
        .ident()
        .is_some_and(|(_, rest)| rest.ident().is_some());
    if names_follow && !words::is_reserved(&text) && suggest::mnemonics(&text).is_empty() {
        let declarations = suggest::closest(&text, words::DECLARATIONS.iter().copied());
        if let Some(declaration) = declarations.first() {
            let mut d = Diagnostic::new(
                Kind::UnknownMnemonic,
                Location::token(word.span()),
                format!("unknown word `{text}`"),
            )
            .with_help(suggest::similar(
                ("declaration keyword", "declaration keywords"),
                &[declaration],
            ));
            d.notes
                .push("declarations and mnemonics are lower case".to_owned());
            return Err(Box::new(d));
        }
    }
    Ok(Some(match text.as_str() {
        "vreg" => Stmt::Regs(regs(input, RegClass::V)?),
        "sreg" => Stmt::Regs(regs(input, RegClass::S)?),
        "mreg" => Stmt::Regs(regs(input, RegClass::M)?),
        "lds" => Stmt::Lds(lds(input)?),
        _ => Stmt::Inst(instruction(input, names, errors)?),
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
        let len = const_expr(c)?;
        Ok((elem, len))
    })?;
    semicolon(input, "the LDS declaration")?;
    Ok(LdsDecl { name, elem, len })
}

/// An instruction; `errors` receives the mistakes it recovers from.
fn instruction(
    input: ParseStream,
    names: &HashSet<String>,
    errors: &mut Vec<Diagnostic>,
) -> Result<Instruction> {
    let mnemonic = input.call(Ident::parse_any)?;
    let word = mnemonic.to_string();
    let takes_operands = words::takes_operands(&word);
    // A misspelt mnemonic's count is unknown: any operand-like word may follow.
    let wanted = words::lookup(&word).map_or(usize::MAX, |m| m.operands().count());
    let mut operands = Vec::new();
    let mut trailing_comma = None;
    if takes_operands && starts_operand(input) {
        operands.push(operand(input, false, errors)?);
        loop {
            if input.peek(Token![,]) {
                let comma = input.parse::<Token![,]>()?;
                // A trailing comma before the next instruction: the checker
                // reports it, or the missing operand when the count is short.
                if !starts_operand(input) {
                    trailing_comma = Some(comma.span);
                    break;
                }
            } else if operands.len() < wanted && missing_comma(input, names) {
                let next = operand(input, false, errors)?;
                if let Some(previous) = operands.last() {
                    errors.push(comma_error(previous, &next));
                }
                operands.push(next);
                continue;
            } else {
                break;
            }
            operands.push(operand(input, false, errors)?);
        }
    }
    // A string is a `print`'s format, and nothing else.
    for (k, op) in operands.iter().enumerate() {
        if let Operand::Str(s) = op {
            if word != "print" || k > 0 {
                errors.push(Diagnostic::new(
                    Kind::OperandKind,
                    Location::token(s.span()),
                    "a string is only the format of a `print`: a value is a register, parameter, special value or number",
                ));
            }
        }
    }
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
    }
    Ok(Instruction {
        mnemonic,
        operands,
        trailing_comma,
        inlined: functions::calls(),
        contracts: Vec::new(),
    })
}

/// Whether the next token begins an operand: anything but the end, `;`, `#`, or
/// a word that starts an instruction or declaration.
fn starts_operand(input: ParseStream) -> bool {
    if input.is_empty() || input.peek(Token![;]) || input.peek(Token![#]) {
        return false;
    }
    match input.cursor().ident() {
        Some((id, _)) => !words::is_reserved(&id.to_string()),
        None => true,
    }
}

/// Whether what follows a finished operand of an instruction still short of
/// operands is another operand, so that the comma between them is missing: a
/// number, a name the kernel declares, a numbered register, a special value, a
/// word followed by `,` (which no mnemonic is), or one followed by `[` or `.`
/// unless it is close to a mnemonic. Any other word starts the next
/// instruction, so that a misspelt mnemonic is reported as one.
fn missing_comma(input: ParseStream, names: &HashSet<String>) -> bool {
    let number = |c: Cursor| c.literal().is_some();
    let cursor = input.cursor();
    if number(cursor) {
        return true;
    }
    if let Some((p, rest)) = cursor.punct() {
        return p.as_char() == '-' && number(rest);
    }
    let Some((id, rest)) = cursor.ident() else {
        return false;
    };
    let word = id.to_string();
    if words::is_reserved(&word) {
        return false;
    }
    if names.contains(&word) || numbered(&word).is_some() || SPECIALS.contains(&word.as_str()) {
        return true;
    }
    let then = rest.punct().map(|(p, _)| p.as_char());
    if then == Some(',') {
        return true;
    }
    (then == Some('.') || rest.group(Delimiter::Bracket).is_some())
        && suggest::mnemonics(&word).is_empty()
}

/// "expected `,` between `v` and `i`", underlining the gap: from the last
/// token of the first operand to the first token of the second.
fn comma_error(previous: &Operand, next: &Operand) -> Diagnostic {
    let message = format!(
        "expected `,` between `{}` and `{}`",
        text(previous),
        text(next)
    );
    let at = Location::tokens(previous.spans().1, next.spans().0);
    Diagnostic::new(Kind::Syntax, at, message)
}

/// An operand as written, for messages.
pub(crate) fn text(op: &Operand) -> String {
    match op {
        Operand::Name(id) => id.to_string(),
        Operand::Dotted { base, field } => format!("{base}.{field}"),
        Operand::Number(e) => expr_text(e),
        Operand::Str(s) => format!("{:?}", s.value()),
        Operand::Mem {
            base,
            bytes,
            index,
            offset,
            ..
        } => {
            let bytes = if *bytes { ".bytes" } else { "" };
            let offset = match offset {
                Some((negative, k)) => {
                    format!(" {} {}", if *negative { "-" } else { "+" }, text(k))
                }
                None => String::new(),
            };
            format!("{base}{bytes}[{}{offset}]", text(index))
        }
        Operand::List { items, .. } => {
            let items: Vec<String> = items.iter().map(text).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// A constant expression as written, for messages.
fn expr_text(e: &Expr) -> String {
    match e {
        Expr::Lit { lit, minus } => {
            let sign = if minus.is_some() { "-" } else { "" };
            format!("{sign}{}", lit.to_token_stream())
        }
        Expr::Neg(e, _) => format!("-({})", expr_text(e)),
        Expr::Binary(a, op, b) => {
            let op = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Rem => "%",
                BinOp::Shl => "<<",
                BinOp::Shr => ">>",
                BinOp::And => "&",
                BinOp::Xor => "^",
                BinOp::Or => "|",
            };
            format!("{} {op} {}", expr_text(a), expr_text(b))
        }
    }
}

/// `else if m` is an `else` holding a nested `if`, which needs an `endif` of
/// its own. When `if`s are left open, or a closer meets an `if` it does not
/// close, each `else if` is the likely cause, and is reported with the form
/// that nests, instead of the unclosed `if` the validator would report.
fn else_if(stmts: &[Stmt], errors: &mut Vec<Diagnostic>) {
    // Open constructs: `true` for an `if`, `false` for a `loop`.
    let mut open = Vec::new();
    let mut unbalanced = false;
    let mut pairs = Vec::new();
    let mut previous: Option<&Instruction> = None;
    for stmt in stmts {
        let Stmt::Inst(inst) = stmt else { continue };
        match inst.mnemonic.to_string().as_str() {
            "if" => {
                open.push(true);
                if let Some(else_) = previous.filter(|p| p.mnemonic == "else") {
                    pairs.push((else_, inst));
                }
            }
            "loop" => open.push(false),
            closer @ ("endif" | "endloop") => match open.last() {
                Some(&is_if) if is_if == (closer == "endif") => {
                    open.pop();
                }
                Some(true) => {
                    unbalanced = true;
                    break;
                }
                _ => break,
            },
            _ => {}
        }
        previous = Some(inst);
    }
    if !unbalanced && !open.contains(&true) {
        return;
    }
    for (else_, if_) in pairs {
        let mask = if_.operands.first().map_or_else(|| "m".to_owned(), text);
        errors.push(Diagnostic::new(
            Kind::Nesting,
            Location::tokens(else_.mnemonic.span(), if_.mnemonic.span()),
            format!(
                "there is no `else if`: an `if` after `else` is nested in it and needs its own `endif` (`else` / `if {mask}` ... `endif` / `endif`)"
            ),
        ));
    }
}

/// An operand; `in_index` inside a memory operand's brackets; `errors`
/// receives the mistakes it recovers from.
fn operand(input: ParseStream, in_index: bool, errors: &mut Vec<Diagnostic>) -> Result<Operand> {
    if starts_number(input) {
        return Ok(Operand::Number(const_expr(input)?));
    }
    if input.peek(syn::LitStr) && !in_index {
        return Ok(Operand::Str(input.parse()?));
    }
    if input.peek(token::Bracket) && !in_index {
        let content;
        let bracket = bracketed!(content in input);
        let items = all(&content, |c| {
            let mut items = Vec::new();
            while !c.is_empty() {
                items.push(operand(c, true, errors)?);
                if c.is_empty() {
                    break;
                }
                c.parse::<Token![,]>()?;
            }
            Ok(items)
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
            if input.peek(token::Bracket) {
                if field != "bytes" {
                    errors.push(bytes_field(&base, &field));
                }
                return memory(input, base, true, in_index, errors);
            }
            return Ok(Operand::Dotted { base, field });
        }
        if input.peek(token::Bracket) {
            return memory(input, base, false, in_index, errors);
        }
        if input.peek(token::Paren) {
            let content;
            let paren = parenthesized!(content in input);
            errors.push(call(
                &base,
                &content,
                Location::tokens(base.span(), paren.span.close()),
            ));
            skip_rest(&content);
        }
        return Ok(Operand::Name(base));
    }
    Err(input.error(
        "expected an operand: a register, parameter, special value, immediate or memory reference",
    ))
}

/// Whether a constant expression starts here.
fn starts_number(input: ParseStream) -> bool {
    input.peek(Token![-])
        || input.peek(LitInt)
        || input.peek(LitFloat)
        || input.peek(token::Paren)
        || constant(input).is_some()
}

/// The constant whose name is next, as the literal it stands for.
fn constant(input: ParseStream) -> Option<(syn::Lit, Option<Span>)> {
    consts::value(&input.cursor().ident()?.0)
}

/// Takes the constant's name [`constant`] saw.
fn skip_word(input: ParseStream) -> Result<()> {
    input.call(Ident::parse_any).map(|_| ())
}

/// `buf.byte[i]`: only `.bytes` may come between a buffer and its index.
fn bytes_field(base: &Ident, field: &Ident) -> Diagnostic {
    let forms = format!("`{base}.bytes[i]` indexes bytes, `{base}[i]` elements");
    let at = Location::token(field.span());
    let close = suggest::closest(&field.to_string(), ["bytes"]);
    if close.is_empty() {
        return Diagnostic::new(
            Kind::Field,
            at,
            format!("unknown field `.{field}` before `[`: {forms}"),
        );
    }
    let mut d = Diagnostic::new(Kind::Field, at, format!("unknown field `.{field}`"))
        .with_help(suggest::similar(("field", "fields"), &close));
    d.notes.push(forms);
    d
}

/// `get_global_id(0)`: operands are not calls, but a call may name a special
/// value in another language, with its axis as the argument.
fn call(base: &Ident, args: ParseStream, at: Location) -> Diagnostic {
    let axis = args
        .parse::<LitInt>()
        .ok()
        .filter(|_| args.is_empty())
        .and_then(|n| match n.base10_digits() {
            "0" => Some("x"),
            "1" => Some("y"),
            "2" => Some("z"),
            _ => None,
        });
    match suggest::special_spelling(&base.to_string(), axis) {
        Some(ours) => Diagnostic::new(Kind::Syntax, at, "operands are not calls")
            .with_help(Some(suggest::special_value(&ours))),
        None => Diagnostic::new(
            Kind::Syntax,
            at,
            format!("operands are not calls: `{base}` cannot take arguments"),
        ),
    }
}

fn memory(
    input: ParseStream,
    base: Ident,
    bytes: bool,
    in_index: bool,
    errors: &mut Vec<Diagnostic>,
) -> Result<Operand> {
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
        // A `+` or `-` at the top level of a constant index starts the
        // offset, as after any other index: `x[4 + k]`.
        let index = if starts_number(c) {
            Operand::Number(expr(c, 0, 0, true)?.0)
        } else {
            operand(c, true, errors)?
        };
        let offset = if c.peek(Token![+]) || c.peek(Token![-]) {
            let negative = c.peek(Token![-]);
            if negative {
                c.parse::<Token![-]>()?;
            } else {
                c.parse::<Token![+]>()?;
            }
            Some((negative, Box::new(operand(c, true, errors)?)))
        } else {
            None
        };
        if !c.is_empty() {
            return Err(after_index(c, &base, &index, offset.is_some()));
        }
        Ok((index, offset))
    })?;
    if !in_index && (input.peek(Token![+]) || input.peek(Token![-])) {
        return Err(input.error(format!(
            "an offset goes inside the brackets: `{base}[i + k]`, `{base}[i - 2]`"
        )));
    }
    if input.peek(token::Bracket) {
        return Err(input.error(format!(
            "a memory operand takes one index: compute the element's position into one register first (for rows of `width` elements, `v_mad_u32 j, row, width, column`) and write `{base}[j]`"
        )));
    }
    Ok(Operand::Mem {
        base,
        bytes,
        index: Box::new(index),
        offset,
        close: bracket.span.close(),
    })
}

/// What is wrong with tokens left after the index (and offset) of `base[...]`:
/// an operator means arithmetic the index cannot hold.
fn after_index(c: ParseStream, base: &Ident, index: &Operand, has_offset: bool) -> Error {
    let expected = "expected `]` after the index, or `+ offset` / `- offset`";
    let Some((op, _)) = peek_op(c) else {
        return c.error(expected);
    };
    let (symbol, mnemonic) = match op {
        BinOp::Mul => ("*", "v_mul_u32"),
        BinOp::Div => ("/", "v_div_u32"),
        BinOp::Rem => ("%", "v_rem_u32"),
        BinOp::Shl => ("<<", "v_shl"),
        BinOp::Shr => (">>", "v_shr_u32"),
        BinOp::And => ("&", "v_and"),
        BinOp::Or => ("|", "v_or"),
        BinOp::Xor => ("^", "v_xor"),
        BinOp::Add => ("+", "v_add_u32"),
        BinOp::Sub => ("-", "v_sub_u32"),
    };
    let forms = format!(
        "an index is a value plus an optional offset (`{base}[i]`, `{base}[i + k]`, `{base}[i - 2]`)"
    );
    let i = text(index);
    if has_offset {
        return c.error(format!(
            "{forms}, so `{symbol}` cannot follow the offset: compute the whole index into a register first (`v_add_u32`, `{mnemonic}`, ...) and write `{base}[j]`"
        ));
    }
    c.error(format!(
        "{forms}, so `{symbol}` cannot follow it: compute the index first with `{mnemonic} j, {i}, ...` and write `{base}[j]`"
    ))
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

/// How deep a constant expression may nest: operators applied to the result
/// of operators (`0 + 0 + ... + 0` is one level per `+`), parentheses and
/// unary minus. Checking, evaluating and dropping an expression recurse once
/// per level, so without a bound a long generated sum overflows the stack
/// rustc gives the macro.
pub const MAX_EXPR_DEPTH: usize = 256;

/// A constant expression that is the whole of `input` (a named constant's
/// value).
pub(crate) fn whole_const_expr(input: ParseStream) -> Result<Expr> {
    all(input, const_expr)
}

/// A constant expression: see [`expr`].
fn const_expr(input: ParseStream) -> Result<Expr> {
    expr(input, 0, 0, false).map(|(e, _)| e)
}

fn too_deep(span: Span) -> Error {
    Error::new(
        span,
        format!(
            "constant expression nested more than {MAX_EXPR_DEPTH} levels deep (operators, parentheses and `-` count one level each): write its value as one literal"
        ),
    )
}

/// A constant expression whose operators bind tighter than `min`, `depth`
/// levels inside the whole one, with its own depth: literals, parentheses,
/// unary `-` (repeatable: `- -1` is 1), and the integer operators of Rust with
/// Rust's precedence. Range, suffix and type are checked where it is used.
/// With `index`, a `+` or `-` at its own level ends it: inside a memory
/// operand's brackets they start the offset (`x[4 + k]`), so an index that
/// adds must be parenthesized (`x[(4 + 1) * 2]`).
fn expr(input: ParseStream, min: u8, depth: usize, index: bool) -> Result<(Expr, usize)> {
    if depth > MAX_EXPR_DEPTH {
        return Err(too_deep(input.span()));
    }
    let (mut lhs, mut height) = if input.peek(Token![-]) {
        let minus: Token![-] = input.parse()?;
        if input.peek(LitInt) || input.peek(LitFloat) {
            let lit = Expr::Lit {
                lit: input.parse()?,
                minus: Some(minus.span),
            };
            (lit, 0)
        } else if input.peek(token::Paren) || input.peek(Token![-]) || constant(input).is_some() {
            let (e, h) = expr(input, 6, depth + 1, false)?;
            (Expr::Neg(Box::new(e), minus.span), h + 1)
        } else {
            return Err(input.error("expected a number after `-`"));
        }
    } else if input.peek(token::Paren) {
        let content;
        parenthesized!(content in input);
        let (e, h) = all(&content, |c| expr(c, 0, depth + 1, false))?;
        (e, h + 1)
    } else if input.peek(LitInt) || input.peek(LitFloat) {
        let lit = Expr::Lit {
            lit: input.parse()?,
            minus: None,
        };
        (lit, 0)
    } else if let Some((lit, minus)) = constant(input) {
        skip_word(input)?;
        (Expr::Lit { lit, minus }, 0)
    } else {
        return Err(input.error("expected a number"));
    };
    while let Some((op, power)) = peek_op(input) {
        if power < min || index && matches!(op, BinOp::Add | BinOp::Sub) {
            break;
        }
        let at = input.span();
        skip_op(input, op)?;
        let (rhs, h) = expr(input, power + 1, depth + 1, false)?;
        height = height.max(h) + 1;
        if depth + height > MAX_EXPR_DEPTH {
            return Err(too_deep(at));
        }
        lhs = Expr::Binary(Box::new(lhs), op, Box::new(rhs));
    }
    Ok((lhs, height))
}
