//! The approval gate: approve, deny, timeout, "allow always" for a session,
//! concurrent sessions, a corrupt or locked store, the audit trail, the CLI.
//! (The restart scenario is in `approval_restart.rs`.)

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_core::{ApprovalOutcome, DenialCause};
use hooks_std::approval::store::Answering;
use hooks_std::approval::{
    Answer, ApprovalGate, Approvals, Database, OnRestart, Scope, ScriptedChannel, Status,
};

hooks_core::link!(hooks_std);

#[path = "support/approvals.rs"]
mod support;
use support::{fresh_database, gated, runtime};

fn database(name: &str) -> PathBuf {
    fresh_database("approval", name)
}

fn config(name: &str) -> Approvals {
    Approvals {
        tools: vec!["payments_*".into()],
        database: database(name),
        timeout: Duration::from_secs(10),
        poll_interval: Duration::from_millis(20),
        ..Approvals::default()
    }
}

fn hooks(gate: ApprovalGate) -> Hooks {
    gated(gate, &[])
}

fn pay(session: &Session, amount: u64) -> PreToolUse {
    PreToolUse::new(
        session,
        "payments_refund",
        json!({"order": 42, "amount_usd": amount, "card_token": "tok_1234567890abcd"}),
    )
}

#[test]
fn an_approved_call_goes_ahead_and_is_recorded_with_who() {
    let config = config("approve.sqlite3");
    let database = config.database.clone();
    let gate = ApprovalGate::open(&config)
        .unwrap()
        .channel(ScriptedChannel(|_: &_| Some(Answer::allow_once("alice"))));
    let hooks = hooks(gate);
    let session = Session::new("s1").with_user("dana");
    let mut ctx = pay(&session, 250);
    assert!(runtime().block_on(hooks.dispatch(&mut ctx)).is_continue());
    let record = &ctx.approvals()[0];
    assert!(
        record.prompt.starts_with("Allow `payments_refund` with {"),
        "{}",
        record.prompt
    );
    assert!(record.prompt.contains("for user `dana` in session `s1`"));
    let ApprovalOutcome::Answered(answer) = &record.outcome else {
        panic!("{:?}", record.outcome)
    };
    assert!(answer.is_approved());
    assert_eq!(answer.responder(), Some("alice (request #1)"));

    let store = Database::open(&database, Duration::from_secs(1)).unwrap();
    let stored = store.get(1).unwrap().unwrap();
    assert_eq!(stored.status, Status::Approved);
    assert_eq!(stored.responded_by.as_deref(), Some("alice"));
    assert!(stored.consumed_at.is_some(), "used by the call it approved");
    assert!(stored.args.contains("[redacted]") && !stored.args.contains("tok_1234567890abcd"));

    // Tools that are not flagged never ask.
    let mut search = PreToolUse::new(&session, "search", json!({}));
    assert!(
        runtime()
            .block_on(hooks.dispatch(&mut search))
            .is_continue()
    );
    assert!(search.approvals().is_empty());
}

#[test]
fn a_refusal_denies_with_the_reason_and_who() {
    let gate = ApprovalGate::open(&config("deny.sqlite3"))
        .unwrap()
        .channel(ScriptedChannel(|_: &_| {
            Some(Answer::deny("bob", "over the refund limit"))
        }));
    let hooks = hooks(gate);
    let mut ctx = pay(&Session::new("s1"), 9_000);
    let outcome = runtime().block_on(hooks.dispatch(&mut ctx));
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "not approved by bob (request #1): over the refund limit"
    );
}

#[test]
fn no_answer_by_the_timeout_expires_the_request_and_denies() {
    let config = Approvals {
        timeout: Duration::from_millis(150),
        ..config("timeout.sqlite3")
    };
    let database = config.database.clone();
    let gate = ApprovalGate::open(&config)
        .unwrap()
        .channel(ScriptedChannel(|_: &_| None));
    let hooks = hooks(gate);
    let mut ctx = pay(&Session::new("s1"), 10);
    let outcome = runtime().block_on(hooks.dispatch(&mut ctx));
    assert!(matches!(
        outcome.denial().unwrap().cause(),
        DenialCause::NotApproved(ApprovalOutcome::TimedOut { after_ms: 150 })
    ));
    let store = Database::open(&database, Duration::from_secs(1)).unwrap();
    assert_eq!(store.get(1).unwrap().unwrap().status, Status::Expired);
}

#[test]
fn allow_always_covers_the_rest_of_that_session_only() {
    let asked = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&asked);
    let gate = ApprovalGate::open(&config("always.sqlite3"))
        .unwrap()
        .channel(ScriptedChannel(move |_: &_| {
            count.fetch_add(1, Ordering::SeqCst);
            Some(Answer::allow_for_session("carol"))
        }));
    let hooks = hooks(gate);
    let runtime = runtime();
    let session = Session::new("s1");
    for amount in [10, 20, 30] {
        let mut ctx = pay(&session, amount);
        assert!(runtime.block_on(hooks.dispatch(&mut ctx)).is_continue());
        if amount > 10 {
            let ApprovalOutcome::Answered(answer) = &ctx.approvals()[0].outcome else {
                panic!()
            };
            assert_eq!(
                answer.responder(),
                Some("carol (allowed for this session, request #1)")
            );
        }
    }
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "asked once for the session"
    );
    let mut other_session = pay(&Session::new("s2"), 10);
    assert!(
        runtime
            .block_on(hooks.dispatch(&mut other_session))
            .is_continue()
    );
    let mut other_tool = PreToolUse::new(&session, "payments_capture", json!({}));
    assert!(
        runtime
            .block_on(hooks.dispatch(&mut other_tool))
            .is_continue()
    );
    assert_eq!(
        asked.load(Ordering::SeqCst),
        3,
        "another session, and another tool, ask again"
    );
}

#[test]
fn concurrent_requests_from_several_sessions_each_get_their_own_answer() {
    let config = config("concurrent.sqlite3");
    let database = config.database.clone();
    // Answers come from another connection, as the CLI's would.
    let gate = ApprovalGate::open(&config)
        .unwrap()
        .channel(ScriptedChannel(|_: &_| None));
    let hooks = hooks(gate);
    let runtime = runtime();
    let results = runtime.block_on(async {
        let calls: Vec<_> = (0..6)
            .map(|n| {
                let hooks = hooks.clone();
                tokio::spawn(async move {
                    let mut ctx = pay(&Session::new(format!("session-{n}")), n);
                    hooks.dispatch(&mut ctx).await.is_continue()
                })
            })
            .collect();
        let answerer = tokio::task::spawn_blocking(move || {
            let deadline = Instant::now() + Duration::from_secs(30);
            let store = Database::open(&database, Duration::from_secs(5)).unwrap();
            let mut answered = 0;
            while answered < 6 {
                for request in store.list(Status::Pending).unwrap() {
                    let n: u64 = request
                        .session
                        .trim_start_matches("session-")
                        .parse()
                        .unwrap();
                    let approve = n.is_multiple_of(2);
                    let reason = (!approve).then_some("odd sessions are refused");
                    let answer = Answering {
                        approved: approve,
                        scope: Scope::Once,
                        by: Some("ops".into()),
                        reason: reason.map(Into::into),
                    };
                    assert!(store.answer(request.id, &answer).unwrap());
                    answered += 1;
                }
                assert!(
                    Instant::now() < deadline,
                    "only {answered} of 6 requests arrived within 30 s"
                );
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        answerer.await.unwrap();
        let mut results = Vec::new();
        for call in calls {
            results.push(call.await.unwrap());
        }
        results
    });
    assert_eq!(results, [true, false, true, false, true, false]);
}

#[test]
fn a_corrupt_store_is_refused_at_start_naming_the_file() {
    let config = config("corrupt.sqlite3");
    std::fs::write(
        &config.database,
        b"this is not a database, it is a grocery list",
    )
    .unwrap();
    let error = ApprovalGate::open(&config).err().unwrap().to_string();
    assert!(
        error.starts_with("approval configuration: approval store `"),
        "{error}"
    );
    assert!(error.contains("corrupt.sqlite3"), "{error}");
    assert!(error.contains("not a database"), "{error}");
}

#[test]
fn a_bad_configuration_is_refused_before_the_store_is_touched() {
    let config = Approvals {
        on_restart: OnRestart::Expire,
        ..config("refused.sqlite3")
    };
    // A request left pending by an earlier process.
    drop(Database::open(&config.database, Duration::from_secs(1)).unwrap());
    rusqlite::Connection::open(&config.database)
        .unwrap()
        .execute(
            "INSERT INTO requests (fingerprint, session, agent, user, tool, args, prompt, status, created_at) \
             VALUES ('f', 's1', 'main', 'dana', 'payments_refund', '{}', 'Allow?', 'pending', '2026-11-22T00:00:00.000Z')",
            [],
        )
        .unwrap();

    let bad_pattern = Approvals {
        tools: vec!["payments_[".into()],
        ..config.clone()
    };
    let no_pause = Approvals {
        poll_interval: Duration::ZERO,
        ..config.clone()
    };
    for (bad, names) in [(bad_pattern, "payments_["), (no_pause, "poll_interval")] {
        let error = ApprovalGate::open(&bad).err().expect("refused").to_string();
        assert!(error.contains(names), "{error}");
    }
    // Refused, so the restart policy (expire everything) never ran.
    let store = Database::open(&config.database, Duration::from_secs(1)).unwrap();
    assert_eq!(store.get(1).unwrap().unwrap().status, Status::Pending);
}

#[test]
fn a_locked_store_denies_the_call_naming_the_file() {
    let config = Approvals {
        busy_timeout: Duration::from_millis(100),
        ..config("locked.sqlite3")
    };
    let database = config.database.clone();
    let gate = ApprovalGate::open(&config)
        .unwrap()
        .channel(ScriptedChannel(|_: &_| Some(Answer::allow_once("x"))));
    let hooks = hooks(gate);
    // Another process (here, another connection) holds the write lock.
    let locker = rusqlite::Connection::open(&database).unwrap();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let mut ctx = pay(&Session::new("s1"), 10);
    let outcome = runtime().block_on(hooks.dispatch(&mut ctx));
    drop(locker);
    let reason = outcome.denial().expect("fail-closed").reason().to_owned();
    assert!(reason.contains("locked.sqlite3"), "{reason}");
    assert!(reason.contains("database is locked"), "{reason}");
    assert!(
        reason.contains("denied, since no approval can be recorded"),
        "{reason}"
    );
}

#[test]
fn every_decision_reaches_the_audit_log_with_who_answered() {
    let audit_log = database("audit.jsonl");
    let auditor = hooks_std::audit::Auditor::from_config(hooks_std::audit::Audit {
        path: audit_log.clone(),
        ..Default::default()
    })
    .unwrap();
    let gate = ApprovalGate::open(&config("audited.sqlite3"))
        .unwrap()
        .channel(ScriptedChannel(|request: &_| {
            let request: &hooks_std::approval::store::Request = request;
            Some(if request.args.contains("\"amount_usd\":10") {
                Answer::allow_once("alice")
            } else {
                Answer::deny("bob", "too much")
            })
        }));
    let hooks = Hooks::builder()
        .only([
            "hooks_std::approval::gate",
            "hooks_std::audit::gate",
            "hooks_std::audit::denied",
            "hooks_std::audit::completed",
        ])
        .state(auditor)
        .state(gate.policy().clone())
        .approver(gate)
        .build()
        .unwrap();
    let runtime = runtime();
    let session = Session::new("s1").with_user("dana");
    for amount in [10, 99_999] {
        let run = runtime.block_on(hooks.tool("payments_refund").run(
            &session,
            json!({"order": 1, "amount_usd": amount}),
            async |_: &Value| Ok::<_, String>(json!("ok")),
        ));
        assert_eq!(run.ran(), amount == 10);
    }
    let records: Vec<Value> = std::fs::read_to_string(&audit_log)
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["decision"], "allowed");
    assert_eq!(
        records[0]["approvals"][0]["outcome"]["by"],
        "alice (request #1)"
    );
    assert_eq!(records[1]["decision"], "denied");
    assert_eq!(records[1]["decided_by"], "hooks_std::approval::gate");
    assert_eq!(
        records[1]["approvals"][0]["outcome"]["by"],
        "bob (request #2)"
    );
    assert_eq!(records[1]["approvals"][0]["outcome"]["reason"], "too much");
}

#[test]
fn processes_opening_a_new_store_at_once_migrate_it_once() {
    let path = database("race.sqlite3");
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                Database::open(&path, Duration::from_secs(5))
                    .map(drop)
                    .map_err(|e| e.to_string())
            })
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap(), Ok(()));
    }
}

#[test]
fn a_locked_store_never_blocks_the_executor() {
    // A long busy timeout: an implementation that blocked the executor thread
    // would stall every task on this single-threaded runtime until it passed.
    let config = Approvals {
        busy_timeout: Duration::from_secs(30),
        ..config("locked-async.sqlite3")
    };
    let database = config.database.clone();
    let gate = ApprovalGate::open(&config)
        .unwrap()
        .channel(ScriptedChannel(|_: &_| Some(Answer::allow_once("alice"))));
    let hooks = hooks(gate);
    let locker = rusqlite::Connection::open(&database).unwrap();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (started, asking) = tokio::sync::oneshot::channel();
        let call = tokio::spawn(async move {
            started.send(()).unwrap();
            // Straight into the gate, whose store is locked.
            let mut ctx = pay(&Session::new("s1"), 10);
            hooks.dispatch(&mut ctx).await.is_continue()
        });
        asking.await.unwrap();
        // Meanwhile, on the same thread, other work gets done.
        let other = tokio::spawn(async { 6 * 7 }).await.unwrap();
        assert_eq!(other, 42);
        assert!(
            !call.is_finished(),
            "the call still waits on the locked store"
        );
        // Released, the waiting call goes on and is approved.
        drop(locker);
        assert!(call.await.unwrap(), "approved once the store is free");
    });
}
