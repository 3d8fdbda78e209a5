//! Every documented event of both hosts (`tests/payloads/<host>/`, sources
//! in the README there) fed to the real binary, as the host runs it, with a
//! config hook on every event this project has: the exact answer checked —
//! the hook's message and context back in the host's protocol where the
//! event has hooks, and silence where it has none.

mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The events a config hook may name (hooks-core's events the hosts send).
const MAPPED: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "PreCompact",
    "SessionEnd",
];

/// Events whose answer may carry context for the model.
const TAKES_CONTEXT: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "SubagentStart",
];

fn payloads(host: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/payloads")
        .join(host)
}

/// A config with one command hook per event: a message for the person
/// naming the event, and context for the model where the event takes it.
fn config(dir: &Path) -> PathBuf {
    let mut text = String::new();
    for event in MAPPED {
        let mut answer = json!({"systemMessage": format!("seen {event}")});
        if TAKES_CONTEXT.contains(event) {
            answer["hookSpecificOutput"] =
                json!({"hookEventName": event, "additionalContext": format!("context of {event}")});
        }
        let command = toml_string(&format!("cat > /dev/null; printf '%s' '{answer}'"));
        writeln!(
            text,
            "[[hooks]]\nevent = \"{event}\"\nname = \"say_{event}\"\ncommand = [\"sh\", \"-c\", {command}]\n"
        )
        .expect("writing to a String");
    }
    let path = dir.join("hooks.toml");
    std::fs::write(&path, text).expect("write the config");
    path
}

fn toml_string(text: &str) -> String {
    serde_json::to_string(text).expect("a JSON string is a TOML basic string")
}

/// What the binary must answer `event`, exactly.
fn expected(event: &str) -> Option<Value> {
    if !MAPPED.contains(&event) {
        return None;
    }
    let mut answer = json!({"systemMessage": format!("seen {event}")});
    if TAKES_CONTEXT.contains(&event) {
        answer["hookSpecificOutput"] =
            json!({"hookEventName": event, "additionalContext": format!("context of {event}")});
    }
    Some(answer)
}

#[test]
fn every_documented_event_gets_its_exact_answer_from_the_binary() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hooks-claude-fixtures-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = config(&dir);
    let mut seen = 0;
    for host in ["claude", "codex"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(payloads(host))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        files.sort();
        for file in files {
            let event = file.file_stem().unwrap().to_string_lossy().into_owned();
            let input = std::fs::read(&file).unwrap();
            let args = ["--host", host, "--config", config.to_str().unwrap()];
            let output = support::hooks_claude(&dir, &args, &input);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(0), "{host}/{event}: {stderr}");
            assert_eq!(stderr, "", "{host}/{event}");
            let stdout = String::from_utf8_lossy(&output.stdout);
            match expected(&event) {
                None => assert_eq!(stdout, "", "{host}/{event}"),
                Some(answer) => {
                    let got: Value = serde_json::from_str(&stdout)
                        .unwrap_or_else(|error| panic!("{host}/{event}: {error}: {stdout}"));
                    assert_eq!(got, answer, "{host}/{event}");
                }
            }
            seen += 1;
        }
    }
    // 29 Claude Code events, 12 Codex events (the README's lists).
    assert_eq!(seen, 41);
    let _ = std::fs::remove_dir_all(&dir);
}
