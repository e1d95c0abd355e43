//! Named constants and kernel templates.
//!
//! - `const TILE = 16;` (or `const TILE: u32 = 16;`) at the top of an
//!   invocation or file names a value for every kernel of it; in a kernel's
//!   body, for that kernel alone. The value is a constant expression, which
//!   may use constants defined before it; it is evaluated once, and each use
//!   of the name (wherever a number goes: an operand, an index, an LDS length,
//!   `#[workgroup_size]`) becomes its literal, placed at the use, so that an
//!   error about the value (out of range for the instruction, say) points at
//!   the use.
//! - `kernel transpose<const PAD: u32>(...) { ... }` is a template: it is
//!   checked and compiled only through its instances, each named in the same
//!   invocation (`kernel transpose_pad1 = transpose<PAD = 1>;`) or, for
//!   kernels read at run time, given its values on the command line
//!   (`--const PAD=1`), when it becomes one kernel of its own name. Each
//!   instance is a kernel of its own: validated, analysed and compiled with its
//!   constants, with its own facts; its errors point into the template's body
//!   and say which instance they belong to.
//!
//! [`expand`] runs before the parser: it evaluates the invocation's
//! constants, takes the templates out and writes each instance as a kernel
//! item (the template's tokens under the instance's name, spans kept). The
//! parser then reads a constant's name through [`value`], in the scope
//! [`enter`] sets for each kernel (the invocation's constants and, for an
//! instance, its template's); a `const` in a body adds to it ([`define`]).
//! Everything else passes through unchanged for the parser, which reports
//! what does not parse.

use crate::diagnostic::{Diagnostic, Kind, Location};
use crate::functions::{self, Functions};
use crate::literal::{self, Number};
use proc_macro2::{Delimiter, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use std::collections::HashMap;
use syn::ext::IdentExt;

/// Constants in scope: each name's value as the tokens of one literal (with a
/// leading `-` for a negative one), in definition order.
#[derive(Clone, Default)]
pub(crate) struct Env(Vec<(String, Vec<TokenTree>)>);

thread_local! {
    /// The constants the parser sees: set per kernel by [`enter`].
    static SCOPE: std::cell::RefCell<Env> = std::cell::RefCell::new(Env::default());
    /// The one kernel wanted, where only it needs compiling (see
    /// [`wanting`]).
    static WANTED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with only `kernel` wanted of the kernels `f` compiles: a
/// template of another name that nothing instantiates is left out rather
/// than refused, since nothing will run it (`simt run FILE --kernel K`).
pub(crate) fn wanting<T>(kernel: &str, f: impl FnOnce() -> T) -> T {
    let before = WANTED.with(|w| w.replace(Some(kernel.to_owned())));
    let out = f();
    WANTED.with(|w| *w.borrow_mut() = before);
    out
}

/// Makes `env` the constants in scope for the kernel about to be parsed.
pub(crate) fn enter(env: Env) {
    SCOPE.with(|s| *s.borrow_mut() = env);
}

/// The literal constant `name` stands for, placed at `at`: a literal and
/// the span of a leading `-`.
pub(crate) fn value(name: &Ident) -> Option<(syn::Lit, Option<Span>)> {
    let at = name.span();
    SCOPE.with(|s| {
        let s = s.borrow();
        let tokens = s.get(&name.unraw().to_string())?;
        let (minus, lit) = match tokens {
            [TokenTree::Punct(_), TokenTree::Literal(l)] => (Some(at), l),
            [TokenTree::Literal(l)] => (None, l),
            _ => return None,
        };
        let mut lit = lit.clone();
        lit.set_span(at);
        Some((syn::Lit::new(lit), minus))
    })
}

/// Parses a `const` definition of a kernel's body (`input` at `const`) and
/// adds it to the scope.
pub(crate) fn define_in_body(tokens: Vec<TokenTree>) -> Result<(), Box<Diagnostic>> {
    let mut env = SCOPE.with(|s| s.borrow().clone());
    let mut errors = Vec::new();
    define(&mut env, const_def(&tokens), &mut errors);
    SCOPE.with(|s| *s.borrow_mut() = env);
    errors
        .into_iter()
        .next()
        .map_or(Ok(()), |e| Err(Box::new(e)))
}

impl Env {
    fn get(&self, name: &str) -> Option<&[TokenTree]> {
        self.0
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| &v[..])
    }

    fn define(&mut self, name: String, value: Vec<TokenTree>) {
        self.0.push((name, value));
    }
}

/// An invocation with its constants substituted and its templates
/// instantiated.
pub(crate) struct Expanded {
    /// The kernel items, for the parser.
    pub(crate) tokens: TokenStream,
    /// Mistakes in constants, templates and instances.
    pub(crate) errors: Vec<Diagnostic>,
    /// Per instance kernel's name, the note its errors carry.
    pub(crate) instances: HashMap<String, String>,
    /// The invocation's constants.
    pub(crate) block: Env,
    /// Per instance kernel's name, the constants in scope in it.
    pub(crate) scopes: HashMap<String, Env>,
}

impl Expanded {
    /// The constants in scope in the kernel `name`.
    pub(crate) fn scope(&self, name: &str) -> Env {
        self.scopes
            .get(name)
            .cloned()
            .unwrap_or_else(|| self.block.clone())
    }
}

/// A template kernel: its header before the constant parameters, its
/// parameters, and its tokens after them (parameters and body).
struct Template {
    name: Ident,
    /// Attributes and visibility (every instance gets the attributes).
    attrs: Vec<TokenTree>,
    params: Vec<(Ident, Option<Ident>)>,
    rest: Vec<TokenTree>,
    instantiated: bool,
}

/// Resolves the constants and templates of `tokens`; `given` are values from
/// the command line (`--const NAME=VALUE`), which instantiate a template no
/// instance of which the text names under the template's own name.
pub(crate) fn expand(tokens: TokenStream, given: &[(String, String)]) -> Expanded {
    let items = split_items(tokens);
    let mut errors = Vec::new();
    let mut env = Env::default();
    // Constants first, so that every kernel sees all of them.
    for item in &items {
        if let Some(def) = const_item(item) {
            define(&mut env, def, &mut errors);
        }
    }
    let mut functions = Functions::default();
    for item in &items {
        let at = after_header(item);
        if functions::is_function(item, at) {
            functions.define(item, at, &mut errors);
        }
    }
    let mut templates: Vec<Template> = Vec::new();
    let mut out = TokenStream::new();
    let mut instances = HashMap::new();
    let mut scopes = HashMap::new();
    for item in items {
        if const_item(&item).is_some() || functions::is_function(&item, after_header(&item)) {
            continue;
        }
        match classify(&item) {
            Shape::Template(at) => match template(&item, at) {
                Ok(t) => templates.push(t),
                Err(e) => errors.push(*e),
            },
            Shape::Instance(at) => match instance(&item, at, &env, &mut templates) {
                Ok((tokens, name, note, scope)) => {
                    instances.insert(name.clone(), note);
                    scopes.insert(name, scope);
                    out.extend(tokens);
                }
                Err(e) => errors.push(*e),
            },
            Shape::Plain => out.extend(item),
        }
    }
    for (name, _) in given {
        let known = templates
            .iter()
            .any(|t| !t.instantiated && t.params.iter().any(|(p, _)| p.unraw() == name));
        if !known {
            errors.push(Diagnostic::new(
                Kind::UnknownName,
                Location::token(Span::call_site()),
                format!(
                    "`--const {name}=...` sets no constant: no template that the file leaves without instances has a constant `{name}`"
                ),
            ));
        }
    }
    for t in templates.iter_mut().filter(|t| !t.instantiated) {
        let bound: Vec<(Ident, Vec<TokenTree>)> = t
            .params
            .iter()
            .filter_map(|(p, _)| {
                let value = &given.iter().find(|(n, _)| p.unraw() == n)?.1;
                let tokens: TokenStream = value.parse().ok()?;
                Some((p.clone(), respan(tokens.into_iter().collect(), p.span())))
            })
            .collect();
        if bound.len() == t.params.len() && !t.params.is_empty() {
            let name = t.name.clone();
            match bind(t, t.attrs.clone(), &name, bound, &env) {
                Ok((tokens, note, scope)) => {
                    instances.insert(name.unraw().to_string(), note);
                    scopes.insert(name.unraw().to_string(), scope);
                    out.extend(tokens);
                }
                Err(e) => errors.push(*e),
            }
            continue;
        }
        let unwanted = WANTED.with(|w| w.borrow().as_deref().is_some_and(|k| t.name.unraw() != k));
        if unwanted {
            continue;
        }
        let example: Vec<String> = t.params.iter().map(|(p, _)| format!("{p} = 1")).collect();
        let flags: Vec<String> = t
            .params
            .iter()
            .map(|(p, _)| format!("--const {p}=1"))
            .collect();
        errors.push(Diagnostic::new(
            Kind::Kernels,
            Location::token(t.name.span()),
            format!(
                "`{0}` is a template and nothing instantiates it: name an instance of it (`kernel {0}_1 = {0}<{1}>;`), or give its constants on the command line (`{2}`)",
                t.name,
                example.join(", "),
                flags.join(" ")
            ),
        ));
    }
    let out = split_items(out)
        .into_iter()
        .flat_map(|item| functions.inline(item, &mut errors))
        .collect();
    Expanded {
        tokens: out,
        errors,
        instances,
        block: env,
        scopes,
    }
}

/// The top-level items: each runs to its first `;` or brace group.
fn split_items(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut items = Vec::new();
    let mut item = Vec::new();
    for t in tokens {
        let ends = match &t {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
            _ => false,
        };
        item.push(t);
        if ends {
            items.push(std::mem::take(&mut item));
        }
    }
    if !item.is_empty() {
        items.push(item);
    }
    items
}

/// Where an item's attributes (`#[...]`) and visibility (`pub`,
/// `pub(crate)`) end.
fn after_header(item: &[TokenTree]) -> usize {
    let mut i = 0;
    while matches!(item.get(i), Some(TokenTree::Punct(p)) if p.as_char() == '#')
        && matches!(item.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
    {
        i += 2;
    }
    if matches!(item.get(i), Some(TokenTree::Ident(id)) if id == "pub") {
        i += 1;
        if matches!(item.get(i), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
        {
            i += 1;
        }
    }
    i
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

fn is_word(t: Option<&TokenTree>, w: &str) -> bool {
    matches!(t, Some(TokenTree::Ident(id)) if id == w)
}

/// A constant's definition: `const NAME (: TYPE)? = VALUE ;`.
struct ConstDef {
    name: Ident,
    ty: Option<Ident>,
    value: Vec<TokenTree>,
    /// The `const` keyword, for errors about the whole definition.
    at: Span,
}

/// `item` as a constant's definition, if it starts with `const`; a malformed
/// one is a definition with no name (reported by [`define`]).
fn const_item(item: &[TokenTree]) -> Option<Result<ConstDef, Box<Diagnostic>>> {
    let start = after_header(item);
    if !is_word(item.get(start), "const") {
        return None;
    }
    Some(const_def(&item[start..]))
}

/// Parses `const NAME (: TYPE)? = VALUE ;` (with or without the `;`).
fn const_def(tokens: &[TokenTree]) -> Result<ConstDef, Box<Diagnostic>> {
    let at = tokens[0].span();
    let error = |span: Span, what: &str| {
        Diagnostic::new(
            Kind::Syntax,
            Location::token(span),
            format!("expected {what}: constants are written `const NAME = 16;` or `const NAME: u32 = 16;`"),
        )
    };
    let name = match tokens.get(1) {
        Some(TokenTree::Ident(id)) => id.clone(),
        other => {
            return Err(Box::new(error(
                other.map_or(at, TokenTree::span),
                "the constant's name",
            )))
        }
    };
    let mut i = 2;
    let mut ty = None;
    if is_punct(tokens.get(i), ':') {
        match tokens.get(i + 1) {
            Some(TokenTree::Ident(t)) => ty = Some(t.clone()),
            other => return Err(Box::new(error(other.map_or(at, TokenTree::span), "a type"))),
        }
        i += 2;
    }
    if !is_punct(tokens.get(i), '=') {
        return Err(Box::new(error(
            tokens.get(i).map_or(name.span(), TokenTree::span),
            "`=`",
        )));
    }
    let mut value: Vec<TokenTree> = tokens[i + 1..].to_vec();
    if is_punct(value.last(), ';') {
        value.pop();
    }
    if value.is_empty() {
        return Err(Box::new(error(tokens[i].span(), "a value after `=`")));
    }
    Ok(ConstDef {
        name,
        ty,
        value,
        at,
    })
}

/// Evaluates a definition in `env` and adds it there.
fn define(env: &mut Env, def: Result<ConstDef, Box<Diagnostic>>, errors: &mut Vec<Diagnostic>) {
    let def = match def {
        Ok(def) => def,
        Err(e) => return errors.push(*e),
    };
    let name = def.name.unraw().to_string();
    if crate::words::is_reserved(&name) {
        return errors.push(Diagnostic::new(
            Kind::ReservedName,
            Location::token(def.name.span()),
            format!("`{name}` is a word of the language and cannot name a constant"),
        ));
    }
    match evaluate(&def.value, def.ty.as_ref(), env, def.at) {
        Ok(value) => env.define(name, value),
        Err(e) => errors.push(*e),
    }
}

/// A constant's value (its tokens with the constants of `env` substituted) as
/// the tokens of one literal, checked against its type if it has one.
fn evaluate(
    value: &[TokenTree],
    ty: Option<&Ident>,
    env: &Env,
    at: Span,
) -> Result<Vec<TokenTree>, Box<Diagnostic>> {
    if let Some(unknown) = first_unknown(value, env) {
        return Err(Box::new(Diagnostic::new(
            Kind::UnknownName,
            Location::token(unknown.span()),
            format!("no constant `{unknown}` is defined before this value"),
        )));
    }
    let tokens: TokenStream = value.iter().cloned().collect();
    enter(env.clone());
    let first = value.first().map_or(at, TokenTree::span);
    let immediate = |span: Span, message: String| {
        Diagnostic::new(Kind::Immediate, Location::token(span), message)
    };
    let expr = syn::parse::Parser::parse2(crate::parse::whole_const_expr, tokens.clone()).map_err(
        |e| {
            immediate(
                e.span(),
                format!(
                    "a constant's value is a constant expression of numbers and constants defined before it: {e}"
                ),
            )
        },
    )?;
    let number = literal::eval(&expr).map_err(|(span, message)| immediate(span, message))?;
    let fits = match (ty.map(|t| t.to_string()).as_deref(), &number) {
        (None, _) | (Some("f32"), _) => true,
        (Some("u32"), Number::Int(v)) => *v >= 0,
        (Some("i32"), Number::Int(v)) => i32::try_from(*v).is_ok(),
        (Some("u32" | "i32"), Number::Float(_)) => false,
        (Some(other), _) => {
            return Err(Box::new(immediate(
                ty.map_or(at, Ident::span),
                format!("a constant's type is `u32`, `i32` or `f32`, not `{other}`"),
            )))
        }
    };
    if !fits {
        let ty = ty.map(|t| t.to_string()).unwrap_or_default();
        let shown = match number {
            Number::Int(v) => v.to_string(),
            Number::Float(f) => format!("{f:?}"),
        };
        return Err(Box::new(immediate(
            first,
            format!("this value, {shown}, is not a `{ty}`"),
        )));
    }
    let single = match value {
        [TokenTree::Literal(_)] => true,
        [TokenTree::Punct(p), TokenTree::Literal(_)] => p.as_char() == '-',
        _ => false,
    };
    if single {
        // As written: a float keeps its digits, a suffix its type.
        return Ok(value.to_vec());
    }
    Ok(match number {
        Number::Int(v) if v < 0 => vec![
            TokenTree::Punct(Punct::new('-', Spacing::Alone)),
            TokenTree::Literal(Literal::i64_unsuffixed(-v)),
        ],
        Number::Int(v) => vec![TokenTree::Literal(Literal::i64_unsuffixed(v))],
        Number::Float(f) if f < 0.0 => vec![
            TokenTree::Punct(Punct::new('-', Spacing::Alone)),
            TokenTree::Literal(Literal::f32_unsuffixed(-f)),
        ],
        Number::Float(f) => vec![TokenTree::Literal(Literal::f32_unsuffixed(f))],
    })
}

/// The first name in `value` (at any depth of parentheses) that is no
/// constant of `env`.
fn first_unknown(value: &[TokenTree], env: &Env) -> Option<Ident> {
    value.iter().find_map(|t| match t {
        TokenTree::Ident(id) if env.get(&id.unraw().to_string()).is_none() => Some(id.clone()),
        TokenTree::Group(g) => {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            first_unknown(&inner, env)
        }
        _ => None,
    })
}

/// `tokens` placed at `span`.
fn respan(tokens: Vec<TokenTree>, span: Span) -> Vec<TokenTree> {
    tokens
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect()
}

/// What a kernel item is, with the index of its `kernel` keyword.
enum Shape {
    /// `kernel name<const P: u32, ...>(...) { ... }`
    Template(usize),
    /// `kernel name = template<P = 1, ...>;`
    Instance(usize),
    /// Anything else, left to the parser.
    Plain,
}

fn classify(item: &[TokenTree]) -> Shape {
    let at = after_header(item);
    if is_word(item.get(at), "kernel") && matches!(item.get(at + 1), Some(TokenTree::Ident(_))) {
        if is_punct(item.get(at + 2), '<') {
            return Shape::Template(at);
        }
        if is_punct(item.get(at + 2), '=') {
            return Shape::Instance(at);
        }
    }
    Shape::Plain
}

/// A template's header: `<const P: u32, ...>` after its name.
fn template(item: &[TokenTree], at: usize) -> Result<Template, Box<Diagnostic>> {
    let name = match &item[at + 1] {
        TokenTree::Ident(id) => id.clone(),
        _ => unreachable_shape(item[at].span())?,
    };
    let (inside, close) = angle(item, at + 2)?;
    let mut params = Vec::new();
    for part in inside.split(|t| is_punct(Some(t), ',')) {
        if part.is_empty() {
            continue;
        }
        match part {
            [TokenTree::Ident(k), TokenTree::Ident(p), TokenTree::Punct(c), TokenTree::Ident(ty)]
                if k == "const" && c.as_char() == ':' =>
            {
                params.push((p.clone(), Some(ty.clone())))
            }
            _ => {
                return Err(Box::new(Diagnostic::new(
                    Kind::Syntax,
                    Location::token(part[0].span()),
                    "a template's parameters are constants: `<const PAD: u32, const N: u32>`",
                )))
            }
        }
    }
    Ok(Template {
        name,
        attrs: item[..at].to_vec(),
        params,
        rest: item[close + 1..].to_vec(),
        instantiated: false,
    })
}

/// A shape `classify` ruled out.
fn unreachable_shape<T>(at: Span) -> Result<T, Box<Diagnostic>> {
    Err(Box::new(Diagnostic::new(
        Kind::Syntax,
        Location::token(at),
        "expected a kernel's name",
    )))
}

/// The tokens between the `<` at `open` and its `>`, and the `>`'s index.
fn angle(item: &[TokenTree], open: usize) -> Result<(&[TokenTree], usize), Box<Diagnostic>> {
    let close = (open + 1..item.len())
        .find(|&k| is_punct(item.get(k), '>'))
        .ok_or_else(|| {
            Diagnostic::new(
                Kind::Syntax,
                Location::token(item[open].span()),
                "this `<` has no `>`: an expression with `>>` or `>` inside the angle brackets goes in parentheses",
            )
        })?;
    Ok((&item[open + 1..close], close))
}

/// An instance: `kernel name = template<P = VALUE, ...>;`, instantiated.
fn instance(
    item: &[TokenTree],
    at: usize,
    env: &Env,
    templates: &mut [Template],
) -> Result<(TokenStream, String, String, Env), Box<Diagnostic>> {
    let name = match &item[at + 1] {
        TokenTree::Ident(id) => id.clone(),
        _ => unreachable_shape(item[at].span())?,
    };
    let form = || {
        Diagnostic::new(
            Kind::Syntax,
            Location::token(name.span()),
            format!("expected an instance of a template: `kernel {name} = template<P = 1>;`"),
        )
    };
    let Some(TokenTree::Ident(of)) = item.get(at + 3) else {
        return Err(Box::new(form()));
    };
    if !is_punct(item.get(at + 4), '<') {
        return Err(Box::new(form()));
    }
    let (inside, close) = angle(item, at + 4)?;
    let trailing = &item[close + 1..];
    if !(trailing.is_empty() || trailing.len() == 1 && is_punct(trailing.first(), ';')) {
        return Err(Box::new(Diagnostic::new(
            Kind::Syntax,
            Location::token(trailing[0].span()),
            "expected `;` after the instance",
        )));
    }
    let Some(t) = templates.iter_mut().find(|t| t.name == *of) else {
        return Err(Box::new(Diagnostic::new(
            Kind::UnknownName,
            Location::token(of.span()),
            format!(
                "no template `{of}` is defined before this instance in this {}",
                crate::unit()
            ),
        )));
    };
    // Named, so a mistake in the instance is not also reported as a
    // template nothing instantiates.
    t.instantiated = true;
    let mut bound = Vec::new();
    for part in inside.split(|t| is_punct(Some(t), ',')) {
        match part {
            [] => {}
            [TokenTree::Ident(p), TokenTree::Punct(eq), value @ ..]
                if eq.as_char() == '=' && !value.is_empty() =>
            {
                bound.push((p.clone(), value.to_vec()))
            }
            _ => {
                return Err(Box::new(Diagnostic::new(
                    Kind::Syntax,
                    Location::token(part[0].span()),
                    "expected `NAME = value` for each of the template's constants",
                )))
            }
        }
    }
    // The template's attributes, then the instance's own (its docs) and its
    // visibility.
    let mut header = t.attrs[..after_attrs(&t.attrs)].to_vec();
    header.extend(item[..at].iter().cloned());
    let (tokens, note, scope) = bind(t, header, &name, bound, env)?;
    Ok((tokens, name.unraw().to_string(), note, scope))
}

/// The end of the attributes at the start of `header`.
fn after_attrs(header: &[TokenTree]) -> usize {
    let mut i = 0;
    while is_punct(header.get(i), '#')
        && matches!(header.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
    {
        i += 2;
    }
    i
}

/// Template `t` with `bound` values for its constants, as the kernel `name`
/// with attributes and visibility `header`, and the note its errors carry.
fn bind(
    t: &mut Template,
    header: Vec<TokenTree>,
    name: &Ident,
    bound: Vec<(Ident, Vec<TokenTree>)>,
    env: &Env,
) -> Result<(TokenStream, String, Env), Box<Diagnostic>> {
    let mut env = env.clone();
    let mut shown = Vec::new();
    for (k, (b, _)) in bound.iter().enumerate() {
        if bound[..k].iter().any(|(earlier, _)| earlier == b) {
            return Err(Box::new(Diagnostic::new(
                Kind::Kernels,
                Location::token(b.span()),
                format!("`{b}` is given twice in the instance `{name}`"),
            )));
        }
    }
    for (p, ty) in &t.params {
        let Some((_, value)) = bound.iter().find(|(b, _)| b == p) else {
            return Err(Box::new(
                Diagnostic::new(
                    Kind::Kernels,
                    Location::token(name.span()),
                    format!(
                        "the instance `{name}` gives no value for `{p}` of `{}`",
                        t.name
                    ),
                )
                .label(Location::token(p.span()), format!("`{p}` is declared here")),
            ));
        };
        let literal = evaluate(value, ty.as_ref(), &env, value[0].span())?;
        shown.push(format!(
            "{p} = {}",
            literal.iter().map(ToString::to_string).collect::<String>()
        ));
        env.define(p.unraw().to_string(), literal);
    }
    if let Some((b, _)) = bound
        .iter()
        .find(|(b, _)| !t.params.iter().any(|(p, _)| p == b))
    {
        return Err(Box::new(Diagnostic::new(
            Kind::UnknownName,
            Location::token(b.span()),
            format!("`{}` has no constant `{b}`", t.name),
        )));
    }
    let mut item = header;
    item.push(TokenTree::Ident(Ident::new("kernel", t.name.span())));
    item.push(TokenTree::Ident(name.clone()));
    item.extend(t.rest.iter().cloned());
    let note = format!(
        "in `{name}`, the instance of `{}` with {}",
        t.name,
        shown.join(", ")
    );
    Ok((item.into_iter().collect(), note, env))
}
