//! The standard hooks' tables take effect, for the dispatcher the file is
//! applied to and no other; and a file that fails to apply changes nothing.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_std::approval::store::Answering;
use hooks_std::approval::{Database, Scope, Status};

/// Only the standard hooks, configured by `text`.
fn standard(text: &str) -> Hooks {
    hooks_config::parse("std.toml", text, false)
        .unwrap()
        .apply(Hooks::builder().groups(["hooks_std"]))
        .unwrap()
        .build()
        .unwrap()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-config-std-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// A dispatcher's state files in a temporary directory, so the tables
/// under test are the only difference from the defaults.
fn quiet(audit: &str, approvals: &str) -> String {
    format!(
        "[audit_log]\npath = \"{}\"\n\n[approval]\ndatabase = \"{}\"\n",
        temp(audit).display(),
        temp(approvals).display()
    )
}

async fn call(hooks: &Hooks, tool: &'static str, args: Value) -> ToolRun {
    hooks
        .tool(tool)
        .run(
            &Session::new("s").with_user("dana"),
            args,
            async |_: &Value| Ok::<_, String>(json!("x".repeat(5_000))),
        )
        .await
}

#[tokio::test]
async fn read_only_takes_effect() {
    let hooks = standard(&format!(
        "[read_only]\nenabled = true\n\n{}",
        quiet("ro-audit.jsonl", "ro.sqlite3")
    ));
    let write = call(&hooks, "write_file", json!({"path": "a"})).await;
    assert!(
        write
            .denial()
            .unwrap()
            .reason()
            .contains("read-only mode is on (set in configuration)")
    );
    assert!(call(&hooks, "read_file", json!({"path": "a"})).await.ran());
    // Without the table, writes go ahead (read-only is off by default).
    let open = standard(&quiet("open-audit.jsonl", "open.sqlite3"));
    assert!(call(&open, "write_file", json!({"path": "a"})).await.ran());
}

#[tokio::test]
async fn truncate_takes_effect() {
    let hooks = standard(&format!(
        "[truncate]\nmax_chars = 300\n\n{}",
        quiet("tr-audit.jsonl", "tr.sqlite3")
    ));
    let run = call(&hooks, "read_file", json!({})).await;
    let text = run.result().unwrap().as_str().unwrap();
    assert!(text.chars().count() <= 300, "{}", text.len());
    // The default limit, 8,000, leaves 5,000 characters alone.
    let default = standard(&quiet("tr2-audit.jsonl", "tr2.sqlite3"));
    let run = call(&default, "read_file", json!({})).await;
    assert_eq!(run.result().unwrap().as_str().unwrap().len(), 5_000);
}

#[tokio::test]
async fn rate_limit_takes_effect_per_dispatcher() {
    let text = format!(
        "[rate_limit]\nrules = [{{ max = 2, per = \"1m\" }}]\n\n{}",
        quiet("rl-audit.jsonl", "rl.sqlite3")
    );
    let first = standard(&text);
    for _ in 0..2 {
        assert!(call(&first, "search", json!({})).await.ran());
    }
    let refused = call(&first, "search", json!({})).await;
    assert!(
        refused
            .denial()
            .unwrap()
            .reason()
            .starts_with("rate limit reached: at most 2 calls per 1m")
    );
    // The same file applied to another dispatcher counts on its own.
    let second = standard(&text);
    assert!(call(&second, "search", json!({})).await.ran());
}

#[tokio::test]
async fn audit_log_takes_effect() {
    let path = temp("audited.jsonl");
    let hooks = standard(&format!(
        "[audit_log]\npath = \"{}\"\n\n[approval]\ndatabase = \"{}\"\n",
        path.display(),
        temp("audited.sqlite3").display()
    ));
    assert!(call(&hooks, "search", json!({"q": "rust"})).await.ran());
    let records: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["tool"], "search");
    assert_eq!(records[0]["user"], "dana");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_takes_effect() {
    let database = temp("approval.sqlite3");
    let hooks = standard(&format!(
        "[approval]\ntools = [\"launch_*\"]\ndatabase = \"{}\"\npoll_interval = \"20ms\"\n\n\
         [audit_log]\npath = \"{}\"\n",
        database.display(),
        temp("approval-audit.jsonl").display()
    ));
    // Someone answers from another connection, as `hooks-approve` would.
    let answerer = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(store) = Database::open(&database, Duration::from_secs(5))
                && let Some(request) = store.list(Status::Pending).unwrap().first()
            {
                let answer = Answering {
                    approved: true,
                    scope: Scope::Once,
                    by: Some("ops".into()),
                    reason: None,
                };
                assert!(store.answer(request.id, &answer).unwrap());
                return request.tool.clone();
            }
            assert!(Instant::now() < deadline, "the gate never asked");
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    let launch = call(&hooks, "launch_rocket", json!({})).await;
    assert_eq!(answerer.await.unwrap(), "launch_rocket");
    assert!(launch.ran(), "{:?}", launch.denial());
    assert_eq!(launch.pre().approvals().len(), 1, "a person was asked");
    // Tools the file does not flag are not asked about.
    let search = call(&hooks, "search", json!({})).await;
    assert!(search.ran() && search.pre().approvals().is_empty());
}

#[test]
fn a_file_that_fails_to_apply_changes_nothing() {
    let audit = temp("never.jsonl");
    let dir = temp("not-a-database");
    std::fs::create_dir_all(&dir).unwrap();
    // Everything is fine but the approval database, a directory: the audit
    // log would be opened first, and must not be left behind.
    let text = format!(
        "[audit_log]\npath = \"{}\"\n\n[approval]\ndatabase = \"{}\"\n\n\
         [[hooks]]\nevent = \"pre_tool_use\"\nname = \"from_the_file\"\ncommand = [\"true\"]\n",
        audit.display(),
        dir.display()
    );
    let error = hooks_config::parse("broken.toml", &text, false)
        .unwrap()
        .apply(Hooks::builder().groups(["hooks_std"]))
        .err()
        .expect("the approval database cannot be opened");
    assert!(
        error.problems()[0]
            .starts_with("broken.toml:4: [approval]: approval configuration: approval store"),
        "{error}"
    );
    assert!(
        !audit.exists(),
        "the audit log made by the failed load was removed"
    );

    // And the process is as it was: another dispatcher asked for nothing, and has nothing.
    let untouched = Hooks::builder().groups(["hooks_std"]).build().unwrap();
    assert_eq!(untouched.count::<PreToolUse>(), 0);
    assert!(
        untouched
            .describe()
            .hooks()
            .iter()
            .all(|hook| hook.name != "from_the_file")
    );
}

#[test]
fn a_store_nobody_named_is_refused_or_goes_to_the_state_directory() {
    let refused = |text: &str| {
        hooks_config::parse("s.toml", text, false)
            .unwrap()
            .apply(Hooks::builder().groups(["hooks_std"]))
            .err()
            .expect("refused")
            .to_string()
    };
    let error = refused("[audit_log]\non_failure = \"deny\"\n");
    assert!(
        error.contains("s.toml:1: [audit_log]") && error.contains("no file is named"),
        "{error}"
    );
    let error = refused("[approval]\ntimeout = \"1m\"\n");
    assert!(
        error.contains("s.toml:1: [approval]") && error.contains("no database is named"),
        "{error}"
    );

    let dir = temp("state");
    let _ = std::fs::remove_dir_all(&dir);
    let hooks = hooks_config::parse(
        "s.toml",
        "[audit_log]\n\n[approval]\n\n[rate_limit]\nrules = [{ max = 5, per = \"1m\" }]\n",
        false,
    )
    .unwrap()
    .state_dir(&dir)
    .apply(Hooks::builder().groups(["hooks_std"]))
    .unwrap()
    .build()
    .unwrap();
    assert!(hooks.count::<PreToolUse>() > 0);
    let mut made: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| !name.ends_with("-wal") && !name.ends_with("-shm"))
        .collect();
    made.sort();
    assert_eq!(made, ["approvals.sqlite3", "audit.jsonl", "rate-limit.db"]);
}
