//! The rate limit across processes on a real Redis server: a service run as
//! replicas counts in one Redis.
//!
//! 4 processes × 2,500 calls (each process 8 at a time) against 1,000 calls
//! an hour: exactly 1,000 are admitted in all, the rest refused as over the
//! limit. The children name the server as `redis://127.0.0.1:${PORT}/0`,
//! the port taken from their environment, as a password would be.
//!
//! A program of its own (`harness = false`): the same binary runs as the
//! children, so no child entry point shows up as a passing test.

#[path = "support/redis.rs"]
mod support;

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_std::rate_limit::{RateLimit, RateLimiter, RedisStore, Rule};

const CHILD: &str = "HOOKS_STD_RATE_LIMIT_REDIS_CHILD";
const PORT: &str = "HOOKS_STD_RATE_LIMIT_REDIS_PORT";
const PROCESSES: usize = 4;
const CALLS: usize = 2_500;
const CONCURRENCY: usize = 8;
const MAX: u32 = 1_000;
const PER: Duration = Duration::from_secs(3_600);

fn main() {
    match std::env::var(CHILD).ok() {
        Some(_) => child(),
        None => {
            print!("test processes_sharing_one_redis_admit_exactly_the_limit ... ");
            processes_sharing_one_redis_admit_exactly_the_limit();
            println!("ok");
        }
    }
}

/// A child: its calls, 8 at a time; prints how many were admitted.
fn child() {
    let config = RateLimit {
        store: Some(format!("redis://127.0.0.1:${{{PORT}}}/0")),
        ..RateLimit::new(vec![Rule::new(MAX, PER)])
    };
    let limiter = Arc::new(RateLimiter::new(config).unwrap());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let admitted: usize = runtime.block_on(async {
        let tasks: Vec<_> = (0..CONCURRENCY)
            .map(|task| {
                let limiter = Arc::clone(&limiter);
                tokio::spawn(async move {
                    let session = Session::new("replicas").with_user("dana");
                    let mut admitted = 0;
                    for _ in (task..CALLS).step_by(CONCURRENCY) {
                        let call = PreToolUse::new(&session, "search", json!({}));
                        match limiter.check(&call).wait().await {
                            Decision::Continue => admitted += 1,
                            Decision::Deny(refusal) => assert!(
                                refusal.reason().starts_with("rate limit reached"),
                                "refused for another reason: {}",
                                refusal.reason()
                            ),
                            other @ Decision::Ask(_) => panic!("unexpected decision {other:?}"),
                        }
                    }
                    admitted
                })
            })
            .collect();
        let mut admitted = 0;
        for task in tasks {
            admitted += task.await.unwrap();
        }
        admitted
    });
    println!("{admitted}");
}

fn processes_sharing_one_redis_admit_exactly_the_limit() {
    let redis = support::Redis::start();
    // A new server holds every count there is: the burst is the limit's
    // (one not so declared waits a window, see `rate_limit_redis_restart.rs`).
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(
            RedisStore::open(&redis.url())
                .unwrap()
                .trust_current_server(),
        )
        .unwrap();
    let started = Instant::now();
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .env(CHILD, "1")
                .env(PORT, redis.address().rsplit(':').next().unwrap())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut admitted = Vec::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "a child failed: {}", output.status);
        let said = String::from_utf8(output.stdout).unwrap();
        admitted.push(
            said.trim()
                .parse::<u32>()
                .unwrap_or_else(|_| panic!("a child said {said:?}")),
        );
    }
    // One slot refills every PER / MAX: a run that took longer than that may
    // rightly have admitted one more per interval, and no more.
    let refills =
        u32::try_from(started.elapsed().as_nanos() / (PER / MAX).as_nanos()).unwrap_or(u32::MAX);
    let total = admitted.iter().sum::<u32>();
    assert!(
        (MAX..=MAX.saturating_add(refills)).contains(&total),
        "admitted {total} (per process: {admitted:?}); the limit is {MAX}, plus {refills} refilled"
    );
}
