//! rig's own agent loop and OpenAI-compatible client, over HTTP to a
//! scripted model, with the hooks in between.

mod support;

use hooks_core::{Decision, Hook, Hooks, PostToolUse, PreModelRequest, PreToolUse, Session};
use hooks_rig::HooksHook;
use hooks_std::audit::{Auditor, Durability, JsonLinesFile};
use rig_agent::agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;
use serde_json::{Value, json};

use support::server::{ScriptedModel, text, tool_calls, tool_results};
use support::{DeleteFile, ReadFile};

const REASON: &str = "deleting files is not allowed in this session";

/// Runs one prompt through a rig agent with both tools and `hooks`, against
/// a model that answers with `first` and then with text.
async fn run(hooks: Hooks, first: Value) -> (ScriptedModel, ReadFile, DeleteFile, String) {
    let (model, base_url) = ScriptedModel::start([first, text("done")]).await;
    let client = OpenAIConfig::new("test-key")
        .with_base_url(base_url)
        .client();
    let read = ReadFile::default();
    let delete = DeleteFile::default();
    let agent = AgentBuilder::new(client.chat("scripted"))
        .tool(read.clone())
        .tool(delete.clone())
        .default_max_turns(4)
        .add_hook(HooksHook::new(hooks, Session::new("rig-test")))
        .build();
    let answer = agent
        .prompt("tidy up")
        .await
        .expect("the run completes")
        .output();
    (model, read, delete, answer)
}

fn deny_delete() -> Hook<PreToolUse> {
    Hook::new("no_delete", |_: &mut PreToolUse| Decision::deny(REASON)).matches("delete_file")
}

/// Asks the model to delete `/etc` through `guard`: the tool must not run,
/// and the model must read the reason as the call's result.
async fn refused_delete(guard: Hook<PreToolUse>) {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(guard)
        .build()
        .unwrap();
    let call = tool_calls(&[("call_abc", "delete_file", json!({"path": "/etc"}))]);
    let (model, _, delete, answer) = run(hooks, call).await;

    assert_eq!(answer, "done");
    assert!(delete.0.calls().is_empty(), "the denied tool ran");
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let results = tool_results(&requests[1]);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].0, "call_abc");
    assert!(results[0].1.contains(REASON), "{:?}", results[0].1);
}

#[tokio::test]
async fn a_denied_tool_never_runs_and_the_model_reads_the_reason() {
    refused_delete(deny_delete()).await;
}

/// A guard that waits (a timer) before it refuses: the adapter runs what it
/// can at once and awaits the rest; the tool still never runs.
#[tokio::test]
async fn a_guard_that_waits_before_denying_still_keeps_the_tool_from_running() {
    let slow = Hook::new_async("slow_no_delete", |_: &mut PreToolUse| {
        Box::pin(async {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            Decision::deny(REASON)
        })
    })
    .matches("delete_file")
    .timeout(std::time::Duration::from_secs(30));
    refused_delete(slow).await;
}

#[tokio::test]
async fn an_args_rewrite_reaches_the_tool() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("jail", |ctx: &mut PreToolUse| {
            ctx.args_mut()["path"] = json!("/sandbox/notes.txt");
        }))
        .build()
        .unwrap();
    let call = tool_calls(&[("call_r1", "read_file", json!({"path": "/etc/passwd"}))]);
    let (model, read, _, _) = run(hooks, call).await;

    assert_eq!(read.0.calls(), [json!({"path": "/sandbox/notes.txt"})]);
    let results = tool_results(&model.requests()[1]);
    assert!(
        results[0].1.contains("/sandbox/notes.txt"),
        "{:?}",
        results[0].1
    );
}

#[tokio::test]
async fn a_post_tool_rewrite_reaches_the_model() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("redact", |ctx: &mut PostToolUse| {
            if let Ok(result) = ctx.result_mut() {
                result["secret"] = json!("[redacted]");
            }
        }))
        .build()
        .unwrap();
    let call = tool_calls(&[("call_p1", "read_file", json!({"path": "a.txt"}))]);
    let (model, read, _, _) = run(hooks, call).await;

    assert_eq!(read.0.calls().len(), 1);
    let results = tool_results(&model.requests()[1]);
    assert_eq!(results[0].0, "call_p1");
    assert!(results[0].1.contains("[redacted]"), "{:?}", results[0].1);
    assert!(!results[0].1.contains("s3cr3t"), "{:?}", results[0].1);
}

#[tokio::test]
async fn context_a_hook_injects_reaches_the_model_with_the_result() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("house_rules", |ctx: &mut PreToolUse| {
            ctx.inject("Files under secrets/ are off limits.");
        }))
        .build()
        .unwrap();
    let call = tool_calls(&[("call_c1", "read_file", json!({"path": "a.txt"}))]);
    let (model, read, _, _) = run(hooks, call).await;

    assert_eq!(read.0.calls().len(), 1);
    let results = tool_results(&model.requests()[1]);
    assert_eq!(results[0].0, "call_c1");
    assert!(
        results[0]
            .1
            .ends_with("Files under secrets/ are off limits."),
        "{:?}",
        results[0].1
    );
}

#[tokio::test]
async fn the_audit_log_has_one_record_per_call_with_rigs_call_ids() {
    let dir = std::env::temp_dir().join(format!("hooks-rig-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("audit.jsonl");
    let _ = std::fs::remove_file(&path);
    let auditor = Auditor::new(JsonLinesFile::open(&path, Durability::Flush).unwrap());
    let hooks = Hooks::builder()
        .state(auditor)
        .hook(deny_delete())
        .build()
        .unwrap();
    let calls = tool_calls(&[
        ("call_read_1", "read_file", json!({"path": "a.txt"})),
        ("call_delete_2", "delete_file", json!({"path": "/"})),
        ("call_read_3", "read_file", json!({"path": "b.txt"})),
    ]);
    let (model, read, delete, _) = run(hooks, calls).await;

    assert_eq!(read.0.calls().len(), 2);
    assert!(delete.0.calls().is_empty());
    let log = std::fs::read_to_string(&path).unwrap();
    let mut records: Vec<(String, String, String)> = log
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            (
                record["call_id"].as_str().unwrap_or_default().to_owned(),
                record["tool"].as_str().unwrap_or_default().to_owned(),
                record["decision"].to_string(),
            )
        })
        .collect();
    records.sort();
    let ids: Vec<&str> = records.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["call_delete_2", "call_read_1", "call_read_3"],
        "{log}"
    );
    assert_eq!(records[0].2, "\"denied\"", "{log}");
    assert_eq!(records[1].2, "\"allowed\"", "{log}");

    // The model's ids came back to it on the results, as rig sent them.
    let mut answered: Vec<String> = tool_results(&model.requests()[1])
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    answered.sort();
    assert_eq!(answered, ids);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_model_request_filter_withdraws_a_tool_from_the_request() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("read_only", |ctx: &mut PreModelRequest| {
            ctx.exclude_tools(&["delete_file"]);
            ctx.params_mut()["temperature"] = json!(0.0);
        }))
        .build()
        .unwrap();
    let (model, _, _, _) = run(hooks, text("nothing to do")).await;

    let request = &model.requests()[0];
    let offered: Vec<&str> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    assert_eq!(offered, ["read_file"], "{request}");
    assert_eq!(request["temperature"], json!(0.0), "{request}");
}
