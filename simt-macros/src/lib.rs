//! The `simt_kernel!` macro: tokens in, the front end of `simt-front`
//! (parse, check, lower, validate), and either errors at the offending tokens
//! or one module per kernel holding its static IR tables and a typed `launch`
//! (`expand`), with a native runner for each kernel (`native`). The language is described in the book's `docs/src/language/`, and rendered
//! as `simt::language`.

mod expand;
mod native;

#[cfg(test)]
mod tests;

/// Defines kernels in the simt kernel language; see the `simt` crate's docs.
#[proc_macro]
pub fn simt_kernel(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::expand(input.into()).into()
}
