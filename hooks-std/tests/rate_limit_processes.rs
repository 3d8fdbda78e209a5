//! The rate limit across processes, with real processes: a hook run as a
//! new process per event counts in a SQLite file.
//!
//! - 40 processes started at once, each opening the file and making one
//!   call against a limit of 10 calls: exactly 10 are admitted;
//! - `RateLimit { database, .. }` through `RateLimiter::new`: counts made by
//!   one limiter bind the next one opened on the file.
//!
//! A program of its own (`harness = false`): the same binary runs as the
//! children, so no child entry point shows up as a passing test.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hooks_core::Deferred;
use hooks_core::prelude::*;
use hooks_std::rate_limit::{RateLimit, RateLimiter, Rule, SqliteStore, WallClock};

const CHILD: &str = "HOOKS_STD_RATE_LIMIT_CHILD";
const PROCESSES: usize = 40;
const MAX: u32 = 10;
/// Per hour, not per minute: on a slow, busy machine the children may take
/// longer than a minute's refill interval (6 s) to start, and a refilled
/// slot would admit an eleventh.
const PER: Duration = Duration::from_secs(3_600);

fn main() {
    match std::env::var(CHILD).ok() {
        Some(path) => child(Path::new(&path)),
        None => {
            check(
                "processes_racing_for_one_file_admit_exactly_the_limit",
                processes_racing_for_one_file_admit_exactly_the_limit,
            );
            check(
                "a_configured_database_binds_the_next_limiter",
                a_configured_database_binds_the_next_limiter,
            );
        }
    }
}

fn check(name: &str, test: fn()) {
    print!("test {name} ... ");
    test();
    println!("ok");
}

fn limiter(store: SqliteStore) -> RateLimiter {
    RateLimiter::new(RateLimit::new(vec![Rule::new(MAX, PER)]))
        .unwrap()
        .with_store(store)
        .with_clock(WallClock)
}

/// The limiter's answer: the SQLite store answers at once.
fn decide(limiter: &RateLimiter, ctx: &PreToolUse) -> Decision {
    match limiter.check(ctx) {
        Deferred::Ready(decision) => decision,
        Deferred::Later(_) => panic!("the SQLite store answers at once"),
    }
}

/// A child: opens the file, makes one call, says whether it was admitted.
fn child(path: &Path) {
    let limiter = limiter(SqliteStore::open(path).unwrap());
    let session = Session::new("processes").with_user("dana");
    let call = PreToolUse::new(&session, "search", json!({}));
    match decide(&limiter, &call) {
        Decision::Continue => println!("admitted"),
        Decision::Deny(refusal) => {
            assert!(
                refusal.reason().starts_with("rate limit reached"),
                "refused for another reason: {}",
                refusal.reason()
            );
            println!("refused");
        }
        other @ Decision::Ask(_) => panic!("unexpected decision {other:?}"),
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-rate-processes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

fn processes_racing_for_one_file_admit_exactly_the_limit() {
    // No process creates the file first: they race for that too.
    let path = temp("race.db");
    let started = Instant::now();
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .env(CHILD, &path)
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .unwrap()
        })
        .collect();
    let (mut admitted, mut refused) = (0, 0);
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "a child failed: {}", output.status);
        match String::from_utf8(output.stdout).unwrap().trim() {
            "admitted" => admitted += 1,
            "refused" => refused += 1,
            other => panic!("a child said {other:?}"),
        }
    }
    assert!(
        started.elapsed() < PER / MAX,
        "too slow to be exact: a slot refilled meanwhile"
    );
    assert_eq!(
        (admitted, refused),
        (MAX, u32::try_from(PROCESSES).unwrap() - MAX),
        "admitted, refused"
    );
    // The file still binds a process that comes later.
    let limiter = limiter(SqliteStore::open(&path).unwrap());
    let session = Session::new("later").with_user("dana");
    let call = PreToolUse::new(&session, "search", json!({}));
    assert!(matches!(decide(&limiter, &call), Decision::Deny(_)));
}

fn a_configured_database_binds_the_next_limiter() {
    let path = temp("configured.db");
    let config = RateLimit {
        database: Some(path.clone()),
        ..RateLimit::new(vec![Rule::new(2, PER)])
    };
    let session = Session::new("s").with_user("dana");
    let call = PreToolUse::new(&session, "search", json!({}));
    let first = RateLimiter::new(config.clone()).unwrap();
    assert_eq!(decide(&first, &call), Decision::Continue);
    drop(first);
    let second = RateLimiter::new(config.clone()).unwrap();
    assert_eq!(decide(&second, &call), Decision::Continue);
    let Decision::Deny(refusal) = decide(&second, &call) else {
        panic!("the first limiter's call was not counted")
    };
    assert!(
        refusal
            .reason()
            .starts_with("rate limit reached: at most 2 calls per 1h")
    );
    // Another user's bucket is untouched.
    let other = Session::new("s").with_user("lee");
    let call = PreToolUse::new(&other, "search", json!({}));
    assert_eq!(decide(&second, &call), Decision::Continue);

    // A file that is not a database: an error naming it, at configuration.
    let bad = temp("not-a-database.db");
    std::fs::write(&bad, "not a database\n".repeat(100)).unwrap();
    let error = RateLimiter::new(RateLimit {
        database: Some(bad.clone()),
        ..config
    })
    .err()
    .unwrap()
    .to_string();
    assert!(
        error.starts_with(&format!(
            "rate-limit configuration: rate-limit store `{}`: ",
            bad.display()
        )),
        "{error}"
    );
}
