//! The tool catalog: what the builder is told about tools reaches every
//! hook of a call, from its context (pre, post, failure; by name and by
//! handle) or as state; declarations of one tool merge, the operator's
//! outranking what a tool says of itself.

use std::sync::Arc;

use hooks_core::prelude::*;
use hooks_core::{ArgRole, BuildProblem, Source, ToolCatalog, ToolFacts};
use hooks_tests::block_on;

/// A guard that reads only facts: allows declared reads, denies the rest.
fn facts_guard(ctx: &mut PreToolUse) -> Decision {
    match ctx.facts().and_then(ToolFacts::read_only) {
        Some(fact) if fact.value => Decision::Continue,
        Some(fact) => Decision::deny(format!("writes ({})", fact.source)),
        None => Decision::deny("unknown"),
    }
}

fn dispatcher() -> Hooks {
    Hooks::builder()
        .without_linked()
        .tools([
            ToolFacts::new("git_status").only_reads(),
            ToolFacts::new("git_commit").destroys(),
            "search".into(),
        ])
        .hook(Hook::new("facts_guard", facts_guard))
        .build()
        .unwrap()
}

#[test]
fn a_call_sees_its_tools_facts_by_name_and_by_handle() {
    let hooks = dispatcher();
    let session = Session::new("s");
    let mut status = PreToolUse::new(&session, "git_status", json!({}));
    assert!(block_on(hooks.dispatch(&mut status)).is_continue());
    assert_eq!(status.facts().unwrap().name(), "git_status");

    let commit = hooks.tool("git_commit");
    let mut call = PreToolUse::new(&session, "git_commit", json!({}));
    let outcome = block_on(commit.dispatch(&mut call));
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "writes (declared in code)"
    );

    let mut search = PreToolUse::new(&session, "search", json!({}));
    assert_eq!(
        block_on(hooks.dispatch(&mut search))
            .denial()
            .unwrap()
            .reason(),
        "unknown",
        "a tool known by name only has no effects"
    );
    let mut other = PreToolUse::new(&session, "rm", json!({}));
    assert!(block_on(hooks.dispatch(&mut other)).is_denied());
    assert!(other.facts().is_none());
}

#[tokio::test]
async fn the_facts_follow_the_call_to_its_post_hooks() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (ok, failed) = (Arc::clone(&seen), Arc::clone(&seen));
    let hooks = Hooks::builder()
        .without_linked()
        .tools([ToolFacts::new("fetch").only_reads().with_open_world(true)])
        .hook(Hook::observer("ok", move |ctx: &PostToolUse| {
            ok.lock()
                .unwrap()
                .push(ctx.facts().map(|f| f.open_world().unwrap().value));
        }))
        .hook(Hook::observer("failed", move |ctx: &PostToolUseFailure| {
            failed
                .lock()
                .unwrap()
                .push(ctx.facts().map(|f| f.open_world().unwrap().value));
        }))
        .build()
        .unwrap();
    let fetch = hooks.tool("fetch");
    let session = Session::new("s");
    let run = fetch
        .run(&session, json!({}), async |_: &Value| {
            Ok::<_, String>(json!(1))
        })
        .await;
    assert!(run.result().is_ok());
    let run = fetch
        .run(&session, json!({}), async |_: &Value| {
            Err::<Value, _>("down")
        })
        .await;
    assert!(run.result().is_err());
    assert_eq!(*seen.lock().unwrap(), [Some(true), Some(true)]);

    // A post context made on its own gets its facts from dispatch too.
    let mut post = PostToolUse::new(&session, "fetch", json!({}), Ok(json!(1)));
    assert!(hooks.dispatch(&mut post).await.is_continue());
    assert!(post.facts().is_some());
}

#[test]
fn hooks_read_the_whole_catalog_as_state() {
    fn only_declared(ctx: &mut PreToolUse, catalog: &ToolCatalog) -> Decision {
        if catalog.get(ctx.tool()).is_some() {
            Decision::Continue
        } else {
            Decision::deny(format!("not one of the {} declared tools", catalog.len()))
        }
    }
    let hooks = Hooks::builder()
        .without_linked()
        .tool_facts(["a", "b"])
        .hook(Hook::new("only_declared", only_declared))
        .build()
        .unwrap();
    let session = Session::new("s");
    assert!(block_on(hooks.dispatch(&mut PreToolUse::new(&session, "a", json!({})))).is_continue());
    let mut c = PreToolUse::new(&session, "c", json!({}));
    assert_eq!(
        block_on(hooks.dispatch(&mut c)).denial().unwrap().reason(),
        "not one of the 2 declared tools"
    );
}

#[test]
fn facts_without_the_tool_list_check_no_pattern() {
    let hook = || Hook::<PreToolUse>::new("mcp_guard", |_: &mut PreToolUse| {}).matches("mcp__*");
    // `tool_facts`: what is known of some tools, not the list of all of them.
    assert!(
        Hooks::builder()
            .without_linked()
            .tool_facts([ToolFacts::new("Read").only_reads()])
            .hook(hook())
            .build()
            .is_ok()
    );
    // `tools`: the agent's tools, which the pattern must match.
    let error = Hooks::builder()
        .without_linked()
        .tools([ToolFacts::new("Read").only_reads()])
        .hook(hook())
        .build()
        .unwrap_err();
    assert!(matches!(
        error.problems()[0],
        BuildProblem::MatchesNoTool { .. }
    ));
}

#[test]
fn the_operator_outranks_what_a_server_says() {
    let server = Source::Mcp {
        server: Arc::from("db"),
        trusted: true,
    };
    let hooks = Hooks::builder()
        .without_linked()
        .tools([ToolFacts::new("query")
            .writes()
            .arg("/params/sql", ArgRole::Sql)])
        .tool_facts([ToolFacts::new("query")
            .from(server.clone())
            .only_reads()
            .with_idempotent(true)])
        .build()
        .unwrap();
    let query = hooks.catalog().get("query").unwrap();
    assert!(!query.read_only().unwrap().value);
    assert_eq!(query.read_only().unwrap().source, Source::Code);
    assert_eq!(query.idempotent().unwrap().source, server);
    let sql = query.args_with(ArgRole::Sql).next().unwrap();
    assert_eq!(
        sql.find(&json!({"params": {"sql": "SELECT 1"}})),
        Some(&json!("SELECT 1"))
    );
}
