//! `[cedar]`: the example policy set configured from a file; a bad table or
//! policy file is refused naming the file and line; `shadow = true` records
//! what it would deny and enforces nothing.

use std::path::{Path, PathBuf};

use hooks_core::ToolFacts;
use hooks_core::prelude::*;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/policies")
}

fn table(extra: &str) -> String {
    let dir = examples();
    format!(
        "# the example set\n[cedar]\npolicies = \"{}\"\nentities = \"{}\"\n{extra}",
        dir.display(),
        dir.join("entities.json").display()
    )
}

fn hooks(text: &str) -> Result<Hooks, String> {
    let builder = hooks_config::parse("policy.toml", text, false)
        .map_err(|error| error.to_string())?
        .apply(Hooks::builder().only(hooks_std::cedar::HOOKS).tools([
            ToolFacts::new("refund").schema(json!({
                "type": "object", "properties": {"amount": {"type": "integer"}}
            })),
        ]))
        .map_err(|error| error.to_string())?;
    builder.build().map_err(|error| error.to_string())
}

async fn refund(hooks: &Hooks, user: &str, amount: i64) -> Outcome {
    let session = Session::new("s").with_user(user);
    let mut ctx = PreToolUse::new(&session, "refund", json!({"amount": amount}));
    hooks.dispatch(&mut ctx).await
}

#[tokio::test]
async fn the_table_configures_the_guard() {
    let hooks = hooks(&table("")).unwrap();
    let outcome = refund(&hooks, "ann", 100).await;
    assert!(outcome.is_continue(), "{:?}", outcome.denial());
    assert!(refund(&hooks, "ann", 101).await.is_denied());
    assert!(refund(&hooks, "fay", 5000).await.is_continue());
}

#[tokio::test]
async fn shadow_records_what_it_would_deny_and_enforces_nothing() {
    let hooks = hooks(&table("shadow = true\n")).unwrap();
    let outcome = refund(&hooks, "ann", 101).await;
    assert!(outcome.is_continue());
    assert_eq!(outcome.shadowed().len(), 1);
    assert_eq!(outcome.shadowed()[0].hook, "hooks_std::cedar::guard");
}

#[test]
fn a_bad_table_names_the_file_and_line() {
    let error = hooks(&table("default = \"maybe\"\n")).unwrap_err();
    assert!(error.contains("policy.toml:"), "{error}");
    assert!(error.contains("maybe"), "{error}");
}

#[test]
fn a_policy_file_that_does_not_parse_names_the_table_and_the_policy_line() {
    let dir = std::env::temp_dir().join(format!("hooks-config-cedar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.cedar");
    std::fs::write(
        &bad,
        "// one\npermit (principal, action, resource)\nwhen { 1 < };\n",
    )
    .unwrap();
    let text = format!("\n[cedar]\npolicies = \"{}\"\n", bad.display());
    let error = hooks(&text).unwrap_err();
    assert!(error.contains("policy.toml:2: [cedar]"), "{error}");
    assert!(error.contains(&format!("{}:3", bad.display())), "{error}");
}
