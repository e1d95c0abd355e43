//! The `simt_kernel!` macro: parses kernels written in the simt kernel
//! language, checks them, and expands each into a module holding its static IR
//! tables and a typed `launch` function.
//!
//! One file per stage: `parse` builds the syntax tree of `ast`, `check`
//! resolves names, checks operands against the mnemonic table in `isa`, lowers
//! to a `simt_lang::Program` and runs the shared validator, and `expand` writes
//! the tables; `suggest` finds what a misspelt word may have meant. The
//! language is described in `docs/language.md`, and rendered as
//! `simt::language`.

mod ast;
mod check;
mod expand;
mod isa;
mod parse;
mod suggest;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod roundtrip;

#[cfg(test)]
mod differential;

/// Defines kernels in the simt kernel language; see the `simt` crate's docs.
#[proc_macro]
pub fn simt_kernel(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::expand(input.into()).into()
}
