//! The audit log: what a record holds, redaction, concurrent writers, an
//! unwritable path, and both failure policies.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hooks_core::Deferred;
use hooks_core::prelude::*;
use hooks_std::audit::{Audit, AuditRecord, Auditor, Durability, JsonLinesFile, OnFailure, Sink};

hooks_core::link!(hooks_std);

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// A write to a file sink is acknowledged at once.
fn written(write: &Deferred<'_, ()>) {
    assert!(
        matches!(write, Deferred::Ready(())),
        "a file sink answers at once"
    );
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| line.parse().expect("every line is JSON"))
        .collect()
}

/// `hooks` and the audit hooks, writing to `path`.
fn audited(path: &Path, hooks: &[&str]) -> Hooks {
    let auditor = Auditor::from_config(Audit {
        path: path.to_owned(),
        ..Audit::default()
    })
    .unwrap();
    Hooks::builder()
        .state(auditor)
        .only(hooks.iter().copied().chain([
            "hooks_std::audit::gate",
            "hooks_std::audit::denied",
            "hooks_std::audit::completed",
            "hooks_std::audit::failed",
        ]))
        .build()
        .unwrap()
}

#[pre_tool_use(group = "audited", matches = "drop_table")]
fn no_drops(_: &mut PreToolUse) -> Decision {
    Decision::deny("dropping tables is not allowed")
}

#[pre_tool_use(group = "audited", matches = "http_get")]
fn pin_host(ctx: &mut PreToolUse) {
    ctx.args_mut()["host"] = json!("api.internal");
}

#[pre_tool_use(group = "audited", matches = "deploy")]
fn friday(ctx: &PreToolUse) -> Decision {
    ctx.warn(format!("deploy with token {}", ctx.args()["token"]));
    Decision::Continue
}

#[pre_tool_use(group = "audited", matches = "deploy", shadow)]
fn stricter(_ctx: &PreToolUse) -> Decision {
    Decision::deny("deploys need a ticket")
}

#[pre_tool_use(group = "audited", matches = "search")]
fn slow_down(_ctx: &PreToolUse) -> Decision {
    Decision::rate_limited("slow down", std::time::Duration::from_secs(2))
}

#[tokio::test]
async fn records_carry_the_call_id_the_denial_kind_warnings_shadow_decisions_and_tool_failures() {
    let path = temp_path("structured.jsonl");
    let hooks = audited(
        &path,
        &["audit::friday", "audit::stricter", "audit::slow_down"],
    );
    let session = Session::new("s");
    // Two identical calls in parallel, told apart by their ids.
    let first = PreToolUse::new(&session, "search", json!({"q": "x"})).with_call_id("toolu_1");
    let second = PreToolUse::new(&session, "search", json!({"q": "x"})).with_call_id("toolu_2");
    let search = hooks.tool("search");
    let never = async |_: &Value| -> Result<Value, ToolError> { Ok(json!("never")) };
    let _ = tokio::join!(
        search.run_call(first, never),
        search.run_call(second, never)
    );
    let deploy = PreToolUse::new(
        &session,
        "deploy",
        json!({"token": "sk-live-0123456789abcdef"}),
    )
    .with_call_id("toolu_3");
    let run = hooks
        .tool("deploy")
        .run_call(deploy, async |_: &Value| {
            Err(ToolError::new(
                "cluster unreachable, token sk-live-0123456789abcdef",
            ))
        })
        .await;
    assert!(run.failure().is_some());

    let records = lines(&path);
    assert_eq!(records.len(), 3, "{records:#?}");
    let mut ids: Vec<&str> = records[..2]
        .iter()
        .map(|r| r["call_id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["toolu_1", "toolu_2"]);
    assert_eq!(
        records[0]["cause"],
        json!({"kind": "rate_limited", "retry_after_ms": 2000})
    );
    let failed = &records[2];
    assert_eq!(failed["call_id"], "toolu_3");
    assert_eq!(failed["decision"], "allowed");
    assert_eq!(failed["error"], "cluster unreachable, token [redacted]");
    let notes = &failed["notes"];
    assert_eq!(notes["warnings"][0]["hook"], "audit::friday");
    assert_eq!(
        notes["shadowed"][0],
        json!({"hook": "audit::stricter", "would": "deny", "reason": "deploys need a ticket", "kind": "denied"})
    );
    let raw = std::fs::read_to_string(&path).unwrap();
    assert!(
        !raw.contains("0123456789abcdef"),
        "warnings and errors are redacted too: {raw}"
    );
}

#[tokio::test]
async fn every_call_is_recorded_once_with_who_what_and_why() {
    let path = temp_path("calls.jsonl");
    let hooks = audited(&path, &["audit::no_drops", "audit::pin_host"]);
    let session = Session::new("sess-9")
        .with_user("dana")
        .sub_agent("researcher");

    let denied = hooks
        .tool("drop_table")
        .run(&session, json!({"table": "users"}), async |_: &Value| {
            Ok::<_, String>(json!("never"))
        })
        .await;
    assert!(!denied.ran());
    let ran = hooks
        .tool("http_get")
        .run(
            &session,
            json!({"path": "/v1/me", "headers": {"Authorization": "Bearer s3cr3t-t0k3n"}, "api_key": "k"}),
            async |_: &Value| Ok::<_, String>(json!({"name": "dana"})),
        )
        .await;
    assert!(ran.ran());

    let records = lines(&path);
    assert_eq!(records.len(), 2, "{records:#?}");
    let denied = &records[0];
    assert_eq!(denied["decision"], "denied");
    assert_eq!(denied["decided_by"], "audit::no_drops");
    assert_eq!(denied["reason"], "dropping tables is not allowed");
    assert_eq!(denied["tool"], "drop_table");
    assert_eq!(denied["session"], "sess-9");
    assert_eq!(denied["agent"], "researcher");
    assert_eq!(denied["parent_agent"], "main");
    assert_eq!(denied["user"], "dana");
    assert!(denied.get("duration_ms").is_none());

    let allowed = &records[1];
    assert_eq!(allowed["decision"], "allowed");
    assert_eq!(
        allowed["args"],
        json!({"path": "/v1/me", "headers": {"Authorization": "[redacted]"}, "api_key": "[redacted]", "host": "api.internal"})
    );
    assert_eq!(
        allowed["rewrites"],
        json!([{"hook": "audit::pin_host", "field": "args"}])
    );
    assert_eq!(allowed["result_bytes"], 15);
    assert!(allowed["duration_ms"].is_u64());
    assert!(allowed["ts"].as_str().unwrap().ends_with('Z'));
    let raw = std::fs::read_to_string(&path).unwrap();
    assert!(!raw.contains("s3cr3t"), "no secret reaches the file");
}

#[test]
fn eight_writers_times_ten_thousand_records_leave_80000_whole_lines() {
    let path = temp_path("concurrent.jsonl");
    let auditor = Arc::new(Auditor::new(
        JsonLinesFile::open(&path, Durability::Flush).unwrap(),
    ));
    let session = Session::new("s").with_user("u");
    let threads: Vec<_> = (0..8)
        .map(|thread| {
            let (auditor, session) = (Arc::clone(&auditor), session.clone());
            std::thread::spawn(move || {
                for i in 0..10_000 {
                    let pre = PreToolUse::new(
                        &session,
                        "write_file",
                        json!({"thread": thread, "i": i, "pad": "x".repeat(i % 300)}),
                    );
                    let post = PostToolUse::after(&pre, Ok(json!(i)));
                    written(&auditor.record_completed(&post));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let records = lines(&path);
    assert_eq!(records.len(), 80_000);
    let mut seen = std::collections::HashSet::new();
    for record in &records {
        assert!(seen.insert((
            record["args"]["thread"].as_u64().unwrap(),
            record["args"]["i"].as_u64().unwrap()
        )));
    }
}

#[test]
fn an_unwritable_path_is_a_clear_configuration_error() {
    let error = Auditor::from_config(Audit {
        path: "/nonexistent-dir/for/sure/audit.jsonl".into(),
        ..Audit::default()
    })
    .err()
    .unwrap();
    assert!(
        error.to_string().starts_with("audit-log configuration: cannot open the audit log `/nonexistent-dir/for/sure/audit.jsonl`: No such file or directory"),
        "{error}"
    );
}

/// A sink that fails while `failing` is set.
struct Flaky(std::sync::atomic::AtomicBool);

impl Sink for Flaky {
    fn write<'a>(&'a self, _: &AuditRecord) -> Deferred<'a, io::Result<()>> {
        Deferred::Ready(if self.0.load(std::sync::atomic::Ordering::SeqCst) {
            Err(io::Error::other("disk full"))
        } else {
            Ok(())
        })
    }
}

#[test]
fn a_broken_log_closes_the_gate_until_a_write_succeeds() {
    let sink = Arc::new(Flaky(std::sync::atomic::AtomicBool::new(true)));
    let session = Session::new("s");
    let pre = PreToolUse::new(&session, "search", json!({}));

    let strict = Auditor::new(Arc::clone(&sink));
    assert_eq!(
        strict.gate(&pre),
        Decision::Continue,
        "healthy until a write fails"
    );
    written(&strict.record_completed(&PostToolUse::after(&pre, Ok(json!(1)))));
    let Decision::Deny(reason) = strict.gate(&pre) else {
        panic!("fail-closed")
    };
    assert!(
        reason.starts_with("the audit log cannot be written (disk full)"),
        "{reason}"
    );
    sink.0.store(false, std::sync::atomic::Ordering::SeqCst);
    written(&strict.record_completed(&PostToolUse::after(&pre, Ok(json!(1)))));
    assert_eq!(
        strict.gate(&pre),
        Decision::Continue,
        "reopened by a good write"
    );

    sink.0.store(true, std::sync::atomic::Ordering::SeqCst);
    let lenient = Auditor::new(Arc::clone(&sink)).on_failure(OnFailure::Continue);
    written(&lenient.record_completed(&PostToolUse::after(&pre, Ok(json!(1)))));
    assert_eq!(lenient.gate(&pre), Decision::Continue);
}

#[test]
fn durable_mode_writes_the_same_records() {
    let path = temp_path("sync.jsonl");
    let auditor = Auditor::new(JsonLinesFile::open(&path, Durability::Sync).unwrap());
    let pre = PreToolUse::new(&Session::new("s"), "t", json!({"password": "p"}));
    written(&auditor.record_completed(&PostToolUse::after(
        &pre,
        Err("boom with sk-live-1234567890abcdef".into()),
    )));
    let records = lines(&path);
    assert_eq!(records[0]["args"]["password"], "[redacted]");
    assert_eq!(records[0]["error"], "boom with [redacted]");
}

#[test]
fn the_tracing_sink_emits_one_event_per_record() {
    let auditor = Auditor::new(hooks_std::audit::TracingSink);
    let pre = PreToolUse::new(
        &Session::new("s").with_user("u"),
        "search",
        json!({"token": "t"}),
    );
    let ((), logs) = hooks_tests::capture_logs(|| {
        written(&auditor.record_completed(&PostToolUse::after(&pre, Ok(json!(1)))));
    });
    let line = logs
        .lines()
        .find(|line| line.contains("hooks_std::audit"))
        .expect("an audit event");
    assert!(line.contains("INFO"), "{line}");
    assert!(
        line.contains(r#"\"tool\":\"search\""#) || line.contains(r#""tool":"search""#),
        "{line}"
    );
    assert!(line.contains("[redacted]"), "{line}");
}

/// One allowed call's record, numbered.
fn record_call(auditor: &Auditor, n: u64) {
    let pre = PreToolUse::new(&Session::new("s"), "search", json!({"n": n}));
    written(&auditor.record_completed(&PostToolUse::after(&pre, Ok(json!(n)))));
}

fn numbers(path: &Path) -> Vec<u64> {
    lines(path)
        .iter()
        .map(|record| record["args"]["n"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_log_renamed_away_like_logrotate_does_is_followed_to_its_path() {
    let path = temp_path("rotated.jsonl");
    let rotated = temp_path("rotated.jsonl.1");
    let auditor = Auditor::new(JsonLinesFile::open(&path, Durability::Flush).unwrap());
    record_call(&auditor, 1);

    // `logrotate` without `create`: renamed, nothing new at the path yet.
    std::fs::rename(&path, &rotated).unwrap();
    record_call(&auditor, 2);
    assert_eq!(numbers(&rotated), [1], "the rotated file is left alone");
    assert_eq!(numbers(&path), [2], "the next record starts the new file");

    // `logrotate` with `create`: renamed and a new, empty file made.
    std::fs::rename(&path, &rotated).unwrap();
    std::fs::write(&path, b"").unwrap();
    record_call(&auditor, 3);
    assert_eq!(numbers(&rotated), [2]);
    assert_eq!(numbers(&path), [3]);
}

#[test]
fn a_deleted_log_is_recreated_rather_than_written_into_the_void() {
    let path = temp_path("deleted.jsonl");
    let auditor = Auditor::new(JsonLinesFile::open(&path, Durability::Sync).unwrap());
    record_call(&auditor, 1);
    std::fs::remove_file(&path).unwrap();
    record_call(&auditor, 2);
    assert_eq!(numbers(&path), [2]);
    let pre = PreToolUse::new(&Session::new("s"), "search", json!({}));
    assert_eq!(auditor.gate(&pre), Decision::Continue);
}

#[test]
fn a_log_that_cannot_be_reopened_closes_the_gate() {
    let path = temp_path("unreopenable.jsonl");
    let auditor = Auditor::new(JsonLinesFile::open(&path, Durability::Flush).unwrap());
    record_call(&auditor, 1);
    // Deleted, and its path taken by something that is not a file.
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    record_call(&auditor, 2);
    let pre = PreToolUse::new(&Session::new("s"), "search", json!({}));
    let Decision::Deny(reason) = auditor.gate(&pre) else {
        panic!("the record had nowhere to go, yet calls are let through")
    };
    assert!(
        reason.starts_with("the audit log cannot be written"),
        "{reason}"
    );
    std::fs::remove_dir(&path).unwrap();
}
