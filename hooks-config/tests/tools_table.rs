//! `[tools.NAME]`: the operator's declarations reach the tool catalog with
//! their file and line, the read-only guard decides from them, and a bad
//! declaration is refused at load, naming the file, the line and the tool.

use hooks_core::prelude::*;
use hooks_core::{ArgRole, Source};

const FILE: &str = "\
[read_only]
enabled = true

[tools.frobnicate]
read_only = true

[tools.get_user]
read_only = false

[tools.report]
idempotent = true
args = { sql = \"sql\", \"/options/out\" = \"path\" }
";

fn hooks() -> Hooks {
    hooks_config::parse("hooks.toml", FILE, false)
        .unwrap()
        .apply(Hooks::builder().only(["hooks_std::read_only::guard"]))
        .unwrap()
        .build()
        .unwrap()
}

async fn decide(hooks: &Hooks, tool: &'static str, args: Value) -> Outcome {
    let mut ctx = PreToolUse::new(&Session::new("s"), tool, args);
    hooks.dispatch(&mut ctx).await
}

#[test]
fn declarations_reach_the_catalog_with_their_line() {
    let hooks = hooks();
    let catalog = hooks.catalog();
    let frobnicate = catalog.get("frobnicate").unwrap().read_only().unwrap();
    assert!(frobnicate.value);
    assert_eq!(
        frobnicate.source,
        Source::Config {
            file: "hooks.toml".into(),
            line: 4
        }
    );
    let report = catalog.get("report").unwrap();
    assert!(report.idempotent().unwrap().value);
    let roles: Vec<(&str, ArgRole)> = report
        .args()
        .iter()
        .map(|arg| (arg.path.as_str(), arg.role))
        .collect();
    assert_eq!(
        roles,
        [("/options/out", ArgRole::Path), ("sql", ArgRole::Sql)]
    );
}

#[tokio::test]
async fn the_read_only_guard_decides_from_them() {
    let hooks = hooks();
    // Nothing in its name says it reads: the declaration does.
    assert!(decide(&hooks, "frobnicate", json!({})).await.is_continue());
    // Its name says it reads: the declaration says it writes.
    let outcome = decide(&hooks, "get_user", json!({})).await;
    assert!(
        outcome
            .denial()
            .unwrap()
            .reason()
            .contains("`get_user` writes (declared in hooks.toml:7)")
    );
    // Its declared SQL decides.
    assert!(
        decide(&hooks, "report", json!({"sql": "SELECT 1"}))
            .await
            .is_continue()
    );
    assert!(
        decide(&hooks, "report", json!({"sql": "DROP TABLE t"}))
            .await
            .is_denied()
    );
}

#[test]
fn bad_declarations_are_refused_with_file_line_and_tool() {
    let refused = |text: &str| {
        hooks_config::parse("t.toml", text, false)
            .err()
            .expect("refused")
            .to_string()
    };
    let error = refused("[tools.x]\nargs = { sql = \"SQL\" }\n");
    assert!(
        error.contains(
            "t.toml:1: `[tools.x]`: `args.sql`: unknown argument role \"SQL\" \
             (known: sql, shell, path, url, secret)"
        ),
        "{error}"
    );
    let error = refused("\n[tools.y]\n");
    assert!(
        error.contains("t.toml:2: `[tools.y]`: declares nothing"),
        "{error}"
    );
    let error = refused("[tools.z]\nread_only = true\ndestructive = true\n");
    assert!(error.contains("contradict each other"), "{error}");
    let error = refused("[tools.w]\nreadonly = true\n");
    assert!(error.contains("unknown field `readonly`"), "{error}");
}
