//! The read-only guard decides from facts (issue 20). Each test was an
//! attack or a refused read first: names guessed from substrings let
//! `reply_to_thread` through and refused `git_status`; SQL was looked for
//! under three top-level keys only; and nothing a tool declared was read.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use hooks_core::prelude::*;
use hooks_core::{ArgRole, Source, ToolFacts};
use hooks_std::read_only::ReadOnlyGuard;

hooks_core::link!(hooks_std);

/// A dispatcher running the guard, knowing these tools.
fn guard_knowing(tools: impl IntoIterator<Item = ToolFacts>) -> Hooks {
    Hooks::builder()
        .only(["hooks_std::read_only::guard"])
        .state(ReadOnlyGuard::default())
        .tool_facts(tools)
        .build()
        .unwrap()
}

fn decide(hooks: &Hooks, tool: &'static str, args: Value) -> Outcome {
    let session = Session::new("s").with_metadata("read_only", true);
    let mut ctx = PreToolUse::new(&session, tool, args);
    match std::pin::pin!(hooks.dispatch(&mut ctx)).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(outcome) => outcome,
        Poll::Pending => unreachable!("the guard never waits"),
    }
}

fn guess(tool: &'static str, args: Value) -> Outcome {
    decide(&guard_knowing([]), tool, args)
}

fn reason(outcome: &Outcome) -> String {
    outcome.denial().expect("denied").reason().to_owned()
}

#[test]
fn a_reading_word_inside_another_word_opens_nothing() {
    for tool in [
        "reply_to_thread",
        "forget_memory",
        "target_delete",
        "budget_reset",
    ] {
        assert!(guess(tool, json!({})).is_denied(), "{tool}");
    }
}

#[test]
fn an_upstreams_name_says_nothing_of_its_tools() {
    for tool in [
        "repo-reader__git_add",
        "repo-reader__git_reset",
        "repo-reader__git_checkout",
        "mcp__reader__git_commit",
        "mcp__read_only_fs__write_file",
    ] {
        assert!(guess(tool, json!({})).is_denied(), "{tool}");
    }
    // Nor does it close one.
    assert!(guess("writer__read_file", json!({})).is_continue());
}

#[test]
fn sql_is_found_under_every_key_that_names_it() {
    for args in [
        json!({"Query": "DELETE FROM t"}),
        json!({"sql_query": "DELETE FROM t"}),
        json!({"params": {"query": "DELETE FROM t"}}),
        json!({"queries": ["SELECT 1", "DELETE FROM t"]}),
        json!({"batch": [{"Statement": "UPDATE t SET a = 1"}]}),
        json!({"rawSQL": {"text": "DROP TABLE t"}}),
    ] {
        let outcome = guess("get_rows", args.clone());
        assert!(
            reason(&outcome).contains("that is not known to only read"),
            "{args}"
        );
    }
    assert!(guess("get_rows", json!({"params": {"query": "SELECT a FROM t"}})).is_continue());
}

#[test]
fn reads_of_real_servers_pass_by_their_names() {
    for tool in [
        "git_status",
        "git_log",
        "git_diff",
        "git_diff_unstaged",
        "git_diff_staged",
        "git_show",
        "directory_tree",
        "list_directory_with_sizes",
        "get_file_info",
        "read_graph",
        "get_current_time",
        "mcp__git__git_status",
    ] {
        assert!(
            guess(tool, json!({"repo_path": "/r"})).is_continue(),
            "{tool}"
        );
    }
}

#[test]
fn prose_is_a_search_and_sql_that_looks_like_prose_is_not() {
    for query in [
        "how to delete a git branch",
        "What's new in Rust 1.95?",
        "drop shipping suppliers near me",
    ] {
        let outcome = guess("search_nodes", json!({"query": query}));
        // `drop …` starts like SQL and does not parse: refused, a guess that refuses.
        assert_eq!(outcome.is_continue(), !query.starts_with("drop"), "{query}");
    }
    assert!(guess("search_nodes", json!({"query": "DELETE FROM t"})).is_denied());
    assert!(guess("search_nodes", json!({"query": "sp_configure"})).is_denied());
}

#[test]
fn ordinary_reads_pass_with_no_dialect_configured() {
    for sql in [
        "TABLE orders",
        "SELECT date_trunc('day', created_at), count(*) FROM orders GROUP BY 1",
        "SELECT unnest(ARRAY[1, 2])",
        "SELECT pg_size_pretty(pg_database_size(current_database()))",
        "SELECT version()",
        "SELECT current_setting('search_path')",
        "SELECT id FROM orders WHERE created_at > now() - interval '7 days'",
        "PRAGMA table_info(orders)",
    ] {
        let outcome = guess("run_query", json!({"sql": sql}));
        assert!(outcome.is_continue(), "{sql}: {:?}", outcome.denial());
    }
    for sql in [
        "SELECT set_config('search_path', 'evil', false)",
        "PRAGMA user_version = 1",
        "PRAGMA journal_mode(DELETE)",
        "TABLE orders; DELETE FROM orders",
    ] {
        assert!(guess("run_query", json!({"sql": sql})).is_denied(), "{sql}");
    }
}

#[test]
fn a_declared_read_runs_without_its_arguments_judged() {
    let hooks = guard_knowing([ToolFacts::new("delete_preview").only_reads()]);
    let outcome = decide(&hooks, "delete_preview", json!({"query": "DELETE FROM t"}));
    assert!(
        outcome.is_continue(),
        "the declaration, not the name or the keys"
    );
}

#[test]
fn a_declared_write_is_refused_whatever_its_name() {
    let hooks = guard_knowing([
        ToolFacts::new("get_user").writes(),
        ToolFacts::new("list_and_prune").destroys(),
    ]);
    assert!(
        reason(&decide(&hooks, "get_user", json!({})))
            .contains("`get_user` writes (declared in code)")
    );
    assert!(
        reason(&decide(&hooks, "list_and_prune", json!({})))
            .contains("`list_and_prune` may destroy what exists (declared in code)")
    );
}

#[test]
fn declared_sql_is_judged_in_every_string_and_strictly() {
    let hooks = guard_knowing([ToolFacts::new("run").arg("/params/body", ArgRole::Sql)]);
    let run = |body: Value| decide(&hooks, "run", json!({"params": {"body": body}}));
    assert!(run(json!("SELECT 1")).is_continue());
    assert!(run(json!(["SELECT 1", {"x": "SELECT 2"}])).is_continue());
    assert!(reason(&run(json!(["SELECT 1", "DELETE FROM t"]))).contains("SQL (`/params/body`)"));
    // Declared SQL is SQL: prose there is refused, not taken for a search.
    assert!(run(json!("how to delete a git branch")).is_denied());
    // A declared read does not skip declared SQL.
    let both = guard_knowing([ToolFacts::new("q").only_reads().arg("sql", ArgRole::Sql)]);
    assert!(decide(&both, "q", json!({"sql": "DELETE FROM t"})).is_denied());
}

#[test]
fn an_untrusted_server_may_close_a_door_but_not_open_one() {
    let server = |trusted| Source::Mcp {
        server: Arc::from("notes"),
        trusted,
    };
    let untrusted = guard_knowing([
        ToolFacts::new("frobnicate")
            .from(server(false))
            .only_reads(),
        ToolFacts::new("get_note").from(server(false)).destroys(),
    ]);
    let outcome = decide(&untrusted, "frobnicate", json!({}));
    assert!(
        reason(&outcome).contains(
            "MCP server `notes` (annotations not trusted) says it only reads; set \
             `trust_annotations = true`"
        ),
        "{}",
        reason(&outcome)
    );
    assert!(reason(&decide(&untrusted, "get_note", json!({}))).contains("may destroy"));
    let trusted = guard_knowing([ToolFacts::new("frobnicate").from(server(true)).only_reads()]);
    assert!(decide(&trusted, "frobnicate", json!({})).is_continue());
}

#[test]
fn what_nothing_classifies_is_refused_with_how_to_declare_it() {
    let outcome = guess("frobnicate", json!({}));
    assert!(reason(&outcome).contains(
        "If it only reads, declare it: `[tools.frobnicate] read_only = true` in the \
         configuration, or `ToolFacts::new(\"frobnicate\").only_reads()` on the builder"
    ));
}

#[test]
fn a_declared_shell_runs_only_allowed_commands() {
    let bash = || {
        ToolFacts::new("Bash")
            .destroys()
            .arg("command", ArgRole::Shell)
    };
    let hooks = Hooks::builder()
        .only(["hooks_std::read_only::guard"])
        .state(
            ReadOnlyGuard::new(hooks_std::read_only::ReadOnly {
                shell_commands: vec!["git status*".into(), "ls*".into()],
                ..hooks_std::read_only::ReadOnly::default()
            })
            .unwrap(),
        )
        .tool_facts([bash()])
        .build()
        .unwrap();
    let run = |command: &str| decide(&hooks, "Bash", json!({ "command": command }));
    assert!(run("git status --short && ls -la").is_continue());
    for command in [
        "git status; git push --force",
        "ls > listing.txt",
        "ls $(git push)",
        "sudo ls",
        "echo x | xargs git push",
    ] {
        let outcome = run(command);
        assert!(
            reason(&outcome).contains("`Bash` would run a command not known to only read"),
            "{command}: {:?}",
            outcome.denial()
        );
    }
    // Without an allow-list, the declaration decides: a shell may destroy.
    let strict = guard_knowing([bash()]);
    assert!(reason(&decide(&strict, "Bash", json!({"command": "ls"}))).contains("may destroy"));
}
