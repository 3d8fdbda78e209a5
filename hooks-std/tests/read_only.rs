//! The read-only guard through a real dispatcher: where the mode comes from,
//! which tools are writes, SQL, and what happens with odd inputs.

use std::future::Future;
use std::task::{Context, Poll, Waker};

use hooks_core::prelude::*;
use hooks_std::read_only::{ReadOnly, ReadOnlyGuard};

hooks_core::link!(hooks_std);

/// A dispatcher running only the guard, with this policy.
fn guarded_by(guard: ReadOnlyGuard) -> Hooks {
    Hooks::builder()
        .only(["hooks_std::read_only::guard"])
        .state(guard)
        .build()
        .unwrap()
}

fn policy(config: ReadOnly) -> ReadOnlyGuard {
    ReadOnlyGuard::new(config).unwrap()
}

/// With the default policy.
fn decide(session: &Session, tool: &'static str, args: Value) -> Outcome {
    decide_by(&guarded_by(ReadOnlyGuard::default()), session, tool, args)
}

/// The guard is a sync hook: one poll finishes the dispatch.
fn decide_by(hooks: &Hooks, session: &Session, tool: &'static str, args: Value) -> Outcome {
    let mut ctx = PreToolUse::new(session, tool, args);
    let dispatch = std::pin::pin!(hooks.dispatch(&mut ctx));
    match dispatch.poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(outcome) => outcome,
        Poll::Pending => unreachable!("sync hooks never wait"),
    }
}

fn reason(outcome: &Outcome) -> &str {
    outcome.denial().expect("denied").reason()
}

#[test]
fn off_by_default_and_on_from_each_source() {
    let plain = Session::new("s");
    assert!(decide(&plain, "write_file", json!({})).is_continue());

    let frozen = Session::new("s").with_metadata("read_only", true);
    let outcome = decide(&frozen, "write_file", json!({"path": "a"}));
    assert_eq!(
        reason(&outcome),
        "read-only mode is on (session metadata `read_only` is true): `write_file` writes \
         (it matches `write*`). Only reading tools and read-only SQL (SELECT, SHOW, EXPLAIN) \
         work until an administrator lifts read-only mode"
    );
    let thawed = Session::new("s").with_metadata("read_only", false);
    assert!(decide(&thawed, "write_file", json!({})).is_continue());

    let hooks = guarded_by(ReadOnlyGuard::default());
    hooks.state::<ReadOnlyGuard>().unwrap().set_enabled(true);
    let outcome = decide_by(&hooks, &plain, "delete_user", json!({}));
    assert!(reason(&outcome).contains("switched on by the application"));
    hooks.state::<ReadOnlyGuard>().unwrap().set_enabled(false);
    assert!(decide_by(&hooks, &plain, "delete_user", json!({})).is_continue());

    let configured = guarded_by(policy(ReadOnly {
        enabled: true,
        ..ReadOnly::default()
    }));
    let outcome = decide_by(&configured, &plain, "Bash", json!({"command": "ls"}));
    assert!(reason(&outcome).contains("set in configuration"));
}

#[test]
fn an_unknown_state_fails_closed() {
    for value in [json!("yes"), json!(null), json!(1), json!({"on": true})] {
        let session = Session::new("s").with_metadata("read_only", value.clone());
        let outcome = decide(&session, "update_record", json!({}));
        assert!(
            reason(&outcome).contains(&format!(
                "is {value}, not true or false, so read-only is assumed"
            )),
            "{value}"
        );
    }
}

#[test]
fn reads_pass_and_default_write_patterns_are_denied() {
    let frozen = Session::new("s").with_metadata("read_only", true);
    for tool in [
        "read_file",
        "search",
        "list_orders",
        "get_user",
        "WebFetch",
        "Read",
    ] {
        assert!(decide(&frozen, tool, json!({})).is_continue(), "{tool}");
    }
    for tool in [
        "write_file",
        "file_write",
        "delete_user",
        "update_order",
        "create_ticket",
        "Edit",
        "Bash",
        "deploy_prod",
    ] {
        assert!(decide(&frozen, tool, json!({})).is_denied(), "{tool}");
    }
}

#[test]
fn sql_tools_are_judged_by_their_statement() {
    let frozen = Session::new("s").with_metadata("read_only", true);
    let sql = |query: Value| decide(&frozen, "sql_query", json!({"query": query}));
    assert!(sql(json!("SELECT * FROM orders WHERE id = 4")).is_continue());
    assert!(sql(json!("WITH x AS (SELECT 1) SELECT * FROM x")).is_continue());
    assert!(
        reason(&sql(json!("UPDATE orders SET paid = true")))
            .contains("would run a `UPDATE` statement")
    );
    assert!(reason(&sql(json!("SELECT 1; DROP TABLE orders"))).contains("`DROP` statement"));
    assert!(
        reason(&sql(json!("SELECT * INTO copy FROM orders"))).contains("SQL that writes (`INTO`)")
    );
    assert!(reason(&sql(json!("SELECT 'unclosed"))).contains("unclosed string"));
    // Malformed arguments: no statement to check is a write.
    assert!(
        reason(&sql(json!(42)))
            .contains("has no SQL to check (looked for `query`, `sql`, `statement`)")
    );
    assert!(decide(&frozen, "sql_execute", json!({})).is_denied());
    assert!(decide(&frozen, "sql_execute", json!({"sql": "SELECT 1"})).is_continue());
}

#[test]
fn explicit_lists_and_a_custom_metadata_key() {
    let hooks = guarded_by(policy(ReadOnly {
        metadata_key: "org_read_only".into(),
        write_tools: vec!["publish".into(), "Bash(rm *)".into()],
        read_tools: vec!["write_draft_preview".into()],
        ..ReadOnly::default()
    }));
    let frozen = Session::new("s").with_metadata("org_read_only", true);
    let publish = decide_by(&hooks, &frozen, "publish", json!({}));
    let preview = decide_by(&hooks, &frozen, "write_draft_preview", json!({}));
    let rm = decide_by(&hooks, &frozen, "Bash", json!({"command": "rm x"}));
    let ls = decide_by(&hooks, &frozen, "Bash", json!({"command": "ls"}));
    let old_key = decide_by(
        &hooks,
        &Session::new("s").with_metadata("read_only", true),
        "publish",
        json!({}),
    );

    assert!(publish.is_denied());
    assert!(preview.is_continue(), "read_tools wins");
    assert!(rm.is_denied());
    assert!(
        ls.is_continue(),
        "`Bash` is no longer in write_tools; only `Bash(rm *)` is"
    );
    assert!(old_key.is_continue(), "the metadata key moved");
}

#[test]
fn bad_configuration_is_refused() {
    let error = ReadOnlyGuard::new(ReadOnly {
        sql_tools: vec!["sql_(".into()],
        ..ReadOnly::default()
    })
    .err()
    .unwrap();
    assert!(
        error
            .to_string()
            .starts_with("read-only configuration: `sql_tools`: bad pattern \"sql_(\"")
    );
    let frozen = Session::new("s").with_metadata("read_only", true);
    assert!(decide(&frozen, "sql_query", json!({"query": "DELETE FROM t"})).is_denied());
}
