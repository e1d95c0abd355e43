//! Errors as data: where in the PTX text (line and column), what is wrong,
//! and what to do instead; rendered as rustc renders its own where they are
//! shown.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::fmt;

/// A place in the PTX text: 1-based line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// One thing wrong with the PTX, or one thing simt does not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxError {
    /// Where it is.
    pub at: Pos,
    /// How many characters it spans on its line (at least 1).
    pub len: u32,
    /// What is wrong.
    pub message: String,
    /// What to do instead, when there is something to say.
    pub help: Option<String>,
}

impl PtxError {
    /// An error of `len` characters at `at`.
    pub fn new(at: Pos, len: u32, message: impl Into<String>) -> PtxError {
        PtxError {
            at,
            len: len.max(1),
            message: message.into(),
            help: None,
        }
    }

    /// The error with `help` added.
    pub fn help(mut self, help: impl Into<String>) -> PtxError {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.at.line, self.at.column, self.message)
    }
}

/// Every error of one PTX file, with its text for rendering.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    /// The file's name as it is shown.
    pub file: String,
    /// The file's text.
    pub source: String,
    /// The errors, in the order found.
    pub errors: Vec<PtxError>,
}

impl Diagnostics {
    /// The errors rendered as rustc renders its own: each with the source
    /// line and the words it concerns underlined, then a count.
    pub fn render(&self, colour: bool) -> String {
        let renderer = if colour {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut out = String::new();
        for e in &self.errors {
            let bytes = self.bytes(e);
            let snippet = Snippet::source(self.source.as_str())
                .path(self.file.as_str())
                .fold(true)
                .annotation(AnnotationKind::Primary.span(bytes));
            let mut report =
                vec![
                    Group::with_title(Level::ERROR.primary_title(e.message.as_str()))
                        .element(snippet),
                ];
            if let Some(help) = &e.help {
                report.push(Group::with_title(
                    Level::HELP.secondary_title(help.as_str()),
                ));
            }
            out.push_str(&renderer.render(&report).to_string());
            out.push_str("\n\n");
        }
        let n = self.errors.len();
        out.push_str(&format!(
            "error: could not lower `{}` ({n} {})\n",
            self.file,
            if n == 1 { "error" } else { "errors" }
        ));
        out
    }

    /// The byte range of `e` in the source, clamped to its line.
    fn bytes(&self, e: &PtxError) -> std::ops::Range<usize> {
        let line_start: usize = self
            .source
            .split_inclusive('\n')
            .take(e.at.line.saturating_sub(1) as usize)
            .map(str::len)
            .sum();
        let line_start = line_start.min(self.source.len());
        let text = self.source[line_start..].split('\n').next().unwrap_or("");
        let char_at = |c: u32| {
            text.char_indices()
                .nth(c.saturating_sub(1) as usize)
                .map_or(text.len(), |(k, _)| k)
        };
        let start = char_at(e.at.column);
        let end = char_at(e.at.column.saturating_add(e.len)).max(start);
        line_start + start..line_start + end
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}
