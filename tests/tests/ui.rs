//! Compile errors are product: every misuse the macros can catch has a case
//! under `ui/fail` with the exact error, and `ui/pass` shows what compiles.
//!
//! After changing a message, regenerate with `TRYBUILD=overwrite cargo test -p hooks-tests --test ui`
//! and read every changed `.stderr` before committing it.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/fail/*.rs");
    cases.pass("ui/pass/*.rs");
}
