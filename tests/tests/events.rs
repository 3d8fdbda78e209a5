//! All the events: each dispatches its own hooks with its own capabilities,
//! and each context serializes to JSON for command and HTTP hooks.

use hooks_core::Event as _;
use hooks_core::prelude::*;
use hooks_tests::block_on;

#[session_start(group = "events")]
fn brief(ctx: &mut SessionStart) {
    ctx.inject(format!(
        "session {} started ({})",
        ctx.session().id(),
        ctx.source()
    ));
}

#[user_prompt_submit(group = "events", priority = 1)]
fn polite(ctx: &mut UserPromptSubmit) -> Decision {
    if ctx.prompt().contains("rm -rf") {
        return Decision::deny("that prompt asks for something destructive");
    }
    ctx.prompt_mut().push_str(" (please)");
    Decision::Continue
}

#[pre_model_request(group = "events", priority = 1)]
fn only_safe_tools(ctx: &mut PreModelRequest) {
    ctx.include_tools(&["read", "search", "write"]);
}

#[pre_model_request(group = "events", priority = 2)]
fn and_no_writes(ctx: &mut PreModelRequest) {
    ctx.include_tools(&["read", "write", "deploy"]);
    ctx.exclude_tools(&["write"]);
    ctx.params_mut()["temperature"] = json!(0.0);
}

#[stop(group = "events")]
fn tests_first(ctx: &mut Stop) -> Decision {
    if ctx.stop_hook_active() || ctx.last_message().is_some_and(|m| m.contains("tests pass")) {
        Decision::Continue
    } else {
        Decision::deny("run the tests before stopping")
    }
}

/// Exercises the `Result` return path: fails on an unclean end.
#[session_end(group = "events")]
fn goodbye(ctx: &mut SessionEnd) -> Result<(), String> {
    match ctx.reason() {
        "logout" => Ok(()),
        other => Err(format!("session ended uncleanly ({other})")),
    }
}

fn hooks() -> Hooks {
    Hooks::builder().groups(["events"]).build().unwrap()
}

fn session() -> Session {
    Session::new("sess-1")
        .with_user("dana")
        .with_metadata("tier", "gold")
}

#[test]
fn session_start_injects() {
    let mut ctx = SessionStart::new(&session()).with_source("resume");
    assert!(block_on(hooks().dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.injected().text(), "session sess-1 started (resume)");
}

#[test]
fn user_prompt_submit_rewrites_or_blocks() {
    let mut ctx = UserPromptSubmit::new(&session(), "tidy the repo");
    assert!(block_on(hooks().dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.prompt(), "tidy the repo (please)");
    assert_eq!(ctx.rewrites()[0].field, "prompt");

    let mut ctx = UserPromptSubmit::new(&session(), "rm -rf everything");
    let outcome = block_on(hooks().dispatch(&mut ctx));
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "that prompt asks for something destructive"
    );
    assert_eq!(ctx.into_prompt(), "rm -rf everything");
}

#[test]
fn pre_model_request_filters_intersect_includes_and_union_excludes() {
    let mut ctx = PreModelRequest::new(
        &session(),
        ["read", "write", "search", "deploy"],
        json!({"model": "m1", "temperature": 0.7}),
    );
    assert!(block_on(hooks().dispatch(&mut ctx)).is_continue());
    // include {read, search, write} ∩ {read, write, deploy} = {read, write}; minus {write}.
    assert_eq!(ctx.tools().collect::<Vec<_>>(), ["read"]);
    assert_eq!(ctx.params(), &json!({"model": "m1", "temperature": 0.0}));
}

#[test]
fn stop_can_keep_the_agent_going() {
    let mut ctx = Stop::new(&session()).with_last_message("I am done");
    let outcome = block_on(hooks().dispatch(&mut ctx));
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "run the tests before stopping"
    );

    let mut ctx = Stop::new(&session())
        .with_last_message("I am done")
        .with_stop_hook_active(true);
    assert!(block_on(hooks().dispatch(&mut ctx)).is_continue());
}

#[test]
fn session_end_runs() {
    let mut ctx = SessionEnd::new(&session(), "logout");
    assert!(block_on(hooks().dispatch(&mut ctx)).is_continue());
    assert!(ctx.failures().is_empty());
    // A session end cannot be stopped: the hook's `Err` is recorded, not obeyed.
    let mut ctx = SessionEnd::new(&session(), "crash");
    assert!(block_on(hooks().dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.failures().len(), 1);
    assert_eq!(ctx.failures()[0].hook, "events::goodbye");
}

#[test]
fn contexts_serialize_with_the_session_facts() {
    let session = session().sub_agent("researcher");
    assert_eq!(
        PreToolUse::new(&session, "read", json!({"path": "a.txt"})).to_json(),
        json!({
            "event": "pre_tool_use",
            "session": {
                "session_id": "sess-1",
                "agent_id": "researcher",
                "parent_agent_id": "main",
                "user_id": "dana",
                "metadata": {"tier": "gold"}
            },
            "tool": "read",
            "args": {"path": "a.txt"}
        })
    );
    let post = PostToolUse::new(&session, "read", json!({}), Err("no such file".into()))
        .with_duration(std::time::Duration::from_millis(12));
    let post = post.to_json();
    assert_eq!(post["result"], json!({"Err": "no such file"}));
    assert_eq!(post["duration_ms"], json!(12));
    assert_eq!(
        UserPromptSubmit::new(&session, "hi").to_json()["prompt"],
        "hi"
    );
    assert_eq!(Stop::new(&session).to_json()["stop_hook_active"], false);
    assert_eq!(SessionStart::new(&session).to_json()["source"], "startup");
    assert_eq!(
        SessionEnd::new(&session, "exit").to_json()["reason"],
        "exit"
    );
    assert_eq!(
        PreModelRequest::new(&session, ["a"], json!({})).to_json()["tools"],
        json!(["a"])
    );
}
