//! Without the `http` feature, a configuration that needs an HTTP client is
//! refused at load, naming the feature (`ui/pass`, which runs).

#[test]
fn ui() {
    trybuild::TestCases::new().pass("ui/pass/*.rs");
}
