//! Kernels given as text: the same front end as the macro, with diagnostics
//! located in the text and rendered as rustc renders its own.

use simt_front::{compile, compile_file};

#[test]
fn a_kernel_as_text_compiles_to_its_program() {
    let k = compile("kernel double(x: &mut [u32]) {\n    vreg v;\n    global_load v, x[global_id.x]\n    v_add_u32 v, v, v\n    global_store x[global_id.x], v\n}\n")
        .expect("compiles");
    assert_eq!(k.name, "double");
    assert_eq!(k.file, "<text>");
    // Three instructions and the implicit `end`, the first on line 3.
    assert_eq!(k.insts.len(), 4);
    assert_eq!((k.locs[0].line, k.locs[0].column), (3, 5));
}

#[test]
fn a_mistake_is_located_and_rendered_as_rustc_does() {
    let src = "kernel k(x: &mut [u32]) {\n    vreg v;\n    v_add_u32 v, v, frob\n    global_store x[0], v\n}\n";
    let e = compile_file("k.simt", src).expect_err("an unknown name is an error");
    let d = e.iter().next().expect("one diagnostic");
    assert_eq!((d.at.line, d.at.column), (3, 21));
    assert_eq!(&src[d.at.bytes.clone()], "frob");
    let text = e.to_string();
    assert!(text.contains("error: unknown name `frob`"), "{text}");
    assert!(text.contains("--> k.simt:3:21"), "{text}");
    assert!(text.contains("v_add_u32 v, v, frob"), "{text}");
    assert!(text.contains("^^^^"), "{text}");
}
