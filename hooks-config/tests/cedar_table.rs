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

/// `hooks-replay` against a new policy set: last week's refunds, replayed
/// through the example policies, show which would now be denied, and by what.
#[test]
fn replaying_a_log_against_a_new_policy_set_shows_what_would_change() {
    let dir =
        std::env::temp_dir().join(format!("hooks-config-cedar-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("audit.jsonl");
    std::fs::write(
        &log,
        r#"{"ts":"2026-01-05T10:00:00.000Z","session":"s1","agent":"main","user":"ann","tool":"refund","call_id":"c1","args":{"amount":50},"decision":"allowed","rewrites":[]}
{"ts":"2026-01-05T10:00:01.000Z","session":"s1","agent":"main","user":"ann","tool":"refund","call_id":"c2","args":{"amount":500},"decision":"allowed","rewrites":[]}
{"ts":"2026-01-05T10:00:02.000Z","session":"s2","agent":"main","user":"fay","tool":"refund","call_id":"c3","args":{"amount":500},"decision":"allowed","rewrites":[]}
"#,
    )
    .unwrap();
    let config = dir.join("policies.toml");
    std::fs::write(
        &config,
        format!(
            "{}\n[tools.refund]\nread_only = false\nschema = {{ type = \"object\", properties = {{ amount = {{ type = \"integer\" }} }} }}\n",
            table("")
        ),
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hooks-replay"))
        .args(["--config".as_ref(), config.as_os_str(), log.as_os_str()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("line 2: `refund` (call c2) in session s1 for ann: would newly deny"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no Cedar policy permits User::\"ann\" to call `refund`"),
        "{stdout}"
    );
    assert!(!stdout.contains("(call c1)"), "{stdout}");
    assert!(!stdout.contains("(call c3)"), "{stdout}");
}
