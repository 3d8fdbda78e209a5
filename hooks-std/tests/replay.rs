//! Replay: a real audit log run through stricter and more lenient
//! dispatchers, call by call; approvals, shadow hooks and rate limits;
//! Claude Code transcripts and unreadable lines; and that a replay runs no
//! tool and writes nothing to the log it reads.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_core::{Approval, ApprovalAnswer, ApprovalRequest, HooksBuilder};
use hooks_std::audit::{Audit, Auditor};
use hooks_std::rate_limit::{By, RateLimit, RateLimiter, Rule};
use hooks_std::replay::{self, Change, Recorded, Recording, ReplayError, Report, Ruling};

hooks_core::link!(hooks_std);

const AUDIT_HOOKS: [&str; 4] = [
    "hooks_std::audit::gate",
    "hooks_std::audit::denied",
    "hooks_std::audit::completed",
    "hooks_std::audit::failed",
];

fn temp_log(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{test}.jsonl"));
    let _ = std::fs::remove_file(&path);
    path
}

fn auditor(path: &Path) -> Auditor {
    Auditor::from_config(Audit {
        path: path.to_owned(),
        ..Audit::default()
    })
    .unwrap()
}

/// Asks for a person's yes on refunds, with the amount in the prompt.
fn refund_approval() -> Hook<PreToolUse> {
    Hook::new("refund_approval", |ctx: &mut PreToolUse| {
        Decision::Ask(Approval::new(format!("Refund {}?", ctx.args()["amount"])))
    })
    .matches("refund")
}

/// Writes an audit log the way an agent does: six calls through a
/// dispatcher with the audit hooks, a guard and an approval answered "yes".
/// Returns how many tools ran.
async fn record(path: &Path) -> usize {
    let hooks = Hooks::builder()
        .state(auditor(path))
        .only(AUDIT_HOOKS)
        .only(["no_drops", "refund_approval"])
        .hook(
            Hook::new("no_drops", |_: &mut PreToolUse| {
                Decision::deny("dropping tables is not allowed")
            })
            .matches("drop_table"),
        )
        .hook(refund_approval())
        .approver(|_: &ApprovalRequest| ApprovalAnswer::approve().by("ops"))
        .build()
        .unwrap();
    let dana = Session::new("s1").with_user("dana");
    let cleaner = dana.sub_agent("cleaner");
    let calls = [
        (&dana, "read_file", json!({"path": "notes.txt"})),
        (&dana, "delete_file", json!({"path": "old.txt"})),
        (&dana, "drop_table", json!({"table": "users"})),
        (&dana, "refund", json!({"amount": 5})),
        (&cleaner, "delete_file", json!({"path": "tmp.txt"})),
        (&dana, "payout", json!({"amount": 7})),
    ];
    let ran = AtomicUsize::new(0);
    for (index, (session, tool, args)) in calls.into_iter().enumerate() {
        let call = PreToolUse::new(session, tool, args).with_call_id(format!("c{}", index + 1));
        hooks
            .tool(tool)
            .run_call(call, async |_: &Value| {
                ran.fetch_add(1, Ordering::Relaxed);
                Ok::<_, ToolError>(json!("done"))
            })
            .await;
    }
    ran.into_inner()
}

/// Counts what a dispatcher sees: pre-tool-use dispatches, and post-tool-use
/// ones (which happen only if a tool ran).
#[derive(Clone, Default)]
struct Counters {
    dispatched: Arc<AtomicUsize>,
    after_a_tool: Arc<AtomicUsize>,
}

impl Counters {
    fn install(&self, builder: HooksBuilder) -> HooksBuilder {
        let (dispatched, after) = (Arc::clone(&self.dispatched), Arc::clone(&self.after_a_tool));
        builder
            .hook(Hook::observer("count_pre", move |_: &PreToolUse| {
                dispatched.fetch_add(1, Ordering::Relaxed);
            }))
            .hook(Hook::observer("count_post", move |_: &PostToolUse| {
                after.fetch_add(1, Ordering::Relaxed);
            }))
    }
}

/// A stricter policy, on a builder that would run the audit hooks (writing
/// to `log`) were they not left out.
fn stricter(log: &Path, counters: &Counters) -> HooksBuilder {
    let builder = Hooks::builder()
        .state(auditor(log))
        .only(AUDIT_HOOKS)
        .only([
            "no_deletes",
            "table_guard",
            "money_approval",
            "reads_shadow",
            "count_pre",
            "count_post",
        ])
        .hook(
            Hook::new("no_deletes", |_: &mut PreToolUse| {
                Decision::deny("deleting is off")
            })
            .matches("delete_*"),
        )
        .hook(
            Hook::new("table_guard", |_: &mut PreToolUse| Decision::deny("no DDL"))
                .matches("drop_table"),
        )
        .hook(Hook::new("money_approval", |ctx: &mut PreToolUse| {
            if ["refund", "payout"].contains(&ctx.tool()) {
                Decision::Ask(Approval::new(format!("Move {}?", ctx.args()["amount"])))
            } else {
                Decision::Continue
            }
        }))
        .hook(
            Hook::new("reads_shadow", |_: &mut PreToolUse| {
                Decision::deny("reads are next")
            })
            .matches("read_file")
            .shadow(),
        );
    counters.install(builder)
}

fn changes(report: &Report) -> Vec<(usize, Change)> {
    report
        .calls()
        .iter()
        .map(|call| (call.call.line, call.change))
        .collect()
}

/// A replay of a recorded log through [`stricter`], prepared; with the log
/// as it was before, and what the dispatcher counted.
struct Stricter {
    log: PathBuf,
    before: String,
    recording: Recording,
    report: Report,
    counters: Counters,
}

async fn replay_stricter(test: &str) -> Stricter {
    let log = temp_log(test);
    assert_eq!(record(&log).await, 5, "five calls ran, one was denied");
    let before = std::fs::read_to_string(&log).unwrap();
    let recording = replay::parse(&before);
    assert!(recording.errors.is_empty(), "{:?}", recording.errors);
    let counters = Counters::default();
    // An approver that would say yes is replaced: a replay asks nobody.
    let hooks = replay::prepare(
        stricter(&log, &counters).approver(|_: &ApprovalRequest| ApprovalAnswer::approve()),
    )
    .build()
    .unwrap();
    let report = replay::replay(&hooks, &recording).await.unwrap();
    Stricter {
        log,
        before,
        recording,
        report,
        counters,
    }
}

#[tokio::test]
async fn an_audit_log_is_read_back_call_by_call() {
    let Stricter { recording, .. } = replay_stricter("read_back").await;
    assert_eq!(recording.calls.len(), 6);
    let tools: Vec<&str> = recording
        .calls
        .iter()
        .map(|call| call.tool.as_str())
        .collect();
    assert_eq!(
        tools,
        [
            "read_file",
            "delete_file",
            "drop_table",
            "refund",
            "delete_file",
            "payout"
        ]
    );
    assert_eq!(
        recording.calls[2].recorded,
        Recorded::Denied {
            by: Some("no_drops".into()),
            reason: Some("dropping tables is not allowed".into()),
            kind: Some("denied".into())
        }
    );
    assert_eq!(
        recording.calls[3].recorded,
        Recorded::Allowed { asked: true },
        "the refund was approved"
    );
    assert_eq!(
        recording.calls[5].recorded,
        Recorded::Allowed { asked: false }
    );
    let sub_agent = &recording.calls[4];
    assert_eq!(
        (
            sub_agent.agent.as_str(),
            sub_agent.parent_agent.as_deref(),
            sub_agent.user.as_deref(),
            sub_agent.call_id.as_deref()
        ),
        ("cleaner", Some("main"), Some("dana"), Some("c5"))
    );
}

#[tokio::test]
async fn a_stricter_policy_is_reported_call_by_call() {
    let Stricter { report, .. } = replay_stricter("stricter").await;
    assert_eq!(
        changes(&report),
        [
            (1, Change::Unchanged),
            (2, Change::NewlyDenied),
            (3, Change::DeniedByAnother),
            (4, Change::Unchanged), // a person was asked then, and would be now
            (5, Change::NewlyDenied),
            (6, Change::WouldAsk),
        ]
    );
    let calls = report.calls();
    assert_eq!(
        calls[1].now,
        Ruling::Denied {
            by: "no_deletes".into(),
            reason: "deleting is off".into(),
            kind: "denied".into()
        }
    );
    assert_eq!(
        calls[5].now,
        Ruling::Asks {
            by: "money_approval".into(),
            prompt: Some("Move 7?".into())
        }
    );
    assert_eq!(calls[0].shadow.len(), 1);
    assert_eq!(calls[0].shadow[0].hook, "reads_shadow");
    assert_eq!(calls[0].shadow[0].reason, "reads are next");
    assert!(calls[1..].iter().all(|call| call.shadow.is_empty()));

    let summary = report.summary();
    assert_eq!(
        (
            summary.calls,
            summary.unchanged,
            summary.newly_denied,
            summary.newly_allowed,
            summary.would_ask,
            summary.denied_by_another,
            summary.shadow_would_deny,
            summary.unreadable_lines,
        ),
        (6, 2, 2, 0, 1, 1, 1, 0)
    );
}

#[tokio::test]
async fn the_report_prints_the_differences_and_serializes_everything() {
    let Stricter { report, .. } = replay_stricter("printed").await;
    let text = report.to_string();
    assert!(
        text.contains("would newly deny 2, would newly allow 0, would ask 1"),
        "{text}"
    );
    assert!(
        text.contains("line 2: `delete_file` (call c2) in session s1 for dana: would newly deny\n    recorded: allowed\n    replayed: denied by `no_deletes` (denied): deleting is off"),
        "{text}"
    );
    assert!(text.contains("shadow `reads_shadow` would deny"), "{text}");
    assert!(
        !text.contains("line 4:"),
        "unchanged calls are not listed: {text}"
    );

    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["summary"]["newly_denied"], 2);
    assert_eq!(json["calls"].as_array().unwrap().len(), 6);
    assert_eq!(json["calls"][1]["change"], "newly_denied");
    assert_eq!(json["calls"][5]["now"]["decision"], "ask");
    assert_eq!(json["calls"][2]["call"]["recorded"]["by"], "no_drops");
}

#[tokio::test]
async fn a_replay_runs_no_tool_and_writes_nothing() {
    let Stricter {
        log,
        before,
        recording,
        counters,
        ..
    } = replay_stricter("no_writes").await;
    assert_eq!(
        counters.dispatched.load(Ordering::Relaxed),
        6,
        "each call dispatched once"
    );
    assert_eq!(
        counters.after_a_tool.load(Ordering::Relaxed),
        0,
        "no tool ran"
    );
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        before,
        "nothing was written to the log"
    );

    // The same builder unprepared: refused, and rightly, for it writes.
    let unprepared = stricter(&log, &Counters::default()).build().unwrap();
    assert!(matches!(
        replay::replay(&unprepared, &recording).await,
        Err(ReplayError::AuditHooks { .. })
    ));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), before);
    let _ = unprepared.dispatch(&mut recording.calls[1].context()).await;
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().lines().count(),
        7,
        "a dispatch through it records the denial"
    );
}

#[tokio::test]
async fn a_more_lenient_policy_would_newly_allow_what_was_denied() {
    let log = temp_log("lenient");
    record(&log).await;
    let recording = replay::parse(&std::fs::read_to_string(&log).unwrap());
    let counters = Counters::default();
    let hooks =
        replay::prepare(counters.install(Hooks::builder().only(["count_pre", "count_post"])))
            .build()
            .unwrap();
    let report = replay::replay(&hooks, &recording).await.unwrap();
    assert_eq!(
        changes(&report),
        [
            (1, Change::Unchanged),
            (2, Change::Unchanged),
            (3, Change::NewlyAllowed),
            (4, Change::Unchanged), // approved then, allowed now
            (5, Change::Unchanged),
            (6, Change::Unchanged),
        ]
    );
    let summary = report.summary();
    assert_eq!(
        (
            summary.newly_allowed,
            summary.newly_denied,
            summary.unchanged
        ),
        (1, 0, 5)
    );
    assert!(
        report.to_string().contains("line 3: `drop_table` (call c3) in session s1 for dana: would newly allow\n    recorded: denied by `no_drops`: dropping tables is not allowed\n    replayed: allowed"),
        "{report}"
    );
}

#[tokio::test]
async fn the_linked_standard_hooks_replay_once_prepared_and_are_refused_otherwise() {
    let log = temp_log("standard");
    record(&log).await;
    let before = std::fs::read_to_string(&log).unwrap();
    let recording = replay::parse(&before);

    // The audit log configured to the very file, and the approval gate.
    let standard = || {
        Hooks::builder()
            .state(auditor(&log))
            .state(hooks_std::approval::ApprovalPolicy::default())
    };
    let unprepared = standard().build().unwrap();
    let refused = replay::replay(&unprepared, &recording).await.unwrap_err();
    let ReplayError::AuditHooks { hooks } = &refused else {
        panic!("{refused}")
    };
    let mut hooks = hooks.clone();
    hooks.sort();
    let mut expected = AUDIT_HOOKS.map(str::to_owned).to_vec();
    expected.sort();
    assert_eq!(hooks, expected);
    assert!(refused.to_string().contains("hooks_std::replay::prepare"));

    let prepared = replay::prepare(standard()).build().unwrap();
    let report = replay::replay(&prepared, &recording).await.unwrap();
    // The approval gate flags refunds by default and asks nobody; nothing else here objects.
    assert_eq!(
        report.calls()[3].now,
        Ruling::Asks {
            by: "hooks_std::approval::gate".into(),
            prompt: Some(
                "Allow `refund` with {\"amount\":5}? Asked by agent `main` for user `dana` in session `s1`."
                    .into()
            )
        }
    );
    assert_eq!(report.summary().newly_allowed, 1, "{report}");
    assert_eq!(report.summary().newly_denied, 0, "{report}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), before);
}

#[tokio::test]
async fn rate_limits_count_replay_time_and_are_told_apart() {
    let line = r#"{"session": "s", "user": "dana", "tool": "search", "args": {"q": "x"}, "decision": "allowed"}"#;
    let recording = replay::parse(&[line; 3].join("\n"));
    let limiter = RateLimiter::new(RateLimit::new(vec![
        Rule::new(1, Duration::from_secs(60))
            .tools("search")
            .by([By::User]),
    ]))
    .unwrap();
    let hooks = replay::prepare(
        Hooks::builder()
            .state(limiter)
            .only(["hooks_std::rate_limit::guard"]),
    )
    .build()
    .unwrap();
    let report = replay::replay(&hooks, &recording).await.unwrap();
    assert_eq!(
        changes(&report),
        [
            (1, Change::Unchanged),
            (2, Change::NewlyDenied),
            (3, Change::NewlyDenied)
        ]
    );
    assert!(
        matches!(&report.calls()[1].now, Ruling::Denied { kind, .. } if kind == "rate_limited")
    );
    assert_eq!(report.summary().newly_rate_limited, 2);
    assert!(
        report
            .to_string()
            .contains("would newly deny 2 (2 by a rate limit, which counts replay time"),
        "{report}"
    );
}

#[test]
fn unreadable_lines_are_reported_with_their_numbers_and_the_rest_is_read() {
    let text = [
        r#"{"tool": "read_file", "args": {"path": "a"}}"#,
        "not json",
        r#"{"args": {"path": "a"}, "decision": "allowed"}"#,
        "",
        "[1, 2]",
        r#"{"hello": "world"}"#,
        r#"{"tool": "x", "decision": "maybe"}"#,
        r#"{"tool": 7}"#,
        r#"{"type": "user", "message": {"content": "hi"}}"#,
        r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}, "session_id": "cc", "tool_use_id": "t1", "decision": "denied", "decided_by": "g", "cause": {"kind": "rate_limited"}}"#,
    ]
    .join("\r\n");
    let recording = replay::parse(&text);
    let errors: Vec<(usize, &str)> = recording
        .errors
        .iter()
        .map(|error| (error.line, error.message.as_str()))
        .collect();
    assert_eq!(errors.len(), 6, "{errors:#?}");
    assert_eq!(errors[0].0, 2);
    assert!(errors[0].1.starts_with("not JSON"), "{errors:?}");
    assert_eq!(
        errors[1],
        (
            3,
            "it looks like a tool call (it has call fields) but names no tool: expected `tool` or `tool_name`"
        )
    );
    assert_eq!(
        errors[2],
        (
            5,
            "expected a JSON object (a tool call or a transcript line), not an array"
        )
    );
    assert_eq!(
        errors[3],
        (
            6,
            "neither a tool call (no `tool` or `tool_name`) nor a transcript line (no `type`)"
        )
    );
    assert_eq!(
        errors[4],
        (7, "`decision` is `maybe`: expected `allowed` or `denied`")
    );
    assert_eq!(errors[5], (8, "`tool` must be a string, not a number"));
    assert_eq!(
        recording.errors[0].to_string(),
        format!("line 2: {}", errors[0].1)
    );

    let lines: Vec<usize> = recording.calls.iter().map(|call| call.line).collect();
    assert_eq!(lines, [1, 10]);
    let hook_event = &recording.calls[1];
    assert_eq!(
        (
            hook_event.tool.as_str(),
            hook_event.session.as_str(),
            hook_event.call_id.as_deref()
        ),
        ("Bash", "cc", Some("t1"))
    );
    assert_eq!(hook_event.args, json!({"command": "ls"}));
    assert_eq!(
        hook_event.recorded,
        Recorded::Denied {
            by: Some("g".into()),
            reason: None,
            kind: Some("rate_limited".into())
        }
    );
}

#[test]
fn a_line_that_is_not_utf8_is_an_error_and_the_next_is_read() {
    let mut bytes = b"{\"tool\": \"a\"}\n".to_vec();
    bytes.extend_from_slice(b"{\"tool\": \"\xff\"}\n{\"tool\": \"b\"}");
    let recording = replay::read(bytes.as_slice()).unwrap();
    assert_eq!(recording.calls.len(), 2);
    assert_eq!(recording.calls[1].line, 3);
    assert_eq!(recording.errors.len(), 1);
    assert_eq!(recording.errors[0].line, 2);
    assert!(recording.errors[0].message.starts_with("not UTF-8"));
}

const TRANSCRIPT: &str = r#"{"type":"summary","summary":"Cleaning up","leafUuid":"u0"}
{"type":"user","sessionId":"cc-1","message":{"role":"user","content":"clean the build"}}
{"type":"assistant","sessionId":"cc-1","message":{"role":"assistant","content":[{"type":"text","text":"Looking first."},{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"toolu_02","name":"Bash","input":{"command":"rm -rf build"}}]}}
{"type":"user","sessionId":"cc-1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"build\nsrc"}]}}
{"type":"assistant","sessionId":"cc-1","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_03","input":{}}]}}
{"type":"assistant","sessionId":"cc-1","message":{"role":"assistant","content":"Done."}}
"#;

#[tokio::test]
async fn claude_code_transcripts_replay_every_tool_use_block() {
    let recording = replay::parse(TRANSCRIPT);
    assert_eq!(recording.calls.len(), 2);
    let first = &recording.calls[0];
    assert_eq!(
        (
            first.line,
            first.tool.as_str(),
            first.session.as_str(),
            first.call_id.as_deref()
        ),
        (3, "Bash", "cc-1", Some("toolu_01"))
    );
    assert_eq!(first.recorded, Recorded::Allowed { asked: false });
    assert_eq!(recording.calls[1].args, json!({"command": "rm -rf build"}));
    assert_eq!(recording.errors.len(), 1);
    assert_eq!(
        recording.errors[0].to_string(),
        "line 5: `tool_use` block 1: no `name`"
    );

    let hooks = replay::prepare(Hooks::builder().only(["no_rm"]).hook(
        Hook::new("no_rm", |_: &mut PreToolUse| Decision::deny("no rm")).matches("Bash(rm *)"),
    ))
    .build()
    .unwrap();
    let report = replay::replay(&hooks, &recording).await.unwrap();
    assert_eq!(
        changes(&report),
        [(3, Change::Unchanged), (3, Change::NewlyDenied)]
    );
    assert_eq!(report.summary().unreadable_lines, 1);
    let text = report.to_string();
    assert!(
        text.contains("line 3: `Bash` (call toolu_02) in session cc-1: would newly deny"),
        "{text}"
    );
    assert!(
        text.contains("lines that could not be read:\n    line 5: `tool_use` block 1: no `name`"),
        "{text}"
    );
    assert!(text.ends_with("1 line could not be read"), "{text}");
}

/// A guard keyed on session metadata decides the same on replay: the audit
/// log records the metadata (redacted), and the replay gives it back.
#[tokio::test]
async fn session_metadata_is_recorded_and_replayed() {
    let path = temp_log("metadata");
    let guests_read_only = || {
        Hook::new("guests_read_only", |ctx: &mut PreToolUse| {
            if ctx.session().metadata_value("role") == Some(&json!("guest")) {
                Decision::deny("guests only read")
            } else {
                Decision::Continue
            }
        })
        .matches("write_file")
    };
    let recorder = Hooks::builder()
        .state(auditor(&path))
        .only(AUDIT_HOOKS)
        .only(["guests_read_only"])
        .hook(guests_read_only())
        .build()
        .unwrap();
    let guest = Session::new("s1")
        .with_metadata("role", "guest")
        .with_metadata("api_token", "sk-live-0123456789abcdef0123");
    let member = Session::new("s2").with_metadata("role", "member");
    for session in [&guest, &member] {
        let _ = recorder
            .tool("write_file")
            .run(session, json!({"path": "a"}), async |_: &Value| {
                Ok::<_, String>(json!("ok"))
            })
            .await;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("0123456789abcdef"),
        "metadata is redacted: {text}"
    );
    let recording = replay::parse(&text);
    assert_eq!(recording.calls[0].metadata["role"], "guest");

    let same = replay::prepare(
        Hooks::builder()
            .only(["guests_read_only"])
            .hook(guests_read_only()),
    )
    .build()
    .unwrap();
    let report = replay::replay(&same, &recording).await.unwrap();
    assert_eq!(report.summary().unchanged, 2, "{report}");
    // Without the metadata the guest's write would look newly allowed.
    let mut forgetful = recording.clone();
    forgetful.calls[0].metadata.clear();
    let report = replay::replay(&same, &forgetful).await.unwrap();
    assert_eq!(report.summary().newly_allowed, 1, "{report}");
}

/// The PostgreSQL sink's record before each call (`"decision": "started"`)
/// is passed over: the call is replayed once, from its `allowed` or
/// `denied` record.
#[test]
fn a_record_written_before_the_call_is_not_a_second_call() {
    let text = [
        r#"{"tool": "read_file", "args": {"path": "a"}, "decision": "started"}"#,
        r#"{"tool": "read_file", "args": {"path": "a"}, "decision": "allowed"}"#,
    ]
    .join("\n");
    let recording = replay::parse(&text);
    assert!(recording.errors.is_empty(), "{:?}", recording.errors);
    assert_eq!(recording.calls.len(), 1);
}
