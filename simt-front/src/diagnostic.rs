//! Diagnostics as data: what is wrong, where (down to the operand), what else
//! it concerns, and how to fix it. The front end's stages produce them; how
//! they are shown is decided at the edge: the macro turns them into
//! `compile_error!`s at the tokens, [`compile`](crate::compile) renders them
//! as rustc does.

use proc_macro2::{Punct, Spacing, Span, TokenStream, TokenTree};

/// Where a diagnostic points: from the first token to the last (an operand,
/// a whole instruction, or one word).
#[derive(Clone, Copy, Debug)]
pub struct Location {
    /// The first token.
    pub first: Span,
    /// The last token (the first again for one token).
    pub last: Span,
}

impl Location {
    /// One token.
    pub fn token(span: Span) -> Location {
        Location {
            first: span,
            last: span,
        }
    }

    /// Tokens from `first` to `last`.
    pub fn tokens(first: Span, last: Span) -> Location {
        Location { first, last }
    }

    /// Where `error` points. A `syn::Error` keeps the first and last span of
    /// what it was made for, and shows them only in the tokens of its
    /// `compile_error!`: its first and last token.
    fn of_syn(error: &syn::Error) -> Location {
        let tokens: Vec<TokenTree> = error.to_compile_error().into_iter().collect();
        match (tokens.first(), tokens.last()) {
            (Some(first), Some(last)) => Location::tokens(first.span(), last.span()),
            _ => Location::token(error.span()),
        }
    }

    /// Two tokens carrying the first and last span: what `syn::Error::new_spanned`
    /// needs to underline from one to the other (`Span::join` is unstable in
    /// procedural macros, but rustc joins the spans of a `compile_error!`'s
    /// first and last tokens).
    pub fn to_tokens(self) -> TokenStream {
        [self.first, self.last]
            .into_iter()
            .map(|span| {
                let mut p = Punct::new('.', Spacing::Alone);
                p.set_span(span);
                TokenTree::Punct(p)
            })
            .collect()
    }
}

/// Which stage found a problem, and so which rules it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The tokens do not form a kernel (the parser).
    Syntax,
    /// Kernels of one invocation or file clash (two of one name, or one named
    /// after the crate the macro's output names).
    Kernels,
    /// Names, operands, literals or the program's validity (the checker and
    /// the validator).
    Check,
}

/// A related location and what it is to the diagnostic (the first
/// declaration of a name declared twice, the `if` an `endif` would close).
#[derive(Clone, Debug)]
pub struct Label {
    /// Where.
    pub at: Location,
    /// What it is.
    pub message: String,
}

/// A suggested fix.
#[derive(Clone, Debug)]
pub struct Help {
    /// What to do.
    pub message: String,
    /// Text to write at the diagnostic's location instead, where there is one.
    pub replacement: Option<String>,
}

/// One problem in kernel source.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Which stage found it.
    pub kind: Kind,
    /// What is wrong.
    pub message: String,
    /// Where: the primary location.
    pub at: Location,
    /// Related locations, each with what it is.
    pub labels: Vec<Label>,
    /// Facts that explain it, without a location.
    pub notes: Vec<String>,
    /// How to fix it.
    pub help: Option<Help>,
}

impl Diagnostic {
    /// A diagnostic with only a message and a location.
    pub fn new(kind: Kind, at: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind,
            message: message.into(),
            at,
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    /// The diagnostic as separate errors, as the macro shows it (stable
    /// procedural macros cannot attach a note to another span): the error at
    /// its location, its notes and help on lines below its message, then one
    /// error per label at the label's location, its message starting `note: `.
    pub fn as_errors(&self) -> Vec<(Location, String)> {
        let mut message = self.message.clone();
        for note in &self.notes {
            message.push_str(&format!("\n= note: {note}"));
        }
        if let Some(help) = &self.help {
            message.push_str(&format!("\n= help: {}", help.message));
            if let Some(replacement) = &help.replacement {
                message.push_str(&format!(": `{replacement}`"));
            }
        }
        let labels = self
            .labels
            .iter()
            .map(|l| (l.at, format!("note: {}", l.message)));
        std::iter::once((self.at, message)).chain(labels).collect()
    }

    /// Adds a related location.
    pub fn label(mut self, at: Location, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            at,
            message: message.into(),
        });
        self
    }
}

/// `errors` as diagnostics of `kind`: each error message its own diagnostic,
/// and an error whose message starts with `note: ` a label of the one before.
pub(crate) fn from_syn(
    kind: Kind,
    errors: impl IntoIterator<Item = syn::Error>,
) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for error in errors.into_iter().flatten() {
        let at = Location::of_syn(&error);
        let message = error.to_string();
        match (message.strip_prefix("note: "), out.last_mut()) {
            (Some(note), Some(previous)) => previous.labels.push(Label {
                at,
                message: note.to_owned(),
            }),
            _ => out.push(Diagnostic::new(kind, at, message)),
        }
    }
    out
}
