//! Kernels given as text at run time: the macro's front end over tokens read
//! from a string, with diagnostics located in that text and rendered as rustc
//! renders its own (through `annotate-snippets`).

use crate::diagnostic::{Diagnostic, Help, Kind, Label, Location};
use crate::include::{self, Sources};
use annotate_snippets::{AnnotationKind, Group, Level, Patch, Renderer, Snippet};
use proc_macro2::{TokenStream, TokenTree};
use simt_lang::Kernel;
use std::fmt;
use std::ops::Range;

/// Compiles the one kernel of `source`, written exactly as inside
/// `simt_kernel!` (its signature included). Diagnostics name the file
/// `<text>`; [`compile_file`] names a real one.
pub fn compile(source: &str) -> Result<Kernel, Diagnostics> {
    let mut kernels = compile_file("<text>", source)?;
    match kernels.len() {
        1 => Ok(kernels.remove(0)),
        n => Err(Diagnostics::whole(
            "<text>",
            source,
            format!("expected one kernel, found {n}; use `compile_file` for several"),
        )),
    }
}

/// Compiles every kernel of `source`, the text of the file `file` (which the
/// kernels' programs and the diagnostics name).
pub fn compile_file(file: &str, source: &str) -> Result<Vec<Kernel>, Diagnostics> {
    compile_file_with(file, source, &[])
}

/// [`compile_file`] with values for the constants of the templates the file
/// leaves without instances (`simt run --const PAD=1`): each template whose
/// constants `consts` all give (as `(NAME, VALUE)`, the value a constant
/// expression) becomes one kernel of its own name; a name no such template
/// declares is an error.
pub fn compile_file_with(
    file: &str,
    source: &str,
    consts: &[(String, String)],
) -> Result<Vec<Kernel>, Diagnostics> {
    crate::in_unit("file", || {
        compile_in(file, source, consts, false, |tokens| vec![tokens])
    })
}

/// [`compile_file_with`] for a file on disk that its user chose (the `simt`
/// command's): its `include "path";` items read other files, relative to
/// `file`'s directory. Text from elsewhere goes through [`compile_file_with`],
/// which reads no file.
pub fn compile_file_including(
    file: &str,
    source: &str,
    consts: &[(String, String)],
) -> Result<Vec<Kernel>, Diagnostics> {
    crate::in_unit("file", || {
        compile_in(file, source, consts, true, |tokens| vec![tokens])
    })
}

/// [`compile_file_including`] for running kernel `kernel` alone: a template
/// of another name that nothing instantiates is left out, not refused (only
/// what runs needs instantiating).
pub fn compile_file_for(
    file: &str,
    source: &str,
    consts: &[(String, String)],
    kernel: &str,
) -> Result<Vec<Kernel>, Diagnostics> {
    crate::consts::wanting(kernel, || compile_file_including(file, source, consts))
}

/// Compiles the kernels of every `simt_kernel!` invocation in `source`, the
/// Rust source of the file `file`, as the macro would when that file compiles:
/// each invocation is checked on its own, and every kernel and diagnostic is
/// located in the whole file (so `file:line:column` are rustc's). Text outside
/// the invocations is only tokenized, never checked.
pub fn compile_rust_file(file: &str, source: &str) -> Result<Vec<Kernel>, Diagnostics> {
    compile_in(file, source, &[], false, |tokens| {
        let mut bodies = Vec::new();
        invocations(tokens, &mut bodies);
        bodies
    })
}

/// Tokenizes `source`, checks each token stream `units` makes of it as one
/// invocation, and locates what it finds in `source`.
fn compile_in(
    file: &str,
    source: &str,
    given: &[(String, String)],
    includes: bool,
    units: impl FnOnce(TokenStream) -> Vec<TokenStream>,
) -> Result<Vec<Kernel>, Diagnostics> {
    let result = match source.parse::<TokenStream>() {
        Err(e) => {
            let at = Location::token(e.span());
            let d = Diagnostic::new(Kind::Syntax, at, e.to_string());
            let sources = Sources::main(file, source, &TokenStream::new());
            Err(Diagnostics::new(&sources, &[d]))
        }
        Ok(tokens) => {
            let mut sources = Sources::main(file, source, &tokens);
            let mut errors = Vec::new();
            let tokens = if includes {
                include::expand(
                    tokens,
                    0,
                    &mut sources,
                    &mut vec![file.to_owned()],
                    &mut errors,
                )
            } else {
                tokens
            };
            let mut kernels = Vec::new();
            if errors.is_empty() {
                for unit in units(tokens) {
                    let checks = crate::check_with(unit, given);
                    errors.extend(checks.errors);
                    kernels.extend(checks.kernels.into_iter().filter_map(|c| c.program));
                }
            }
            if errors.is_empty() {
                Ok(kernels.into_iter().map(|k| k.in_file(file)).collect())
            } else {
                Err(Diagnostics::new(&sources, &errors))
            }
        }
    };
    // Outside a procedural macro, proc-macro2 keeps every text it has read
    // for its spans' locations; nothing holds a span now.
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

/// The bodies of the `simt_kernel! { ... }` invocations (by any path, with
/// any delimiter) in `tokens`, at any depth, in order.
fn invocations(tokens: TokenStream, out: &mut Vec<TokenStream>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        let TokenTree::Group(group) = token else {
            continue;
        };
        let invoked = i >= 2
            && matches!(
                (&tokens[i - 2], &tokens[i - 1]),
                (TokenTree::Ident(name), TokenTree::Punct(bang))
                    if name == "simt_kernel" && bang.as_char() == '!'
            );
        if invoked {
            out.push(group.stream());
        } else {
            invocations(group.stream(), out);
        }
    }
}

/// A place in the source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file: 0 for the one compiled, then the files it includes, in the
    /// order first included ([`Diagnostics::file_name`]).
    pub file: usize,
    /// 1-based line of the first character.
    pub line: usize,
    /// 1-based column (in characters) of the first character.
    pub column: usize,
    /// Byte offsets in the source, from the first character to past the last.
    pub bytes: Range<usize>,
}

/// A related place and what it is to a diagnostic.
pub type PlacedLabel = Label<Place>;

/// One diagnostic of a text, located in it.
pub type TextDiagnostic = Diagnostic<Place>;

/// Every diagnostic of one text, rendered (`Display`) as rustc renders errors:
/// `error: ...`, ` --> file:line:column`, the source line and an underline,
/// labels, notes and help.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    /// Each file's name and text: the one compiled, then those it includes.
    files: Vec<(String, String)>,
    items: Vec<TextDiagnostic>,
}

impl Diagnostics {
    fn new(sources: &Sources, diagnostics: &[Diagnostic]) -> Diagnostics {
        Diagnostics {
            files: sources
                .files
                .iter()
                .map(|f| (f.name.clone(), f.text.clone()))
                .collect(),
            items: diagnostics
                .iter()
                .map(|d| d.located(|&at| place(sources, at)))
                .collect(),
        }
    }

    /// One diagnostic about the text as a whole, at its start.
    fn whole(file: &str, source: &str, message: String) -> Diagnostics {
        let at = Place {
            file: 0,
            line: 1,
            column: 1,
            bytes: 0..0,
        };
        Diagnostics {
            files: vec![(file.to_owned(), source.to_owned())],
            items: vec![Diagnostic::new(Kind::Kernels, at, message)],
        }
    }

    /// The name of file `k` of a [`Place`] (0: the file compiled).
    pub fn file_name(&self, k: usize) -> &str {
        self.files.get(k).map_or("", |(name, _)| name)
    }

    /// The diagnostics as the `simt_kernel!` macro shows them, as separate
    /// errors in order ([`Diagnostic::as_errors`]): each diagnostic's message
    /// with its notes and help on lines below, at its place, then one error per
    /// label, starting `note: `, at the label's place. Compiled from a Rust
    /// file ([`compile_rust_file`]), these are rustc's errors for that file,
    /// `error: {message}` at ` --> {file}:{line}:{column}`.
    pub fn as_errors(&self) -> Vec<(Place, String)> {
        self.items.iter().flat_map(Diagnostic::as_errors).collect()
    }

    /// The diagnostics, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, TextDiagnostic> {
        self.items.iter()
    }

    /// How many there are (at least one).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Never true: a failed compile has at least one diagnostic.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The rendering, with ANSI colours when `colour` holds.
    pub fn render(&self, colour: bool) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&self.render_one(d, colour));
            out.push_str("\n\n");
        }
        let n = self.items.len();
        let errors = if n == 1 { "error" } else { "errors" };
        out.push_str(&format!(
            "error: could not compile `{}` ({n} {errors})\n",
            self.file_name(0)
        ));
        out
    }

    /// One diagnostic, rendered: its message, a snippet of its place's file
    /// with the labels in it, one of each other file a label is in, its notes
    /// and its help.
    fn render_one(&self, d: &TextDiagnostic, colour: bool) -> String {
        let renderer = if colour {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let snippet = |k: usize| {
            let (name, text) = &self.files[k.min(self.files.len() - 1)];
            Snippet::source(text.as_str())
                .path(name.as_str())
                .fold(true)
        };
        let mut snippets = vec![(
            d.at.file,
            snippet(d.at.file).annotation(AnnotationKind::Primary.span(d.at.bytes.clone())),
        )];
        for l in &d.labels {
            let annotation = AnnotationKind::Context
                .span(l.at.bytes.clone())
                .label(l.message.as_str());
            match snippets.iter().position(|(k, _)| *k == l.at.file) {
                Some(k) => {
                    let (file, s) = snippets.remove(k);
                    snippets.insert(k, (file, s.annotation(annotation)));
                }
                None => snippets.push((l.at.file, snippet(l.at.file).annotation(annotation))),
            }
        }
        let mut group = Group::with_title(Level::ERROR.primary_title(d.message.as_str()));
        for (_, s) in snippets {
            group = group.element(s);
        }
        let mut report: Vec<Group> = vec![group];
        for note in &d.notes {
            report.push(Group::with_title(
                Level::NOTE.secondary_title(note.as_str()),
            ));
        }
        match &d.help {
            // A replacement is shown written into the source line, as
            // rustc shows a suggestion.
            Some(Help {
                message,
                replacement: Some(replacement),
            }) => report.push(Level::HELP.secondary_title(message.as_str()).element({
                let (name, text) = &self.files[d.at.file.min(self.files.len() - 1)];
                Snippet::source(text.as_str())
                    .path(name.as_str())
                    .fold(true)
                    .patch(Patch::new(d.at.bytes.clone(), replacement.as_str()))
            })),
            Some(help) => report.push(Group::with_title(
                Level::HELP.secondary_title(help.to_string()),
            )),
            None => {}
        }
        renderer.render(&report).to_string()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a TextDiagnostic;
    type IntoIter = std::slice::Iter<'a, TextDiagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// An error at 1-based `line` and `column` of `source` (a file named
/// `file`), rendered as [`Diagnostics`] are: `message`, the source line with
/// the word there underlined, then `notes`. For what the front end did not
/// find but a run did: a fault at an instruction's place.
pub fn render_at(
    file: &str,
    source: &str,
    [line, column]: [usize; 2],
    message: &str,
    notes: &[String],
    colour: bool,
) -> String {
    let line_start: usize = source
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let text = source[line_start.min(source.len())..]
        .split('\n')
        .next()
        .unwrap_or("");
    let start = line_start
        + text
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(text.len(), |(k, _)| k);
    let word = source[start.min(source.len())..]
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(source.len() - start.min(source.len()));
    let begin = start.min(source.len());
    // The kind groups compile errors; it is not shown.
    let mut d = Diagnostic::new(
        Kind::Syntax,
        Place {
            file: 0,
            line,
            column,
            bytes: begin..begin + word,
        },
        message,
    );
    d.notes = notes.to_vec();
    let one = Diagnostics {
        files: vec![(file.to_owned(), source.to_owned())],
        items: Vec::new(),
    };
    one.render_one(&d, colour)
}

/// Where `at` lies in `sources`, which its spans were read from.
fn place(sources: &Sources, at: Location) -> Place {
    let file = sources.file_of(at.first);
    let source = sources.files.get(file).map_or("", |f| f.text.as_str());
    // An operand substituted into a function's body may end in another file
    // than it starts: underline its first token alone.
    let last = if sources.file_of(at.last) == file {
        at.last
    } else {
        at.first
    };
    let start = at.first.byte_range().start.min(source.len());
    let end = last.byte_range().end.clamp(start, source.len());
    let first = at.first.start();
    Place {
        file,
        line: first.line,
        column: first.column + 1,
        bytes: start..end,
    }
}
