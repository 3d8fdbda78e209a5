//! Hooks and helpers for the dispatch benchmarks.
//!
//! Groups: `matching` holds the two hooks that match `sql_query`;
//! `ten_noise` and `thousand_noise` hold 8 and 990 hooks that match other
//! tools, so `ten` = `matching` + `ten_noise` (10 hooks) and `thousand` = all (1,000).

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use hooks_core::prelude::*;

include!(concat!(env!("OUT_DIR"), "/noise.rs"));

/// The first matching guard: refuses DROP statements.
#[pre_tool_use(group = "matching", priority = -1, matches = "sql_*")]
pub fn no_drop(ctx: &mut PreToolUse) -> Decision {
    no_drop_body(ctx.args())
}

/// The second: refuses queries without a LIMIT on the `users` table.
#[pre_tool_use(group = "matching", matches = "sql_query")]
pub fn users_need_limit(ctx: &mut PreToolUse) -> Decision {
    users_need_limit_body(ctx.args())
}

/// The body of [`no_drop`], callable directly for the baseline.
#[inline]
pub fn no_drop_body(args: &Value) -> Decision {
    match args["query"].as_str() {
        Some(query) if query.starts_with("DROP") => Decision::deny("DROP is not allowed"),
        _ => Decision::Continue,
    }
}

/// The body of [`users_need_limit`], callable directly for the baseline.
#[inline]
pub fn users_need_limit_body(args: &Value) -> Decision {
    match args["query"].as_str() {
        Some(query) if query.contains("users") && !query.contains("LIMIT") => {
            Decision::deny("queries on users need a LIMIT")
        }
        _ => Decision::Continue,
    }
}

/// Polls an already pinned future that never waits, without a runtime.
///
/// # Panics
///
/// If the future waits.
pub fn ready_pinned<F: Future>(future: std::pin::Pin<&mut F>) -> F::Output {
    match future.poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a sync dispatch waited"),
    }
}

/// Polls a future that never waits to completion, without a runtime.
///
/// # Panics
///
/// If the future waits: the benchmarks dispatch sync hooks only.
pub fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a sync dispatch waited"),
    }
}

/// A dispatcher of the named groups.
///
/// # Panics
///
/// If the groups are not linked (they are, in this crate).
pub fn hooks(groups: &[&str]) -> Hooks {
    Hooks::builder()
        .groups(groups.iter().copied())
        .build()
        .expect("bench groups are linked")
}
