//! What the expansion emits for kernels with and without errors: which
//! modules exist, and the errors beside them.

use crate::expand;
use proc_macro2::TokenStream;

fn tokens(src: &str) -> TokenStream {
    src.parse().expect("test source tokenizes")
}

#[test]
fn a_second_kernel_of_one_name_gets_an_error_and_no_module() {
    let out = expand::expand(tokens(
        "kernel k(x: &mut [u32]) { global_store x[0], 1 }
         kernel r#k(x: &mut [u32], n: u32) { global_store x[0], n }",
    ))
    .to_string();
    assert!(
        out.contains("kernel `k` is defined twice in this invocation"),
        "{out}"
    );
    assert!(out.contains("note: `k` is first defined here"), "{out}");
    assert_eq!(out.matches("mod k").count(), 1, "{out}");
    assert_eq!(out.matches("mod r#k").count(), 0, "{out}");
}

/// A module `simt` would make `use simt::...` ambiguous: the kernel is
/// refused and gets no module, so that its error is the only one.
#[test]
fn a_kernel_named_simt_is_refused_and_gets_no_module() {
    let out = expand::expand(tokens(
        "kernel simt(out: &mut [u32]) { global_store out[0], 1 }
         kernel k(out: &mut [u32]) { global_store out[0], 1 }",
    ))
    .to_string();
    assert!(
        out.contains("a kernel named `simt` would shadow the `simt` crate"),
        "{out}"
    );
    assert_eq!(out.matches("mod simt").count(), 0, "{out}");
    assert_eq!(out.matches("mod k").count(), 1, "{out}");
}

#[test]
fn expansion_with_errors_keeps_a_stub_module() {
    let out = expand::expand(tokens(
        "pub kernel good(x: &mut [u32]) { global_store x[0], 1 }
         kernel bad(x: &mut [u32], n: u32) { frob }",
    ))
    .to_string();
    assert!(out.contains("compile_error"), "{out}");
    assert!(out.contains("unknown mnemonic `frob`"), "{out}");
    assert!(out.contains("pub mod good"), "{out}");
    assert!(out.contains("mod bad"), "{out}");
    assert!(out.contains("arg1 : :: core :: primitive :: u32"), "{out}");
    let clean =
        expand::expand(tokens("kernel k(x: &mut [u32]) { global_store x[0], 1 }")).to_string();
    assert!(!clean.contains("compile_error"), "{clean}");
    assert!(clean.contains("Arg :: buffer_mut (x)"), "{clean}");
}

/// A block longer than a native function holds is cut into functions of 8
/// instructions; the control instruction that ends it starts a block too.
#[test]
fn native_blocks_are_cut_into_functions_of_eight_instructions() {
    let body = "v_add_u32 v0, v0, 1\n".repeat(19);
    let out =
        expand::expand(tokens(&format!("kernel k(out: &mut [u32]) {{ {body} }}"))).to_string();
    let mut blocks: Vec<&str> = out
        .split("fn ")
        .skip(1)
        .filter_map(|s| s.split_whitespace().next())
        .filter(|name| name.starts_with("block_"))
        .collect();
    blocks.sort_unstable();
    blocks.dedup();
    assert_eq!(
        blocks,
        ["block_0_8", "block_16_4", "block_19_1", "block_8_8"],
        "{out}"
    );
}
