//! The compile-time checks of `simt_kernel!`: each `tests/ui/*.rs` must fail
//! with exactly the errors in its `.stderr` (regenerate with
//! `TRYBUILD=overwrite cargo test --test simt ui` and review the spans), and each
//! `tests/ui/pass/*.rs` must compile and run.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
