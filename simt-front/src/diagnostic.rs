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

/// Which rule a diagnostic is about: what a flood of errors is grouped by
/// ([`FLOOD`](super::FLOOD) of one kind, then a count), and what a tool may
/// match on without reading the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The tokens do not form a kernel: a missing or unexpected token, a
    /// nested kernel, Rust where the language is expected.
    Syntax,
    /// Kernels of one invocation or file clash (two of one name, or one named
    /// after the crate the macro's output names).
    Kernels,
    /// A word where an instruction starts is no mnemonic of the language.
    UnknownMnemonic,
    /// An operand names nothing declared, no special value and no register.
    UnknownName,
    /// A name that cannot be declared: a reserved word, a register's or
    /// special value's name, `_`, a raw identifier, `config`, an uppercase
    /// parameter.
    ReservedName,
    /// A name declared twice in one kernel (labelled at the first).
    DeclaredTwice,
    /// An instruction with too few or too many operands, or a trailing comma.
    OperandCount,
    /// An operand of the wrong kind for its place in the instruction's table
    /// row: a register of another class, an immediate or a memory operand
    /// where a register is written, a buffer read as a value, a write to a
    /// read-only value, a register list where none goes or one that is wrong.
    OperandKind,
    /// An axis or field (`.x`, `.bytes`) that the operand does not have.
    Field,
    /// A number literal or constant expression that is no valid immediate of
    /// its place (out of range, bad suffix, a float where an integer goes,
    /// division by zero), or an LDS length that is not a positive integer.
    Immediate,
    /// A memory operand of the wrong space, or a constant byte address that
    /// would fault as misaligned.
    Memory,
    /// A constant index outside an LDS array.
    OutOfBounds,
    /// A store or atomic on a buffer declared read-only (labelled at its type).
    ReadOnly,
    /// An element access whose type is not the buffer's or array's element type.
    AccessType,
    /// A value that must be the same in every lane (a scalar instruction's
    /// source, a lane index, a memory offset) that may differ between lanes.
    Uniformity,
    /// More registers, parameters or bytes of LDS than the machine has.
    Limit,
    /// `if`, `else`, `endif`, `loop`, `endloop`, `break` or `continue` that do
    /// not nest, or nest too deep.
    Nesting,
    /// A barrier that some waves of a workgroup may not reach.
    Barrier,
    /// A `print` whose format string does not parse, or whose values are
    /// not the ones its placeholders take.
    Format,
    /// An attribute that is unknown, misplaced or malformed
    /// (`#[workgroup_size(0)]`, a contract on the kernel).
    Attribute,
    /// A performance contract (`#[conflict_free]`, `#[coalesced]`,
    /// `#[race_free]`, `#[uniform]`) the static facts disprove or cannot
    /// decide, or one written on an instruction it says nothing about.
    Contract,
    /// Two accesses that race in every launch that runs them under the
    /// declared workgroup shape (primary at one, labelled at the other).
    Race,
    /// A program the validator refuses for a reason no kernel text can cause
    /// (a jump target, an LDS layout, a location table): a front-end defect.
    Internal,
}

/// A related location and what it is to the diagnostic (the first
/// declaration of a name declared twice, the `if` an `endif` would close).
/// `At` is a [`Location`] in tokens, or a [`Place`](crate::Place) in text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label<At = Location> {
    /// Where.
    pub at: At,
    /// What it is.
    pub message: String,
}

/// A suggested fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Help {
    /// What to do.
    pub message: String,
    /// Text to write at the diagnostic's location instead, where there is one.
    pub replacement: Option<String>,
}

impl std::fmt::Display for Help {
    /// What to do, then the text to write, as rustc words a suggestion.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        match &self.replacement {
            Some(r) => write!(f, ": `{r}`"),
            None => Ok(()),
        }
    }
}

/// One problem in kernel source. `At` is a [`Location`] in tokens (what the
/// stages produce and the macro shows), or a [`Place`](crate::Place) in text
/// (what [`compile`](crate::compile) returns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic<At = Location> {
    /// Which rule it is about.
    pub kind: Kind,
    /// What is wrong.
    pub message: String,
    /// Where: the primary location.
    pub at: At,
    /// Related locations, each with what it is.
    pub labels: Vec<Label<At>>,
    /// Facts that explain it, without a location.
    pub notes: Vec<String>,
    /// How to fix it.
    pub help: Option<Help>,
}

impl<At: Clone> Diagnostic<At> {
    /// A diagnostic with only a message and a location.
    pub fn new(kind: Kind, at: At, message: impl Into<String>) -> Diagnostic<At> {
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
    pub fn as_errors(&self) -> Vec<(At, String)> {
        let mut message = self.message.clone();
        for note in &self.notes {
            message.push_str(&format!("\n= note: {note}"));
        }
        if let Some(help) = &self.help {
            message.push_str(&format!("\n= help: {help}"));
        }
        let labels = self
            .labels
            .iter()
            .map(|l| (l.at.clone(), format!("note: {}", l.message)));
        std::iter::once((self.at.clone(), message))
            .chain(labels)
            .collect()
    }

    /// The same diagnostic with every location mapped by `place`.
    pub fn located<B>(&self, place: impl Fn(&At) -> B) -> Diagnostic<B> {
        Diagnostic {
            kind: self.kind,
            message: self.message.clone(),
            at: place(&self.at),
            labels: self
                .labels
                .iter()
                .map(|l| Label {
                    at: place(&l.at),
                    message: l.message.clone(),
                })
                .collect(),
            notes: self.notes.clone(),
            help: self.help.clone(),
        }
    }

    /// Adds how to fix it, with text to write instead where there is one.
    pub fn help(mut self, message: impl Into<String>, replacement: Option<String>) -> Self {
        self.help = Some(Help {
            message: message.into(),
            replacement,
        });
        self
    }

    /// Sets how to fix it, where there is a way.
    pub fn with_help(mut self, help: Option<Help>) -> Self {
        self.help = help;
        self
    }

    /// Adds a related location.
    pub fn label(mut self, at: At, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            at,
            message: message.into(),
        });
        self
    }
}

impl<At> std::fmt::Display for Diagnostic<At> {
    /// The message alone.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<syn::Error> for Diagnostic {
    /// A parse error of `syn`'s (an expected token) as a [`Kind::Syntax`]
    /// diagnostic at the tokens it was made for.
    fn from(error: syn::Error) -> Diagnostic {
        Diagnostic::new(Kind::Syntax, Location::of_syn(&error), error.to_string())
    }
}

impl From<syn::Error> for Box<Diagnostic> {
    /// As [`Diagnostic::from`], boxed: what a parser function returns,
    /// which keeps its `Result` small.
    fn from(error: syn::Error) -> Box<Diagnostic> {
        Box::new(error.into())
    }
}
