//! `describe()`: every hook of a dispatcher with name, event, priority,
//! matcher, group, failure policy, kind, state and origin, as a table and as JSON.

use std::time::Duration;

use hooks_core::prelude::*;
use hooks_core::{EventKind, Origin};

const AUDITED_LINE: u32 = line!() + 9;

#[pre_tool_use(
    group = "describe",
    priority = -7,
    matches = "sql_*|Bash(git push*)",
    on_error = "continue",
    name = "db.audited"
)]
fn audited(_: &mut PreToolUse) {}

#[stop(group = "describe", timeout_ms = 250)]
async fn slow_stop(_: &mut Stop) {
    tokio::task::yield_now().await;
}

struct Budget;

#[post_tool_use(group = "describe", priority = 5)]
fn budgeted<'s>(_: &mut PostToolUse, _budget: &'s Budget) -> Deferred<'s, ()> {
    Deferred::Ready(())
}

fn hooks() -> Hooks {
    Hooks::builder()
        .groups(["describe"])
        .state(Budget)
        .hook(
            Hook::new_async("runtime_check", |_: &mut PostToolUse| Box::pin(async {}))
                .matches("*")
                .group("describe")
                .timeout(Duration::from_millis(900)),
        )
        .build()
        .unwrap()
}

#[test]
fn each_hook_is_described() {
    let description = hooks().describe();
    let hooks = description.hooks();
    assert_eq!(hooks.len(), 4);

    let audited = &hooks[0];
    assert_eq!(audited.event, EventKind::PreToolUse);
    assert_eq!(audited.name, "db.audited");
    assert_eq!(audited.priority, -7);
    assert_eq!(audited.matcher.as_deref(), Some("sql_*|Bash(git push*)"));
    assert_eq!(audited.group.as_deref(), Some("describe"));
    assert_eq!(audited.on_error, OnError::Continue);
    assert!(!audited.asynchronous);
    assert_eq!(
        audited.origin,
        Origin::Linked {
            file: "tests/tests/describe.rs",
            line: AUDITED_LINE
        }
    );

    let runtime = &hooks[1];
    assert_eq!(
        (runtime.event, runtime.name.as_str()),
        (EventKind::PostToolUse, "runtime_check")
    );
    assert_eq!(runtime.origin, Origin::Runtime);
    assert_eq!(runtime.on_error, OnError::Continue);
    assert_eq!(runtime.timeout_ms, Some(900));
    assert!(runtime.state.is_empty());

    let budgeted = &hooks[2];
    assert_eq!(budgeted.name, "describe::budgeted");
    assert!(budgeted.asynchronous && budgeted.deferred);
    assert_eq!(budgeted.state, ["describe::Budget"]);

    let stop = &hooks[3];
    assert_eq!(
        (stop.event, stop.name.as_str()),
        (EventKind::Stop, "describe::slow_stop")
    );
    assert!(stop.asynchronous);
    assert_eq!(stop.timeout_ms, Some(250));
}

#[test]
fn the_table_lines_up() {
    let table = hooks().describe().to_string();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "{table}");
    assert!(lines[0].starts_with("event "));
    for column in [
        "priority", "name", "matches", "group", "on_error", "kind", "state", "origin",
    ] {
        assert!(lines[0].contains(column), "{table}");
    }
    let origin_column = lines[0].find("origin").unwrap();
    assert_eq!(
        &lines[1][origin_column..],
        format!("tests/tests/describe.rs:{AUDITED_LINE}")
    );
    assert_eq!(&lines[2][origin_column..], "runtime");
    assert!(lines[1].contains("sql_*|Bash(git push*)"));
    assert!(
        lines[3].contains("deferred") && lines[3].contains(" Budget "),
        "{table}"
    );
    assert!(lines[4].contains("async 250ms"), "{table}");
}

#[test]
fn the_json_has_every_field() {
    let json = hooks().describe().to_json();
    assert_eq!(
        json[0],
        json!({
            "event": "pre_tool_use",
            "name": "db.audited",
            "priority": -7,
            "matcher": "sql_*|Bash(git push*)",
            "group": "describe",
            "on_error": "continue",
            "timeout_ms": null,
            "asynchronous": false,
            "deferred": false,
            "observer": false,
            "shadow": false,
            "state": [],
            "origin": {"kind": "linked", "file": "tests/tests/describe.rs", "line": AUDITED_LINE},
        })
    );
    assert_eq!(json[1]["origin"], json!({"kind": "runtime"}));
}
