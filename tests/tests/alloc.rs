//! Zero allocation: once the dispatcher and the tool handles are built,
//! dispatching sync hooks allocates nothing, by handle or by name, whether the
//! hooks continue, deny, or are skipped by their matcher. Counted with a
//! global allocator that counts this thread's allocations.
//!
//! One exception, counted here too: a subject pattern on a shell command that
//! is more than plain words (`a && b`, quotes, `$(…)`) parses it, which allocates.

use hooks_core::prelude::*;
use hooks_tests::alloc::{Counting, allocations_during};
use hooks_tests::block_on;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[pre_tool_use(priority = -1)]
fn looks_at_every_call(ctx: &mut PreToolUse) -> Decision {
    if ctx.args().get("force").is_some() {
        Decision::deny("no force")
    } else {
        Decision::Continue
    }
}

#[pre_tool_use(matches = "sql_*|read_*")]
#[allow(clippy::unnecessary_wraps)] // exercises the `Result` return path
fn sql_and_reads(ctx: &mut PreToolUse) -> Result<Decision, &'static str> {
    match ctx.args()["query"].as_str() {
        Some(query) if query.starts_with("DROP") => Ok(Decision::deny("DROP is not allowed")),
        _ => Ok(Decision::Continue),
    }
}

#[pre_tool_use(matches = "Bash(rm -rf *)")]
fn no_rm_rf(_: &mut PreToolUse) -> Decision {
    Decision::deny("rm -rf is not allowed")
}

#[pre_tool_use(matches = "never_called")]
fn skipped(_: &mut PreToolUse) {}

#[post_tool_use(matches = "sql_*")]
fn check_result(ctx: &mut PostToolUse) {
    let _ = ctx.result().is_ok();
}

/// The body of both async guards: it awaits, but never has to wait.
async fn needs_args(ctx: &PreToolUse) -> Decision {
    std::future::ready(()).await;
    if ctx.args().is_null() {
        Decision::deny("no args")
    } else {
        Decision::Continue
    }
}

#[pre_tool_use(matches = "async_tool")]
async fn async_guard(ctx: &mut PreToolUse) -> Decision {
    needs_args(ctx).await
}

struct Policy {
    max: u64,
}

#[derive(Default)]
struct Seen(std::sync::atomic::AtomicUsize);

#[pre_tool_use(group = "stateful", matches = "pay")]
fn capped(ctx: &mut PreToolUse, policy: &Policy) -> Decision {
    if ctx.args()["amount"].as_u64() > Some(policy.max) {
        Decision::deny("over the cap")
    } else {
        Decision::Continue
    }
}

#[pre_tool_use(group = "stateful")]
fn ready_now<'s>(_ctx: &mut PreToolUse, policy: &'s Policy) -> Deferred<'s, Decision> {
    Deferred::Ready(if policy.max > 0 {
        Decision::Continue
    } else {
        Decision::deny("closed")
    })
}

#[pre_tool_use(group = "stateful", observe)]
fn seen(_ctx: &PreToolUse, seen: &Seen) {
    seen.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn reading_state_allocates_nothing() {
    let hooks = Hooks::builder()
        .groups(["stateful"])
        .state(Policy { max: 100 })
        .state(Seen::default())
        .build()
        .unwrap();
    let pay = hooks.tool("pay");
    let session = Session::new("s");
    let mut small = PreToolUse::new(&session, "pay", json!({"amount": 5}));
    let mut large = PreToolUse::new(&session, "pay", json!({"amount": 500}));
    let _ = block_on(pay.dispatch(&mut small));
    let ((), allocations) = allocations_during(|| {
        for _ in 0..100 {
            assert!(block_on(pay.dispatch(&mut small)).is_continue());
            assert!(block_on(pay.dispatch(&mut large)).is_denied());
        }
    });
    assert_eq!(
        allocations, 0,
        "state, a ready `Deferred` and an observer allocate nothing"
    );
    assert_eq!(
        hooks
            .state::<Seen>()
            .unwrap()
            .0
            .load(std::sync::atomic::Ordering::Relaxed),
        201
    );
}

#[test]
fn sync_dispatch_allocates_nothing() {
    let hooks = Hooks::builder()
        .without(["alloc::async_guard", "alloc::timed_guard"])
        .without_groups(["stateful"])
        .build()
        .unwrap();
    let sql = hooks.tool("sql_query");
    let bash = hooks.tool("Bash");
    let post_sql = hooks.tool("sql_query");
    let session = Session::new("s");
    let mut select = PreToolUse::new(&session, "sql_query", json!({"query": "SELECT 1"}));
    let mut drop = PreToolUse::new(&session, "sql_query", json!({"query": "DROP TABLE t"}));
    let mut forced = PreToolUse::new(&session, "sql_query", json!({"force": true}));
    let mut rm = PreToolUse::new(&session, "Bash", json!({"command": "rm -rf /"}));
    let mut ls = PreToolUse::new(&session, "Bash", json!({"command": "ls"}));
    // Plain words are matched where they lie: spaces, assignments and wrappers cost nothing.
    let mut spaced = PreToolUse::new(&session, "Bash", json!({"command": "  rm   -rf  /"}));
    let mut wrapped = PreToolUse::new(
        &session,
        "Bash",
        json!({"command": "A=1 sudo timeout 5 /bin/rm -rf /"}),
    );
    let mut post = PostToolUse::new(&session, "sql_query", json!({}), Ok(json!([1, 2])));
    // Warm up: first use of thread-locals, tracing's callsite registration.
    let _ = block_on(sql.dispatch(&mut PreToolUse::new(&session, "sql_query", json!({}))));

    let (outcomes, allocations) = allocations_during(|| {
        [
            block_on(sql.dispatch(&mut select)).is_continue(),
            block_on(sql.dispatch(&mut drop)).is_denied(),
            block_on(sql.dispatch(&mut forced)).is_denied(),
            block_on(bash.dispatch(&mut rm)).is_denied(),
            block_on(bash.dispatch(&mut ls)).is_continue(),
            block_on(bash.dispatch(&mut spaced)).is_denied(),
            block_on(bash.dispatch(&mut wrapped)).is_denied(),
            block_on(post_sql.dispatch(&mut post)).is_continue(),
            block_on(hooks.dispatch(&mut select)).is_continue(),
            block_on(hooks.dispatch(&mut drop)).is_denied(),
            block_on(hooks.dispatch(&mut rm)).is_denied(),
            block_on(hooks.dispatch(&mut post)).is_continue(),
            done(sql.dispatch_now(&mut select)).is_continue(),
            done(sql.dispatch_now(&mut drop)).is_denied(),
            done(bash.dispatch_now(&mut rm)).is_denied(),
            done(post_sql.dispatch_now(&mut post)).is_continue(),
            done(hooks.dispatch_now(&mut select)).is_continue(),
            done(hooks.dispatch_now(&mut drop)).is_denied(),
        ]
    });
    assert_eq!(outcomes, [true; 18]);
    assert_eq!(allocations, 0, "sync dispatch allocated");
}

/// The outcome of a dispatch run without a future, which these never wait on.
fn done(now: Now<'_>) -> Outcome {
    match now {
        Now::Done(outcome) => outcome,
        Now::Wait(_) => panic!("a sync dispatch had to wait"),
    }
}

/// Finds nothing, and allocates nothing to say so.
struct NothingSecret;

impl hooks_core::Redact for NothingSecret {
    fn redact_text(&self, text: &str) -> Option<String> {
        text.contains("never-in-these-calls").then(String::new)
    }
}

#[test]
fn a_redactor_costs_no_allocation_when_there_is_nothing_to_redact() {
    let hooks = Hooks::builder()
        .without(["alloc::async_guard", "alloc::timed_guard"])
        .without_groups(["stateful"])
        .redactor(NothingSecret)
        .build()
        .unwrap();
    let sql = hooks.tool("sql_query");
    let session = Session::new("s");
    let mut select = PreToolUse::new(&session, "sql_query", json!({"query": "SELECT 1"}));
    let mut drop = PreToolUse::new(&session, "sql_query", json!({"query": "DROP TABLE t"}));
    let _ = block_on(sql.dispatch(&mut select));
    let ((), allocations) = allocations_during(|| {
        for _ in 0..100 {
            assert!(block_on(sql.dispatch(&mut select)).is_continue());
            assert!(block_on(sql.dispatch(&mut drop)).is_denied());
        }
    });
    assert_eq!(allocations, 0, "the denial's reason was redacted and kept");
}

#[test]
fn a_compound_command_is_parsed_and_parsing_allocates() {
    let hooks = Hooks::builder().only(["alloc::no_rm_rf"]).build().unwrap();
    let bash = hooks.tool("Bash");
    let session = Session::new("s");
    let mut compound = PreToolUse::new(&session, "Bash", json!({"command": "cd /tmp && rm -rf /"}));
    let mut quoted = PreToolUse::new(&session, "Bash", json!({"command": "echo 'rm -rf /'"}));
    let _ = block_on(bash.dispatch(&mut compound));
    let ((), allocations) = allocations_during(|| {
        assert!(block_on(bash.dispatch(&mut compound)).is_denied());
        assert!(block_on(bash.dispatch(&mut quoted)).is_continue());
    });
    // The shell parser builds a syntax tree: what a compound or quoted
    // command costs, and only such a command.
    assert!(allocations > 0);
}

#[test]
fn a_thousand_dispatches_allocate_nothing() {
    let hooks = Hooks::builder()
        .without(["alloc::async_guard", "alloc::timed_guard"])
        .without_groups(["stateful"])
        .build()
        .unwrap();
    let sql = hooks.tool("sql_query");
    let session = Session::new("s");
    let mut select = PreToolUse::new(&session, "sql_query", json!({"query": "SELECT 1"}));
    let _ = block_on(sql.dispatch(&mut select));
    let ((), allocations) = allocations_during(|| {
        for _ in 0..1_000 {
            assert!(block_on(sql.dispatch(&mut select)).is_continue());
        }
    });
    assert_eq!(allocations, 0);
}

#[test]
fn an_async_hook_costs_one_allocation() {
    let hooks = Hooks::builder()
        .only(["alloc::async_guard"])
        .build()
        .unwrap();
    let handle = hooks.tool("async_tool");
    let session = Session::new("s");
    let mut ctx = PreToolUse::new(&session, "async_tool", json!({"x": 1}));
    let _ = block_on(handle.dispatch(&mut ctx));
    let (outcome, allocations) = allocations_during(|| block_on(handle.dispatch(&mut ctx)));
    assert!(outcome.is_continue());
    assert_eq!(
        allocations, 1,
        "the async hook's boxed future, and nothing else"
    );
}

#[pre_tool_use(matches = "timed_tool", timeout_ms = 1_000)]
async fn timed_guard(ctx: &mut PreToolUse) -> Decision {
    needs_args(ctx).await
}

#[test]
fn a_timed_async_hook_that_finishes_at_once_costs_one_allocation_and_no_timer() {
    let hooks = Hooks::builder()
        .only(["alloc::timed_guard"])
        .build()
        .unwrap();
    let handle = hooks.tool("timed_tool");
    let mut ctx = PreToolUse::new(&Session::new("s"), "timed_tool", json!({"x": 1}));
    let _ = block_on(handle.dispatch(&mut ctx));
    // No Tokio runtime here: had a timer been armed, the hook would have failed.
    let (outcome, allocations) = allocations_during(|| block_on(handle.dispatch(&mut ctx)));
    assert!(outcome.is_continue());
    assert_eq!(allocations, 1);
}

#[test]
fn rewrites_are_recorded_without_allocating_for_provenance() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("zero", |ctx: &mut PreToolUse| {
            if let Some(n) = ctx.args_mut().get_mut("n") {
                *n = json!(0);
            }
        }))
        .build()
        .unwrap();
    let handle = hooks.tool("count");
    let mut ctx = PreToolUse::new(&Session::new("s"), "count", json!({"n": 5}));
    let (outcome, allocations) = allocations_during(|| block_on(handle.dispatch(&mut ctx)));
    assert!(outcome.is_continue());
    assert_eq!(ctx.rewrites().len(), 1);
    assert_eq!(
        allocations, 0,
        "the rewrite and its provenance record allocate nothing"
    );
}

#[post_model_response(group = "new_events")]
fn reply_guard(ctx: &PostModelResponse) -> Decision {
    if ctx.text().contains("PRIVATE KEY") {
        Decision::deny("the reply held a key")
    } else {
        Decision::Continue
    }
}

#[post_model_response(group = "new_events", priority = 1)]
fn reply_reader(ctx: &mut PostModelResponse) {
    // Borrowed mutably and left as it was: fingerprinted, no rewrite, no allocation.
    let _ = ctx.text_mut();
}

#[post_tool_use_failure(group = "new_events", matches = "sql_*")]
fn failure_reader(ctx: &mut PostToolUseFailure) {
    assert!(!ctx.error().message().is_empty());
}

#[subagent_start(group = "new_events")]
fn spawn_guard(ctx: &mut SubagentStart) -> Decision {
    if ctx.session().parent_agent_id().is_some() {
        Decision::deny("no nested sub-agents")
    } else {
        Decision::Continue
    }
}

#[subagent_stop(group = "new_events")]
fn sub_stop(ctx: &mut SubagentStop) -> Decision {
    if ctx.last_message().is_some() {
        Decision::Continue
    } else {
        Decision::deny("report first")
    }
}

#[pre_compact(group = "new_events")]
fn compact_reader(ctx: &mut PreCompact) {
    assert_eq!(ctx.trigger(), CompactTrigger::Auto);
}

#[permission_request(group = "new_events", matches = "Bash(rm *)")]
fn no_rm_dialog(_ctx: &PermissionRequest) -> Decision {
    Decision::deny("no rm")
}

#[notification(group = "new_events")]
fn notice_reader(ctx: &mut Notification) {
    assert!(!ctx.message().is_empty());
}

#[stop(group = "new_events")]
fn stop_guard(ctx: &Stop) -> Decision {
    if ctx.stop_hook_active() {
        Decision::Continue
    } else {
        Decision::deny("not yet")
    }
}

#[test]
fn the_new_events_and_guards_dispatch_without_allocating() {
    let hooks = Hooks::builder().groups(["new_events"]).build().unwrap();
    let session = Session::new("s");
    let child = session.sub_agent("helper");
    let mut reply = PostModelResponse::new(&session, "fine");
    let mut leaky = PostModelResponse::new(&session, "-----BEGIN PRIVATE KEY-----");
    let mut failure =
        PostToolUseFailure::new(&session, "sql_query", json!({}), ToolError::new("timeout"));
    let mut spawn = SubagentStart::new(&session, "helper", "help");
    let mut nested = SubagentStart::new(&child, "grandchild", "help");
    let mut sub_done = SubagentStop::new(&child).with_last_message("done");
    let mut compact = PreCompact::new(&session, CompactTrigger::Auto);
    let mut stop_now = Stop::new(&session).with_stop_hook_active(true);
    let mut stop_not_yet = Stop::new(&session);
    let mut dialog = PermissionRequest::new(&session, "Bash", json!({"command": "ls"}));
    let mut rm_dialog = PermissionRequest::new(&session, "Bash", json!({"command": "rm -rf a"}));
    let mut notice = Notification::new(&session, "waiting").with_notification_type("idle_prompt");
    let failures = hooks.tool("sql_query");
    let _ = block_on(hooks.dispatch(&mut PostModelResponse::new(&session, "warm up")));

    let (outcomes, allocations) = allocations_during(|| {
        [
            block_on(hooks.dispatch(&mut reply)).is_continue(),
            block_on(hooks.dispatch(&mut leaky)).is_denied(),
            block_on(failures.dispatch(&mut failure)).is_continue(),
            block_on(hooks.dispatch(&mut failure)).is_continue(),
            block_on(hooks.dispatch(&mut spawn)).is_continue(),
            block_on(hooks.dispatch(&mut nested)).is_denied(),
            block_on(hooks.dispatch(&mut sub_done)).is_continue(),
            block_on(hooks.dispatch(&mut compact)).is_continue(),
            block_on(hooks.dispatch(&mut stop_not_yet)).is_denied(),
            block_on(hooks.dispatch(&mut stop_now)).is_continue(),
            block_on(hooks.dispatch(&mut dialog)).is_continue(),
            block_on(hooks.dispatch(&mut rm_dialog)).is_denied(),
            block_on(hooks.dispatch(&mut notice)).is_continue(),
        ]
    });
    assert_eq!(outcomes, [true; 13]);
    assert_eq!(allocations, 0, "dispatching the new events allocated");
    assert!(reply.rewrites().is_empty());
}

#[test]
fn giving_a_call_its_tools_facts_allocates_nothing() {
    let hooks = Hooks::builder()
        .only(["alloc::sql_and_reads"])
        .tools([hooks_core::ToolFacts::new("sql_query").only_reads()])
        .build()
        .unwrap();
    let sql = hooks.tool("sql_query");
    let session = Session::new("s");
    let mut calls: Vec<PreToolUse> = (0..100)
        .map(|_| PreToolUse::new(&session, "sql_query", json!({"query": "SELECT 1"})))
        .collect();
    let _ = block_on(sql.dispatch(&mut PreToolUse::new(&session, "sql_query", json!({}))));
    let ((), allocations) = allocations_during(|| {
        for (n, call) in calls.iter_mut().enumerate() {
            let outcome = if n % 2 == 0 {
                block_on(sql.dispatch(call))
            } else {
                block_on(hooks.dispatch(call))
            };
            assert!(outcome.is_continue());
        }
    });
    assert_eq!(allocations, 0);
    assert!(calls.iter().all(|call| call.facts().is_some()));
}
