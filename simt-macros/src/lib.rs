//! The `simt_kernel!` macro.
use proc_macro::TokenStream;

/// Defines kernels in the simt kernel language.
#[proc_macro]
pub fn simt_kernel(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
