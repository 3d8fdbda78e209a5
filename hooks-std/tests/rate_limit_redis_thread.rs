//! The Redis store's own thread starts at its first decision and ends when
//! the store is dropped: a program of its own (one test, no other store in
//! the process), counting the threads by name in `/proc/self/task`.

#[path = "support/redis.rs"]
mod support;

use std::borrow::Cow;
use std::time::{Duration, Instant};

use hooks_std::rate_limit::{Admission, Key, Limit, Part, RedisStore};

/// Threads of this process named as the store names its own (`comm` keeps
/// 15 bytes: the whole name).
fn store_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim_end() == "hooks-std-redis")
        .count()
}

#[test]
fn the_stores_thread_starts_at_first_use_and_ends_with_the_store() {
    let redis = support::Redis::start();
    let store = RedisStore::open(&redis.url()).unwrap();
    assert_eq!(store_threads(), 0, "a thread before any decision");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let key = Key::new(0, [Part::Text(Cow::Borrowed("dana"))]);
    let limit = Limit::new(1_000, Duration::from_secs(1));
    runtime.block_on(async {
        store.trust_current_server().await.unwrap();
        assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    });
    assert_eq!(store_threads(), 1);
    drop(store);
    // It ends by itself once told: wait for that, with a generous bound.
    let deadline = Instant::now() + Duration::from_secs(60);
    while store_threads() > 0 {
        assert!(Instant::now() < deadline, "the store's thread outlived it");
        std::thread::sleep(Duration::from_millis(10));
    }
}
