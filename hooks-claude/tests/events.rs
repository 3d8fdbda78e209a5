//! The `hooks-claude` binary itself, run as Claude Code and Codex run it (a
//! new process per event, the event on stdin), on what the hosts send at
//! the edges: input that means two things, and config hooks answering
//! events that cannot block.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

/// A scratch directory of this test's own, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("hooks-claude-events-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn an_event_naming_a_key_twice_is_refused_naming_the_key_and_where() {
    let dir = Scratch::new("duplicates");
    for (event, key, at) in [
        (
            r#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                "tool_input": {"command": "ls"}, "tool_name": "Read"}"#,
            "tool_name",
            "/tool_name",
        ),
        (
            r#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                "tool_input": {"command": "ls", "command": "rm -rf ~"}}"#,
            "command",
            "/tool_input/command",
        ),
        (
            r#"{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Edit",
                "tool_input": {"edits": [{"old_string": "a"}, {"new_string": "b", "new_string": "c"}]},
                "tool_response": {}}"#,
            "new_string",
            "/tool_input/edits/1/new_string",
        ),
        (
            r#"{"session_id": "s", "hook_event_name": "Stop", "hook_event_name": "Notification"}"#,
            "hook_event_name",
            "/hook_event_name",
        ),
    ] {
        let output = support::hooks_claude(dir.path(), &[], event.as_bytes());
        let reason = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{event}: {reason}");
        assert!(output.stdout.is_empty(), "{event}");
        assert!(
            reason.contains(&format!("duplicate key `{key}` at {at}")),
            "{event}: {reason}"
        );
    }
    // The same events with each key once pass.
    let once = r#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}}"#;
    let output = support::hooks_claude(dir.path(), &[], once.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// A config file with one command hook on `event`, running `script` (sh).
fn config_with(dir: &Path, event: &str, script: &str) -> PathBuf {
    let config = dir.join("hooks.toml");
    std::fs::write(
        &config,
        format!(
            "[[hooks]]\nevent = {event:?}\nname = \"script\"\ncommand = [\"sh\", \"-c\", {script:?}]\n"
        ),
    )
    .expect("write the config");
    config
}

/// Claude Code blocks a compaction on exit 2: a trigger this binary does not
/// know yet (a newer host's) must not block it. The hooks run, shown the
/// trigger as the host named it, and stderr says it was new.
#[test]
fn a_compaction_with_an_unknown_trigger_is_not_blocked_and_hooks_see_the_trigger() {
    let dir = Scratch::new("trigger");
    let seen = dir.path().join("seen.json");
    let config = config_with(
        dir.path(),
        "PreCompact",
        &format!("cat > {}", seen.display()),
    );
    let config = config.to_str().unwrap();
    for (trigger, new) in [("budget", true), ("manual", false), ("auto", false)] {
        let event = format!(
            r#"{{"session_id": "s", "hook_event_name": "PreCompact", "transcript_path": "/t.jsonl",
                "cwd": "/w", "trigger": "{trigger}", "custom_instructions": ""}}"#
        );
        let output = support::hooks_claude(dir.path(), &["--config", config], event.as_bytes());
        let reason = stderr(&output);
        assert_eq!(output.status.code(), Some(0), "{trigger}: {reason}");
        let input: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&seen).expect("the hook ran")).unwrap();
        assert_eq!(input["trigger"], trigger);
        assert_eq!(input["hook_event_name"], "PreCompact");
        assert_eq!(
            reason.contains(&format!("trigger \"{trigger}\"")),
            new,
            "{reason}"
        );
        std::fs::remove_file(&seen).unwrap();
    }
}

fn stdout_json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "stdout is not JSON ({error}): {:?} (stderr: {})",
            String::from_utf8_lossy(&output.stdout),
            stderr(output)
        )
    })
}

/// A config hook exiting 2 on an event that cannot be blocked meant to tell
/// someone something: Claude Code shows such a hook's stderr to the person.
/// Through the binary it reaches them as `systemMessage`, beside what the
/// other hooks said, and the event goes ahead (exit 0).
#[test]
fn a_config_hooks_block_on_session_start_or_compaction_reaches_the_person() {
    let dir = Scratch::new("unblockable");
    for (event, fields) in [
        ("SessionStart", r#""source": "startup""#),
        (
            "PreCompact",
            r#""trigger": "auto", "custom_instructions": """#,
        ),
    ] {
        let config = dir.path().join(format!("{event}.toml"));
        std::fs::write(
            &config,
            format!(
                r#"
[[hooks]]
event = "{event}"
name = "docker_check"
command = ["sh", "-c", "cat > /dev/null; echo 'the docker daemon is not running' >&2; exit 2"]

[[hooks]]
event = "{event}"
name = "note"
command = ["sh", "-c", "cat > /dev/null; echo '{{\"systemMessage\": \"checked the tree\"}}'"]
"#
            ),
        )
        .unwrap();
        let input = format!(
            r#"{{"session_id": "s", "hook_event_name": "{event}", "transcript_path": "/t.jsonl",
                "cwd": "/w", {fields}}}"#
        );
        let output = support::hooks_claude(
            dir.path(),
            &["--config", config.to_str().unwrap()],
            input.as_bytes(),
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{event}: {}",
            stderr(&output)
        );
        let answer = stdout_json(&output);
        let message = answer["systemMessage"].as_str().unwrap_or_default();
        assert!(
            message.contains("the docker daemon is not running"),
            "{event}: {answer}"
        );
        assert!(message.contains("docker_check"), "{event}: {answer}");
        assert!(message.contains("checked the tree"), "{event}: {answer}");
    }
}

/// A script that ends the session (`continue: false`) and denies the call
/// with its own reason, but no `stopReason`: its reason is what the model
/// and the person read, not a stock sentence.
#[test]
fn continue_false_without_a_stop_reason_keeps_the_scripts_own_reason() {
    let dir = Scratch::new("continue");
    let answer = r#"{"continue": false, "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "production is frozen until Monday"}}"#;
    let config = config_with(
        dir.path(),
        "PreToolUse",
        &format!("cat > /dev/null; echo '{answer}'"),
    );
    let event = r#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "kubectl apply -f prod.yaml"}, "tool_use_id": "toolu_1"}"#;
    let output = support::hooks_claude(
        dir.path(),
        &["--config", config.to_str().unwrap()],
        event.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let answer = stdout_json(&output);
    assert_eq!(answer["continue"], false, "{answer}");
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny", "{answer}");
    for said in [&specific["permissionDecisionReason"], &answer["stopReason"]] {
        assert!(
            said.as_str()
                .unwrap_or_default()
                .contains("production is frozen until Monday"),
            "{answer}"
        );
    }
}

/// A payload fixture (`tests/payloads/HOST/EVENT.json`), as the host sends it.
fn fixture(host: &str, event: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/payloads")
        .join(host)
        .join(format!("{event}.json"));
    serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("fixture JSON")
}

/// Runs `event` (a fixture) through the binary with one config hook that
/// copies its input to a file, and returns that input.
fn seen_by_a_script(dir: &Path, host: &str, event: &str) -> serde_json::Value {
    let seen = dir.join(format!("{host}-{event}.json"));
    let config = config_with(dir, event, &format!("cat > {}", seen.display()));
    let output = support::hooks_claude(
        dir,
        &["--host", host, "--config", config.to_str().unwrap()],
        fixture(host, event).to_string().as_bytes(),
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{host} {event}: {}",
        stderr(&output)
    );
    serde_json::from_slice(&std::fs::read(&seen).expect("the hook ran")).unwrap()
}

/// Scripts written for Claude Code read the agent being started as
/// `agent_id`, as Claude Code (and Codex) send it.
#[test]
fn a_script_on_subagent_start_reads_the_agent_as_agent_id() {
    let dir = Scratch::new("subagent-start");
    for host in ["claude", "codex"] {
        let sent = fixture(host, "SubagentStart");
        let input = seen_by_a_script(dir.path(), host, "SubagentStart");
        assert_eq!(input["agent_id"], sent["agent_id"], "{host}: {input}");
        assert_eq!(input["agent_type"], sent["agent_type"], "{host}: {input}");
        // The one starting it is the main agent: no parent to name.
        assert!(input.get("parent_agent_id").is_none(), "{host}: {input}");
        assert_eq!(input["transcript_path"], sent["transcript_path"], "{host}");
    }
}

/// A sub-agent's own transcript is `agent_transcript_path`; `transcript_path`
/// is the main session's. Hooks in the sub-agent read its own as
/// `transcript_path`, and both where the host put them.
#[test]
fn a_sub_agents_transcript_is_its_own() {
    let dir = Scratch::new("subagent-stop");
    for host in ["claude", "codex"] {
        let sent = fixture(host, "SubagentStop");
        let input = seen_by_a_script(dir.path(), host, "SubagentStop");
        assert_eq!(input["agent_id"], sent["agent_id"], "{host}: {input}");
        assert_eq!(
            input["transcript_path"], sent["agent_transcript_path"],
            "{host}: {input}"
        );
        assert_eq!(
            input["agent_transcript_path"], sent["agent_transcript_path"],
            "{host}: {input}"
        );
        assert_eq!(
            input["metadata"]["parent_transcript_path"], sent["transcript_path"],
            "{host}: {input}"
        );
    }
}

/// A 5 MB `Write` whose config hook answers with the whole input rewritten
/// (`updatedInput`, escaped to ASCII as Python's `json.dumps` does): the
/// answer is as large as the call, so a fixed 1 MiB output cap refused
/// every large write. The cap grows with the input the hook was given; a
/// hook printing far more than that is still stopped.
#[test]
fn a_five_megabyte_write_echoed_back_by_a_hook_goes_through() {
    let dir = Scratch::new("large-write");
    let line = "fn main() { println!(\"héllo, wörld 🙂\"); } // a line of the file\n";
    let content = line.repeat(5 * 1024 * 1024 / line.len() + 1);
    assert!(content.len() > 5 * 1024 * 1024);
    let event = serde_json::json!({
        "session_id": "s", "hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl",
        "cwd": "/w", "permission_mode": "default", "tool_name": "Write",
        "tool_input": {"file_path": "/w/src/main.rs", "content": content},
        "tool_use_id": "toolu_1"
    })
    .to_string();
    let config = dir.path().join("hooks.toml");
    std::fs::write(
        &config,
        r#"
[[hooks]]
event = "pre_tool_use"
name = "stamp"
matches = "Write"
command = ["python3", "-c", "import json,sys; i=json.load(sys.stdin)['tool_input']; i['content'] += '// checked\\n'; print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'updatedInput': i}}))"]
"#,
    )
    .unwrap();
    let output = support::hooks_claude(
        dir.path(),
        &["--config", config.to_str().unwrap()],
        event.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let answer = stdout_json(&output);
    let updated = &answer["hookSpecificOutput"]["updatedInput"];
    assert_eq!(updated["file_path"], "/w/src/main.rs");
    assert!(
        updated["content"].as_str().unwrap() == format!("{content}// checked\n"),
        "the rewritten content came back changed"
    );

    // The same call, with a hook printing 40 MB: stopped, and the call refused.
    std::fs::write(
        &config,
        r#"
[[hooks]]
event = "pre_tool_use"
name = "flood"
command = ["sh", "-c", "cat > /dev/null; yes 'flooding the hook binary' | head -c 40000000"]
"#,
    )
    .unwrap();
    let output = support::hooks_claude(
        dir.path(),
        &["--config", config.to_str().unwrap()],
        event.as_bytes(),
    );
    let reason = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{reason}");
    assert!(reason.contains("printed more than"), "{reason}");
}

/// A config hook that blocks `rm` with exit 2.
const NO_RM: &str = r#"
[[hooks]]
event = "PreToolUse"
name = "no_rm"
command = ["sh", "-c", "cat > /dev/null; echo 'rm is not allowed here' >&2; exit 2"]
"#;

/// A block used to be a bare exit 2, and what the other hooks said for the
/// person (`systemMessage`) was lost. Where Claude Code reads a block from
/// JSON, the answer is JSON: the block and the messages together.
#[test]
fn a_block_keeps_what_the_other_hooks_said_for_the_person() {
    let dir = Scratch::new("block-messages");
    let config = dir.path().join("hooks.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[[hooks]]
event = "PreToolUse"
name = "note"
priority = -10
command = ["sh", "-c", "cat > /dev/null; echo '{{\"systemMessage\": \"the repo is on a release branch\"}}'"]
{NO_RM}"#
        ),
    )
    .unwrap();
    let event =
        br#"{"session_id": "s", "hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl",
        "cwd": "/w", "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}"#;
    let output = support::hooks_claude(dir.path(), &["--config", config.to_str().unwrap()], event);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let answer = stdout_json(&output);
    assert_eq!(
        answer["systemMessage"], "the repo is on a release branch",
        "{answer}"
    );
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny", "{answer}");
    assert!(
        specific["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("rm is not allowed here"),
        "{answer}"
    );

    // With nothing else to say, a block stays the plain exit 2 every host reads.
    std::fs::write(&config, NO_RM).unwrap();
    let output = support::hooks_claude(dir.path(), &["--config", config.to_str().unwrap()], event);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("rm is not allowed here"));
}

/// What other hooks added for the model (`additionalContext`) was lost on a
/// block: the reason is all the model reads then, on both hosts, so the
/// context goes with it.
#[test]
fn a_block_keeps_what_the_other_hooks_said_for_the_model() {
    let dir = Scratch::new("block-context");
    let config = dir.path().join("hooks.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[[hooks]]
event = "PreToolUse"
name = "hint"
priority = -10
command = ["sh", "-c", "cat > /dev/null; echo '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PreToolUse\", \"additionalContext\": \"build/ is cleared by cargo clean\"}}}}'"]
{NO_RM}"#
        ),
    )
    .unwrap();
    let event =
        br#"{"session_id": "s", "hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl",
        "cwd": "/w", "model": "m", "turn_id": "t", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"}}"#;
    for host in ["claude", "codex"] {
        let config = config.to_str().unwrap();
        let output =
            support::hooks_claude(dir.path(), &["--host", host, "--config", config], event);
        let reason = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{host}: {reason}");
        assert!(
            reason.contains("rm is not allowed here"),
            "{host}: {reason}"
        );
        assert!(
            reason.contains("build/ is cleared by cargo clean"),
            "{host}: {reason}"
        );
    }
}

/// A script written for an older Claude Code (its MCP-only
/// `updatedMCPToolOutput`), run by the binary told that version: the
/// replacement goes back in the field that version reads, and on a built-in
/// tool, which that version cannot replace, the call's output is refused.
#[test]
fn the_host_version_chooses_the_fields_of_the_answer() {
    let dir = Scratch::new("host-version");
    let config = dir.path().join("hooks.toml");
    std::fs::write(
        &config,
        r#"
[[hooks]]
event = "PostToolUse"
name = "redact"
command = ["sh", "-c", "cat > /dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"updatedMCPToolOutput\": \"[redacted]\"}}'"]
"#,
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let event = |tool: &str| {
        format!(
            r#"{{"session_id": "s", "hook_event_name": "PostToolUse", "transcript_path": "/t.jsonl",
            "cwd": "/w", "tool_name": "{tool}", "tool_input": {{}}, "tool_response": "sk-live-123"}}"#
        )
    };
    let old = [
        "--config",
        config,
        "--host-version",
        "2.1.120 (Claude Code)",
    ];
    let output = support::hooks_claude(dir.path(), &old, event("mcp__vault__read").as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let specific = stdout_json(&output)["hookSpecificOutput"].clone();
    assert_eq!(
        specific,
        serde_json::json!({"hookEventName": "PostToolUse", "updatedMCPToolOutput": "[redacted]"})
    );
    let output = support::hooks_claude(dir.path(), &old, event("Bash").as_bytes());
    let reason = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{reason}");
    assert!(
        reason.contains("[redacted]") && !reason.contains("sk-live-123"),
        "{reason}"
    );

    let bad = support::hooks_claude(dir.path(), &["--host-version", "latest"], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--host-version"), "{}", stderr(&bad));
    // The printed settings run the binary told the same version.
    let printed = support::hooks_claude(
        dir.path(),
        &["--print-settings", "claude", "--host-version", "2.1.120"],
        b"",
    );
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(text.contains("--host-version 2.1.120"), "{text}");
}

/// Before 2.1.101, Claude Code ignored a whole settings file naming a hook
/// event it did not know (changelog 2.1.101): printed for such a version,
/// settings naming a newer event would turn every hook off, the guards with
/// them. So they name only the events that version has, and say which they
/// left out.
#[test]
fn printed_settings_name_only_the_events_the_host_version_has() {
    let dir = Scratch::new("settings-version");
    let events = |version: &str| {
        let output = support::hooks_claude(
            dir.path(),
            &["--print-settings", "claude", "--host-version", version],
            b"",
        );
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let printed = stdout_json(&output);
        let mut names: Vec<String> = printed["hooks"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        names.sort();
        (names, stderr(&output))
    };
    let (old, note) = events("2.0.42");
    assert_eq!(
        old,
        [
            "Notification",
            "PostToolUse",
            "PreCompact",
            "PreToolUse",
            "SessionEnd",
            "SessionStart",
            "Stop",
            "SubagentStop",
            "UserPromptSubmit"
        ]
    );
    assert!(note.contains("SubagentStart (2.0.43)"), "{note}");
    assert!(note.contains("PermissionRequest (2.0.45)"), "{note}");
    assert!(note.contains("PostToolUseFailure"), "{note}");
    let (new, note) = events("2.1.101");
    assert!(
        new.contains(&"SubagentStart".to_owned()) && new.contains(&"PostToolUseFailure".to_owned())
    );
    assert_eq!(note, "");
}
