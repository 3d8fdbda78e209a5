//! The read-only guard through a real dispatcher: where the mode comes from,
//! which tools are writes, SQL, and what happens with odd inputs.

use std::future::Future;
use std::task::{Context, Poll, Waker};

use hooks_core::prelude::*;
use hooks_std::read_only::{ReadOnly, ReadOnlyGuard, ToolDialect, UnknownTools};

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
        "read-only mode is on (session metadata `read_only` is true): nothing declares what \
         `write_file` does, and its name has the word `write`, so it may write. Only reading \
         tools and read-only SQL (SELECT, SHOW, EXPLAIN) work until an administrator lifts \
         read-only mode"
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
fn reads_pass_and_default_write_words_are_denied() {
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
fn sql_is_judged_by_its_statement() {
    let frozen = Session::new("s").with_metadata("read_only", true);
    let sql = |query: Value| decide(&frozen, "sql_query", json!({"query": query}));
    assert!(sql(json!("SELECT * FROM orders WHERE id = 4")).is_continue());
    assert!(sql(json!("WITH x AS (SELECT 1) SELECT * FROM x")).is_continue());
    assert!(
        reason(&sql(json!("UPDATE orders SET paid = true")))
            .contains("`sql_query` would run SQL (`query`) that is not known to only read: it runs a `UPDATE` statement")
    );
    assert!(reason(&sql(json!("SELECT 1; DROP TABLE orders"))).contains("`DROP TABLE` statement"));
    assert!(
        reason(&sql(json!("SELECT * INTO copy FROM orders")))
            .contains("`SELECT ... INTO` stores its rows")
    );
    assert!(
        reason(&sql(json!("SELECT 'unclosed")))
            .contains("cannot be parsed (unterminated string literal")
    );
    // No text under the key: no SQL, and nothing else says `sql_query` reads.
    assert!(reason(&sql(json!(42))).contains("`sql_query` is not known to only read"));
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
    let lenient = guarded_by(policy(ReadOnly {
        metadata_key: "org_read_only".into(),
        write_tools: vec!["publish".into(), "Bash(rm *)".into()],
        unknown_tools: UnknownTools::Allow,
        ..ReadOnly::default()
    }));
    let ls_allowed = decide_by(&lenient, &frozen, "Bash", json!({"command": "ls"}));
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
        reason(&ls).contains("its name has the word `bash`"),
        "a shell writes, whatever `write_tools` says"
    );
    assert!(ls_allowed.is_denied(), "a writing word is no unknown tool");
    let unknown = decide_by(&lenient, &frozen, "frobnicate", json!({}));
    assert!(unknown.is_continue(), "unless unknown tools are allowed");
    assert!(old_key.is_continue(), "the metadata key moved");
}

#[test]
fn bad_configuration_is_refused() {
    let error = ReadOnlyGuard::new(ReadOnly {
        read_tools: vec!["sql_(".into()],
        ..ReadOnly::default()
    })
    .err()
    .unwrap();
    assert!(
        error
            .to_string()
            .starts_with("read-only configuration: `read_tools`: bad pattern \"sql_(\"")
    );
    let frozen = Session::new("s").with_metadata("read_only", true);
    assert!(decide(&frozen, "sql_query", json!({"query": "DELETE FROM t"})).is_denied());
}

#[test]
fn tool_names_are_words_in_any_case_after_the_namespace() {
    let frozen = Session::new("s").with_metadata("read_only", true);
    for tool in [
        "mcp__filesystem__write_file",
        "WriteFile",
        "mcp__github__create_issue",
        "mcp__slack__send_message",
        "str_replace_based_edit_tool",
        "NotebookEdit",
        "BASH",
        "mcp__k8s__DELETE_POD",
    ] {
        assert!(decide(&frozen, tool, json!({})).is_denied(), "{tool}");
    }
    for tool in [
        "mcp__github__get_issue",
        "mcp__fs__read_text_file",
        "LS",
        "grep",
    ] {
        assert!(decide(&frozen, tool, json!({})).is_continue(), "{tool}");
    }
    let unknown = decide(&frozen, "frobnicate", json!({}));
    assert!(reason(&unknown).contains("`frobnicate` is not known to only read"));
    // A writing word wins over a reading one.
    assert!(decide(&frozen, "get_and_delete", json!({})).is_denied());
}

#[test]
fn every_sql_argument_is_judged_whatever_the_tool() {
    let frozen = Session::new("s").with_metadata("read_only", true);
    for tool in [
        "run_query",
        "mcp__postgres__query",
        "execute_sql",
        "get_rows",
    ] {
        let read = decide(&frozen, tool, json!({"sql": "SELECT id FROM orders"}));
        assert!(read.is_continue(), "{tool}");
        let write = decide(&frozen, tool, json!({"sql": "DELETE FROM orders"}));
        assert!(
            reason(&write).contains("it runs a `DELETE` statement"),
            "{tool}"
        );
    }
    let second = decide(
        &frozen,
        "run_query",
        json!({"query": "SELECT 1", "statement": "TRUNCATE orders"}),
    );
    assert!(reason(&second).contains("SQL (`statement`)"));
    // Every string under a SQL key is judged; other values hold no SQL.
    for (sql, reads) in [
        (json!(null), true),
        (json!({"text": "SELECT 1"}), true),
        (json!(["SELECT 1"]), true),
        (json!({"text": "DELETE FROM t"}), false),
        (json!(["SELECT 1", {"then": "DROP TABLE t"}]), false),
    ] {
        let outcome = decide(
            &frozen,
            "run_query",
            json!({"query": "SELECT 1", "sql": sql}),
        );
        assert_eq!(outcome.is_continue(), reads, "{sql}");
    }
    // The name decides first: a write tool does not pass by carrying a read.
    let named = decide(
        &frozen,
        "delete_rows",
        json!({"query": "SELECT id FROM orders"}),
    );
    assert!(reason(&named).contains("`delete_rows` does, and its name has the word `delete`"));
    // Prose under `query` is a search, not SQL.
    assert!(decide(&frozen, "WebSearch", json!({"query": "rust lifetimes"})).is_continue());
    let search = decide(
        &frozen,
        "mcp__brave__search",
        json!({"query": "how to delete a git branch"}),
    );
    assert!(search.is_continue());
    // A `*query*` tool without SQL is not known to read.
    assert!(decide(&frozen, "run_query", json!({"q": "SELECT 1"})).is_denied());
    let custom = guarded_by(policy(ReadOnly {
        sql_keys: vec!["q".into()],
        ..ReadOnly::default()
    }));
    assert!(decide_by(&custom, &frozen, "run_query", json!({"q": "SELECT 1"})).is_continue());
    assert!(decide_by(&custom, &frozen, "run_query", json!({"q": "DROP TABLE t"})).is_denied());
}

/// The attacks of the issue, each of which the old lexer let through.
#[test]
fn the_reported_attacks_are_denied_in_every_dialect_setting() {
    let attacks = [
        "SELECT E'x\\''; DELETE FROM t; --'",
        "SELECT $$ ' $$; DELETE FROM t; -- '",
        "SELECT 1 /* /* */ ' */ ; DELETE FROM t; -- '",
        "SELECT 1 -- x\r; DELETE FROM t",
        "SELECT * FROM dblink('dbname=x', 'DELETE FROM t') AS t(n int)",
        "SELECT \"nextval\"('order_ids')",
        "SELECT U&\"\\006Eextval\"('order_ids')",
    ];
    let frozen = Session::new("s").with_metadata("read_only", true);
    for dialect in [
        None,
        Some("postgres"),
        Some("sqlite"),
        Some("mysql"),
        Some("generic"),
    ] {
        let hooks = guarded_by(policy(ReadOnly {
            dialects: dialect
                .map(|d| ToolDialect::new("*", d))
                .into_iter()
                .collect(),
            ..ReadOnly::default()
        }));
        for attack in attacks {
            let outcome = decide_by(&hooks, &frozen, "run_query", json!({"query": attack}));
            assert!(outcome.is_denied(), "{dialect:?}: {attack:?}");
        }
    }
}

#[test]
fn dialects_and_functions_are_per_tool() {
    let hooks = guarded_by(policy(ReadOnly {
        dialects: vec![
            ToolDialect::new("mcp__pg__*", "postgres"),
            ToolDialect::new("*mysql*", "MySQL"),
        ],
        allowed_functions: [("postgres".to_owned(), vec!["similarity".to_owned()])].into(),
        ..ReadOnly::default()
    }));
    let frozen = Session::new("s").with_metadata("read_only", true);
    let run = |tool: &'static str, sql: &str| decide_by(&hooks, &frozen, tool, json!({"sql": sql}));

    let dollar = "SELECT $$it's$$ AS note";
    assert!(run("mcp__pg__query", dollar).is_continue());
    assert!(reason(&run("run_query", dollar)).contains("(read as generic SQL)"));
    assert!(run("mcp__mysql__query", "SHOW CREATE TABLE orders").is_continue());

    let trunc = "SELECT date_trunc('day', created_at) FROM orders";
    assert!(run("mcp__pg__query", trunc).is_continue());
    assert!(
        run("run_query", trunc).is_continue(),
        "with no dialect, a function one of the common databases lists"
    );
    assert!(reason(&run("mcp__mysql__query", trunc)).contains("it calls `date_trunc`"));
    let similar = "SELECT similarity(name, 'x') FROM customers";
    assert!(run("mcp__pg__query", similar).is_continue());
    assert!(run("mcp__mysql__query", similar).is_denied());
}

#[test]
fn the_table_of_a_config_file_is_read_with_its_defaults() {
    let config: ReadOnly = toml::from_str(
        r#"
        enabled = true
        unknown_tools = "allow"
        sql_keys = ["sql"]
        read_tools = ["fetch_*"]

        [[dialects]]
        tools = "mcp__postgres__*"
        dialect = "postgres"

        [allowed_functions]
        postgres = ["similarity"]
        "*" = ["reports.monthly_total"]
        "#,
    )
    .unwrap();
    assert_eq!(config.unknown_tools, UnknownTools::Allow);
    assert_eq!(
        config.dialects,
        [ToolDialect::new("mcp__postgres__*", "postgres")]
    );
    assert_eq!(config.metadata_key, "read_only", "a default");
    assert_eq!(config.write_tools, ReadOnly::default().write_tools);
    assert!(ReadOnlyGuard::new(config).is_ok());

    let typo = toml::from_str::<ReadOnly>("sql_tools = [\"sql_*\"]").unwrap_err();
    assert!(
        typo.to_string().contains("unknown field `sql_tools`"),
        "{typo}"
    );
    let bad = toml::from_str::<ReadOnly>("unknown_tools = \"maybe\"").unwrap_err();
    assert!(bad.to_string().contains("unknown variant `maybe`"), "{bad}");
}

#[test]
fn deep_statements_are_judged_on_a_small_stack() {
    // A thread with little stack, as an agent's worker may have: judging
    // grows it, and the token limit bounds how deep a tree can be.
    let judged = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let guard = ReadOnlyGuard::default();
            let frozen = Session::new("s").with_metadata("read_only", true);
            let check = |sql: String| {
                let ctx = PreToolUse::new(&frozen, "run_query", json!({"query": sql}));
                guard.check(&ctx)
            };
            let deep_sum = check(format!("SELECT 1{}", "+1".repeat(4_900)));
            let deep_subscripts = check(format!("SELECT a{} FROM t", "[1]".repeat(3_000)));
            let too_long = check(format!("SELECT 1{}", "+1".repeat(100_000)));
            let too_big = check(format!("SELECT '{}'", "x".repeat(2 << 20)));
            let comments = check(format!("SELECT 1 {}", "/**/--\n".repeat(100_000)));
            (deep_sum, deep_subscripts, too_long, too_big, comments)
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(matches!(judged.0, Decision::Continue));
    assert!(
        matches!(judged.1, Decision::Continue),
        "subscripts, which PostgreSQL reads"
    );
    for judged in [judged.2, judged.3, judged.4] {
        match judged {
            Decision::Deny(reason) => assert!(reason.contains("too many to check")),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn denials_name_what_was_refused_without_quoting_the_statement() {
    let frozen = Session::new("s").with_metadata("read_only", true);
    for sql in [
        "SELECT 'sk-live-51Hx9' AS key; DELETE FROM orders",
        "SELECT pg_read_file('sk-live-51Hx9')",
        "SELECT 'sk-live-51Hx9' 'sk-live-51Hx9' FROM",
        "SELECT \"sk-live-51Hx9\"(1)",
    ] {
        let outcome = decide(&frozen, "run_query", json!({"query": sql}));
        let why = reason(&outcome);
        assert!(!why.contains("sk-live"), "{why}");
    }
    let outcome = decide(
        &frozen,
        "run_query",
        json!({"query": "SELECT pg_read_file('/etc/passwd')"}),
    );
    assert!(
        reason(&outcome)
            .contains("it calls `pg_read_file`, which is not on the list of read-only functions")
    );
}
