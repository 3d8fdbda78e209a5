//! Hooks added on the builder: closures, async closures and `RuntimeHook`
//! implementations run with the same order and failure rules as linked hooks,
//! and a bad one is reported by name when the dispatcher is built.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_core::{BuildProblem, DenialCause, EventKind, HookError, RuntimeHook, Verdict};
use hooks_tests::block_on;

struct CountingGuard(Arc<AtomicUsize>);

impl RuntimeHook<PreToolUse> for CountingGuard {
    fn call<'a>(&'a self, ctx: &'a mut PreToolUse) -> Deferred<'a, Verdict> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Deferred::Ready(Ok(if ctx.tool() == "blocked" {
            Decision::deny("blocked by a runtime guard")
        } else {
            Decision::Continue
        }))
    }
}

#[test]
fn closures_and_trait_objects_dispatch() {
    let calls = Arc::new(AtomicUsize::new(0));
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::from_runtime("counting", CountingGuard(calls.clone())))
        .hook(
            Hook::new("rewrite", |ctx: &mut PreToolUse| {
                ctx.args_mut()["checked"] = json!(true);
            })
            .matches("write_*"),
        )
        .build()
        .unwrap();
    let session = Session::new("s");
    let mut write = PreToolUse::new(&session, "write_file", json!({}));
    assert!(block_on(hooks.dispatch(&mut write)).is_continue());
    assert_eq!(write.args(), &json!({"checked": true}));
    assert_eq!(write.rewrites()[0].hook, "rewrite");

    let mut blocked = PreToolUse::new(&session, "blocked", json!({}));
    let outcome = block_on(hooks.dispatch(&mut blocked));
    assert_eq!(outcome.denial().unwrap().hook(), &"counting");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn async_closures_run_and_time_out() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new_async("waits", |ctx: &mut PreToolUse| {
            Box::pin(async move {
                tokio::task::yield_now().await;
                ctx.inject("waited");
            })
        }))
        .hook(
            Hook::new_async("hangs", |_: &mut PreToolUse| {
                Box::pin(async {
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    Decision::Continue
                })
            })
            .matches("slow")
            .timeout(Duration::from_millis(10)),
        )
        .build()
        .unwrap();
    let session = Session::new("s");
    let mut fast = PreToolUse::new(&session, "fast", json!({}));
    assert!(hooks.dispatch(&mut fast).await.is_continue());
    assert_eq!(fast.injected().text(), "waited");

    let mut slow = PreToolUse::new(&session, "slow", json!({}));
    let outcome = hooks.dispatch(&mut slow).await;
    assert_eq!(
        outcome.denial().unwrap().cause(),
        &DenialCause::Failed(HookError::TimedOut(Duration::from_millis(10)))
    );
}

#[test]
fn a_panicking_closure_fails_closed() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("explodes", |_: &mut PreToolUse| -> Decision {
            panic!("kaboom")
        }))
        .build()
        .unwrap();
    let mut ctx = PreToolUse::new(&Session::new("s"), "x", json!({}));
    let outcome = block_on(hooks.dispatch(&mut ctx));
    assert_eq!(
        outcome.denial().unwrap().cause(),
        &DenialCause::Failed(HookError::Panicked("kaboom".into()))
    );
}

#[test]
fn bad_runtime_hooks_are_reported_by_name_all_at_once() {
    let err = Hooks::builder()
        .without_linked()
        .hook(Hook::new("regexy", |_: &mut PreToolUse| {}).matches("sql_(.+"))
        .hook(Hook::new("strict_farewell", |_: &mut SessionEnd| {}).on_error(OnError::Deny))
        .build()
        .unwrap_err();
    assert_eq!(err.problems().len(), 2);
    assert!(matches!(
        &err.problems()[0],
        BuildProblem::BadPattern { event: EventKind::PreToolUse, hook, pattern, .. }
            if hook == "regexy" && pattern == "sql_(.+"
    ));
    let text = err.to_string();
    assert!(
        text.contains("pre_tool_use hook `regexy`: bad pattern \"sql_(.+\": missing `)`"),
        "{text}"
    );
    assert!(
        text.contains("session_end hook `strict_farewell`: `on_error = deny` is not possible"),
        "{text}"
    );
}

#[test]
fn a_runtime_hook_cannot_block_an_event_that_cannot_block() {
    struct Rogue;
    impl RuntimeHook<PostToolUse> for Rogue {
        fn call<'a>(&'a self, _: &'a mut PostToolUse) -> Deferred<'a, Verdict> {
            Deferred::Ready(Ok(Decision::deny("too late")))
        }
    }
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::from_runtime("rogue", Rogue))
        .build()
        .unwrap();
    let mut ctx = PostToolUse::new(&Session::new("s"), "x", json!({}), Ok(json!(1)));
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
}
