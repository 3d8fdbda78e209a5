//! The rate limit: exact under concurrency, per user / tool / metadata key,
//! retry-after, giving back slots, and the linked hook with its defaults.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::rate_limit::{By, ManualClock, RateLimit, RateLimiter, Rule};

hooks_core::link!(hooks_std);

const MINUTE: Duration = Duration::from_secs(60);

fn limiter(rules: Vec<Rule>, clock: &Arc<ManualClock>) -> RateLimiter {
    RateLimiter::new(RateLimit { rules })
        .unwrap()
        .with_clock(Arc::clone(clock))
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(Duration::from_secs(1_000)))
}

fn call(session: &Session, tool: &'static str) -> PreToolUse {
    PreToolUse::new(session, tool, json!({}))
}

#[test]
fn eight_threads_times_ten_thousand_calls_admit_exactly_the_limit() {
    let clock = clock();
    let limiter = Arc::new(limiter(
        vec![Rule::new(1_000, Duration::from_secs(3_600)).by([])],
        &clock,
    ));
    let admitted = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..8)
        .map(|thread| {
            let (limiter, admitted) = (Arc::clone(&limiter), Arc::clone(&admitted));
            std::thread::spawn(move || {
                let session = Session::new(format!("s{thread}")).with_user(format!("u{thread}"));
                let ctx = call(&session, "search");
                for _ in 0..10_000 {
                    if limiter.check(&ctx) == Decision::Continue {
                        admitted.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(admitted.load(Ordering::Relaxed), 1_000);
}

#[test]
fn buckets_are_per_user_and_tool_by_default() {
    let clock = clock();
    let limiter = limiter(vec![Rule::new(2, MINUTE)], &clock);
    let dana = Session::new("s").with_user("dana");
    let eli = Session::new("s").with_user("eli");
    for _ in 0..2 {
        assert_eq!(limiter.check(&call(&dana, "search")), Decision::Continue);
    }
    assert!(matches!(
        limiter.check(&call(&dana, "search")),
        Decision::Deny(_)
    ));
    assert_eq!(
        limiter.check(&call(&dana, "read")),
        Decision::Continue,
        "another tool"
    );
    assert_eq!(
        limiter.check(&call(&eli, "search")),
        Decision::Continue,
        "another user"
    );
}

#[test]
fn the_refusal_says_the_limit_and_when_to_retry() {
    let clock = clock();
    let limiter = limiter(
        vec![Rule::new(2, MINUTE).tools("sql_*").by([By::User])],
        &clock,
    );
    let session = Session::new("s").with_user("dana");
    let _ = limiter.check(&call(&session, "sql_query"));
    let _ = limiter.check(&call(&session, "sql_query"));
    let Decision::Deny(reason) = limiter.check(&call(&session, "sql_query")) else {
        panic!("the third call is over the limit");
    };
    assert_eq!(
        reason,
        "rate limit reached: at most 2 calls per 1m for each user (tools `sql_*`); \
         retry after 30.0s (retry_after_ms=30000) or call something else meanwhile"
    );
    clock.advance(Duration::from_secs(29));
    assert!(
        matches!(limiter.check(&call(&session, "sql_query")), Decision::Deny(reason) if reason.contains("retry after 1.0s"))
    );
    clock.advance(Duration::from_secs(1));
    assert_eq!(
        limiter.check(&call(&session, "sql_query")),
        Decision::Continue
    );
    assert_eq!(
        limiter.check(&call(&session, "search")),
        Decision::Continue,
        "not a sql_* tool"
    );
}

#[test]
fn metadata_keys_share_a_bucket_across_users() {
    let clock = clock();
    let limiter = limiter(
        vec![Rule::new(3, MINUTE).by([By::Metadata("org_id".into())])],
        &clock,
    );
    let acme = |user: &str| {
        Session::new("s")
            .with_user(user)
            .with_metadata("org_id", "acme")
    };
    let globex = Session::new("s")
        .with_user("zed")
        .with_metadata("org_id", "globex");
    for user in ["a", "b", "c"] {
        assert_eq!(
            limiter.check(&call(&acme(user), "search")),
            Decision::Continue
        );
    }
    assert!(matches!(
        limiter.check(&call(&acme("d"), "search")),
        Decision::Deny(_)
    ));
    assert_eq!(limiter.check(&call(&globex, "search")), Decision::Continue);
    // Numbers are keys too, distinct from the string with the same digits.
    let numeric = Session::new("s").with_metadata("org_id", 7);
    let textual = Session::new("s").with_metadata("org_id", "7");
    for _ in 0..3 {
        assert_eq!(limiter.check(&call(&numeric, "search")), Decision::Continue);
    }
    assert_eq!(limiter.check(&call(&textual, "search")), Decision::Continue);
}

#[test]
fn a_slot_is_given_back_when_a_later_rule_refuses() {
    let clock = clock();
    let limiter = limiter(
        vec![
            Rule::new(10, MINUTE).by([By::User]),
            Rule::new(1, MINUTE).tools("deploy").by([]),
        ],
        &clock,
    );
    let session = Session::new("s").with_user("dana");
    assert_eq!(limiter.check(&call(&session, "deploy")), Decision::Continue);
    for _ in 0..20 {
        assert!(matches!(
            limiter.check(&call(&session, "deploy")),
            Decision::Deny(_)
        ));
    }
    // The twenty refused deploys did not use up dana's per-user allowance.
    for _ in 0..9 {
        assert_eq!(limiter.check(&call(&session, "search")), Decision::Continue);
    }
    assert!(matches!(
        limiter.check(&call(&session, "search")),
        Decision::Deny(_)
    ));
}

#[tokio::test]
async fn the_linked_hook_uses_the_defaults_then_the_configuration() {
    let hooks = Hooks::builder()
        .only(["hooks_std::rate_limit::guard"])
        .build()
        .unwrap();
    let session = Session::new("s").with_user("dana");
    let mut outcomes = Vec::new();
    for _ in 0..61 {
        outcomes.push(
            hooks
                .dispatch(&mut call(&session, "search"))
                .await
                .is_continue(),
        );
    }
    assert_eq!(
        outcomes.iter().filter(|admitted| **admitted).count(),
        60,
        "60 per minute per user and tool"
    );

    hooks_std::rate_limit::configure(RateLimit {
        rules: vec![Rule::new(1, MINUTE)],
    })
    .unwrap();
    assert!(
        hooks
            .dispatch(&mut call(&session, "search"))
            .await
            .is_continue(),
        "a fresh store"
    );
    assert!(
        hooks
            .dispatch(&mut call(&session, "search"))
            .await
            .is_denied()
    );
    let error = hooks_std::rate_limit::configure(RateLimit {
        rules: vec![Rule::new(0, MINUTE)],
    })
    .unwrap_err();
    assert!(error.to_string().contains("rule 1: `max` is 0"));
    assert!(
        hooks
            .dispatch(&mut call(&session, "search"))
            .await
            .is_denied(),
        "the refused configuration changed nothing"
    );
}
