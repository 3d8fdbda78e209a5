//! The rate limit: exact under concurrency, per user / tool / metadata key,
//! retry-after, giving back slots, and the linked hook with its defaults.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::Deferred;
use hooks_core::prelude::*;
use hooks_std::rate_limit::{
    Admission, By, Key, Limit, ManualClock, MemoryStore, RateLimit, RateLimiter, Rule, Store,
    StoreError,
};

hooks_core::link!(hooks_std);

const MINUTE: Duration = Duration::from_secs(60);

fn limiter(rules: Vec<Rule>, clock: &Arc<ManualClock>) -> RateLimiter {
    RateLimiter::new(RateLimit::new(rules))
        .unwrap()
        .with_clock(Arc::clone(clock))
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(Duration::from_secs(1_000)))
}

/// The limiter's answer, which an in-memory store gives at once.
fn now(limiter: &RateLimiter, ctx: &PreToolUse) -> Decision {
    match limiter.check(ctx) {
        Deferred::Ready(decision) => decision,
        Deferred::Later(_) => panic!("the memory store answers at once"),
    }
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
                    if now(&limiter, &ctx) == Decision::Continue {
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
        assert_eq!(now(&limiter, &call(&dana, "search")), Decision::Continue);
    }
    assert!(matches!(
        now(&limiter, &call(&dana, "search")),
        Decision::Deny(_)
    ));
    assert_eq!(
        now(&limiter, &call(&dana, "read")),
        Decision::Continue,
        "another tool"
    );
    assert_eq!(
        now(&limiter, &call(&eli, "search")),
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
    let _ = now(&limiter, &call(&session, "sql_query"));
    let _ = now(&limiter, &call(&session, "sql_query"));
    let Decision::Deny(reason) = now(&limiter, &call(&session, "sql_query")) else {
        panic!("the third call is over the limit");
    };
    assert_eq!(
        reason,
        "rate limit reached: at most 2 calls per 1m for each user (tools `sql_*`); \
         retry after 30.0s or call something else meanwhile"
    );
    // For programs, the wait is typed, not hidden in the text.
    assert_eq!(
        reason.cause(),
        Some(&hooks_core::DenialCause::RateLimited {
            retry_after: Duration::from_secs(30)
        })
    );
    clock.advance(Duration::from_secs(29));
    assert!(
        matches!(now(&limiter, &call(&session, "sql_query")), Decision::Deny(reason) if reason.contains("retry after 1.0s"))
    );
    clock.advance(Duration::from_secs(1));
    assert_eq!(
        now(&limiter, &call(&session, "sql_query")),
        Decision::Continue
    );
    assert_eq!(
        now(&limiter, &call(&session, "search")),
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
            now(&limiter, &call(&acme(user), "search")),
            Decision::Continue
        );
    }
    assert!(matches!(
        now(&limiter, &call(&acme("d"), "search")),
        Decision::Deny(_)
    ));
    assert_eq!(now(&limiter, &call(&globex, "search")), Decision::Continue);
    // Numbers are keys too, distinct from the string with the same digits.
    let numeric = Session::new("s").with_metadata("org_id", 7);
    let textual = Session::new("s").with_metadata("org_id", "7");
    for _ in 0..3 {
        assert_eq!(now(&limiter, &call(&numeric, "search")), Decision::Continue);
    }
    assert_eq!(now(&limiter, &call(&textual, "search")), Decision::Continue);
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
    assert_eq!(now(&limiter, &call(&session, "deploy")), Decision::Continue);
    for _ in 0..20 {
        assert!(matches!(
            now(&limiter, &call(&session, "deploy")),
            Decision::Deny(_)
        ));
    }
    // The twenty refused deploys did not use up dana's per-user allowance.
    for _ in 0..9 {
        assert_eq!(now(&limiter, &call(&session, "search")), Decision::Continue);
    }
    assert!(matches!(
        now(&limiter, &call(&session, "search")),
        Decision::Deny(_)
    ));
}

#[tokio::test]
async fn the_linked_hook_counts_in_its_dispatchers_limiter() {
    let only_the_guard = || Hooks::builder().only(["hooks_std::rate_limit::guard"]);
    // Not asked for: not there, and nothing is limited.
    let unasked = only_the_guard().build().unwrap();
    assert_eq!(unasked.count::<PreToolUse>(), 0);
    // A limiter needs rules: none would limit nothing, and is refused.
    let error = RateLimiter::new(RateLimit::default()).err().unwrap();
    assert!(error.to_string().contains("no `rules`"), "{error}");
    let defaults = only_the_guard()
        .state(RateLimiter::new(RateLimit::new(vec![Rule::new(60, MINUTE)])).unwrap())
        .build()
        .unwrap();
    let strict = only_the_guard()
        .state(RateLimiter::new(RateLimit::new(vec![Rule::new(1, MINUTE)])).unwrap())
        .build()
        .unwrap();
    let session = Session::new("s").with_user("dana");
    let mut admitted = 0;
    for _ in 0..61 {
        admitted += usize::from(
            defaults
                .dispatch(&mut call(&session, "search"))
                .await
                .is_continue(),
        );
    }
    assert_eq!(admitted, 60, "60 per minute per user and tool");
    // The strict dispatcher counts in a store of its own: the 61 calls above
    // used none of its allowance.
    assert!(
        strict
            .dispatch(&mut call(&session, "search"))
            .await
            .is_continue()
    );
    assert!(
        strict
            .dispatch(&mut call(&session, "search"))
            .await
            .is_denied()
    );
    let error = RateLimiter::new(RateLimit::new(vec![Rule::new(0, MINUTE)]))
        .err()
        .unwrap();
    assert!(error.to_string().contains("rule 1: `max` is 0"));
}

/// A store that answers every question later, as a network store does,
/// counting in memory underneath; or fails, as an unreachable one does.
struct Remote {
    counts: MemoryStore,
    down: bool,
}

impl Store for Remote {
    fn acquire<'a>(
        &'a self,
        key: &Key<'_>,
        limit: Limit,
        now: Duration,
    ) -> Deferred<'a, Result<Admission, StoreError>> {
        let key = key.clone().into_owned();
        Deferred::Later(Box::pin(async move {
            tokio::task::yield_now().await;
            if self.down {
                return Err(StoreError::new("the test store", "connection refused"));
            }
            Ok(self.counts.admit(&key, limit, now))
        }))
    }

    fn release<'a>(&'a self, key: &Key<'_>, limit: Limit) -> Deferred<'a, Result<(), StoreError>> {
        let key = key.clone().into_owned();
        Deferred::Later(Box::pin(async move {
            tokio::task::yield_now().await;
            self.counts.give_back(&key, limit);
            Ok(())
        }))
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_store_that_answers_later_is_waited_on_and_given_slots_back() {
    let limiter = RateLimiter::new(RateLimit::new(vec![
        Rule::new(10, MINUTE).by([By::User]),
        Rule::new(1, MINUTE).tools("deploy").by([]),
    ]))
    .unwrap()
    .with_store(Remote {
        counts: MemoryStore::default(),
        down: false,
    });
    let hooks = Hooks::builder()
        .only(["hooks_std::rate_limit::guard"])
        .state(limiter)
        .build()
        .unwrap();
    let session = Session::new("s").with_user("dana");
    assert!(
        hooks
            .dispatch(&mut call(&session, "deploy"))
            .await
            .is_continue()
    );
    for _ in 0..5 {
        let outcome = hooks.dispatch(&mut call(&session, "deploy")).await;
        assert!(
            outcome
                .denial()
                .unwrap()
                .reason()
                .starts_with("rate limit reached")
        );
    }
    // The refused deploys gave back the per-user slots the first rule granted.
    for _ in 0..9 {
        assert!(
            hooks
                .dispatch(&mut call(&session, "search"))
                .await
                .is_continue()
        );
    }
    assert!(
        hooks
            .dispatch(&mut call(&session, "search"))
            .await
            .is_denied()
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_store_that_cannot_answer_denies() {
    let limiter = RateLimiter::new(RateLimit::new(vec![Rule::new(60, MINUTE)]))
        .unwrap()
        .with_store(Remote {
            counts: MemoryStore::default(),
            down: true,
        });
    let hooks = Hooks::builder()
        .only(["hooks_std::rate_limit::guard"])
        .state(limiter)
        .build()
        .unwrap();
    let outcome = hooks
        .dispatch(&mut call(&Session::new("s"), "search"))
        .await;
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "the rate limit cannot be checked (the test store: connection refused), and no call runs uncounted; \
         try again shortly (tools `*`)"
    );
}

#[test]
fn values_of_different_kinds_never_share_a_bucket() {
    let clock = clock();
    let limiter = limiter(
        vec![Rule::new(1, MINUTE).by([By::Metadata("tenant".into()), By::User])],
        &clock,
    );
    // Pairs that an encoding of "text, or a marker and JSON text" merges:
    // the number 7 and a string spelling its marked form; no user and an
    // empty user id; no tenant and an empty tenant.
    let pairs = [
        (
            Session::new("a").with_metadata("tenant", json!(7)),
            Session::new("b").with_metadata("tenant", json!("\u{0}7")),
        ),
        (
            Session::new("c").with_metadata("tenant", json!("x")),
            Session::new("d")
                .with_metadata("tenant", json!("x"))
                .with_user(""),
        ),
        (
            Session::new("e").with_user("u"),
            Session::new("f")
                .with_metadata("tenant", json!(""))
                .with_user("u"),
        ),
    ];
    for (first, second) in &pairs {
        assert_eq!(now(&limiter, &call(first, "search")), Decision::Continue);
        assert_eq!(
            now(&limiter, &call(second, "search")),
            Decision::Continue,
            "{:?} spent {:?}'s only call",
            second.metadata(),
            first.metadata()
        );
        // Each is its own bucket, and full now.
        assert!(matches!(
            now(&limiter, &call(first, "search")),
            Decision::Deny(_)
        ));
        assert!(matches!(
            now(&limiter, &call(second, "search")),
            Decision::Deny(_)
        ));
    }
}

#[test]
fn more_calls_than_nanoseconds_per_window_are_limited_all_the_same() {
    let clock = clock();
    // One call per 0.5 ns: rounding the interval to whole nanoseconds made
    // it 0, and every call went through.
    let limiter = limiter(
        vec![Rule::new(2_000, Duration::from_micros(1)).by([])],
        &clock,
    );
    let session = Session::new("s");
    let admitted = (0..10_000)
        .filter(|_| now(&limiter, &call(&session, "search")) == Decision::Continue)
        .count();
    assert_eq!(admitted, 2_000);
}

#[test]
fn a_flood_of_new_keys_cannot_grow_memory_or_reset_a_count() {
    let clock = clock();
    let mut config = RateLimit::new(vec![Rule::new(1, MINUTE).by([By::Session])]);
    config.max_buckets = 256;
    let limiter = RateLimiter::new(config)
        .unwrap()
        .with_clock(Arc::clone(&clock));
    let victim = Session::new("victim");
    assert_eq!(now(&limiter, &call(&victim, "search")), Decision::Continue);
    // A session id per call: each would be a new bucket.
    let mut refused = 0;
    for n in 0..50_000 {
        let flood = Session::new(format!("flood-{n}"));
        if let Decision::Deny(reason) = now(&limiter, &call(&flood, "search")) {
            assert!(reason.contains("retry after 60.0s"), "{reason}");
            refused += 1;
        }
    }
    assert!(refused >= 50_000 - 256, "{refused}");
    // The victim's bucket was not dropped to make room: still spent.
    assert!(matches!(
        now(&limiter, &call(&victim, "search")),
        Decision::Deny(_)
    ));
    assert_eq!(
        RateLimiter::new(RateLimit {
            max_buckets: 0,
            ..RateLimit::default()
        })
        .err()
        .unwrap()
        .to_string(),
        "rate-limit configuration: `max_buckets` is 0: no call could ever be counted"
    );
}
