//! Rate-limit keys are of bounded size whatever the session carries: a user
//! id or metadata value of 10 MB must not become a 10 MB bucket key in
//! memory or in the SQLite file (Redis: `rate_limit_redis.rs`), and values
//! that differ — by one byte at the end of 10 MB, or in kind — still count
//! in buckets of their own.

use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

use hooks_core::Deferred;
use hooks_core::prelude::*;
use hooks_std::rate_limit::{
    Admission, By, Key, Limit, MAX_PART_LEN, MemoryStore, Part, RateLimit, RateLimiter, Rule,
};
use hooks_tests::alloc::{Counting, bytes_held_after};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const HOUR: Duration = Duration::from_secs(3_600);
const TEN_MB: usize = 10 * 1024 * 1024;

/// A value of `size` bytes ending in `last`.
fn long(size: usize, last: char) -> String {
    let mut value = "u".repeat(size - 1);
    value.push(last);
    value
}

/// One call an hour per user, tool and `org` metadata value.
fn rules() -> Vec<Rule> {
    vec![Rule::new(1, HOUR).by([By::User, By::Tool, By::Metadata("org".into())])]
}

fn decide(limiter: &RateLimiter, ctx: &PreToolUse) -> Decision {
    match limiter.check(ctx) {
        Deferred::Ready(decision) => decision,
        Deferred::Later(_) => panic!("memory and SQLite stores answer at once"),
    }
}

/// Sessions whose user id, `org` string or `org` object is `size` bytes.
fn long_sessions(size: usize, last: char) -> Vec<Session> {
    vec![
        Session::new("s").with_user(long(size, last)),
        Session::new("s").with_metadata("org", long(size, last)),
        Session::new("s").with_metadata("org", json!({ "name": long(size, last) })),
    ]
}

#[test]
fn a_ten_megabyte_value_keeps_no_ten_megabyte_key_in_memory() {
    let limiter = RateLimiter::new(RateLimit::new(rules())).unwrap();
    for session in long_sessions(TEN_MB, 'a') {
        let call = PreToolUse::new(&session, "search", json!({}));
        let (decision, held) = bytes_held_after(|| decide(&limiter, &call));
        assert_eq!(decision, Decision::Continue);
        // A bucket and its share of a shard's table, not the value.
        assert!(
            held < 64 * 1024,
            "the store keeps {held} bytes for one bucket"
        );
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-rate-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

#[test]
fn a_ten_megabyte_value_writes_no_ten_megabyte_row_in_sqlite() {
    let path = temp("huge.db");
    let limiter = RateLimiter::new(RateLimit {
        database: Some(path.clone()),
        ..RateLimit::new(rules())
    })
    .unwrap();
    for session in long_sessions(TEN_MB, 'a') {
        let call = PreToolUse::new(&session, "search", json!({}));
        assert_eq!(decide(&limiter, &call), Decision::Continue);
    }
    let file = rusqlite::Connection::open(&path).unwrap();
    let (rows, longest): (i64, i64) = file
        .query_row(
            "SELECT count(*), max(length(key)) FROM buckets",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(rows, 3);
    assert!(longest < 1024, "a bucket key of {longest} bytes");
}

#[test]
fn values_that_differ_anywhere_keep_buckets_of_their_own() {
    for database in [None, Some(temp("distinct.db"))] {
        let limiter = RateLimiter::new(RateLimit {
            database: database.clone(),
            ..RateLimit::new(rules())
        })
        .unwrap();
        // Long values differing in their last byte, and the same text as a
        // string and inside an object: six buckets, one call each.
        let sessions: Vec<Session> = long_sessions(64 * 1024, 'a')
            .into_iter()
            .chain(long_sessions(64 * 1024, 'b'))
            .collect();
        for session in &sessions {
            let call = PreToolUse::new(session, "search", json!({}));
            assert_eq!(
                decide(&limiter, &call),
                Decision::Continue,
                "{database:?}: a value shares a bucket with an earlier one"
            );
        }
        for session in &sessions {
            let call = PreToolUse::new(session, "search", json!({}));
            assert!(
                matches!(decide(&limiter, &call), Decision::Deny(_)),
                "{database:?}: a bucket counted nothing"
            );
        }
    }
}

#[test]
fn a_long_value_is_not_its_prefix_nor_another_kind() {
    let store = MemoryStore::default();
    let limit = Limit::new(1, HOUR);
    let long = "x".repeat(1_000);
    let keys = [
        Key::new(0, [Part::Text(Cow::Borrowed(&long))]),
        Key::new(0, [Part::Json(Cow::Borrowed(&long))]),
        Key::new(0, [Part::Text(Cow::Borrowed(&long[..999]))]),
        Key::new(0, [Part::Text(Cow::Borrowed(&long[..128]))]),
        Key::new(0, [Part::Text(Cow::Borrowed(&long[..129]))]),
        Key::new(1, [Part::Text(Cow::Borrowed(&long))]),
    ];
    let now = Duration::from_secs(1);
    for key in &keys {
        assert_eq!(store.admit(key, limit, now), Admission::Admitted, "{key:?}");
    }
    for key in &keys {
        assert!(matches!(
            store.admit(key, limit, now),
            Admission::RetryAfter(_)
        ));
    }
}

#[test]
fn a_bucket_with_every_part_at_the_longest_kept_value_holds_under_a_kibibyte() {
    let store = MemoryStore::default();
    let limit = Limit::new(1, HOUR);
    let now = Duration::from_secs(1);
    let buckets = 10_000;
    let values: Vec<[String; 4]> = (0..buckets)
        .map(|n| std::array::from_fn(|part| format!("{n:0>width$}", width = MAX_PART_LEN - part)))
        .collect();
    let ((), held) = bytes_held_after(|| {
        for value in &values {
            let key = Key::new(0, value.iter().map(|text| Part::Text(Cow::Borrowed(text))));
            assert_eq!(store.admit(&key, limit, now), Admission::Admitted);
        }
    });
    assert_eq!(store.len(), buckets);
    let each = held / isize::try_from(buckets).unwrap();
    assert!(each < 1024, "{each} bytes a bucket");
}
