//! Five hook scripts written the way Claude Code users write them, run from
//! one `settings.json`, covering every input field, environment variable
//! and output field Claude Code gives them: `transcript_path`,
//! `permission_mode`, `model`, `source`, `tool_use_id`, `agent_id` (only in
//! a sub-agent); `CLAUDE_PROJECT_DIR`, the `env` block, `CLAUDE_ENV_FILE`;
//! plain text as context (only on `SessionStart` and `UserPromptSubmit`), a
//! JSON deny with `systemMessage`, `updatedToolOutput` with
//! `suppressOutput`, `continue: false` with only `reason`, and a Stop hook
//! that reads the transcript.

use std::path::{Path, PathBuf};

use hooks_core::prelude::*;
use serde_json::Value as Json;

mod common;
use common::dispatcher;

/// A directory of its own for each test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "hooks-config-scripts-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The five scripts, as a project's `.claude/settings.json` installs them.
fn settings(dir: &Path) -> PathBuf {
    let script =
        |name: &str| format!("python3 \\\"$CLAUDE_PROJECT_DIR\\\"/tests/scripts/claude/{name}");
    let text = format!(
        r#"{{
  "env": {{"HOOK_LOG": "{log}", "QUOTA_FILE": "{quota}"}},
  "hooks": {{
    "SessionStart": [{{"matcher": "startup|resume", "hooks": [{{"type": "command", "command": "{setup}"}}]}}],
    "PreToolUse": [{{"matcher": "Bash|Read", "hooks": [{{"type": "command", "command": "{guard}"}}]}}],
    "PostToolUse": [{{"hooks": [{{"type": "command", "command": "{redact}"}}]}}],
    "UserPromptSubmit": [{{"hooks": [{{"type": "command", "command": "{quota_gate}"}}]}}],
    "Stop": [{{"hooks": [{{"type": "command", "command": "{stop}"}}]}}]
  }}
}}"#,
        log = dir.join("hooks.jsonl").display(),
        quota = dir.join("quota").display(),
        setup = script("session_setup.py"),
        guard = script("guard_tools.py"),
        redact = script("redact_output.py"),
        quota_gate = script("quota_gate.py"),
        stop = script("check_transcript.py"),
    );
    let path = dir.join("settings.json");
    std::fs::write(&path, text).unwrap();
    path
}

/// What the scripts logged, one JSON object per run.
fn logged(dir: &Path) -> Vec<Json> {
    std::fs::read_to_string(dir.join("hooks.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A session as Claude Code describes it: the host's fields in its metadata.
fn session(transcript: &Path) -> Session {
    Session::new("session-7")
        .with_metadata("transcript_path", transcript.display().to_string())
        .with_metadata("permission_mode", "acceptEdits")
        .with_metadata("model", "claude-sonnet-4-5")
}

#[tokio::test]
async fn five_scripts_see_every_field_and_are_understood() {
    let dir = scratch("fields");
    std::fs::write(dir.join("quota"), "3").unwrap();
    let transcript = dir.join("transcript.jsonl");
    std::fs::write(&transcript, "").unwrap();
    let hooks = dispatcher(hooks_config::load(settings(&dir)).unwrap());
    let session = session(&transcript);

    // SessionStart: fields seen, a variable set for later hooks, plain text as context.
    let mut start = SessionStart::new(&session).with_source("startup");
    let outcome = hooks.dispatch(&mut start).await;
    assert!(outcome.is_continue());
    assert_eq!(
        start.injected().text(),
        "Session rules: run the tests before stopping."
    );
    // A source the matcher does not name runs nothing.
    let mut cleared = SessionStart::new(&session).with_source("clear");
    assert!(hooks.dispatch(&mut cleared).await.is_continue());
    let seen = logged(&dir);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["source"], "startup");
    assert_eq!(seen[0]["model"], "claude-sonnet-4-5");
    assert_eq!(seen[0]["permission_mode"], "acceptEdits");
    assert_eq!(seen[0]["transcript_path"], transcript.display().to_string());
    assert_eq!(
        seen[0]["no_agent_id"],
        Json::Null,
        "no agent_id outside a sub-agent"
    );

    // PreToolUse in a sub-agent: tool_use_id and agent_id; the stray line is not context.
    let mut call = PreToolUse::new(
        &session.sub_agent("explorer-1"),
        "Bash",
        json!({"command": "ls"}),
    )
    .with_call_id("toolu_01ABC");
    let outcome = hooks.dispatch(&mut call).await;
    assert!(outcome.is_continue());
    assert!(
        call.injected().is_empty(),
        "plain stdout is not context on PreToolUse"
    );
    let seen = logged(&dir);
    let guard = &seen[1];
    assert_eq!(guard["tool_use_id"], "toolu_01ABC");
    assert_eq!(
        (guard["has_agent_id"].clone(), guard["agent_id"].clone()),
        (json!(true), json!("explorer-1"))
    );
    assert_eq!(
        guard["review_mode"], "strict",
        "set by SessionStart through CLAUDE_ENV_FILE"
    );
    assert_eq!(guard["permission_mode"], "acceptEdits");

    // A JSON deny, with a message for the person.
    let mut destroy = PreToolUse::new(&session, "Bash", json!({"command": "rm -rf /"}));
    let outcome = hooks.dispatch(&mut destroy).await;
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "rm -rf is not allowed here"
    );
    assert_eq!(outcome.messages()[0].text, "blocked a destructive command");
    assert_eq!(logged(&dir)[2]["has_agent_id"], false);

    // PostToolUse: the secret is replaced in what the model reads.
    let mut result = PostToolUse::new(
        &session,
        "Bash",
        json!({"command": "env"}),
        Ok(json!("API_KEY=sk-abc123XYZ")),
    );
    assert!(hooks.dispatch(&mut result).await.is_continue());
    assert_eq!(result.result(), Ok(&json!("API_KEY=[redacted]")));

    // UserPromptSubmit: plain text is context here.
    let mut prompt = UserPromptSubmit::new(&session, "refactor the report");
    let outcome = hooks.dispatch(&mut prompt).await;
    assert!(outcome.is_continue());
    assert_eq!(
        prompt.injected().text(),
        "Quota left this month: 3 prompts."
    );
}

#[tokio::test]
async fn continue_false_ends_the_session_with_its_reason() {
    let dir = scratch("quota");
    std::fs::write(dir.join("quota"), "0").unwrap();
    let transcript = dir.join("transcript.jsonl");
    let hooks = dispatcher(hooks_config::load(settings(&dir)).unwrap());
    let mut prompt = UserPromptSubmit::new(&session(&transcript), "one more thing");
    let outcome = hooks.dispatch(&mut prompt).await;
    // Only `reason` was given: it is the reason, not a stock sentence.
    let end = outcome.end_session().expect("the session ends");
    assert_eq!(end.reason, "the team's monthly quota is spent");
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "the team's monthly quota is spent"
    );
}

#[tokio::test]
async fn a_stop_hook_reads_the_transcript_the_host_names() {
    let dir = scratch("stop");
    std::fs::write(dir.join("quota"), "3").unwrap();
    let transcript = dir.join("transcript.jsonl");
    let hooks = dispatcher(hooks_config::load(settings(&dir)).unwrap());
    let assistant = |text: &str| {
        json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}})
            .to_string()
    };
    std::fs::write(&transcript, assistant("Done. TODO: the tests") + "\n").unwrap();
    let outcome = hooks.dispatch(&mut Stop::new(&session(&transcript))).await;
    assert_eq!(
        outcome.denial().map(|denial| denial.reason().to_owned()),
        Some("finish the TODOs in your last message first".to_owned())
    );
    std::fs::write(&transcript, assistant("All done, tests pass.") + "\n").unwrap();
    let outcome = hooks.dispatch(&mut Stop::new(&session(&transcript))).await;
    assert!(outcome.is_continue());
    // No transcript to read is the script's error, not a silent "fine": a
    // stop hook's failure is recorded (and, as every stop hook's by
    // default, lets the agent stop rather than trap it).
    let mut stop = Stop::new(&Session::new("no-transcript"));
    let outcome = hooks.dispatch(&mut stop).await;
    assert!(outcome.is_continue());
    assert!(
        stop.failures()[0]
            .error
            .to_string()
            .contains("no transcript_path in the input"),
        "{:?}",
        stop.failures()
    );
}
