//! A Redis restart mid-run, without persistence, admits no more than the
//! limit: 8 processes share one limit of 200 calls an hour on a real
//! `redis-server`; once the 200 are spent, the server is killed (SIGKILL) or
//! shut down (`SHUTDOWN NOSAVE`) and started again, empty, on the same port;
//! the processes keep calling through the outage and after it. Counted over
//! the whole run, at most 200 calls are admitted (plus one per 18 s that
//! the run lasted: the limit's own refill).
//!
//! A program of its own (`harness = false`): the same binary runs as the
//! children, so no child entry point shows up as a passing test.

#[path = "support/children.rs"]
mod children;
#[path = "support/redis.rs"]
mod support;

use std::io::{BufRead, BufReader, Read as _, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_std::rate_limit::{RateLimit, RateLimiter, RedisStore, Rule};
use support::Redis;

const CHILD: &str = "HOOKS_STD_RATE_LIMIT_RESTART_CHILD";
const PORT: &str = "HOOKS_STD_RATE_LIMIT_RESTART_PORT";
const PROCESSES: usize = 8;
const MAX: u32 = 200;
const PER: Duration = Duration::from_secs(3_600);
/// Decisions each child makes once the server is back, before the run ends.
const AFTER: u32 = 20;
/// Generous bounds for a loaded two-core machine: only a hang reaches them.
const PATIENCE: Duration = Duration::from_secs(180);

fn main() {
    if std::env::var(CHILD).is_ok() {
        return child();
    }
    children::check(
        "a_sigkilled_redis_restarted_empty_admits_no_more_than_the_limit",
        || {
            restart_mid_run(Redis::stop);
        },
    );
    children::check(
        "a_redis_shut_down_and_restarted_empty_admits_no_more_than_the_limit",
        || {
            restart_mid_run(Redis::shutdown);
        },
    );
}

/// A child: decides until its stdin closes, one line per decision: `+`
/// admitted, `-` over the limit, `!` the store could not answer.
fn child() {
    let stop = Arc::new(AtomicBool::new(false));
    let stopper = Arc::clone(&stop);
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        stopper.store(true, Ordering::SeqCst);
    });
    let limiter = RateLimiter::new(RateLimit {
        store: Some(format!("redis://127.0.0.1:${{{PORT}}}/0")),
        ..RateLimit::new(vec![Rule::new(MAX, PER).by([])])
    })
    .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let session = Session::new("replicas").with_user("dana");
        let mut out = std::io::stdout().lock();
        while !stop.load(Ordering::SeqCst) {
            let call = PreToolUse::new(&session, "search", json!({}));
            let mark = match limiter.check(&call).wait().await {
                Decision::Continue => "+",
                Decision::Deny(refusal) if refusal.reason().starts_with("rate limit reached") => {
                    "-"
                }
                Decision::Deny(refusal) => {
                    assert!(
                        refusal
                            .reason()
                            .starts_with("the rate limit cannot be checked"),
                        "{}",
                        refusal.reason()
                    );
                    "!"
                }
                other @ Decision::Ask(_) => panic!("unexpected decision {other:?}"),
            };
            if writeln!(out, "{mark}").and_then(|()| out.flush()).is_err() {
                return;
            }
            if mark == "!" {
                // Pacing while the server is down, not a wait for anything.
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    });
}

/// What one child said so far.
#[derive(Default)]
struct Counts {
    admitted: AtomicU32,
    refused: AtomicU32,
    failed: AtomicU32,
}

impl Counts {
    fn decided(&self) -> u32 {
        self.admitted.load(Ordering::SeqCst) + self.refused.load(Ordering::SeqCst)
    }
}

struct Replica {
    child: Child,
    stdin: Option<ChildStdin>,
    counts: Arc<Counts>,
    reader: JoinHandle<()>,
}

fn spawn(redis: &Redis) -> Replica {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, "1")
        .env(PORT, redis.port().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take();
    let stdout = child.stdout.take().unwrap();
    let counts = Arc::new(Counts::default());
    let counting = Arc::clone(&counts);
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let counter = match line.unwrap().as_str() {
                "+" => &counting.admitted,
                "-" => &counting.refused,
                "!" => &counting.failed,
                other => panic!("a child said {other:?}"),
            };
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    Replica {
        child,
        stdin,
        counts,
        reader,
    }
}

/// Waits until `done` holds, failing the test with `what` past [`PATIENCE`].
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "waited {PATIENCE:?} for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn total(replicas: &[Replica], field: impl Fn(&Counts) -> &AtomicU32) -> u32 {
    replicas
        .iter()
        .map(|replica| field(&replica.counts).load(Ordering::SeqCst))
        .sum()
}

fn restart_mid_run(fault: fn(&mut Redis)) {
    let mut redis = Redis::start();
    // A new server holds every count there is: the burst is the limit's.
    let runtime = children::runtime();
    runtime
        .block_on(
            RedisStore::open(&redis.url())
                .unwrap()
                .trust_current_server(),
        )
        .unwrap();
    let started = Instant::now();
    let mut replicas: Vec<_> = (0..PROCESSES).map(|_| spawn(&redis)).collect();
    wait_until("the limit to be spent", || {
        total(&replicas, |c| &c.admitted) >= MAX
            && replicas
                .iter()
                .all(|r| r.counts.refused.load(Ordering::SeqCst) > 0)
    });
    let before = total(&replicas, |c| &c.admitted);
    let failed = total(&replicas, |c| &c.failed);
    fault(&mut redis);
    wait_until("the children to see the outage", || {
        total(&replicas, |c| &c.failed) >= failed + u32::try_from(PROCESSES).unwrap()
    });
    redis.resume();
    let decided: Vec<u32> = replicas.iter().map(|r| r.counts.decided()).collect();
    wait_until("decisions after the restart", || {
        replicas
            .iter()
            .zip(&decided)
            .all(|(replica, &before)| replica.counts.decided() >= before + AFTER)
    });
    for replica in &mut replicas {
        drop(replica.stdin.take());
    }
    for replica in &mut replicas {
        let status = children::wait(&mut replica.child, PATIENCE);
        assert!(status.success(), "a child failed: {status}");
    }
    let counts: Vec<(u32, u32, u32)> = replicas
        .into_iter()
        .map(|replica| {
            replica.reader.join().unwrap();
            let counts = &replica.counts;
            (
                counts.admitted.load(Ordering::SeqCst),
                counts.refused.load(Ordering::SeqCst),
                counts.failed.load(Ordering::SeqCst),
            )
        })
        .collect();
    let admitted: u32 = counts.iter().map(|c| c.0).sum();
    // One slot refills every PER / MAX (18 s): a run that lasted longer may
    // rightly have admitted one more per interval, and no more.
    let refills =
        u32::try_from(started.elapsed().as_nanos() / (PER / MAX).as_nanos()).unwrap_or(u32::MAX);
    assert!(
        before >= MAX,
        "only {before} admitted before the fault: the limit was not spent"
    );
    assert!(
        admitted <= MAX + refills,
        "admitted {admitted} in all ({before} before the restart); the limit is {MAX}, \
         plus {refills} refilled. Per child (admitted, refused, failed): {counts:?}"
    );
}
