//! Rate-limit decisions per second with 8 concurrent clients (tokio tasks,
//! each its own user), counted in memory and in a Redis server on this
//! machine (started by the tests' own setup, stopped after). Criterion's
//! elements per second are decisions per second.
//! Run with `cargo bench -p hooks-benches --bench rate_limit_stores`.

#[path = "../../hooks-std/tests/support/redis.rs"]
mod redis_server;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hooks_core::prelude::*;
use hooks_std::rate_limit::{By, RateLimit, RateLimiter, Rule};

const CLIENTS: u64 = 8;

/// Never full: every decision is counted and admitted, the common case.
fn rules() -> Vec<Rule> {
    vec![Rule::new(u32::MAX, Duration::from_secs(1)).by([By::User])]
}

/// Runs `iters` decisions split over the clients, all at once; the time they took.
fn decide(runtime: &tokio::runtime::Runtime, limiter: &Arc<RateLimiter>, iters: u64) -> Duration {
    runtime.block_on(async {
        let started = Instant::now();
        let clients: Vec<_> = (0..CLIENTS)
            .map(|client| {
                let limiter = Arc::clone(limiter);
                let calls = iters / CLIENTS + u64::from(client < iters % CLIENTS);
                tokio::spawn(async move {
                    let session = Session::new("bench").with_user(format!("user-{client}"));
                    let call = PreToolUse::new(&session, "search", json!({}));
                    for _ in 0..calls {
                        assert_eq!(limiter.check(&call).wait().await, Decision::Continue);
                    }
                })
            })
            .collect();
        for client in clients {
            client.await.expect("a client panicked");
        }
        started.elapsed()
    })
}

fn stores(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let redis = redis_server::Redis::start();
    let mut group = c.benchmark_group("rate-limit decisions, 8 concurrent clients");
    group.throughput(Throughput::Elements(1));

    let memory = Arc::new(RateLimiter::new(RateLimit::new(rules())).expect("valid rules"));
    group.bench_function("in-memory store", |b| {
        b.iter_custom(|iters| decide(&runtime, &memory, iters));
    });

    let shared = Arc::new(
        RateLimiter::new(RateLimit {
            store: Some(redis.url()),
            ..RateLimit::new(rules())
        })
        .expect("valid rules"),
    );
    group.bench_function("Redis store (127.0.0.1, one script per decision)", |b| {
        b.iter_custom(|iters| decide(&runtime, &shared, iters));
    });
    group.finish();
}

criterion_group!(benches, stores);
criterion_main!(benches);
