//! `dispatch_now`: a dispatch without a future gives what `dispatch` gives
//! — the same outcome, the same context afterwards — and hands back the
//! rest of the dispatch only when something in it really waits.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use hooks_core::prelude::*;
use hooks_core::{ApprovalRequest, Approver, BoxFuture};
use hooks_tests::{block_on, capture_logs};

/// Pends once (waking its task), then is ready: a hook or approver that
/// really waits, without a runtime.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[pre_tool_use(group = "now_plain", matches = "sql_query")]
fn no_drop(ctx: &mut PreToolUse) -> Decision {
    match ctx.args()["query"].as_str() {
        Some(query) if query.starts_with("DROP") => Decision::deny("DROP is not allowed"),
        _ => Decision::Continue,
    }
}

#[pre_tool_use(group = "now_plain", matches = "sql_query", priority = 5)]
fn add_limit(ctx: &mut PreToolUse) {
    if let Some(query) = ctx.args()["query"].as_str()
        && query.starts_with("SELECT")
        && !query.contains("LIMIT")
    {
        let limited = format!("{query} LIMIT 100");
        ctx.args_mut()["query"] = json!(limited);
    }
}

#[pre_tool_use(group = "now_plain", priority = 9)]
fn note_call(ctx: &mut PreToolUse) {
    ctx.inject("checked");
}

/// How many dispatches the observer saw: per dispatcher, as tests run in parallel.
#[derive(Default)]
struct Observed(AtomicUsize);
hooks_core::default_state!(Observed);

#[pre_tool_use(group = "now_plain", observe)]
fn count_calls(_: &PreToolUse, observed: &Observed) {
    observed.0.fetch_add(1, Ordering::Relaxed);
}

/// Waits before deciding, when the call says so.
#[pre_tool_use(group = "now_async", matches = "sql_query")]
async fn slow_check(ctx: &mut PreToolUse) -> Decision {
    if ctx.args()["wait"] == true {
        YieldOnce(false).await;
    }
    if ctx.args()["query"] == "DELETE" {
        Decision::deny("DELETE is not allowed")
    } else {
        Decision::Continue
    }
}

/// Runs after the async hook: not before it has answered.
#[pre_tool_use(group = "now_async", matches = "sql_query", priority = 5)]
fn after_slow(ctx: &mut PreToolUse) {
    ctx.inject("after the async hook");
}

#[pre_tool_use(group = "now_ask", matches = "pay")]
fn confirm(ctx: &mut PreToolUse) -> Decision {
    Decision::Ask(Approval::new(format!("pay {}?", ctx.args()["amount"])))
}

/// A person who says yes once the test lets them.
#[derive(Clone, Default)]
struct SlowYes(Arc<(AtomicBool, Mutex<Option<Waker>>)>);

impl SlowYes {
    fn answer(&self) {
        self.0.0.store(true, Ordering::SeqCst);
        if let Some(waker) = self.0.1.lock().unwrap().take() {
            waker.wake();
        }
    }
}

impl Approver for SlowYes {
    fn decide<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer> {
        Box::pin(async {
            std::future::poll_fn(|cx| {
                *self.0.1.lock().unwrap() = Some(cx.waker().clone());
                if self.0.0.load(Ordering::SeqCst) {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await;
            ApprovalAnswer::approve().by("bob")
        })
    }
}

fn done(now: Now<'_>) -> Outcome {
    match now {
        Now::Done(outcome) => outcome,
        Now::Wait(_) => panic!("this dispatch should not have waited"),
    }
}

/// What a dispatch left in its context, to compare two of them.
fn after(ctx: &PreToolUse) -> (Value, String, Vec<String>) {
    (
        ctx.args().clone(),
        ctx.injected().text().to_owned(),
        ctx.rewrites()
            .iter()
            .map(|rewrite| format!("{rewrite:?}"))
            .collect(),
    )
}

#[test]
fn dispatch_now_gives_what_dispatch_gives() {
    let hooks = Hooks::builder().groups(["now_plain"]).build().unwrap();
    let sql = hooks.tool("sql_query");
    let session = Session::new("s");
    let calls = [
        json!({"query": "SELECT * FROM t"}),
        json!({"query": "SELECT * FROM t LIMIT 5"}),
        json!({"query": "DROP TABLE t"}),
        json!({}),
    ];
    for args in calls {
        let mut awaited = sql.pre_tool_use(&session, args.clone());
        let expected = block_on(sql.dispatch(&mut awaited));
        let observed = || hooks.state::<Observed>().unwrap().0.load(Ordering::Relaxed);
        let before = observed();

        let mut by_handle = sql.pre_tool_use(&session, args.clone());
        let outcome = done(sql.dispatch_now(&mut by_handle));
        assert_eq!(outcome, expected, "{args}");
        assert_eq!(after(&by_handle), after(&awaited), "{args}");
        assert_eq!(observed(), before + 1, "the observer ran");

        let mut by_name = PreToolUse::new(&session, "sql_query", args.clone());
        assert_eq!(done(hooks.dispatch_now(&mut by_name)), expected, "{args}");
        assert_eq!(after(&by_name), after(&awaited), "{args}");
    }
    // The rewrite happened, and is recorded as by `add_limit`.
    let mut select = sql.pre_tool_use(&session, json!({"query": "SELECT 1"}));
    assert!(done(sql.dispatch_now(&mut select)).is_continue());
    assert_eq!(select.args()["query"], "SELECT 1 LIMIT 100");
    assert_eq!(select.rewrites()[0].hook, "dispatch_now::add_limit");
    // A context for another tool goes through every hook, as with `dispatch`.
    let mut other = sql.pre_tool_use(&session, json!({}));
    let mut drop = PreToolUse::new(&session, "sql_query", json!({"query": "DROP TABLE t"}));
    let read = hooks.tool("read_file");
    assert!(done(read.dispatch_now(&mut drop)).is_denied());
    assert!(done(read.dispatch_now(&mut other)).is_continue());
}

#[test]
fn an_async_hook_that_answers_at_once_is_done_now() {
    let hooks = Hooks::builder().groups(["now_async"]).build().unwrap();
    let sql = hooks.tool("sql_query");
    let session = Session::new("s");
    let mut delete = sql.pre_tool_use(&session, json!({"query": "DELETE"}));
    let outcome = done(sql.dispatch_now(&mut delete));
    assert_eq!(outcome.denial().unwrap().reason(), "DELETE is not allowed");
    let mut select = sql.pre_tool_use(&session, json!({"query": "SELECT"}));
    assert!(done(sql.dispatch_now(&mut select)).is_continue());
    assert_eq!(select.injected().text(), "after the async hook");
}

#[test]
fn an_async_hook_that_waits_hands_back_the_rest_of_the_dispatch() {
    let hooks = Hooks::builder().groups(["now_async"]).build().unwrap();
    let sql = hooks.tool("sql_query");
    let session = Session::new("s");
    for (query, denied) in [("DELETE", true), ("SELECT", false)] {
        let args = json!({"query": query, "wait": true});
        let mut awaited = sql.pre_tool_use(&session, args.clone());
        let expected = block_on(sql.dispatch(&mut awaited));
        assert_eq!(expected.is_denied(), denied);

        let mut ctx = sql.pre_tool_use(&session, args);
        let Now::Wait(rest) = sql.dispatch_now(&mut ctx) else {
            panic!("the async hook had not answered: the dispatch must wait");
        };
        let outcome = block_on(rest);
        assert_eq!(outcome, expected, "{query}");
        assert_eq!(after(&ctx), after(&awaited), "{query}");
    }
}

#[test]
fn a_loop_that_cannot_wait_never_runs_a_call_that_had_to_wait() {
    let hooks = Hooks::builder().groups(["now_async"]).build().unwrap();
    let sql = hooks.tool("sql_query");
    let mut ctx = sql.pre_tool_use(&Session::new("s"), json!({"query": "DELETE", "wait": true}));
    // As the documentation's loop does: only a `Done` that continues runs the tool.
    let runs = matches!(sql.dispatch_now(&mut ctx), Now::Done(outcome) if outcome.is_continue());
    assert!(!runs);
    // The hook after the waiting one did not run: the dispatch stopped there.
    assert_eq!(ctx.injected().text(), "");
}

// A runtime: an approval waits within its timeout, and a timer needs one.
#[tokio::test(flavor = "current_thread")]
async fn an_approval_answered_at_once_is_done_and_one_a_person_must_give_waits() {
    let session = Session::new("s");
    let instant = Hooks::builder()
        .groups(["now_ask"])
        .approver(|_: &ApprovalRequest| ApprovalAnswer::approve().by("alice"))
        .build()
        .unwrap();
    let pay = instant.tool("pay");
    let mut ctx = pay.pre_tool_use(&session, json!({"amount": 5}));
    assert!(done(pay.dispatch_now(&mut ctx)).is_continue());
    assert_eq!(ctx.approvals()[0].prompt, "pay 5?");

    let person = SlowYes::default();
    let slow = Hooks::builder()
        .groups(["now_ask"])
        .approver(person.clone())
        .build()
        .unwrap();
    let pay = slow.tool("pay");
    let mut ctx = pay.pre_tool_use(&session, json!({"amount": 7}));
    let rest = match pay.dispatch_now(&mut ctx) {
        Now::Wait(rest) => rest,
        Now::Done(outcome) => {
            panic!("the person had not answered: the dispatch must wait; {outcome:?}")
        }
    };
    assert!(person.0.1.lock().unwrap().is_some(), "the person was asked");
    person.answer();
    assert!(rest.await.is_continue());
    assert_eq!(ctx.approvals()[0].prompt, "pay 7?");

    // Nobody to ask: denied at once.
    let nobody = Hooks::builder().groups(["now_ask"]).build().unwrap();
    let pay = nobody.tool("pay");
    let mut ctx = pay.pre_tool_use(&session, json!({"amount": 9}));
    assert!(done(pay.dispatch_now(&mut ctx)).is_denied());
}

#[test]
fn debug_logging_does_not_make_a_dispatch_wait() {
    let hooks = Hooks::builder().groups(["now_plain"]).build().unwrap();
    let sql = hooks.tool("sql_query");
    let session = Session::new("s");
    let (outcomes, logs) = capture_logs(|| {
        let mut select = sql.pre_tool_use(&session, json!({"query": "SELECT 1"}));
        let mut drop = sql.pre_tool_use(&session, json!({"query": "DROP TABLE t"}));
        [
            done(sql.dispatch_now(&mut select)).is_continue(),
            done(sql.dispatch_now(&mut drop)).is_denied(),
        ]
    });
    assert_eq!(outcomes, [true, true]);
    assert!(
        logs.contains("dispatch_now::no_drop"),
        "the dispatch was traced: {logs}"
    );
}
