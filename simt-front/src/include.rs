//! `include "common.simt";` in a file of kernels: the constants and inline
//! functions of another file, read relative to the including one, as if
//! written where the `include` stands.
//!
//! Only the files the `simt` command reads include
//! ([`compile_file_including`](crate::compile_file_including)); the macro and
//! text from elsewhere read no file. Each included file is tokenized on its
//! own, so its tokens keep its own lines
//! and columns, and [`Sources::file_of`] tells which file a span is in
//! (proc-macro2 joins two spans only within one file). An included file
//! holds constants and functions, not kernels: a kernel's listing and
//! statistics are per line of one file, and an included function's
//! instructions are counted on the line of the call that brought them in.

use crate::diagnostic::{Diagnostic, Kind, Location};
use proc_macro2::{Span, TokenStream, TokenTree};
use std::cell::RefCell;
use std::path::Path;

/// How deep includes may nest.
const MAX_DEPTH: usize = 16;

/// One file of the text: its name as shown, its text, and a span of one of
/// its tokens (none for a file without tokens) to recognise its other spans.
pub(crate) struct Source {
    pub(crate) name: String,
    pub(crate) text: String,
    anchor: Option<Span>,
}

/// The files of one compile: the file given first, then the included ones.
#[derive(Default)]
pub(crate) struct Sources {
    pub(crate) files: Vec<Source>,
    /// Each file read, by its canonical path: a file is included once.
    read: Vec<std::path::PathBuf>,
    /// The files being read, the main one first, by canonical path: one of
    /// them included again is a cycle.
    open: Vec<std::path::PathBuf>,
}

thread_local! {
    /// The main file's anchor while a file is compiled: the lowering counts
    /// an instruction from another file on its call's line.
    static MAIN: RefCell<Option<Span>> = const { RefCell::new(None) };
}

/// Whether `span` is in a file included into the one compiled (never in the
/// macro, which reads one invocation).
pub(crate) fn is_included(span: Span) -> bool {
    MAIN.with(|m| m.borrow().is_some_and(|main| main.join(span).is_none()))
}

impl Sources {
    /// The index of the file `span` is in (0, the main file, when none
    /// claims it).
    pub(crate) fn file_of(&self, span: Span) -> usize {
        self.files
            .iter()
            .position(|f| f.anchor.is_some_and(|a| a.join(span).is_some()))
            .unwrap_or(0)
    }

    /// Adds a file, recognised by `anchor` (a span in it); its index.
    fn add(&mut self, name: String, text: String, anchor: Option<Span>) -> usize {
        self.files.push(Source { name, text, anchor });
        self.files.len() - 1
    }

    /// The main file `name` with `text`, tokenized as `tokens`.
    pub(crate) fn main(name: &str, text: &str, tokens: &TokenStream) -> Sources {
        let mut sources = Sources::default();
        let anchor = tokens.clone().into_iter().next().map(|t| t.span());
        sources.add(name.to_owned(), text.to_owned(), anchor);
        if let Ok(path) = std::fs::canonicalize(name) {
            sources.read.push(path.clone());
            sources.open.push(path);
        }
        MAIN.with(|m| *m.borrow_mut() = anchor);
        sources
    }
}

impl Drop for Sources {
    /// Forgets the main file, however the compile ends.
    fn drop(&mut self) {
        MAIN.with(|m| *m.borrow_mut() = None);
    }
}

/// `tokens` with each top-level `include "path";` replaced by the included
/// file's tokens (its includes expanded in turn), the path relative to the
/// directory of the file `from` names; mistakes are `errors` at the include.
pub(crate) fn expand(
    tokens: TokenStream,
    from: usize,
    sources: &mut Sources,
    stack: &mut Vec<String>,
    errors: &mut Vec<Diagnostic>,
) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let TokenTree::Ident(word) = &tokens[i] else {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        };
        // `include` before a string; anything else is left to the parser.
        let path = match tokens.get(i + 1) {
            Some(TokenTree::Literal(l)) if word == "include" => {
                syn::parse_str::<syn::LitStr>(&l.to_string())
                    .ok()
                    .map(|s| (s.value(), l.span()))
            }
            _ => None,
        };
        let Some((path, at)) = path else {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        };
        let semicolon =
            matches!(tokens.get(i + 2), Some(TokenTree::Punct(p)) if p.as_char() == ';');
        if !semicolon {
            errors.push(Diagnostic::new(
                Kind::Syntax,
                Location::token(at),
                "expected `;` after the file to include: `include \"common.simt\";`",
            ));
        }
        i += 2 + usize::from(semicolon);
        if let Some(tokens) = include(&path, at, from, sources, stack, errors) {
            out.extend(tokens);
        }
    }
    out.into_iter().collect()
}

/// The tokens of the file `path` (from the file `from`), included at `at`.
fn include(
    path: &str,
    at: Span,
    from: usize,
    sources: &mut Sources,
    stack: &mut Vec<String>,
    errors: &mut Vec<Diagnostic>,
) -> Option<TokenStream> {
    let error = |message: String| Diagnostic::new(Kind::Syntax, Location::token(at), message);
    let dir = Path::new(&sources.files[from].name)
        .parent()
        .unwrap_or(Path::new(""));
    let name = dir.join(path).display().to_string();
    let canonical = match std::fs::canonicalize(&name) {
        Ok(path) => path,
        Err(e) => {
            errors.push(error(format!("cannot read `{name}`: {e}")));
            return None;
        }
    };
    if sources.open.contains(&canonical) {
        errors.push(error(format!(
            "`{name}` includes itself ({} -> {name})",
            stack.join(" -> ")
        )));
        return None;
    }
    // Included once: a second include of a file (a diamond) adds nothing.
    if sources.read.contains(&canonical) {
        return Some(TokenStream::new());
    }
    // The stack holds the main file, then each include.
    if stack.len() > MAX_DEPTH {
        errors.push(error(format!(
            "includes nest more than {MAX_DEPTH} deep here"
        )));
        return None;
    }
    let text = match crate::file::read_source(std::path::Path::new(&name)) {
        Ok(text) => text,
        Err(e) => {
            errors.push(error(format!("cannot read `{name}`: {e}")));
            return None;
        }
    };
    sources.read.push(canonical.clone());
    let tokens = match text.parse::<TokenStream>() {
        Ok(tokens) => tokens,
        Err(e) => {
            // Located in the included file, whose only span is the error's.
            sources.add(name.clone(), text, Some(e.span()));
            errors.push(
                Diagnostic::new(Kind::Syntax, Location::token(e.span()), e.to_string())
                    .label(Location::token(at), "included here"),
            );
            return None;
        }
    };
    let anchor = tokens.clone().into_iter().next().map(|t| t.span());
    let index = sources.add(name.clone(), text, anchor);
    if let Some(kernel) = tokens
        .clone()
        .into_iter()
        .find(|t| matches!(t, TokenTree::Ident(id) if id == "kernel"))
    {
        errors.push(
            Diagnostic::new(
                Kind::Kernels,
                Location::token(kernel.span()),
                "an included file holds constants and functions; its kernels go in the file given to simt, whose lines their statistics are counted on",
            )
            .label(Location::token(at), "included here"),
        );
        return None;
    }
    stack.push(name);
    sources.open.push(canonical);
    let tokens = expand(tokens, index, sources, stack, errors);
    sources.open.pop();
    stack.pop();
    Some(tokens)
}
