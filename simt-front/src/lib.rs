//! The front end: kernel text, as `proc_macro2` tokens, to validated kernels
//! or diagnostics. The same code runs inside the `simt_kernel!` macro and at
//! run time ([`compile`], [`compile_file`]), so both accept exactly one
//! language and word every mistake alike.
//!
//! One file per stage: [`parse`] builds the syntax tree of [`ast`]; the
//! checker (`check`) then runs `resolve` (names and declarations),
//! `operands` (each operand against the instruction table, asking `words`
//! what a word is, and `literal` for numbers) and `lower` (through the
//! [`ProgramBuilder`](simt_lang::ProgramBuilder) to the shared validator, whose
//! errors it places at the operands they name); `suggest` finds what a
//! misspelt word may have meant; `diagnostic` is what every stage reports,
//! and `text` locates and renders it in kernel text read at run time.

pub mod ast;
mod attrs;
mod bounds;
mod check;
mod consts;
mod contracts;
mod diagnostic;
mod file;
mod functions;
mod include;
mod literal;
mod lower;
mod operands;
mod parse;
mod resolve;
mod suggest;
mod text;
mod words;

pub use check::check;
pub use diagnostic::{Diagnostic, Help, Kind, Label, Location};
pub use file::{read_bounded, read_source, MAX_SOURCE_BYTES};
pub use functions::CallSite;
pub use parse::{parse, Parsed, MAX_EXPR_DEPTH};
pub use suggest::CONTROL;
pub use text::{
    compile, compile_file, compile_file_for, compile_file_including, compile_file_with,
    compile_rust_file, render_at, Diagnostics, Place, PlacedLabel, TextDiagnostic,
};
pub use words::is_reserved;

use proc_macro2::{Span, TokenStream};
use simt_lang::Kernel;
use std::collections::HashMap;
use syn::ext::IdentExt;

/// The crate the macro's generated code names, which no kernel may shadow.
pub const CRATE: &str = "simt";

/// How many errors of one kind a kernel reports before counting the rest.
pub const FLOOD: usize = 20;

/// One kernel of an invocation, checked.
pub struct Checked {
    /// The kernel as written.
    pub kernel: ast::Kernel,
    /// Its validated program, when it has no errors.
    pub program: Option<Kernel>,
    /// Whether it may become an item of its own: false for a second kernel of
    /// one name (whose item would be a second definition) and for one named
    /// after the crate the generated code names.
    pub defines: bool,
}

/// What the front end makes of one invocation (or one file) of kernels.
pub struct Checks {
    /// Every kernel, in order, with or without errors.
    pub kernels: Vec<Checked>,
    /// Every error, in order: syntax errors of the invocation first, then each
    /// kernel's, bounded per kernel ([`FLOOD`]).
    pub errors: Vec<Diagnostic>,
}

thread_local! {
    /// What the kernels being checked are written in, for messages: an
    /// `invocation` of the macro, or a `file` read at run time.
    static UNIT: std::cell::Cell<&'static str> = const { std::cell::Cell::new("invocation") };
}

/// What the kernels being checked are written in: `invocation` or `file`.
pub(crate) fn unit() -> &'static str {
    UNIT.with(std::cell::Cell::get)
}

/// Runs `f` with the kernels' unit named `name`.
pub(crate) fn in_unit<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    let before = UNIT.with(|u| u.replace(name));
    let result = f();
    UNIT.with(|u| u.set(before));
    result
}

/// Parses and checks every kernel of `tokens`. Never panics: every problem is
/// an error at the offending token.
pub fn check_tokens(tokens: TokenStream) -> Checks {
    check_with(tokens, &[])
}

/// [`check_tokens`] with values for the constants of templates that nothing
/// in `tokens` instantiates (`--const NAME=VALUE` on the command line): each
/// template whose constants are all given becomes a kernel of its own name.
pub fn check_with(tokens: TokenStream, given: &[(String, String)]) -> Checks {
    let mut expanded = consts::expand(tokens, given);
    let tokens = std::mem::take(&mut expanded.tokens);
    let mut errors = std::mem::take(&mut expanded.errors);
    let (parsed, syntax) = parse::parse_in(tokens, Some(&expanded));
    errors.extend(syntax);
    let instances = &expanded.instances;
    let mut kernels = Vec::new();
    let mut defined: HashMap<String, Span> = HashMap::new();
    for Parsed {
        kernel,
        errors: syntax,
    } in parsed
    {
        let name = kernel.name.unraw().to_string();
        let shadows_crate = name == CRATE;
        let first = defined.get(&name).copied();
        let at = Location::token(kernel.name.span());
        if let Some(first) = first {
            errors.push(
                Diagnostic::new(
                    Kind::Kernels,
                    at,
                    format!("kernel `{name}` is defined twice in this {}", unit()),
                )
                .label(
                    Location::token(first),
                    format!("`{name}` is first defined here"),
                ),
            );
        } else if shadows_crate {
            // Its module would make `simt::...` ambiguous wherever both are in
            // scope, the `use simt::simt_kernel;` above it included.
            errors.push(Diagnostic::new(
                Kind::Kernels,
                at,
                format!("a kernel named `{CRATE}` would shadow the `{CRATE}` crate (the kernel's module is named after it, and `use {CRATE}::...` becomes ambiguous); choose another name"),
            ));
        } else {
            defined.insert(name.clone(), kernel.name.span());
        }
        let (program, mut found) = if syntax.is_empty() {
            match check::check(&kernel) {
                Ok(program) => (Some(program), Vec::new()),
                Err(e) => (None, bounded(e)),
            }
        } else {
            (None, bounded(syntax))
        };
        if let Some(note) = instances.get(&name) {
            for d in &mut found {
                d.notes.push(note.clone());
            }
        }
        errors.extend(found);
        kernels.push(Checked {
            kernel,
            program,
            defines: first.is_none() && !shadows_crate,
        });
    }
    Checks { kernels, errors }
}

/// A kernel's errors with at most [`FLOOD`] of each [`Kind`]: the first one
/// past that becomes "... and N more errors like this", and the rest are
/// left out. Linear in the number of errors.
fn bounded(errors: Vec<Diagnostic>) -> Vec<Diagnostic> {
    // Per kind: how many so far, and its summary's index in `summaries`.
    let mut kinds: HashMap<Kind, (usize, usize)> = HashMap::new();
    let mut kept = Vec::new();
    // Per flooded kind: where its summary goes in `kept`, and how many errors
    // it stands for (itself and every later one).
    let mut summaries: Vec<(usize, usize)> = Vec::new();
    for error in errors {
        let (count, summary) = kinds.entry(error.kind).or_insert((0, 0));
        *count += 1;
        if *count == FLOOD + 1 {
            *summary = summaries.len();
            summaries.push((kept.len(), 1));
            kept.push(error);
        } else if *count <= FLOOD {
            kept.push(error);
        } else if let Some((_, n)) = summaries.get_mut(*summary) {
            *n += 1;
        }
    }
    for (at, n) in summaries {
        if let Some(slot) = kept.get_mut(at) {
            let errors = if n == 1 { "error" } else { "errors" };
            slot.message = format!("... and {n} more {errors} like this: {}", slot.message);
            slot.labels.clear();
        }
    }
    kept
}
