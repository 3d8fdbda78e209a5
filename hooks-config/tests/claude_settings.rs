//! Claude Code's `settings.json` loads as it is, and hook scripts written
//! the way public Claude Code hook collections write them run unchanged:
//! an `rm -rf` blocker (exit 2), a `.env` guard (JSON deny), a logger.

use std::path::{Path, PathBuf};

use hooks_core::prelude::*;

mod common;
use common::{denial, dispatcher, parse_error};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-config-claude-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn settings(log: &Path) -> PathBuf {
    // `$CLAUDE_PROJECT_DIR` is the working directory: this crate, when testing.
    let text = format!(
        r#"{{
  "permissions": {{"allow": ["Bash(ls:*)"]}},
  "hooks": {{
    "PreToolUse": [
      {{
        "matcher": "Bash",
        "hooks": [
          {{"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/tests/scripts/claude/block_rm.py", "timeout": 10}}
        ]
      }},
      {{
        "matcher": "Read|Edit|Write",
        "hooks": [
          {{"type": "command", "command": "python3 $CLAUDE_PROJECT_DIR/tests/scripts/claude/env_guard.py"}}
        ]
      }}
    ],
    "PostToolUse": [
      {{
        "matcher": "*",
        "hooks": [
          {{"type": "command", "command": "bash $CLAUDE_PROJECT_DIR/tests/scripts/claude/log_tool.sh {}"}}
        ]
      }}
    ]
  }}
}}"#,
        log.display()
    );
    let path = temp("settings.json");
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn public_style_hook_scripts_run_unchanged() {
    let log = temp("tool-usage.jsonl");
    let _ = std::fs::remove_file(&log);
    let path = settings(&log);
    let config = hooks_config::load(&path).unwrap();
    assert_eq!(config.len(), 3);
    let hooks = dispatcher(config);

    assert_eq!(
        denial(&hooks, "Bash", json!({"command": "rm -rf /tmp/build"}))
            .await
            .as_deref(),
        Some(
            "Blocked: 'rm -rf /tmp/build' is a recursive forced delete. Remove specific files instead."
        )
    );
    assert_eq!(
        denial(&hooks, "Bash", json!({"command": "ls -la"})).await,
        None
    );

    assert_eq!(
        denial(&hooks, "Read", json!({"file_path": "/app/.env"}))
            .await
            .as_deref(),
        Some("Access to /app/.env is blocked: environment files hold secrets.")
    );
    assert_eq!(
        denial(&hooks, "Read", json!({"file_path": "/app/main.rs"})).await,
        None
    );
    assert_eq!(
        denial(&hooks, "Grep", json!({"path": "/app/.env"})).await,
        None,
        "the guard's matcher does not cover Grep"
    );

    let session = Session::new("sess-claude");
    let tool = hooks.tool("Read");
    let run = tool
        .run(
            &session,
            json!({"file_path": "/app/main.rs"}),
            async |_: &Value| Ok::<_, String>(json!("fn main() {}")),
        )
        .await;
    assert!(run.ran());
    let logged: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0]["hook_event_name"], "PostToolUse");
    assert_eq!(logged[0]["tool_name"], "Read");
    assert_eq!(logged[0]["tool_response"], "fn main() {}");

    let described = hooks.describe().to_string();
    assert!(
        described.contains(&format!("{}:8 (config)", path.display())),
        "{described}"
    );
}

#[test]
fn hooks_for_events_this_project_lacks_are_skipped_and_named_or_refused_when_strict() {
    let text = r#"{
  "hooks": {
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
  }
}"#;
    let config = hooks_config::parse("settings.json", text, true).unwrap();
    assert_eq!(config.len(), 1, "the rest of the file loads");
    assert_eq!(config.skipped().len(), 1);
    assert!(
        config.skipped()[0]
            .starts_with("settings.json:3: `Notification` hooks have no counterpart here"),
        "{:?}",
        config.skipped()
    );
    assert!(config.skipped()[0].ends_with(": skipped"));
    let Err(strict) = hooks_config::parse_strict("settings.json", text, true) else {
        panic!("strict refuses the file");
    };
    assert!(
        strict.problems()[0]
            .starts_with("settings.json:3: `Notification` hooks have no counterpart here")
    );
}

#[test]
fn unsupported_events_and_matchers_are_errors_naming_the_line() {
    let text = r#"{
  "hooks": {
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    "PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "true"}]}],
    "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "agent"}]}]
  }
}"#;
    let Err(error) = hooks_config::parse_strict("settings.json", text, true) else {
        panic!("the file is refused");
    };
    let problems = error.problems();
    assert_eq!(problems.len(), 3, "{error}");
    assert!(
        problems[0].starts_with("settings.json:3: `Notification` hooks have no counterpart here"),
        "{error}"
    );
    assert!(problems[1].starts_with("settings.json:5: hook `settings.json:5 (PostToolUse[0].hooks[0])`: a hook of type \"agent\""), "{error}");
    assert!(
        problems[2]
            .starts_with("settings.json:4: PreToolUse matcher \"^Bash$\": cannot be expressed"),
        "{error}"
    );
    let broken = parse_error("settings.json", "{\n  \"hooks\": [\n", true);
    assert!(
        broken.problems()[0].starts_with("settings.json:2: not valid settings JSON"),
        "{broken}"
    );
}

#[test]
fn a_timeout_too_large_to_add_to_still_loads() {
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": 18446744073709551615}]}]}}"#;
    let hooks = dispatcher(hooks_config::parse("settings.json", text, true).unwrap());
    assert_eq!(hooks.count::<Stop>(), 1);
}

#[test]
fn repeated_values_get_the_line_of_their_own_occurrence() {
    let text = r#"{
  "permissions": {"deny": ["^Bash$"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Read", "hooks": [{"type": "command", "command": "true"}]},
      {"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}
    ]
  }
}"#;
    let hooks = dispatcher(hooks_config::parse("settings.json", text, true).unwrap());
    let lines: Vec<String> = hooks
        .describe()
        .hooks()
        .iter()
        .map(|hook| hook.origin.to_string())
        .collect();
    assert_eq!(
        lines,
        ["settings.json:5 (config)", "settings.json:6 (config)"]
    );

    let bad = text.replace("\"Write\"", "\"^Bash$\"");
    let error = parse_error("settings.json", &bad, true);
    assert!(
        error.problems()[0].starts_with("settings.json:6: PreToolUse matcher \"^Bash$\""),
        "{error}"
    );
}
