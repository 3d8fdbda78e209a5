//! The host's own tools are facts in the catalog: with read-only mode on,
//! Claude Code's reading tools run whatever their arguments look like (a
//! search for `DROP TABLE` is a search), its writing tools are refused
//! saying who declared them, and Codex's `apply_patch` is refused.

use hooks_claude::{Answer, Host, Responder};
use hooks_core::prelude::*;
use hooks_std::read_only::{ReadOnly, ReadOnlyGuard};

hooks_core::link!(hooks_std);

async fn pre_tool_use(host: Host, tool: &str, input: Value) -> Answer {
    let builder = Hooks::builder()
        .only(["hooks_std::read_only::guard"])
        .state(
            ReadOnlyGuard::new(ReadOnly {
                enabled: true,
                ..ReadOnly::default()
            })
            .unwrap(),
        );
    let event = json!({
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
    });
    Responder::new(builder, host)
        .unwrap()
        .answer(event.to_string().as_bytes())
        .await
}

#[tokio::test]
async fn reading_tools_run_and_writing_tools_are_refused_by_declaration() {
    for (tool, input) in [
        ("Read", json!({"file_path": "/etc/hosts"})),
        ("Grep", json!({"pattern": "DELETE FROM users", "path": "."})),
        ("WebSearch", json!({"query": "DROP TABLE students"})),
        (
            "WebFetch",
            json!({"url": "https://example.com", "prompt": "summary"}),
        ),
        ("TodoWrite", json!({"todos": []})),
    ] {
        let answer = pre_tool_use(Host::Claude, tool, input).await;
        assert_eq!(answer.code(), 0, "{tool}: {}", answer.stderr());
    }
    for (tool, input) in [
        ("Write", json!({"file_path": "a", "content": "x"})),
        (
            "Edit",
            json!({"file_path": "a", "old_string": "x", "new_string": "y"}),
        ),
        ("Bash", json!({"command": "ls"})),
    ] {
        let answer = pre_tool_use(Host::Claude, tool, input).await;
        assert_eq!(answer.code(), hooks_claude::BLOCK, "{tool}");
        assert!(
            answer.stderr().contains(&format!(
                "`{tool}` may destroy what exists (Claude Code's built-in tools)"
            )),
            "{}",
            answer.stderr()
        );
    }
    let patch = pre_tool_use(
        Host::Codex,
        "apply_patch",
        json!({"command": "*** Begin Patch"}),
    )
    .await;
    assert!(
        patch.stderr().contains("(Codex's built-in tools)"),
        "{}",
        patch.stderr()
    );
}
