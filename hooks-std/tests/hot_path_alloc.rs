//! The read-only and rate-limit checks allocate nothing on the calls they let
//! through. Counted with a global allocator that counts this thread's allocations.
//!
//! The read-only guard's allocation-free path is a tool judged by its name;
//! a call carrying SQL is parsed, and parsing allocates.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::rate_limit::{By, RateLimit, RateLimiter, Rule};
use hooks_tests::alloc::{Counting, allocations_during};

hooks_core::link!(hooks_std);

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn ready<F: Future>(future: F) -> F::Output {
    match pin!(future)
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("sync hooks never wait"),
    }
}

#[test]
fn admitted_calls_allocate_nothing() {
    let limiter = RateLimiter::new(RateLimit::new(vec![
        Rule::new(1_000_000, Duration::from_secs(1)),
        Rule::new(1_000_000, Duration::from_secs(1))
            .tools("sql_*")
            .by([By::Metadata("org".into())]),
    ]))
    .unwrap();
    let hooks = Hooks::builder()
        .state(limiter)
        .only([
            "hooks_std::read_only::guard",
            "hooks_std::rate_limit::guard",
        ])
        .build()
        .unwrap();
    let session = Session::new("s")
        .with_user("dana")
        .with_metadata("org", "acme")
        .with_metadata("read_only", true);
    let sql = hooks.tool("sql_list_tables");
    let search = hooks.tool("search");
    let mut select = PreToolUse::new(&session, "sql_list_tables", json!({"schema": "public"}));
    let mut read = PreToolUse::new(&session, "search", json!({"q": "rust"}));
    // First calls create the buckets.
    assert!(ready(sql.dispatch(&mut select)).is_continue());
    assert!(ready(search.dispatch(&mut read)).is_continue());

    let ((), count) = allocations_during(|| {
        for _ in 0..1_000 {
            assert!(ready(sql.dispatch(&mut select)).is_continue());
            assert!(ready(search.dispatch(&mut read)).is_continue());
        }
    });
    assert_eq!(count, 0);
}
