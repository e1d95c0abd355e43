//! The compile-time checks of `simt_kernel!`: each `tests/ui/*.rs` must fail
//! with exactly the errors in its `.stderr` (regenerate with
//! `TRYBUILD=overwrite cargo test --test simt ui` and review the spans). The
//! kernels it must accept are the modules of `pass/`, which run as tests of
//! this binary: with no passing case, trybuild only checks, never builds.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
