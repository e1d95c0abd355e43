//! Attributes: `#[workgroup_size(..)]` and `#[race_free]` before `kernel`, and
//! the performance contracts `#[conflict_free]`, `#[coalesced]` and
//! `#[uniform]` on the line before an instruction. Any other attribute before
//! `kernel` goes to the generated module, as Rust's would.

use crate::ast::{Contract, ContractKind};
use crate::diagnostic::{Diagnostic, Kind, Location};
use proc_macro2::Span;
use simt_lang::limits::MAX_WORKGROUP_SIZE;
use simt_lang::RaceFree;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, LitInt, Meta, MetaList, Token};

const CONTRACTS: [ContractKind; 3] = [
    ContractKind::ConflictFree,
    ContractKind::Coalesced,
    ContractKind::Uniform,
];

const WORKGROUP_SIZE: &str = "workgroup_size";
const RACE_FREE: &str = "race_free";

/// What the attributes before `kernel` say.
#[derive(Default)]
pub(crate) struct KernelAttrs {
    /// The attributes that go to the generated module.
    pub(crate) rest: Vec<Attribute>,
    pub(crate) workgroup_size: Option<([u32; 3], Span)>,
    pub(crate) race_free: Option<(Span, RaceFree)>,
}

fn name(attr: &Attribute) -> Option<String> {
    attr.path().get_ident().map(ToString::to_string)
}

fn error(at: &impl Spanned, message: impl Into<String>) -> Box<Diagnostic> {
    Box::new(Diagnostic::new(
        Kind::Attribute,
        Location::token(at.span()),
        message,
    ))
}

/// An error underlining the whole attribute, `#` to `]`.
fn whole(attr: &Attribute, message: impl Into<String>) -> Box<Diagnostic> {
    let at = Location::tokens(attr.pound_token.span, attr.bracket_token.span.close());
    Box::new(Diagnostic::new(Kind::Attribute, at, message))
}

/// An error underlining an attribute's arguments, `(` to `)`.
fn arguments(list: &MetaList, message: impl Into<String>) -> Box<Diagnostic> {
    let span = list.delimiter.span();
    Box::new(Diagnostic::new(
        Kind::Attribute,
        Location::tokens(span.open(), span.close()),
        message,
    ))
}

fn contract(name: &str) -> Option<ContractKind> {
    CONTRACTS.into_iter().find(|c| c.name() == name)
}

/// An attribute that must be a bare word (`#[race_free]`), or the error.
fn bare(attr: &Attribute, name: &str) -> Result<(), Box<Diagnostic>> {
    match attr.meta {
        Meta::Path(_) => Ok(()),
        _ => Err(whole(attr, format!("`#[{name}]` takes no arguments"))),
    }
}

/// Splits the attributes before `kernel` into the module's and the kernel's.
pub(crate) fn kernel(attrs: Vec<Attribute>, errors: &mut Vec<Diagnostic>) -> KernelAttrs {
    let mut out = KernelAttrs::default();
    for attr in attrs {
        let Some(word) = name(&attr) else {
            out.rest.push(attr);
            continue;
        };
        let path = attr.path().span();
        if word == WORKGROUP_SIZE {
            if out.workgroup_size.is_some() {
                errors.push(*whole(&attr, "`#[workgroup_size]` is given twice"));
                continue;
            }
            match workgroup_size(&attr) {
                Ok(shape) => out.workgroup_size = Some((shape, path)),
                Err(e) => errors.push(*e),
            }
        } else if word == RACE_FREE {
            if out.race_free.is_some() {
                errors.push(*whole(&attr, "`#[race_free]` is given twice"));
            } else {
                match race_free(&attr) {
                    Ok(claim) => out.race_free = Some((path, claim)),
                    Err(e) => errors.push(*e),
                }
            }
        } else if let Some(c) = contract(&word) {
            errors.push(*whole(
                &attr,
                format!(
                    "`#[{}]` is a contract on one instruction: write it on the line before {}, inside the kernel",
                    c.name(),
                    on(c)
                ),
            ));
        } else {
            out.rest.push(attr);
        }
    }
    out
}

/// A contract with no instruction after it (`instead` says where it is).
pub(crate) fn stray(c: Contract, instead: &str) -> Diagnostic {
    Diagnostic::new(
        Kind::Attribute,
        Location::token(c.span),
        format!(
            "`#[{}]` goes on the line before {}, {instead}",
            c.kind.name(),
            on(c.kind)
        ),
    )
}

/// What a contract goes on, in words.
pub(crate) fn on(c: ContractKind) -> &'static str {
    match c {
        ContractKind::ConflictFree => "an LDS load, store or atomic",
        ContractKind::Coalesced => "a global load, store or atomic",
        ContractKind::Uniform => "an `if` or a `loop`",
    }
}

/// `#[race_free]`, or `#[race_free(lockstep)]` for a proof that may order
/// the lanes of a wave by issue.
fn race_free(attr: &Attribute) -> Result<RaceFree, Box<Diagnostic>> {
    let usage = "write `#[race_free]`, or `#[race_free(lockstep)]` for a kernel that relies on the lanes of a wave running in lockstep";
    match &attr.meta {
        Meta::Path(_) => Ok(RaceFree::AnyLaneOrder),
        Meta::List(list) => match list.parse_args::<syn::Ident>() {
            Ok(word) if word == "lockstep" => Ok(RaceFree::Lockstep),
            _ => Err(arguments(
                list,
                format!("`#[race_free]` takes `lockstep` or nothing: {usage}"),
            )),
        },
        Meta::NameValue(_) => Err(whole(
            attr,
            format!("`#[race_free]` takes `lockstep` or nothing: {usage}"),
        )),
    }
}

/// `#[workgroup_size(x)]`, `(x, y)` or `(x, y, z)`: positive integers whose
/// product is a workgroup the machine allows.
/// A workgroup dimension: an integer literal, or a constant that stands for
/// one.
fn dimension(input: syn::parse::ParseStream) -> syn::Result<LitInt> {
    if let Some((id, _)) = input.cursor().ident() {
        if let Some((syn::Lit::Int(lit), None)) = crate::consts::value(&id) {
            input.step(|c| Ok(((), c.ident().map_or(*c, |(_, rest)| rest))))?;
            return Ok(lit);
        }
    }
    input.parse()
}

fn workgroup_size(attr: &Attribute) -> Result<[u32; 3], Box<Diagnostic>> {
    let usage = "write `#[workgroup_size(x)]`, `#[workgroup_size(x, y)]` or `#[workgroup_size(x, y, z)]` with positive integers";
    let Meta::List(list) = &attr.meta else {
        return Err(error(
            &attr.meta,
            format!("`#[workgroup_size]` needs the workgroup's shape: {usage}"),
        ));
    };
    let dims = list
        .parse_args_with(|input: syn::parse::ParseStream| {
            Punctuated::<LitInt, Token![,]>::parse_terminated_with(input, dimension)
        })
        .map_err(|e| {
            let mut d = Diagnostic::from(e);
            d.kind = Kind::Attribute;
            d.message = format!("{}: {usage}", d.message);
            Box::new(d)
        })?;
    if dims.is_empty() || dims.len() > 3 {
        return Err(arguments(
            list,
            format!(
                "a workgroup has 1 to 3 dimensions, not {}: {usage}",
                dims.len()
            ),
        ));
    }
    let mut shape = [1u32; 3];
    for (d, lit) in shape.iter_mut().zip(&dims) {
        if !matches!(lit.suffix(), "" | "u32") {
            return Err(error(lit, "a workgroup dimension is a `u32`"));
        }
        *d = match lit.base10_parse::<u32>() {
            Ok(0) => return Err(error(lit, "a workgroup dimension cannot be zero")),
            Ok(n) => n,
            Err(_) => {
                return Err(error(
                    lit,
                    format!(
                        "`{lit}` does not fit a workgroup dimension (at most {MAX_WORKGROUP_SIZE})"
                    ),
                ))
            }
        };
    }
    let items = shape.iter().map(|&d| u64::from(d)).product::<u64>();
    if items > u64::from(MAX_WORKGROUP_SIZE) {
        return Err(arguments(
            list,
            format!(
                "a workgroup of {} is {items} work-items, more than the {MAX_WORKGROUP_SIZE} a workgroup may have",
                shape.map(|d| d.to_string()).join("x")
            ),
        ));
    }
    Ok(shape)
}

/// Reads the attributes inside a kernel body: doc comments are comments,
/// contracts wait in `pending` for the next instruction, anything else is an
/// error.
pub(crate) fn body(
    attrs: Vec<Attribute>,
    pending: &mut Vec<Contract>,
) -> Result<(), Box<Diagnostic>> {
    for attr in attrs {
        let word = name(&attr);
        match word.as_deref() {
            Some("doc") => {}
            Some(w @ (WORKGROUP_SIZE | RACE_FREE)) => {
                return Err(whole(
                    &attr,
                    format!("`#[{w}]` is about the whole kernel: write it before `kernel`"),
                ))
            }
            Some(w) if contract(w).is_some() => {
                bare(&attr, w)?;
                if let Some(kind) = contract(w) {
                    let span = attr.path().span();
                    if pending.iter().any(|c| c.kind == kind) {
                        return Err(whole(&attr, format!("`#[{w}]` is given twice")));
                    }
                    pending.push(Contract { kind, span });
                }
            }
            _ => {
                return Err(whole(
                    &attr,
                    "unknown attribute: inside a kernel body only the contracts `#[conflict_free]`, `#[coalesced]` and `#[uniform]` go, on the line before an instruction",
                ))
            }
        }
    }
    Ok(())
}
