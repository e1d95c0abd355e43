//! Inline functions: named instruction sequences with register and constant
//! parameters, expanded where they are called.
//!
//! - `fn escape(x: vreg, n: sreg, done: mreg, const ITERS: u32) { ... }` at
//!   the top of an invocation or file defines one; its parameters are
//!   registers (`vreg`, `sreg`, `mreg`; a special value or a kernel's
//!   scalar parameter may stand for one), arrays (`lds`, `buffer`),
//!   mnemonics (`add: mnemonic`, so that one body serves `v_add_i32` and
//!   `v_add_f32`) or constants (`const NAME: u32`, `i32` or `f32`).
//! - `call escape(cx, count, m, 64)` in a kernel (or in another function)
//!   writes the body there, each parameter replaced by its argument's
//!   tokens; a constant's expression stays one value (it is parenthesised).
//!   The registers and arrays the body declares belong to the kernel,
//!   declared once however often it calls the function.
//!
//! [`inline`] runs after the templates are instantiated and before the
//! parser: each call becomes the function's tokens (spans kept, so that an
//! error points into the function), between two markers that tell the parser
//! which call it is reading ([`MARK_BEGIN`], [`MARK_END`]); the parser keeps
//! the chain of calls on each instruction, and every error about an inlined
//! instruction is labelled at its call. The checks then see one kernel, with
//! the function's instructions at each call: a `barrier` in a function is
//! allowed exactly where it would be allowed written at the call.

use crate::diagnostic::{Diagnostic, Kind, Label, Location};
use crate::suggest;
use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, TokenStream, TokenTree};
use std::cell::RefCell;
use std::collections::HashMap;
use syn::ext::IdentExt;

/// The word that opens an inlined body: `MARK_BEGIN name (args) ;`, placed
/// at the call (the marker's span is the `call` keyword's, the group's the
/// arguments').
pub(crate) const MARK_BEGIN: &str = "__simt_call_begin";
/// The word that closes an inlined body: `MARK_END ;`.
pub(crate) const MARK_END: &str = "__simt_call_end";

/// How deep calls may nest: a chain longer than this is a mistake (calls
/// cannot recurse, so only a very long chain of distinct functions reaches it).
const MAX_DEPTH: usize = 16;

/// How many tokens the calls of one kernel may write out: calls inside
/// functions called several times multiply, and a few lines could otherwise
/// ask for more than memory holds (about 30,000 instructions).
const MAX_TOKENS: usize = 200_000;

/// What a parameter stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ParamKind {
    /// A register, an array or a mnemonic: the argument's tokens stand for
    /// it (`local_id.x` for a `vreg`, say).
    Name,
    /// A constant: the argument is a constant expression.
    Const,
}

/// One function, as written.
struct Function {
    name: Ident,
    params: Vec<(Ident, ParamKind)>,
    body: Vec<TokenTree>,
}

/// The functions of an invocation, by name.
#[derive(Default)]
pub(crate) struct Functions(HashMap<String, Function>);

/// One call being read: the function's name and where the call is written.
#[derive(Clone, Debug)]
pub struct CallSite {
    /// The function's name, as written at the call.
    pub name: Ident,
    /// The call, from `call` to its closing parenthesis.
    pub at: Location,
}

thread_local! {
    /// The calls the parser is inside, outermost first.
    static CALLS: RefCell<Vec<CallSite>> = const { RefCell::new(Vec::new()) };
}

/// The calls the parser is inside, outermost first: what an instruction
/// parsed now was inlined through.
pub(crate) fn calls() -> Vec<CallSite> {
    CALLS.with(|c| c.borrow().clone())
}

/// The parser entered a call (`MARK_BEGIN name (args)`).
pub(crate) fn enter(site: CallSite) {
    CALLS.with(|c| c.borrow_mut().push(site));
}

/// The parser left the innermost call.
pub(crate) fn leave() {
    CALLS.with(|c| c.borrow_mut().pop());
}

/// Forgets every call: a kernel starts outside any.
pub(crate) fn reset() {
    CALLS.with(|c| c.borrow_mut().clear());
}

/// `d` with a label at each call it was inlined through, innermost first.
pub(crate) fn at_calls(mut d: Diagnostic, calls: &[CallSite]) -> Diagnostic {
    label_calls(&mut d, calls);
    d
}

/// Labels `d` at each call it was inlined through, innermost first.
pub(crate) fn label_calls(d: &mut Diagnostic, calls: &[CallSite]) {
    for site in calls.iter().rev() {
        d.labels.push(Label {
            at: site.at,
            message: format!("in this call of `{}`", site.name),
        });
    }
}

/// Whether `item` (after its attributes and visibility, at `at`) is a
/// function: `fn name(...) { ... }` whose parameters name no Rust type (one
/// with `&` is a kernel written as a Rust function, which the parser
/// reports).
pub(crate) fn is_function(item: &[TokenTree], at: usize) -> bool {
    let word = |k: usize, w: &str| matches!(item.get(k), Some(TokenTree::Ident(id)) if id == w);
    let params = match item.get(at + 2) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => g.stream(),
        _ => return false,
    };
    word(at, "fn")
        && matches!(item.get(at + 1), Some(TokenTree::Ident(_)))
        && matches!(item.get(at + 3), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace)
        && item.len() == at + 4
        && !params
            .into_iter()
            .any(|t| matches!(&t, TokenTree::Punct(p) if p.as_char() == '&'))
}

impl Functions {
    /// Reads the function `item` (`is_function` said so, its `fn` at `at`).
    pub(crate) fn define(&mut self, item: &[TokenTree], at: usize, errors: &mut Vec<Diagnostic>) {
        let (
            Some(TokenTree::Ident(name)),
            Some(TokenTree::Group(params)),
            Some(TokenTree::Group(body)),
        ) = (item.get(at + 1), item.get(at + 2), item.get(at + 3))
        else {
            return;
        };
        // Documentation (`///`, which arrives as `#[doc]`) is the only
        // attribute a function takes.
        let attribute = item[..at].iter().find_map(|t| match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
                let doc = matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "doc");
                (!doc).then(|| g.span())
            }
            _ => None,
        });
        if let Some(span) = attribute {
            errors.push(Diagnostic::new(
                Kind::Syntax,
                Location::token(span),
                "a function takes no attributes but its documentation: contracts and shapes go on the kernel or on an instruction",
            ));
        }
        let tokens: Vec<TokenTree> = params.stream().into_iter().collect();
        let mut list = Vec::new();
        for part in tokens.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
            match part {
                [] => {}
                [TokenTree::Ident(p), TokenTree::Punct(c), TokenTree::Ident(kind)]
                    if c.as_char() == ':'
                        && matches!(
                            kind.to_string().as_str(),
                            "vreg" | "sreg" | "mreg" | "lds" | "buffer" | "mnemonic"
                        ) =>
                {
                    list.push((p.clone(), ParamKind::Name));
                }
                [TokenTree::Ident(k), TokenTree::Ident(p), TokenTree::Punct(c), TokenTree::Ident(ty)]
                    if k == "const"
                        && c.as_char() == ':'
                        && matches!(ty.to_string().as_str(), "u32" | "i32" | "f32") =>
                {
                    list.push((p.clone(), ParamKind::Const));
                }
                _ => {
                    errors.push(Diagnostic::new(
                        Kind::Syntax,
                        Location::tokens(part[0].span(), part[part.len() - 1].span()),
                        "a function's parameter is a register, an array, a mnemonic or a constant: `x: vreg`, `s: sreg`, `m: mreg`, `tile: lds`, `buf: buffer`, `add: mnemonic` or `const N: u32` (`i32`, `f32`)",
                    ));
                    return;
                }
            }
        }
        for (k, (p, _)) in list.iter().enumerate() {
            if crate::words::is_reserved(&p.unraw().to_string()) {
                errors.push(Diagnostic::new(
                    Kind::ReservedName,
                    Location::token(p.span()),
                    format!("`{p}` is a word of the language and cannot name a parameter"),
                ));
                return;
            }
            if let Some((first, _)) = list[..k].iter().find(|(q, _)| q == p) {
                errors.push(
                    Diagnostic::new(
                        Kind::DeclaredTwice,
                        Location::token(p.span()),
                        format!("the parameter `{p}` is declared twice"),
                    )
                    .label(Location::token(first.span()), "first declared here"),
                );
                return;
            }
        }
        let key = name.unraw().to_string();
        if let Some(first) = self.0.get(&key) {
            errors.push(
                Diagnostic::new(
                    Kind::Kernels,
                    Location::token(name.span()),
                    format!(
                        "the function `{name}` is defined twice in this {}",
                        crate::unit()
                    ),
                )
                .label(
                    Location::token(first.name.span()),
                    format!("`{name}` is first defined here"),
                ),
            );
            return;
        }
        self.0.insert(
            key,
            Function {
                name: name.clone(),
                params: list,
                body: body.stream().into_iter().collect(),
            },
        );
    }

    /// `item`, a kernel, with every call in its body replaced by the
    /// function's body.
    pub(crate) fn inline(
        &self,
        item: Vec<TokenTree>,
        errors: &mut Vec<Diagnostic>,
    ) -> Vec<TokenTree> {
        let mut item = item;
        let Some(TokenTree::Group(body)) = item.last() else {
            return item;
        };
        if body.delimiter() != Delimiter::Brace {
            return item;
        }
        let mut expansion = Expansion {
            functions: self,
            stack: Vec::new(),
            sites: Vec::new(),
            declared: HashMap::new(),
            written: 0,
            errors,
        };
        let tokens: Vec<TokenTree> = body.stream().into_iter().collect();
        if !tokens
            .iter()
            .any(|t| matches!(t, TokenTree::Ident(id) if id == "call"))
        {
            return item;
        }
        let inlined = expansion.body(tokens);
        let mut group = Group::new(Delimiter::Brace, inlined.into_iter().collect());
        // A group takes one span for both braces: the closing one, where the
        // kernel's `end` is placed.
        group.set_span(body.span_close());
        *item.last_mut().expect("a body") = TokenTree::Group(group);
        item
    }
}

/// The inlining of one kernel's calls.
struct Expansion<'a> {
    functions: &'a Functions,
    /// The functions being expanded, outermost first: a call of one of them
    /// would recurse.
    stack: Vec<String>,
    /// Where each of them is called.
    sites: Vec<CallSite>,
    /// The functions whose declarations the kernel already has, with them
    /// as the first call wrote them.
    declared: HashMap<String, String>,
    /// The tokens written out so far.
    written: usize,
    errors: &'a mut Vec<Diagnostic>,
}

impl Expansion<'_> {
    /// Reports `d`, labelled at the calls being expanded.
    fn error(&mut self, d: Diagnostic) {
        self.errors.push(at_calls(d, &self.sites));
    }

    /// `tokens`, a body, with each `call name(args)` expanded.
    fn body(&mut self, tokens: Vec<TokenTree>) -> Vec<TokenTree> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                // `call` followed by a name that is no word of the language,
                // and not after a `,`; anywhere else (`vreg call;`, `v_mov
                // call, 1`, `v_add_u32 v, v, call` before the next line's
                // mnemonic) it is a name the parser reads.
                TokenTree::Ident(word)
                    if word == "call"
                        && matches!(tokens.get(i + 1), Some(TokenTree::Ident(next))
                            if !crate::words::is_reserved(&next.to_string()))
                        && !matches!(i.checked_sub(1).and_then(|k| tokens.get(k)),
                            Some(TokenTree::Punct(p)) if p.as_char() == ',') =>
                {
                    let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(args))) =
                        (tokens.get(i + 1), tokens.get(i + 2))
                    else {
                        self.error(Diagnostic::new(
                            Kind::Syntax,
                            Location::token(word.span()),
                            "expected a function's name and its arguments: `call name(a, b)`",
                        ));
                        // The name is no mnemonic either.
                        i += 2;
                        continue;
                    };
                    if args.delimiter() != Delimiter::Parenthesis {
                        self.error(Diagnostic::new(
                            Kind::Syntax,
                            Location::token(args.span()),
                            "expected the arguments in parentheses: `call name(a, b)`",
                        ));
                        i += 3;
                        continue;
                    }
                    self.call(word, name, args, &mut out);
                    i += 3;
                    // A `;` after a call ends it, as after an instruction.
                    if matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
                        i += 1;
                    }
                }
                t => {
                    out.push(t.clone());
                    i += 1;
                }
            }
        }
        out
    }

    /// Expands `call name(args)` into `out`.
    fn call(&mut self, word: &Ident, name: &Ident, args: &Group, out: &mut Vec<TokenTree>) {
        if self.written > MAX_TOKENS {
            // Said once, at the call that went past.
            return;
        }
        let at = Location::tokens(word.span(), args.span_close());
        let key = name.unraw().to_string();
        let Some(f) = self.functions.0.get(&key) else {
            let known: Vec<&str> = self.functions.0.keys().map(String::as_str).collect();
            let mut d = Diagnostic::new(
                Kind::UnknownName,
                Location::token(name.span()),
                format!("no function `{name}` is defined in this {}", crate::unit()),
            );
            d = d.with_help(suggest::similar(
                ("function", "functions"),
                &suggest::closest(&key, known),
            ));
            self.error(d);
            return;
        };
        if let Some(k) = self.stack.iter().position(|s| *s == key) {
            let mut chain = self.stack[k..].to_vec();
            chain.push(key.clone());
            self.error(Diagnostic::new(
                Kind::Syntax,
                at,
                format!(
                    "`{name}` calls itself ({}): a function is written out at each call, so it cannot recurse",
                    chain.join(" -> ")
                ),
            ));
            return;
        }
        if self.stack.len() >= MAX_DEPTH {
            self.error(Diagnostic::new(
                Kind::Syntax,
                at,
                format!("calls nest more than {MAX_DEPTH} deep here"),
            ));
            return;
        }
        let Some(bound) = self.arguments(f, name, at, args) else {
            return;
        };
        let whole = substitute(&f.body, &bound);
        let (rest, declarations) = split_declarations(&whole);
        let written = text(&declarations);
        let body = match self.declared.get(&key) {
            // The first call keeps them where they are written: among the
            // body's `const`s, and after any contract before them.
            None => {
                self.declared.insert(key.clone(), written);
                whole
            }
            Some(first) if *first == written => rest,
            Some(first) => {
                self.error(Diagnostic::new(
                    Kind::DeclaredTwice,
                    at,
                    format!(
                        "this call of `{name}` declares `{written}`, and its first call in this kernel declared `{first}`: a function's declarations are the kernel's, made once, at its first call"
                    ),
                ));
                return;
            }
        };
        self.written += weight(&body);
        if self.written > MAX_TOKENS {
            self.error(Diagnostic::new(
                Kind::Limit,
                at,
                format!(
                    "the calls of this kernel write out more than {MAX_TOKENS} tokens by here: a function called in loops of calls multiplies; call fewer times, or loop in the kernel"
                ),
            ));
            return;
        }
        self.stack.push(key);
        self.sites.push(CallSite {
            name: name.clone(),
            at,
        });
        let body = self.body(body);
        self.sites.pop();
        self.stack.pop();
        let mut marker_args = Group::new(Delimiter::Parenthesis, TokenStream::new());
        marker_args.set_span(args.span());
        // Each marker follows a `;`, so that an instruction left unfinished
        // (a trailing comma) before it ends there rather than taking it.
        let semicolon = || TokenTree::Punct(Punct::new(';', Spacing::Alone));
        out.push(semicolon());
        out.push(TokenTree::Ident(Ident::new(MARK_BEGIN, word.span())));
        out.push(TokenTree::Ident(name.clone()));
        out.push(TokenTree::Group(marker_args));
        out.push(semicolon());
        out.extend(body);
        out.push(semicolon());
        out.push(TokenTree::Ident(Ident::new(MARK_END, word.span())));
        out.push(semicolon());
    }

    /// Each parameter of `f` bound to its argument in `args` (of the call
    /// of `name` at `at`), or `None` when they do not match (said).
    fn arguments(
        &mut self,
        f: &Function,
        name: &Ident,
        at: Location,
        args: &Group,
    ) -> Option<HashMap<String, Vec<TokenTree>>> {
        let given: Vec<TokenTree> = args.stream().into_iter().collect();
        let mut given: Vec<&[TokenTree]> = if given.is_empty() {
            Vec::new()
        } else {
            given
                .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                .collect()
        };
        // A trailing comma, as in the parameter list.
        if given.len() > 1 && given.last().is_some_and(|a| a.is_empty()) {
            given.pop();
        }
        if given.len() != f.params.len() {
            self.error(
                Diagnostic::new(
                    Kind::OperandCount,
                    at,
                    format!(
                        "`{name}` takes {} argument{}, and this call gives {}",
                        f.params.len(),
                        if f.params.len() == 1 { "" } else { "s" },
                        given.len()
                    ),
                )
                .label(
                    Location::token(f.name.span()),
                    format!("`{name}` is defined here"),
                ),
            );
            return None;
        }
        let mut bound: HashMap<String, Vec<TokenTree>> = HashMap::new();
        for ((p, kind), arg) in f.params.iter().zip(&given) {
            let value = match (kind, arg) {
                (_, []) => {
                    self.error(
                        Diagnostic::new(
                            Kind::OperandCount,
                            Location::token(args.span()),
                            format!("the argument for `{p}` is missing"),
                        )
                        .label(Location::token(p.span()), format!("`{p}` is declared here")),
                    );
                    return None;
                }
                // An expression stays one value wherever the constant is used.
                (ParamKind::Const, [first, _, ..]) => {
                    let mut g = Group::new(Delimiter::Parenthesis, arg.iter().cloned().collect());
                    g.set_span(first.span());
                    vec![TokenTree::Group(g)]
                }
                _ => arg.to_vec(),
            };
            bound.insert(p.unraw().to_string(), value);
        }
        Some(bound)
    }
}

/// A function's body with each parameter replaced by its argument (but not
/// an axis after a `.`: `local_id.x` stays itself for a parameter `x`).
fn substitute(body: &[TokenTree], bound: &HashMap<String, Vec<TokenTree>>) -> Vec<TokenTree> {
    let mut out = Vec::new();
    let mut after_dot = false;
    for t in body {
        match t {
            TokenTree::Ident(id) if !after_dot => match bound.get(&id.unraw().to_string()) {
                Some(value) => out.extend(value.iter().cloned()),
                None => out.push(t.clone()),
            },
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let mut group = Group::new(
                    g.delimiter(),
                    substitute(&inner, bound).into_iter().collect(),
                );
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            _ => out.push(t.clone()),
        }
        after_dot = matches!(t, TokenTree::Punct(p) if p.as_char() == '.');
    }
    out
}

/// A body's statements but its declarations, and its declarations: each
/// starts at a declaration keyword (reserved, so never an operand) and runs
/// to its `;`.
fn split_declarations(body: &[TokenTree]) -> (Vec<TokenTree>, Vec<TokenTree>) {
    let (mut rest, mut declarations) = (Vec::new(), Vec::new());
    let mut inside = false;
    for t in body {
        if let TokenTree::Ident(id) = t {
            inside |= crate::words::DECLARATIONS.contains(&id.to_string().as_str());
        }
        if inside {
            inside = !matches!(t, TokenTree::Punct(p) if p.as_char() == ';');
            declarations.push(t.clone());
        } else {
            rest.push(t.clone());
        }
    }
    (rest, declarations)
}

/// Tokens as they are written (`lds s: [u32; 16];`), to compare two calls'
/// declarations and show them: the same in the macro and in a file, which
/// print token streams with different spacing.
fn text(tokens: &[TokenTree]) -> String {
    let mut out = String::new();
    for t in tokens {
        let tight = matches!(t, TokenTree::Punct(p) if matches!(p.as_char(), ',' | ';' | ':'));
        if !out.is_empty() && !tight {
            out.push(' ');
        }
        match t {
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                out.push_str(&text(&inner));
                out.push_str(close);
            }
            other => out.push_str(&other.to_string()),
        }
    }
    out
}

/// How many tokens `tokens` hold, those inside groups included.
fn weight(tokens: &[TokenTree]) -> usize {
    tokens
        .iter()
        .map(|t| match t {
            TokenTree::Group(g) => 1 + weight(&g.stream().into_iter().collect::<Vec<_>>()),
            _ => 1,
        })
        .sum()
}
