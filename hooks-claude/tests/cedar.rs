//! Cedar policies in the hook binary, as Claude Code runs it: a new
//! process per event, `[cedar]` in its config file, the user from `$USER`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::json;

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hooks-claude-cedar-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const POLICY: &str = r#"@id("staff-read-only")
permit (principal in Group::"staff", action == Action::"call_tool", resource)
when { resource has read_only && resource.read_only };

@id("no-env-files")
forbid (principal, action == Action::"call_tool", resource == Tool::"Read")
when { context.args has file_path && context.args.file_path like "*.env" };
"#;

const ENTITIES: &str = r#"[
  {"uid": {"type": "User", "id": "ann"}, "attrs": {}, "parents": [{"type": "Group", "id": "staff"}]},
  {"uid": {"type": "Group", "id": "staff"}, "attrs": {}, "parents": []}
]"#;

fn config(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("claude.cedar"), POLICY).unwrap();
    std::fs::write(dir.join("entities.json"), ENTITIES).unwrap();
    let config = dir.join("hooks.toml");
    std::fs::write(
        &config,
        format!(
            "[cedar]\npolicies = \"{}\"\nentities = \"{}\"\n",
            dir.join("claude.cedar").display(),
            dir.join("entities.json").display()
        ),
    )
    .unwrap();
    config
}

/// One `PreToolUse` event through the binary, as `user`.
fn run(dir: &Path, user: &str, tool: &str, input: &serde_json::Value) -> Output {
    let config = config(dir);
    let event = json!({
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/work",
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_01"
    })
    .to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooks-claude"))
        .args(["--config", config.to_str().unwrap()])
        .env("USER", user)
        .env("HOOKS_STATE_DIR", dir.join("state"))
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The reason, if the binary's answer refuses the call (exit 2 with the
/// reason on stderr, or a JSON `deny`).
fn refused(output: &Output) -> Option<String> {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    match output.status.code() {
        Some(2) => Some(stderr),
        Some(0) if output.stdout.is_empty() => None,
        Some(0) => {
            let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
            let specific = &answer["hookSpecificOutput"];
            (specific["permissionDecision"] == "deny").then(|| {
                specific["permissionDecisionReason"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
        }
        other => panic!("exit {other:?}: {stderr}"),
    }
}

#[test]
fn each_rule_holds_in_the_hook_binary() {
    let dir = scratch("rules");
    let read = |user: &str, path: &str| run(&dir, user, "Read", &json!({"file_path": path}));
    assert_eq!(refused(&read("ann", "/work/notes.txt")), None);
    let env = refused(&read("ann", "/work/.env")).expect("an .env file is refused");
    assert!(env.contains("`no-env-files`"), "{env}");
    // Not staff: nothing is permitted.
    let stranger = refused(&read("mallory", "/work/notes.txt")).expect("refused");
    assert!(
        stranger.contains("no Cedar policy permits User::\"mallory\""),
        "{stranger}"
    );
    // Bash is no read-only tool.
    let bash = run(&dir, "ann", "Bash", &json!({"command": "ls"}));
    assert!(refused(&bash).is_some());
    // Another case of a tool's name is not that tool.
    let lower = run(&dir, "ann", "read", &json!({"file_path": "/work/.env"}));
    assert!(refused(&lower).expect("refused").contains("exact names"));
}

#[test]
fn a_policy_that_does_not_validate_blocks_naming_its_line() {
    let dir = scratch("invalid");
    let config = config(&dir);
    std::fs::write(
        dir.join("claude.cedar"),
        POLICY
            .replace("file_path like", "file_pth like")
            .replace("has file_path", "has file_pth"),
    )
    .unwrap();
    let event = json!({
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/work",
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Read", "tool_input": {"file_path": "/work/notes.txt"}, "tool_use_id": "toolu_01"
    })
    .to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooks-claude"))
        .args(["--config", config.to_str().unwrap()])
        .env("USER", "ann")
        .env("HOOKS_STATE_DIR", dir.join("state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let reason = refused(&output).expect("refused");
    assert!(reason.contains("claude.cedar:"), "{reason}");
    assert!(reason.contains("no-env-files"), "{reason}");
}
