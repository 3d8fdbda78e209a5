//! Hooks reading state, sync and async, deciding and observing, and hooks
//! answering now or later with `Deferred`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hooks_core::prelude::*;

struct Policy {
    max: u64,
}

#[derive(Default)]
struct Counter(AtomicU64);

struct Remote(Arc<str>);

#[pre_tool_use(matches = "pay")]
fn cap(ctx: &mut PreToolUse, policy: &Policy) -> Decision {
    match ctx.args()["amount"].as_u64() {
        Some(amount) if amount <= policy.max => Decision::Continue,
        _ => Decision::deny("too much"),
    }
}

#[pre_tool_use]
fn count_and_cap(_ctx: &mut PreToolUse, counter: &Counter, policy: &Policy) -> Decision {
    if counter.0.fetch_add(1, Ordering::Relaxed) < policy.max {
        Decision::Continue
    } else {
        Decision::deny("enough")
    }
}

#[pre_tool_use(timeout_ms = 100)]
async fn ask_remote(ctx: &mut PreToolUse, remote: &Remote) -> Result<Decision, String> {
    if ctx.tool() == &*remote.0 {
        Err("remote unavailable".to_owned())
    } else {
        Ok(Decision::Continue)
    }
}

#[pre_tool_use(timeout_ms = 100)]
fn cached<'s>(_ctx: &mut PreToolUse, counter: &'s Counter) -> Deferred<'s, Decision> {
    if counter.0.load(Ordering::Relaxed) % 2 == 0 {
        Deferred::Ready(Decision::Continue)
    } else {
        Deferred::Later(Box::pin(async move {
            counter.0.fetch_add(1, Ordering::Relaxed);
            Decision::Continue
        }))
    }
}

#[post_tool_use(observe)]
fn observe_count(_ctx: &PostToolUse, counter: &Counter) {
    counter.0.fetch_add(1, Ordering::Relaxed);
}

#[post_tool_use(observe)]
fn observe_later(_ctx: &PostToolUse) -> Deferred<'static, Result<(), String>> {
    Deferred::Later(Box::pin(async { Ok(()) }))
}

#[post_tool_use]
fn ready_unit(_ctx: &mut PostToolUse) -> Deferred<'static, ()> {
    Deferred::Ready(())
}

fn main() {
    let _ = Hooks::builder()
        .state(Policy { max: 10 })
        .state(Counter::default())
        .state(Remote("x".into()))
        .hook(Hook::new("closure", |_: &mut Stop, policy: &Policy| {
            if policy.max > 0 { Decision::Continue } else { Decision::deny("no") }
        }))
        .hook(Hook::observer("closure_observer", |_: &PreToolUse, counter: &Counter| {
            counter.0.fetch_add(1, Ordering::Relaxed);
        }))
        .hook(
            Hook::new_async_with_state("async_closure", |_: &mut PreToolUse, policy: &Policy| {
                Box::pin(async move {
                    if policy.max > 0 { Decision::Continue } else { Decision::deny("no") }
                })
            })
            .timeout(Duration::from_millis(50)),
        )
        .build();
}
