//! State for hooks: values given to the builder, read by hooks that take
//! `&T` after their context — sync, async, observers, runtime closures,
//! `Deferred` — resolved when the dispatcher is built, per dispatcher.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use hooks_core::prelude::*;
use hooks_core::{BuildProblem, EventKind};
use hooks_tests::block_on;

struct Limit(u64);

#[derive(Default)]
struct Seen(AtomicUsize);

#[pre_tool_use(group = "state_sync", matches = "pay")]
fn cap(ctx: &mut PreToolUse, limit: &Limit) -> Decision {
    match ctx.args()["amount"].as_u64() {
        Some(amount) if amount <= limit.0 => Decision::Continue,
        _ => Decision::deny(format!("over {}", limit.0)),
    }
}

#[pre_tool_use(group = "state_sync", observe)]
fn count(_ctx: &PreToolUse, seen: &Seen) {
    seen.0.fetch_add(1, Ordering::Relaxed);
}

#[pre_tool_use(group = "state_async")]
async fn cap_later(ctx: &mut PreToolUse, limit: &Limit, seen: &Seen) -> Decision {
    tokio::task::yield_now().await;
    seen.0.fetch_add(1, Ordering::Relaxed);
    if ctx.args()["amount"].as_u64() > Some(limit.0) {
        Decision::deny("over, later")
    } else {
        Decision::Continue
    }
}

/// Answers at once while the budget lasts, then asks "elsewhere" (a future).
struct Budget(AtomicU32);

#[pre_tool_use(group = "state_deferred")]
fn budgeted<'s>(_ctx: &mut PreToolUse, budget: &'s Budget) -> Deferred<'s, Decision> {
    if budget.0.load(Ordering::Relaxed) > 0 {
        budget.0.fetch_sub(1, Ordering::Relaxed);
        Deferred::Ready(Decision::Continue)
    } else {
        Deferred::Later(Box::pin(async move {
            tokio::task::yield_now().await;
            Decision::deny("budget spent; the refill service says no")
        }))
    }
}

fn pay(amount: u64) -> PreToolUse {
    PreToolUse::new(&Session::new("s"), "pay", json!({"amount": amount}))
}

#[test]
fn each_dispatcher_reads_its_own_state() {
    let strict = Hooks::builder()
        .groups(["state_sync"])
        .state(Limit(10))
        .state(Seen::default())
        .build()
        .unwrap();
    let lax = Hooks::builder()
        .groups(["state_sync"])
        .state(Limit(1_000))
        .state(Seen::default())
        .build()
        .unwrap();
    let outcome = block_on(strict.dispatch(&mut pay(100)));
    assert_eq!(outcome.denial().unwrap().reason(), "over 10");
    assert!(block_on(lax.dispatch(&mut pay(100))).is_continue());
    assert!(block_on(lax.dispatch(&mut pay(5))).is_continue());
    // The observer counted in each dispatcher's own `Seen`.
    assert_eq!(strict.state::<Seen>().unwrap().0.load(Ordering::Relaxed), 1);
    assert_eq!(lax.state::<Seen>().unwrap().0.load(Ordering::Relaxed), 2);
}

#[tokio::test]
async fn async_hooks_read_state() {
    let hooks = Hooks::builder()
        .groups(["state_async"])
        .state(Limit(50))
        .state(Seen::default())
        .build()
        .unwrap();
    assert!(hooks.dispatch(&mut pay(10)).await.is_continue());
    assert_eq!(
        hooks
            .dispatch(&mut pay(60))
            .await
            .denial()
            .unwrap()
            .reason(),
        "over, later"
    );
    assert_eq!(hooks.state::<Seen>().unwrap().0.load(Ordering::Relaxed), 2);
}

#[tokio::test]
async fn a_deferred_hook_answers_now_or_later() {
    let hooks = Hooks::builder()
        .groups(["state_deferred"])
        .state(Budget(AtomicU32::new(2)))
        .build()
        .unwrap();
    let handle = hooks.tool("pay");
    // Ready answers need no waiting: the dispatch finishes on its first poll.
    for _ in 0..2 {
        let mut ctx = pay(1);
        let mut dispatch = std::pin::pin!(handle.dispatch(&mut ctx));
        let first_poll = std::future::Future::poll(
            dispatch.as_mut(),
            &mut std::task::Context::from_waker(std::task::Waker::noop()),
        );
        assert!(matches!(
            first_poll,
            std::task::Poll::Ready(Outcome::CONTINUE)
        ));
    }
    // Then a future, which the dispatcher waits on.
    let outcome = handle.dispatch(&mut pay(1)).await;
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "budget spent; the refill service says no"
    );
}

#[tokio::test]
async fn runtime_closures_read_state() {
    let hooks = Hooks::builder()
        .without_linked()
        .state(Limit(10))
        .state(Seen::default())
        .hook(Hook::new("cap", |ctx: &mut PreToolUse, limit: &Limit| {
            if ctx.args()["amount"].as_u64() > Some(limit.0) {
                Decision::deny("closure says over")
            } else {
                Decision::Continue
            }
        }))
        .hook(Hook::observer("count", |_: &PreToolUse, seen: &Seen| {
            seen.0.fetch_add(1, Ordering::Relaxed);
        }))
        .hook(Hook::new_async_with_state(
            "count_later",
            |_: &mut PreToolUse, seen: &Seen| {
                Box::pin(async move {
                    seen.0.fetch_add(10, Ordering::Relaxed);
                })
            },
        ))
        .build()
        .unwrap();
    assert!(hooks.dispatch(&mut pay(5)).await.is_continue());
    let denied = hooks.dispatch(&mut pay(50)).await;
    assert_eq!(denied.denial().unwrap().reason(), "closure says over");
    // count_later ran once (the second call was denied before it), count twice.
    assert_eq!(hooks.state::<Seen>().unwrap().0.load(Ordering::Relaxed), 12);
}

#[test]
fn missing_state_is_a_build_error_naming_the_hook_and_the_type() {
    let error = Hooks::builder()
        .groups(["state_sync"])
        .state(Seen::default())
        .build()
        .unwrap_err();
    assert_eq!(
        error.problems(),
        [BuildProblem::MissingState {
            event: EventKind::PreToolUse,
            hook: "state::cap".into(),
            type_name: "state::Limit",
        }]
    );
    assert!(error.to_string().contains(
        "pre_tool_use hook `state::cap` reads state of type `state::Limit`, but the builder was \
         given none: add `.state(..)` with a `state::Limit` value"
    ));
    // A runtime closure's missing state is reported the same way.
    let error = Hooks::builder()
        .without_linked()
        .hook(Hook::new("needs_limit", |_: &mut Stop, _: &Limit| {}))
        .build()
        .unwrap_err();
    assert!(matches!(
        &error.problems()[0],
        BuildProblem::MissingState { event: EventKind::Stop, hook, type_name: "state::Limit" } if hook == "needs_limit"
    ));
}

#[test]
fn state_is_only_needed_by_the_hooks_kept() {
    // `state_sync` hooks need a `Limit`; left out, nobody asks for one.
    let hooks = Hooks::builder()
        .groups(["state_sync"])
        .without(["state::cap"])
        .state(Seen::default())
        .build()
        .unwrap();
    assert!(hooks.state::<Limit>().is_none());
}

#[test]
fn shared_state_is_one_value_for_several_dispatchers() {
    let seen = Arc::new(Seen::default());
    let build = || {
        Hooks::builder()
            .groups(["state_sync"])
            .state(Limit(10))
            .shared_state(Arc::clone(&seen))
            .build()
            .unwrap()
    };
    let (first, second) = (build(), build());
    assert!(block_on(first.dispatch(&mut pay(1))).is_continue());
    assert!(block_on(second.dispatch(&mut pay(1))).is_continue());
    assert_eq!(seen.0.load(Ordering::Relaxed), 2);
}

/// A type whose crate offers a default, made afresh for each dispatcher.
#[derive(Default)]
struct Counter(AtomicUsize);

hooks_core::default_state!(Counter);

#[pre_tool_use(group = "state_default")]
fn counted(_ctx: &mut PreToolUse, counter: &Counter) {
    counter.0.fetch_add(1, Ordering::Relaxed);
}

/// A type whose default cannot be made.
struct Unavailable;

impl Unavailable {
    fn connect() -> Result<Self, String> {
        Err("no policy server at policy.internal:7000".into())
    }
}

hooks_core::default_state!(Unavailable, Unavailable::connect);

#[pre_tool_use(group = "state_default_fails")]
fn needs_the_server(_ctx: &mut PreToolUse, _server: &Unavailable) {}

#[test]
fn defaults_are_made_per_dispatcher_and_a_failing_one_is_a_build_error() {
    let one = Hooks::builder().groups(["state_default"]).build().unwrap();
    let two = Hooks::builder().groups(["state_default"]).build().unwrap();
    assert!(block_on(one.dispatch(&mut pay(1))).is_continue());
    assert_eq!(one.state::<Counter>().unwrap().0.load(Ordering::Relaxed), 1);
    assert_eq!(two.state::<Counter>().unwrap().0.load(Ordering::Relaxed), 0);
    // A value given to the builder wins over the default.
    let given = Hooks::builder()
        .groups(["state_default"])
        .state(Counter(AtomicUsize::new(41)))
        .build()
        .unwrap();
    assert!(block_on(given.dispatch(&mut pay(1))).is_continue());
    assert_eq!(
        given.state::<Counter>().unwrap().0.load(Ordering::Relaxed),
        42
    );

    let error = Hooks::builder()
        .groups(["state_default_fails"])
        .build()
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("the default `state::Unavailable` (offered at tests/tests/state.rs:")
            && text.contains("could not be made: no policy server at policy.internal:7000"),
        "{text}"
    );
}

/// A policy only some dispatchers ask for.
struct Watchlist(Vec<&'static str>);

hooks_core::opt_in!(Watchlist);

#[pre_tool_use(group = "opt_in")]
fn watched(ctx: &mut PreToolUse, list: &Watchlist) -> Decision {
    if list.0.contains(&ctx.tool()) {
        Decision::deny("watched")
    } else {
        Decision::Continue
    }
}

#[pre_tool_use(group = "opt_in", observe)]
fn watched_too(_ctx: &PreToolUse, _list: &Watchlist, _counter: &Counter) {}

#[test]
fn an_opt_in_hook_runs_only_where_its_state_is_given() {
    // Not asked: left out, no error, nothing decided.
    let plain = Hooks::builder().groups(["opt_in"]).build().unwrap();
    assert_eq!(plain.count::<PreToolUse>(), 0);
    assert!(
        block_on(plain.dispatch(&mut PreToolUse::new(&Session::new("s"), "rm", json!({}))))
            .is_continue()
    );
    // Asked: it runs, and so does the observer reading it (with its other state's default).
    let asked = Hooks::builder()
        .groups(["opt_in"])
        .state(Watchlist(vec!["rm"]))
        .build()
        .unwrap();
    assert_eq!(asked.count::<PreToolUse>(), 2);
    assert!(
        block_on(asked.dispatch(&mut PreToolUse::new(&Session::new("s"), "rm", json!({}))))
            .is_denied()
    );
    // Required but not asked for: the requirement says so.
    let error = Hooks::builder()
        .groups(["opt_in"])
        .require([concat!(module_path!(), "::watched")])
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("is required, but it runs only in a dispatcher given a `state::Watchlist`"),
        "{error}"
    );
}

/// `Limit` under a second name: the macro compares types as written, so
/// only the dispatcher, which compares them by `TypeId`, can tell.
type Ceiling = Limit;

#[pre_tool_use(group = "state_repeated", matches = "pay")]
fn between(ctx: &mut PreToolUse, floor: &Limit, ceiling: &Ceiling) -> Decision {
    match ctx.args()["amount"].as_u64() {
        Some(amount) if amount >= floor.0 && amount <= ceiling.0 => Decision::Continue,
        _ => Decision::deny("out of range"),
    }
}

#[test]
fn a_type_read_twice_is_a_build_error_not_one_value_for_both() {
    // Built, `floor` and `ceiling` would both be `Limit(10)`: the hook would
    // let through only 10, whatever range its author meant.
    let error = Hooks::builder()
        .groups(["state_repeated"])
        .state(Limit(10))
        .build()
        .unwrap_err();
    assert_eq!(
        error.problems(),
        [BuildProblem::RepeatedState {
            event: EventKind::PreToolUse,
            hook: "state::between".into(),
            type_name: "state::Limit",
        }]
    );
    assert!(
        error.to_string().contains(
            "pre_tool_use hook `state::between` reads state of type `state::Limit` twice"
        ),
        "{error}"
    );
}
