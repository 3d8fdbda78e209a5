//! A transcript kept for hooks that read `transcript_path`: written by
//! observers in Claude Code's format, shown to every declared hook unless
//! the host gave its own, readable by Claude Code's own `Stop` script and by
//! the replay reader, and never written outside its directory.

use std::path::{Path, PathBuf};

use hooks_core::prelude::*;
use serde_json::Value as Json;

mod common;
use common::dispatcher;

/// A directory of its own for each test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "hooks-config-transcript-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Claude Code's transcript-reading `Stop` script, and a `PreToolUse` hook
/// that records every input it is shown to `inputs.jsonl`, with transcripts
/// kept in `dir/kept` by the file's `transcript_dir`.
fn config(dir: &Path) -> hooks_config::Config {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/claude/check_transcript.py");
    let text = format!(
        r#"
transcript_dir = "{kept}"

[[hooks]]
event = "stop"
command = ["python3", "{script}"]

[[hooks]]
event = "user_prompt_submit"
command = 'cat >> "$OUT" && echo >> "$OUT"'
shell = true
env = {{ OUT = "{inputs}" }}
"#,
        kept = dir.join("kept").display(),
        script = script.display(),
        inputs = dir.join("inputs.jsonl").display(),
    );
    hooks_config::parse("hooks.toml", &text, false).unwrap()
}

fn lines(path: &Path) -> Vec<Json> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A turn: the prompt, a reply saying `text` and calling `Bash`, its result.
async fn turn(hooks: &Hooks, session: &Session, text: &str) {
    let mut prompt = UserPromptSubmit::new(session, "fix the report");
    assert!(hooks.dispatch(&mut prompt).await.is_continue());
    let call = RequestedCall::new("Bash", json!({"command": "make test"})).with_id("toolu_01");
    let mut reply = PostModelResponse::new(session, text).with_tool_calls([call]);
    assert!(hooks.dispatch(&mut reply).await.is_continue());
    let mut result = PostToolUse::new(
        session,
        "Bash",
        json!({"command": "make test"}),
        Ok(json!("3 passed")),
    )
    .with_call_id("toolu_01");
    assert!(hooks.dispatch(&mut result).await.is_continue());
}

async fn stop_denial(hooks: &Hooks, session: &Session) -> Option<String> {
    let mut stop = Stop::new(session);
    let outcome = hooks.dispatch(&mut stop).await;
    assert!(stop.failures().is_empty(), "{:?}", stop.failures());
    outcome.denial().map(|denial| denial.reason().to_owned())
}

#[tokio::test]
async fn a_stop_script_reads_the_kept_transcript() {
    let dir = scratch("stop");
    let hooks = dispatcher(config(&dir));
    let session = Session::new("session-1");
    turn(&hooks, &session, "Fixed it. TODO: update the docs").await;
    assert_eq!(
        stop_denial(&hooks, &session).await.as_deref(),
        Some("finish the TODOs in your last message first"),
        "the script read the reply the dispatcher wrote"
    );
    turn(&hooks, &session, "Docs updated, all done.").await;
    assert_eq!(stop_denial(&hooks, &session).await, None);

    let path = dir.join("kept/session-1.jsonl");
    let written = lines(&path);
    let kinds: Vec<&str> = written
        .iter()
        .map(|line| line["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["user", "assistant", "user", "user", "assistant", "user"]
    );
    assert_eq!(
        written[0]["message"],
        json!({"role": "user", "content": "fix the report"})
    );
    assert_eq!(written[0]["sessionId"], "session-1");
    assert!(written[0]["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        written[1]["message"],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Fixed it. TODO: update the docs"},
            {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "make test"}},
        ]})
    );
    assert_eq!(
        written[2]["message"],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "3 passed", "is_error": false},
        ]})
    );
    // Every hook is shown the path, not only the Stop script.
    let inputs = lines(&dir.join("inputs.jsonl"));
    assert_eq!(inputs[0]["transcript_path"], path.display().to_string());
}

#[tokio::test]
async fn a_failed_tool_is_an_error_result() {
    let dir = scratch("failure");
    let hooks = dispatcher(
        hooks_config::parse("hooks.toml", "", false)
            .unwrap()
            .keep_transcript(&dir),
    );
    let session = Session::new("s");
    let pre =
        PreToolUse::new(&session, "Bash", json!({"command": "false"})).with_call_id("toolu_9");
    let mut failed = PostToolUseFailure::after(&pre, ToolError::new("exit 1"));
    assert!(hooks.dispatch(&mut failed).await.is_continue());
    let written = lines(&dir.join("s.jsonl"));
    assert_eq!(
        written[0]["message"]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_9", "content": "exit 1", "is_error": true})
    );
}

#[tokio::test]
async fn the_hosts_transcript_path_wins() {
    let dir = scratch("host");
    let hooks = dispatcher(config(&dir));
    let host = dir.join("host.jsonl");
    let said =
        json!({"type": "assistant", "message": {"role": "assistant", "content": "TODO: tests"}});
    std::fs::write(&host, format!("{said}\n")).unwrap();
    let session =
        Session::new("session-2").with_metadata("transcript_path", host.display().to_string());
    turn(&hooks, &session, "All done.").await;
    assert_eq!(
        stop_denial(&hooks, &session).await.as_deref(),
        Some("finish the TODOs in your last message first"),
        "the script read the host's transcript, not the kept one"
    );
    let inputs = lines(&dir.join("inputs.jsonl"));
    assert_eq!(inputs[0]["transcript_path"], host.display().to_string());
    // The kept one is still written.
    assert_eq!(lines(&dir.join("kept/session-2.jsonl")).len(), 3);
}

#[tokio::test]
async fn session_ids_cannot_leave_the_directory() {
    let dir = scratch("attack");
    let kept = dir.join("inner/kept");
    let hooks = dispatcher(config(&dir).keep_transcript(&kept));
    let ids = [
        "../escape",
        "../../escape",
        "/",
        "",
        ".",
        "..",
        "a/../../b",
        "/tmp/x",
        "x\0y",
        "%2F",
    ];
    for id in ids {
        turn(&hooks, &Session::new(id), "done").await;
    }
    let mut names: Vec<String> = std::fs::read_dir(&kept)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            assert!(entry.file_type().unwrap().is_file());
            entry.file_name().into_string().unwrap()
        })
        .collect();
    names.sort();
    assert_eq!(
        names.len(),
        ids.len(),
        "one file each, none shared: {names:?}"
    );
    // Nothing outside the directory but what the test made.
    let mut around: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    around.sort();
    assert_eq!(around, ["inner", "inputs.jsonl"]);
    assert_eq!(std::fs::read_dir(dir.join("inner")).unwrap().count(), 1);
    // Each file holds its own session, and hooks were shown that file.
    let inputs = lines(&dir.join("inputs.jsonl"));
    for (id, input) in ids.iter().zip(&inputs) {
        let path = PathBuf::from(input["transcript_path"].as_str().unwrap());
        assert_eq!(path.parent(), Some(kept.as_path()), "{id:?}");
        assert_eq!(lines(&path)[0]["sessionId"], *id);
    }
}

#[test]
fn the_lines_read_back_with_the_replay_reader() {
    let dir = scratch("replay");
    let hooks = dispatcher(
        hooks_config::parse("hooks.toml", "", false)
            .unwrap()
            .keep_transcript(&dir),
    );
    let session = Session::new("session-3");
    hooks_tests::block_on(async {
        let mut prompt = UserPromptSubmit::new(&session, "look around");
        assert!(hooks.dispatch(&mut prompt).await.is_continue());
        let calls = [
            RequestedCall::new("Read", json!({"file_path": "a.txt"})).with_id("toolu_1"),
            RequestedCall::new("Bash", json!({"command": "ls"})).with_id("toolu_2"),
        ];
        let mut reply = PostModelResponse::new(&session, "Reading.").with_tool_calls(calls);
        assert!(hooks.dispatch(&mut reply).await.is_continue());
        let mut result = PostToolUse::new(
            &session,
            "Read",
            json!({"file_path": "a.txt"}),
            Ok(json!({"text": "hi"})),
        )
        .with_call_id("toolu_1");
        assert!(hooks.dispatch(&mut result).await.is_continue());
    });
    let file = std::fs::File::open(dir.join("session-3.jsonl")).unwrap();
    let recording = hooks_std::replay::read(std::io::BufReader::new(file)).unwrap();
    assert!(recording.errors.is_empty(), "{:?}", recording.errors);
    let calls: Vec<_> = recording
        .calls
        .iter()
        .map(|call| {
            (
                call.session.as_str(),
                call.tool.as_str(),
                call.call_id.as_deref(),
                &call.args,
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                "session-3",
                "Read",
                Some("toolu_1"),
                &json!({"file_path": "a.txt"})
            ),
            (
                "session-3",
                "Bash",
                Some("toolu_2"),
                &json!({"command": "ls"})
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_sessions_write_whole_lines() {
    let dir = scratch("concurrent");
    let hooks = std::sync::Arc::new(dispatcher(
        hooks_config::parse("hooks.toml", "", false)
            .unwrap()
            .keep_transcript(&dir),
    ));
    let big = "x".repeat(64 * 1024);
    let tasks: Vec<_> = (0..8)
        .map(|task| {
            let hooks = std::sync::Arc::clone(&hooks);
            let text = format!("{task}{big}");
            tokio::spawn(async move {
                for _ in 0..20 {
                    // Four tasks write to each session's file at once.
                    let session = Session::new(format!("s{}", task % 2));
                    let mut reply = PostModelResponse::new(&session, text.clone());
                    assert!(hooks.dispatch(&mut reply).await.is_continue());
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    for session in ["s0", "s1"] {
        let written = lines(&dir.join(format!("{session}.jsonl")));
        assert_eq!(written.len(), 80);
        for line in written {
            assert_eq!(line["sessionId"], session);
            assert_eq!(
                line["message"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .len(),
                big.len() + 1
            );
        }
    }
}

#[test]
fn an_empty_transcript_dir_is_refused() {
    let error = common::parse_error("hooks.toml", "transcript_dir = \"\"\n", false);
    assert_eq!(
        error.problems(),
        ["hooks.toml:1: `transcript_dir` is empty: name a directory"]
    );
    let config = hooks_config::parse("hooks.toml", "", false)
        .unwrap()
        .keep_transcript("");
    let error = common::apply_error(config, "an empty directory applied");
    assert_eq!(
        error.problems(),
        ["hooks.toml: `transcript_dir` is empty: name a directory"]
    );
}
