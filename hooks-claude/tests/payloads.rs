//! Every event Claude Code and Codex document, as a payload written from
//! their documented input fields (`tests/payloads/<host>/<Event>.json`; see
//! the README there for the sources), fed to a `Responder`, and the answer
//! checked: silence without hooks, each field where a hook reads it, and
//! each thing a hook can do answered in the host's protocol.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use hooks_claude::{Answer, Host, Responder, RewriteDecision};
use hooks_core::prelude::*;
use hooks_core::{Event, HooksBuilder};
use serde_json::Map;

/// Every event the Claude Code hooks reference documents.
const CLAUDE_EVENTS: &[&str] = &[
    "Setup",
    "SessionStart",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "TeammateIdle",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
];

/// Every event the Codex hooks page documents.
const CODEX_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "Interrupt",
    "SessionEnd",
];

/// The events with a context here: the rest must run nothing.
const MAPPED: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "Notification",
    "PostToolUse",
    "PostToolUseFailure",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "PreCompact",
    "SessionEnd",
];

const HOSTS: [Host; 2] = [Host::Claude, Host::Codex];

fn documented(host: Host) -> &'static [&'static str] {
    match host {
        Host::Claude => CLAUDE_EVENTS,
        Host::Codex => CODEX_EVENTS,
    }
}

fn dir(host: Host) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/payloads")
        .join(host.as_str())
}

fn raw(host: Host, event: &str) -> Vec<u8> {
    let path = dir(host).join(format!("{event}.json"));
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn fixture(host: Host, event: &str) -> Map<String, Value> {
    match serde_json::from_slice(&raw(host, event)) {
        Ok(Value::Object(fields)) => fields,
        other => panic!("{host}/{event}.json is not a JSON object: {other:?}"),
    }
}

fn no_hooks() -> HooksBuilder {
    Hooks::builder().without_linked()
}

async fn answer(host: Host, builder: HooksBuilder, event: &str) -> Answer {
    let responder = Responder::new(builder, host).expect("the hooks build");
    responder.answer(&raw(host, event)).await
}

/// The `hookSpecificOutput` of a JSON answer, checked to name `event`.
fn specific(answer: &Answer, event: &str) -> Map<String, Value> {
    assert_eq!(answer.code(), 0, "stderr: {}", answer.stderr());
    let json = answer
        .json_value()
        .unwrap_or_else(|| panic!("no JSON on stdout: {:?}", answer.stdout()));
    let Some(Value::Object(specific)) = json.get("hookSpecificOutput") else {
        panic!("no hookSpecificOutput in {json}");
    };
    assert_eq!(specific["hookEventName"], json!(event), "{json}");
    specific.clone()
}

fn blocked(answer: &Answer, says: &[&str]) {
    assert_eq!(
        answer.code(),
        hooks_claude::BLOCK,
        "stdout: {}",
        answer.stdout()
    );
    assert_eq!(answer.stdout(), "");
    for text in says {
        assert!(
            answer.stderr().contains(text),
            "{text:?} not in {:?}",
            answer.stderr()
        );
    }
}

#[test]
fn fixtures_cover_every_documented_event() {
    for host in HOSTS {
        let mut found: Vec<String> = std::fs::read_dir(dir(host))
            .expect("fixture directory")
            .map(|entry| entry.expect("entry").path())
            .filter(|path| path.extension().and_then(|ext| ext.to_str()) == Some("json"))
            .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        found.sort();
        let mut expected: Vec<String> = documented(host).iter().map(ToString::to_string).collect();
        expected.sort();
        assert_eq!(found, expected, "{host}");
        for event in documented(host) {
            let fields = fixture(host, event);
            assert_eq!(fields["hook_event_name"], json!(event), "{host}/{event}");
            for common in ["session_id", "transcript_path", "cwd"] {
                assert!(
                    fields.contains_key(common),
                    "{host}/{event} has no {common}"
                );
            }
            // Codex's SessionEnd is the one event without `model`.
            if host == Host::Codex && *event != "SessionEnd" {
                assert!(fields.contains_key("model"), "{host}/{event} has no model");
            }
            if host == Host::Claude {
                assert!(fields.contains_key("permission_mode"), "{host}/{event}");
            }
        }
    }
}

#[tokio::test]
async fn without_hooks_every_event_passes_silently() {
    for host in HOSTS {
        for event in documented(host) {
            let answer = answer(host, no_hooks(), event).await;
            // A parse failure would be exit 2 "cannot read the hook event".
            assert_eq!(
                (answer.code(), answer.stdout(), answer.stderr()),
                (0, "", ""),
                "{host}/{event}"
            );
        }
    }
}

#[tokio::test]
async fn a_payload_missing_what_its_event_needs_is_refused() {
    // The silence above means something only if a payload that cannot be
    // read is not silent: each mapped event without its required field.
    for (host, event, field) in [
        (Host::Claude, "PreToolUse", "tool_name"),
        (Host::Codex, "PreToolUse", "tool_name"),
        (Host::Claude, "UserPromptSubmit", "prompt"),
        (Host::Codex, "UserPromptSubmit", "prompt"),
        (Host::Claude, "Stop", "session_id"),
        (Host::Codex, "SessionEnd", "session_id"),
    ] {
        let mut fields = fixture(host, event);
        fields.remove(field);
        let input = serde_json::to_vec(&fields).unwrap();
        let answer = Responder::new(no_hooks(), host)
            .unwrap()
            .answer(&input)
            .await;
        blocked(&answer, &["cannot read the hook event", field]);
    }
}

/// What a hook saw of one event.
#[derive(Debug, Clone)]
struct Seen {
    event: &'static str,
    session: String,
    user: Option<String>,
    agent: String,
    parent: Option<String>,
    metadata: Map<String, Value>,
    detail: Value,
}

type Log = Arc<Mutex<Vec<Seen>>>;

fn record(log: &Log, event: &'static str, session: &Session, detail: Value) {
    log.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Seen {
            event,
            session: session.id().to_owned(),
            user: session.user_id().map(str::to_owned),
            agent: session.agent_id().to_owned(),
            parent: session.parent_agent_id().map(str::to_owned),
            metadata: session.metadata().clone(),
            detail,
        });
}

/// An observer of `C` writing down the session and what `detail` reads.
fn seeing<C: Event>(log: &Log, event: &'static str, detail: fn(&C) -> (Session, Value)) -> Hook<C> {
    let log = Arc::clone(log);
    Hook::observer(format!("see_{event}"), move |ctx: &C| {
        let (session, detail) = detail(ctx);
        record(&log, event, &session, detail);
    })
}

/// An observer on every event with a context, writing down what it saw.
fn recording(log: &Log) -> HooksBuilder {
    no_hooks()
        .hook(seeing(log, "PreToolUse", |ctx: &PreToolUse| {
            let detail = json!({"tool": ctx.tool(), "args": ctx.args(), "call_id": ctx.call_id()});
            (ctx.session().clone(), detail)
        }))
        .hook(seeing(log, "PermissionRequest", |ctx: &PermissionRequest| {
            let detail = json!({"tool": ctx.tool(), "args": ctx.args(),
                                "suggestions": ctx.permission_suggestions()});
            (ctx.session().clone(), detail)
        }))
        .hook(seeing(log, "Notification", |ctx: &Notification| {
            let detail = json!({"message": ctx.message(), "title": ctx.title(),
                                "type": ctx.notification_type()});
            (ctx.session().clone(), detail)
        }))
        .hook(seeing(log, "PostToolUse", |ctx: &PostToolUse| {
            let result = match ctx.result() {
                Ok(value) => json!({"ok": value}),
                Err(error) => json!({"err": error}),
            };
            let detail = json!({"tool": ctx.tool(), "args": ctx.args(), "call_id": ctx.call_id(),
                                "result": result});
            (ctx.session().clone(), detail)
        }))
        .hook(seeing(log, "PostToolUseFailure", |ctx: &PostToolUseFailure| {
            let detail = json!({"tool": ctx.tool(), "args": ctx.args(), "call_id": ctx.call_id(),
                                "error": ctx.error().message()});
            (ctx.session().clone(), detail)
        }))
        .hook(seeing(log, "UserPromptSubmit", |ctx: &UserPromptSubmit| {
            (ctx.session().clone(), json!({"prompt": ctx.prompt()}))
        }))
        .hook(seeing(log, "SessionStart", |ctx: &SessionStart| {
            (ctx.session().clone(), json!({"source": ctx.source()}))
        }))
        .hook(seeing(log, "SessionEnd", |ctx: &SessionEnd| {
            (ctx.session().clone(), json!({"reason": ctx.reason()}))
        }))
        .hook(seeing(log, "Stop", |ctx: &Stop| {
            let detail = json!({"stop_hook_active": ctx.stop_hook_active(),
                                "last_message": ctx.last_message()});
            (ctx.session().clone(), detail)
        }))
        .hook(seeing(log, "SubagentStop", |ctx: &SubagentStop| {
            let detail = json!({"stop_hook_active": ctx.stop_hook_active(),
                                "last_message": ctx.last_message()});
            (ctx.session().clone(), detail)
        }))
        .hook(seeing(log, "SubagentStart", |ctx: &SubagentStart| {
            let detail = json!({"subagent_id": ctx.subagent_id(), "agent_type": ctx.agent_type(),
                                "prompt": ctx.prompt(),
                                "subagent_session": ctx.subagent_session().agent_id()});
            (ctx.session().clone(), detail)
        }))
        .hook(seeing(log, "PreCompact", |ctx: &PreCompact| {
            let detail = json!({"trigger": ctx.trigger_name(),
                                "custom_instructions": ctx.custom_instructions()});
            (ctx.session().clone(), detail)
        }))
}

/// What a hook on `event` must see of payload `f`, written from the
/// documented field names, and the fields the context takes (the rest are
/// the session's metadata).
fn expected(event: &str, f: &Map<String, Value>) -> (Value, &'static [&'static str]) {
    let get = |key: &str| f.get(key).cloned().unwrap_or(Value::Null);
    match event {
        "PreToolUse" => (
            json!({"tool": get("tool_name"), "args": get("tool_input"), "call_id": get("tool_use_id")}),
            &["tool_name", "tool_input", "tool_use_id"],
        ),
        "PostToolUse" => (
            json!({"tool": get("tool_name"), "args": get("tool_input"), "call_id": get("tool_use_id"),
                   "result": {"ok": get("tool_response")}}),
            &["tool_name", "tool_input", "tool_use_id", "tool_response"],
        ),
        "PostToolUseFailure" => (
            json!({"tool": get("tool_name"), "args": get("tool_input"), "call_id": get("tool_use_id"),
                   "error": get("error")}),
            &["tool_name", "tool_input", "tool_use_id", "error"],
        ),
        "PermissionRequest" => (
            json!({"tool": get("tool_name"), "args": get("tool_input"),
                   "suggestions": get("permission_suggestions")}),
            &["tool_name", "tool_input", "permission_suggestions"],
        ),
        "Notification" => (
            json!({"message": get("message"), "title": get("title"),
                   "type": get("notification_type")}),
            &["message", "title", "notification_type"],
        ),
        "UserPromptSubmit" => (json!({"prompt": get("prompt")}), &["prompt"]),
        "SessionStart" => (json!({"source": get("source")}), &["source"]),
        "SessionEnd" => (json!({"reason": get("reason")}), &["reason"]),
        "Stop" | "SubagentStop" => (
            json!({"stop_hook_active": get("stop_hook_active"),
                   "last_message": get("last_assistant_message")}),
            &["stop_hook_active", "last_assistant_message"],
        ),
        "SubagentStart" => (
            json!({"subagent_id": get("agent_id"), "agent_type": get("agent_type"),
                   "prompt": f.get("prompt").cloned().unwrap_or(json!("")),
                   "subagent_session": get("agent_id")}),
            &["agent_type", "prompt"],
        ),
        "PreCompact" => (
            json!({"trigger": get("trigger"), "custom_instructions": get("custom_instructions")}),
            &["trigger", "custom_instructions"],
        ),
        other => panic!("{other} has no context"),
    }
}

#[tokio::test]
async fn each_mapped_event_reaches_its_hooks_with_the_payload_fields() {
    for host in HOSTS {
        for event in documented(host) {
            let log = Log::default();
            let responder = Responder::new(recording(&log), host).unwrap().user("ada");
            let answer = responder.answer(&raw(host, event)).await;
            assert_eq!(
                (answer.code(), answer.stdout(), answer.stderr()),
                (0, "", ""),
                "{host}/{event}"
            );
            let seen = log.lock().unwrap().clone();
            if !MAPPED.contains(event) {
                assert!(seen.is_empty(), "{host}/{event} ran hooks: {seen:?}");
                continue;
            }
            let [seen] = &seen[..] else {
                panic!("{host}/{event}: expected one hook run, saw {seen:?}");
            };
            assert_eq!(seen.event, *event, "{host}/{event} reached the wrong hooks");
            let f = fixture(host, event);
            let (detail, taken) = expected(event, &f);
            assert_eq!(seen.detail, detail, "{host}/{event}");
            assert_eq!(
                Some(&json!(seen.session)),
                f.get("session_id"),
                "{host}/{event}"
            );
            assert_eq!(seen.user.as_deref(), Some("ada"));
            // `agent_id` puts the event in that sub-agent, except on
            // SubagentStart, where it names the one being started.
            match f.get("agent_id").and_then(Value::as_str) {
                Some(agent) if *event != "SubagentStart" => {
                    assert_eq!(seen.agent, agent, "{host}/{event}");
                    assert_eq!(seen.parent.as_deref(), Some(Session::MAIN_AGENT));
                }
                _ => {
                    assert_eq!(seen.agent, Session::MAIN_AGENT, "{host}/{event}");
                    assert_eq!(seen.parent, None, "{host}/{event}");
                }
            }
            // Everything else the host sent is in the session's metadata,
            // under its own name, unchanged — but a sub-agent's transcript
            // is its own, the main one kept as `parent_transcript_path`.
            let mut metadata = f.clone();
            for key in ["session_id", "hook_event_name", "agent_id"]
                .iter()
                .chain(taken)
            {
                metadata.remove(*key);
            }
            if *event != "SubagentStart"
                && f.get("agent_id").is_some()
                && let Some(own) = f.get("agent_transcript_path")
            {
                let main = metadata.insert("transcript_path".into(), own.clone());
                metadata.insert("parent_transcript_path".into(), main.unwrap());
            }
            assert_eq!(seen.metadata, metadata, "{host}/{event}");
        }
    }
}

#[tokio::test]
async fn the_payload_extras_are_in_the_metadata_by_name() {
    // Spelled out for the fields hooks read most, beyond the sweep above.
    let log = Log::default();
    let _ = answer(Host::Codex, recording(&log), "PostToolUse").await;
    let _ = answer(Host::Claude, recording(&log), "PreToolUse").await;
    let _ = answer(Host::Claude, recording(&log), "SessionStart").await;
    let seen = log.lock().unwrap().clone();
    let [codex, claude, start] = &seen[..] else {
        panic!("{seen:?}");
    };
    assert_eq!(
        codex.metadata["turn_id"],
        json!("019a4c31-02d6-7e41-9a8c-5b3f7e2d1c90")
    );
    assert_eq!(codex.metadata["model"], json!("gpt-5.5"));
    assert_eq!(codex.metadata["permission_mode"], json!("default"));
    assert!(
        codex.metadata["transcript_path"]
            .as_str()
            .unwrap()
            .contains("rollout-")
    );
    assert_eq!(claude.metadata["permission_mode"], json!("acceptEdits"));
    assert_eq!(claude.metadata["cwd"], json!("/home/ada/shop"));
    assert_eq!(
        claude.metadata["transcript_path"],
        fixture(Host::Claude, "PreToolUse")["transcript_path"]
    );
    assert_eq!(start.metadata["model"], json!("claude-sonnet-4-6"));
    assert_eq!(start.detail["source"], json!("resume"));
}

#[tokio::test]
async fn a_denied_tool_call_is_blocked_with_the_reason() {
    for host in HOSTS {
        let hooks = no_hooks().hook(Hook::new("no_push", |ctx: &mut PreToolUse| {
            match ctx.args()["command"].as_str() {
                Some(command) if command.starts_with("git push") => {
                    Decision::deny("pushing is for people")
                }
                _ => Decision::Continue,
            }
        }));
        let answer = answer(host, hooks, "PreToolUse").await;
        blocked(&answer, &["pushing is for people", "no_push"]);
    }
}

#[tokio::test]
async fn a_call_needing_a_person_is_asked_on_claude_and_refused_on_codex() {
    let ask = || {
        no_hooks().hook(Hook::new("confirm", |_: &mut PreToolUse| {
            Decision::ask("push to main?")
        }))
    };
    let claude = answer(Host::Claude, ask(), "PreToolUse").await;
    let out = specific(&claude, "PreToolUse");
    assert_eq!(out["permissionDecision"], json!("ask"));
    assert_eq!(out["permissionDecisionReason"], json!("push to main?"));
    let codex = answer(Host::Codex, ask(), "PreToolUse").await;
    blocked(&codex, &["confirm"]);
}

#[tokio::test]
async fn a_rewritten_call_comes_back_as_updated_input() {
    let rewrite = || {
        no_hooks().hook(Hook::new("no_force", |ctx: &mut PreToolUse| {
            let command = ctx.args()["command"].as_str().unwrap_or_default();
            let safer = command.replace("--force", "--force-with-lease");
            ctx.args_mut()["command"] = json!(safer);
        }))
    };
    // Codex's call force-pushes: rewritten, and sent with `allow`.
    let codex = answer(Host::Codex, rewrite(), "PreToolUse").await;
    let out = specific(&codex, "PreToolUse");
    assert_eq!(out["permissionDecision"], json!("allow"));
    assert_eq!(
        out["updatedInput"],
        json!({"command": "git push --force-with-lease origin main"})
    );
    // Claude Code's does not: nothing rewritten, nothing said.
    let claude = answer(Host::Claude, rewrite(), "PreToolUse").await;
    assert_eq!((claude.code(), claude.stdout()), (0, ""));
    // Claude Code's fixture, rewritten: every documented argument kept.
    let add_limit = || {
        no_hooks().hook(Hook::new("cap_timeout", |ctx: &mut PreToolUse| {
            ctx.args_mut()["timeout"] = json!(60000);
        }))
    };
    let mut updated = fixture(Host::Claude, "PreToolUse")["tool_input"].clone();
    updated["timeout"] = json!(60000);
    let asked = answer(Host::Claude, add_limit(), "PreToolUse").await;
    let out = specific(&asked, "PreToolUse");
    assert_eq!(
        (&out["permissionDecision"], &out["updatedInput"]),
        (&json!("ask"), &updated)
    );
    let responder = Responder::new(add_limit(), Host::Claude)
        .unwrap()
        .rewrites(RewriteDecision::Allow);
    let allowed = responder.answer(&raw(Host::Claude, "PreToolUse")).await;
    let out = specific(&allowed, "PreToolUse");
    assert_eq!(
        (&out["permissionDecision"], &out["updatedInput"]),
        (&json!("allow"), &updated)
    );
}

#[tokio::test]
async fn a_replaced_tool_output_is_updated_on_claude_and_refused_on_codex() {
    let redact = || {
        no_hooks().hook(Hook::new("redact", |ctx: &mut PostToolUse| {
            let redacted = match ctx.result() {
                Ok(Value::String(text)) => json!(text.replace("hunter2", "[redacted]")),
                Ok(Value::Object(_)) => json!({"filePath": "[redacted]", "success": true}),
                _ => return,
            };
            *ctx.result_mut() = Ok(redacted);
        }))
    };
    let claude = answer(Host::Claude, redact(), "PostToolUse").await;
    let out = specific(&claude, "PostToolUse");
    assert_eq!(
        out["updatedToolOutput"],
        json!({"filePath": "[redacted]", "success": true})
    );
    let codex = answer(Host::Codex, redact(), "PostToolUse").await;
    blocked(&codex, &["DATABASE_URL=postgres://shop:[redacted]@db/shop"]);
    assert!(!codex.stderr().contains("hunter2"), "{}", codex.stderr());
}

#[tokio::test]
async fn a_failed_call_gets_context_in_its_sub_agent() {
    let log = Log::default();
    let l = Arc::clone(&log);
    let hooks = no_hooks().hook(Hook::new("explain", move |ctx: &mut PostToolUseFailure| {
        record(
            &l,
            "PostToolUseFailure",
            ctx.session(),
            json!(ctx.error().message()),
        );
        ctx.inject("Exit 101 is a test failure: read the first failing test.");
    }));
    let answer = answer(Host::Claude, hooks, "PostToolUseFailure").await;
    let out = specific(&answer, "PostToolUseFailure");
    assert_eq!(
        out["additionalContext"],
        json!("Exit 101 is a test failure: read the first failing test.")
    );
    let seen = log.lock().unwrap().clone();
    assert_eq!(seen[0].agent, "a1b2c3d4e5f6a7b8c");
    assert_eq!(seen[0].metadata["agent_type"], json!("Explore"));
    assert_eq!(seen[0].metadata["is_interrupt"], json!(false));
    assert_eq!(
        seen[0].detail,
        json!("Command exited with non-zero status code 101")
    );
}

#[tokio::test]
async fn a_prompt_gets_context_or_is_refused() {
    for host in HOSTS {
        let inject = no_hooks().hook(Hook::new("conventions", |ctx: &mut UserPromptSubmit| {
            if ctx.prompt().contains("orders report") {
                ctx.inject("The orders report lives in src/report.rs.");
            }
        }));
        let out = specific(
            &answer(host, inject, "UserPromptSubmit").await,
            "UserPromptSubmit",
        );
        assert_eq!(
            out["additionalContext"],
            json!("The orders report lives in src/report.rs.")
        );
        let deny = no_hooks().hook(Hook::new("no_tests_today", |ctx: &mut UserPromptSubmit| {
            if ctx.prompt().contains("tests") {
                Decision::deny("the test database is down")
            } else {
                Decision::Continue
            }
        }));
        blocked(
            &answer(host, deny, "UserPromptSubmit").await,
            &["the test database is down", "no_tests_today"],
        );
    }
}

#[tokio::test]
async fn a_session_start_gets_context() {
    for host in HOSTS {
        let hooks = no_hooks().hook(Hook::new("on_start", |ctx: &mut SessionStart| {
            let text = format!("Session {} ({}).", ctx.source(), ctx.session().id());
            ctx.inject(text);
        }));
        let out = specific(&answer(host, hooks, "SessionStart").await, "SessionStart");
        let f = fixture(host, "SessionStart");
        let text = format!(
            "Session {} ({}).",
            f["source"].as_str().unwrap(),
            f["session_id"].as_str().unwrap()
        );
        assert_eq!(out["additionalContext"], json!(text), "{host}");
    }
}

#[tokio::test]
async fn a_sub_agent_start_gets_context() {
    for host in HOSTS {
        let hooks = no_hooks().hook(Hook::new("brief", |ctx: &mut SubagentStart| {
            let text = format!("You are {}.", ctx.agent_type().unwrap_or("nobody"));
            ctx.inject(text);
        }));
        let out = specific(&answer(host, hooks, "SubagentStart").await, "SubagentStart");
        let f = fixture(host, "SubagentStart");
        let text = format!("You are {}.", f["agent_type"].as_str().unwrap());
        assert_eq!(out["additionalContext"], json!(text), "{host}");
    }
}

/// A state directory of the test's own, empty.
fn state_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("payloads-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[tokio::test]
async fn a_refused_stop_keeps_the_agent_going() {
    let state = state_dir("refused-stop");
    for host in HOSTS {
        let stop = no_hooks().hook(Hook::new("run_the_linter", |_: &mut Stop| {
            Decision::deny("run cargo clippy before stopping")
        }));
        // Where the run of refused stops is counted between processes.
        let responder = Responder::new(stop, host).unwrap().state_dir(&state);
        blocked(
            &responder.answer(&raw(host, "Stop")).await,
            &["run cargo clippy before stopping", "run_the_linter"],
        );
        let log = Log::default();
        let l = Arc::clone(&log);
        let sub = no_hooks().hook(Hook::new("cite_lines", move |ctx: &mut SubagentStop| {
            record(&l, "SubagentStop", ctx.session(), Value::Null);
            match ctx.last_message() {
                Some(message) if message.contains(':') => {
                    Decision::deny("cite every file you read")
                }
                _ => Decision::Continue,
            }
        }));
        blocked(
            &answer(host, sub, "SubagentStop").await,
            &["cite every file you read"],
        );
        let seen = log.lock().unwrap().clone();
        let f = fixture(host, "SubagentStop");
        assert_eq!(json!(seen[0].agent), f["agent_id"], "{host}");
        assert_eq!(
            seen[0].metadata["agent_transcript_path"],
            f["agent_transcript_path"]
        );
    }
    std::fs::remove_dir_all(&state).unwrap();
}

/// With nowhere to count, a stop after a refused one (`stop_hook_active`)
/// is let through: one refusal in a row at most, and the person is told why.
#[tokio::test]
async fn without_a_state_dir_a_stop_hook_keeps_the_agent_going_once() {
    for host in HOSTS {
        let stop = || {
            no_hooks().hook(Hook::new("run_the_linter", |_: &mut Stop| {
                Decision::deny("run cargo clippy before stopping")
            }))
        };
        let mut event = fixture(host, "Stop");
        for active in [false, true] {
            event.insert("stop_hook_active".into(), json!(active));
            let input = serde_json::to_vec(&event).unwrap();
            let answer = Responder::new(stop(), host).unwrap().answer(&input).await;
            if !active {
                blocked(&answer, &["run cargo clippy before stopping"]);
                continue;
            }
            assert_eq!(answer.code(), 0, "{host}: {}", answer.stderr());
            let note = answer.json_value().unwrap()["systemMessage"].clone();
            let note = note.as_str().unwrap_or_default();
            for says in [
                "could not be kept (no state directory",
                "at most once in a row",
                "`run_the_linter` said: run cargo clippy before stopping",
            ] {
                assert!(note.contains(says), "{host}: {note}");
            }
        }
    }
}

/// A hook on every event with a context, leaving the person a message.
fn messaging() -> HooksBuilder {
    const TEXT: &str = "hooks were here";
    no_hooks()
        .hook(Hook::new("m1", |ctx: &mut PreToolUse| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m2", |ctx: &mut PostToolUse| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m3", |ctx: &mut PostToolUseFailure| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m4", |ctx: &mut UserPromptSubmit| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m5", |ctx: &mut SessionStart| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m6", |ctx: &mut SessionEnd| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m7", |ctx: &mut Stop| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m8", |ctx: &mut SubagentStop| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m9", |ctx: &mut SubagentStart| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m10", |ctx: &mut PreCompact| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m11", |ctx: &mut PermissionRequest| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
        .hook(Hook::new("m12", |ctx: &mut Notification| {
            ctx.user_message(MessageLevel::Info, TEXT);
        }))
}

#[tokio::test]
async fn a_message_for_the_person_is_a_system_message_on_every_mapped_event() {
    for host in HOSTS {
        for event in documented(host) {
            let answer = answer(host, messaging(), event).await;
            assert_eq!((answer.code(), answer.stderr()), (0, ""), "{host}/{event}");
            if MAPPED.contains(event) {
                let json = answer
                    .json_value()
                    .unwrap_or_else(|| panic!("{host}/{event}"));
                assert_eq!(
                    json,
                    json!({"systemMessage": "hooks were here"}),
                    "{host}/{event}"
                );
            } else {
                assert_eq!(answer.stdout(), "", "{host}/{event}: a hook ran");
            }
        }
    }
}

/// The count is kept per agent: a sub-agent's refused stops and its
/// parent's are two runs, each capped on its own.
#[tokio::test]
async fn each_agent_of_a_session_has_its_own_run_of_refused_stops() {
    let state = state_dir("per-agent");
    let responder = Responder::new(
        no_hooks()
            .stop_denial_cap(2)
            .hook(Hook::new("not_yet", |_: &mut Stop| {
                Decision::deny("not yet")
            }))
            .hook(Hook::new("cite", |_: &mut SubagentStop| {
                Decision::deny("cite your sources")
            })),
        Host::Claude,
    )
    .unwrap()
    .state_dir(&state);
    let event = |name: &str, active: bool| {
        let mut event = fixture(Host::Claude, name);
        event.insert("stop_hook_active".into(), json!(active));
        serde_json::to_vec(&event).unwrap()
    };
    let mut seen = Vec::new();
    for (name, active) in [
        ("SubagentStop", false),
        ("Stop", false),
        ("SubagentStop", true),
        ("Stop", true),
        ("SubagentStop", true),
        ("Stop", true),
    ] {
        let answer = responder.answer(&event(name, active)).await;
        seen.push((name, answer.code()));
        if answer.code() == 0 {
            let note = answer.json_value().unwrap()["systemMessage"].clone();
            assert!(
                note.as_str().unwrap().contains("2 times in a row, the cap"),
                "{note}"
            );
        }
    }
    assert_eq!(
        seen,
        [
            ("SubagentStop", 2),
            ("Stop", 2),
            ("SubagentStop", 2),
            ("Stop", 2),
            ("SubagentStop", 0),
            ("Stop", 0),
        ]
    );
    std::fs::remove_dir_all(&state).unwrap();
}

/// The whole answer to the permission dialog of `host`'s fixture.
async fn permission(host: Host, hooks: HooksBuilder) -> Answer {
    answer(host, hooks, "PermissionRequest").await
}

#[tokio::test]
async fn a_permission_request_is_denied_granted_or_left_to_the_person() {
    for host in HOSTS {
        let deny = no_hooks().hook(Hook::new("no_bash_dialogs", |_: &mut PermissionRequest| {
            Decision::deny("run it yourself")
        }));
        let answer = permission(host, deny).await;
        assert_eq!((answer.code(), answer.stderr()), (0, ""), "{host}");
        assert_eq!(
            answer.json_value(),
            Some(json!({"hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "run it yourself (hook `no_bash_dialogs`)"}
            }})),
            "{host}"
        );
        let grant = no_hooks().hook(Hook::new("fine", |ctx: &mut PermissionRequest| ctx.grant()));
        let answer = permission(host, grant).await;
        assert_eq!(
            answer.json_value(),
            Some(json!({"hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow"}
            }})),
            "{host}"
        );
        // A grant and a later denial: the denial.
        let both = no_hooks()
            .hook(Hook::new("fine", |ctx: &mut PermissionRequest| ctx.grant()).priority(1))
            .hook(Hook::new("no", |_: &mut PermissionRequest| Decision::deny("no")).priority(2));
        let answer = permission(host, both).await;
        assert_eq!(
            answer.json_value().unwrap()["hookSpecificOutput"]["decision"]["behavior"],
            json!("deny"),
            "{host}"
        );
        // An ask, or hooks that say nothing: no decision, the dialog is
        // shown (an ask's prompt told to the person who sees it).
        let ask = no_hooks()
            .hook(Hook::new("fine", |ctx: &mut PermissionRequest| ctx.grant()).priority(1))
            .hook(Hook::new("ask", |_: &mut PermissionRequest| Decision::ask("sure?")).priority(2));
        let answer = permission(host, ask).await;
        assert_eq!((answer.code(), answer.stderr()), (0, ""), "{host}");
        assert_eq!(
            answer.json_value(),
            Some(json!({"systemMessage": "hook `ask` leaves this to you: sure?"})),
            "{host}"
        );
        let quiet = no_hooks().hook(Hook::new("looks", |_: &mut PermissionRequest| {}));
        let answer = permission(host, quiet).await;
        assert_eq!(
            (answer.code(), answer.stdout(), answer.stderr()),
            (0, "", ""),
            "{host}"
        );
    }
}

#[tokio::test]
async fn a_panicking_permission_hook_denies() {
    for host in HOSTS {
        let hooks = no_hooks()
            .hook(Hook::new("fine", |ctx: &mut PermissionRequest| ctx.grant()).priority(1))
            .hook(
                Hook::new("broken", |_: &mut PermissionRequest| -> Decision {
                    panic!("policy file gone")
                })
                .priority(2),
            );
        let answer = permission(host, hooks).await;
        let decision = &answer.json_value().unwrap()["hookSpecificOutput"]["decision"];
        assert_eq!(decision["behavior"], json!("deny"), "{host}");
        assert!(
            decision["message"].as_str().unwrap().contains("broken"),
            "{decision}"
        );
    }
}

#[tokio::test]
async fn a_granted_rewrite_is_updated_input_on_claude_and_left_to_codex() {
    let narrow = || {
        no_hooks().hook(Hook::new("narrow", |ctx: &mut PermissionRequest| {
            ctx.args_mut()["command"] = json!("rm -rf target/tmp/cache");
            ctx.grant();
        }))
    };
    let mut updated = fixture(Host::Claude, "PermissionRequest")["tool_input"].clone();
    updated["command"] = json!("rm -rf target/tmp/cache");
    let claude = permission(Host::Claude, narrow()).await;
    assert_eq!(
        claude.json_value(),
        Some(json!({"hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow", "updatedInput": updated}
        }}))
    );
    // Codex fails a decision carrying `updatedInput`: none is sent, and the
    // person is told why its own approval decides.
    let codex = permission(Host::Codex, narrow()).await;
    let json = codex.json_value().unwrap();
    assert_eq!(json.as_object().unwrap().len(), 1, "{json}");
    assert!(
        json["systemMessage"]
            .as_str()
            .unwrap()
            .contains("`narrow` granted this call with its input rewritten"),
        "{json}"
    );
}

#[tokio::test]
async fn a_granted_rewrite_is_not_sent_to_a_claude_code_that_would_skip_the_deny_rules() {
    // Before 2.1.110 Claude Code ran a granted `updatedInput` without checking
    // it against the person's `permissions.deny` rules: a hook narrowing a
    // call could hand it input a deny rule forbids. Told such a version, the
    // binary sends no grant; the dialog decides on the call as asked.
    let narrow = || {
        no_hooks().hook(Hook::new("narrow", |ctx: &mut PermissionRequest| {
            ctx.args_mut()["command"] = json!("rm -rf target/tmp/cache");
            ctx.grant();
        }))
    };
    let raw = raw(Host::Claude, "PermissionRequest");
    for (version, sent) in [("2.1.109", false), ("2.1.110", true)] {
        let responder = Responder::new(narrow(), Host::Claude)
            .unwrap()
            .host_version(version.parse().unwrap());
        let answer = responder.answer(&raw).await;
        let json = answer.json_value().unwrap();
        assert_eq!(
            json.get("hookSpecificOutput").is_some(),
            sent,
            "{version}: {json}"
        );
        if !sent {
            let note = json["systemMessage"].as_str().unwrap();
            assert!(
                note.contains("`narrow` granted this call with its input rewritten"),
                "{note}"
            );
            assert!(note.contains("2.1.110"), "{note}");
        }
    }
    // A grant of the input as asked needs no re-check: sent to every version.
    let fine = no_hooks().hook(Hook::new("fine", |ctx: &mut PermissionRequest| ctx.grant()));
    let answer = Responder::new(fine, Host::Claude)
        .unwrap()
        .host_version("2.1.109".parse().unwrap())
        .answer(&raw)
        .await;
    assert_eq!(
        answer.json_value().unwrap()["hookSpecificOutput"]["decision"],
        json!({"behavior": "allow"})
    );
}

#[tokio::test]
async fn a_grant_voided_by_a_later_rewrite_is_not_sent() {
    let hooks = no_hooks()
        .hook(Hook::new("fine", |ctx: &mut PermissionRequest| ctx.grant()).priority(1))
        .hook(
            Hook::new("widen", |ctx: &mut PermissionRequest| {
                ctx.args_mut()["command"] = json!("rm -rf /");
            })
            .priority(2),
        );
    let answer = permission(Host::Claude, hooks).await;
    let json = answer.json_value().unwrap();
    assert!(json.get("hookSpecificOutput").is_none(), "{json}");
    assert!(
        json["systemMessage"]
            .as_str()
            .unwrap()
            .contains("`fine` granted this call, but its input was changed after that"),
        "{json}"
    );
}

#[tokio::test]
async fn a_notification_reaches_hooks_and_answers_nothing_but_messages() {
    let hooks = no_hooks().hook(Hook::new("idle", |ctx: &mut Notification| {
        if ctx.notification_type() == Some("permission_prompt") {
            ctx.user_message(MessageLevel::Info, "paged the on-call");
        }
    }));
    let answer = answer(Host::Claude, hooks, "Notification").await;
    assert_eq!(
        answer.json_value(),
        Some(json!({"systemMessage": "paged the on-call"}))
    );
}

#[test]
fn every_documented_event_runs_here_or_is_refused_with_a_reason() {
    let not_run: Vec<&str> = hooks_config::events_not_run().collect();
    for host in HOSTS {
        for event in documented(host) {
            assert!(
                MAPPED.contains(event) != not_run.contains(event),
                "{host}/{event}: either mapped or refused with its reason, not both or neither"
            );
        }
    }
    for event in not_run {
        assert!(
            CLAUDE_EVENTS.contains(&event) || CODEX_EVENTS.contains(&event),
            "{event} is no host's"
        );
    }
}

#[tokio::test]
async fn a_permission_denial_that_ends_the_session_interrupts_on_claude_only() {
    let spent = || {
        // The reason names the hook (`budget`), so it is sent as given.
        no_hooks().hook(Hook::new("budget", |ctx: &mut PermissionRequest| {
            ctx.end_session("the budget is spent");
            Decision::deny("no budget left")
        }))
    };
    let claude = permission(Host::Claude, spent()).await;
    assert_eq!(
        claude.json_value(),
        Some(json!({
            "continue": false,
            "stopReason": "the budget is spent",
            "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {
                "behavior": "deny", "message": "no budget left", "interrupt": true}}
        }))
    );
    // Codex fails a decision with `interrupt: true`; `continue: false` stops it.
    let codex = permission(Host::Codex, spent()).await;
    assert_eq!(
        codex.json_value(),
        Some(json!({
            "continue": false,
            "stopReason": "the budget is spent",
            "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {
                "behavior": "deny", "message": "no budget left"}}
        }))
    );
}
