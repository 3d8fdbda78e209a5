//! A subject pattern without the `shell` feature is an error naming the
//! feature: on an attribute hook at compile time (`ui/fail`), from
//! `Matcher::parse` and the builder at run time (`ui/pass`, which runs).
//!
//! After changing a message, regenerate with
//! `TRYBUILD=overwrite cargo test -p hooks-tests-without-shell --test ui`
//! and read every changed `.stderr` before committing it.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/fail/*.rs");
    cases.pass("ui/pass/*.rs");
}
