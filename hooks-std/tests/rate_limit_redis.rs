//! The Redis rate-limit store on a real server (started per test, stopped
//! after): bursts, typed keys, expiry, giving back, configuration, an
//! outage — denied with a clear reason, then counted again —, keys of
//! bounded size whatever the session carries, a server
//! requiring a password (taken from the environment, never shown), and one
//! that accepts connections but never answers (denied within the timeout).

#[path = "support/redis.rs"]
mod support;

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::process::Command;
use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_std::rate_limit::{
    Admission, By, Key, Limit, OnStoreError, Part, REDIS_MAX_WAITING, REDIS_TIMEOUT, RateLimit,
    RateLimiter, RedisStore, Rule,
};
use support::Redis;

const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3_600);

fn text(value: &str) -> Part<'_> {
    Part::Text(Cow::Borrowed(value))
}

/// A plain connection for looking at what the store wrote.
fn inspect(redis: &Redis) -> redis::Connection {
    redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap()
}

/// A new server, declared to hold every count there is: the tests here count
/// from a full burst (a server not so declared is tested in
/// `rate_limit_redis_restart.rs`).
async fn start() -> Redis {
    let redis = Redis::start();
    trust(&redis.url()).await;
    redis
}

async fn trust(url: &str) {
    RedisStore::open(url)
        .unwrap()
        .trust_current_server()
        .await
        .unwrap();
}

/// The bucket keys on the server: every key but the 256 epochs.
fn buckets(redis: &Redis) -> Vec<String> {
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query(&mut inspect(redis))
        .unwrap();
    keys.into_iter()
        .filter(|key| !key.ends_with("}epoch"))
        .collect()
}

fn config(redis: &Redis, rules: Vec<Rule>) -> RateLimit {
    RateLimit {
        store: Some(redis.url()),
        ..RateLimit::new(rules)
    }
}

#[tokio::test]
async fn a_burst_of_exactly_max_then_the_wait_for_one_call() {
    let redis = start().await;
    let store = RedisStore::open(&redis.url()).unwrap();
    let key = Key::new(0, [text("dana")]);
    let limit = Limit::new(3, MINUTE);
    for _ in 0..3 {
        assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    }
    let Ok(Admission::RetryAfter(wait)) = store.admit(&key, limit).await else {
        panic!("a fourth call in a burst of three was admitted");
    };
    // One call's worth (20 s), less the moments since the burst.
    assert!(
        wait <= Duration::from_secs(20) && wait > Duration::from_secs(19),
        "{wait:?}"
    );
    // Another key has its own bucket.
    let other = Key::new(0, [text("lee")]);
    assert_eq!(store.admit(&other, limit).await, Ok(Admission::Admitted));
}

#[tokio::test]
async fn a_call_costing_a_fraction_of_a_microsecond_is_counted_exactly() {
    // 7 a minute: one call costs 8,571,428 4/7 µs, not a whole number.
    let redis = start().await;
    let store = RedisStore::open(&redis.url()).unwrap();
    let key = Key::new(0, [text("dana")]);
    let limit = Limit::new(7, MINUTE);
    for _ in 0..7 {
        assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    }
    let Ok(Admission::RetryAfter(wait)) = store.admit(&key, limit).await else {
        panic!("an eighth call in a burst of seven was admitted");
    };
    // Seven calls cost exactly the minute: the wait is one call's cost,
    // rounded up to the microsecond, less the moments since the burst.
    assert!(wait <= Duration::from_micros(8_571_429), "{wait:?}");
    assert!(wait > Duration::from_secs(8), "{wait:?}");
}

#[tokio::test]
async fn a_changed_max_keeps_the_bucket_time() {
    let redis = start().await;
    let store = RedisStore::open(&redis.url()).unwrap();
    let key = Key::new(0, [text("dana")]);
    // Two of 100 a minute: 1.2 s ahead of now.
    for _ in 0..2 {
        let admitted = store.admit(&key, Limit::new(100, MINUTE)).await;
        assert_eq!(admitted, Ok(Admission::Admitted));
    }
    // Now 10 a minute: the 1.2 s spent is a fifth of a call, so nine more
    // (not ten: no fresh burst), then a wait of about 1.2 s (not decades).
    let limit = Limit::new(10, MINUTE);
    for _ in 0..9 {
        assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    }
    let Ok(Admission::RetryAfter(wait)) = store.admit(&key, limit).await else {
        panic!("a fresh burst after the change");
    };
    assert!(
        wait <= Duration::from_millis(1_200) && wait > Duration::from_secs(1),
        "{wait:?}"
    );
}

#[tokio::test]
async fn values_of_different_kinds_never_share_a_bucket() {
    let redis = start().await;
    let store = RedisStore::open(&redis.url()).unwrap();
    let limit = Limit::new(1, MINUTE);
    let json = |value: &'static str| Part::Json(Cow::Borrowed(value));
    let keys = [
        Key::new(0, [text("7")]),
        Key::new(0, [json("7")]),
        Key::new(0, [Part::Absent]),
        Key::new(0, [text("")]),
        Key::new(0, [text("null")]),
        Key::new(0, [json("null")]),
        Key::new(0, [text(r#"["text","7"]"#)]),
        Key::new(0, []),
        Key::new(1, [text("7")]),
        Key::new(0, [text("a"), text("b")]),
        Key::new(0, [text("a,b")]),
        Key::new(0, [text("a"), Part::Absent]),
    ];
    for key in &keys {
        assert_eq!(
            store.admit(key, limit).await,
            Ok(Admission::Admitted),
            "{key:?} shares a bucket with an earlier key"
        );
    }
    for key in &keys {
        assert!(matches!(
            store.admit(key, limit).await,
            Ok(Admission::RetryAfter(_))
        ));
    }
}

#[tokio::test]
async fn keys_are_namespaced_and_expire_when_full_again() {
    let redis = start().await;
    let store = RedisStore::open(&redis.url())
        .unwrap()
        .with_prefix("billing:");
    let key = Key::new(0, [text("dana")]);
    let name = store.redis_key(&key);
    // The hash tag first, so no prefix or value can choose the slot.
    let tag = name
        .strip_prefix("hooks:rl:{")
        .and_then(|rest| rest.strip_suffix(r#"}billing:[0,["text","dana"]]"#))
        .unwrap_or_else(|| panic!("{name}"));
    assert!(tag.parse::<u16>().is_ok_and(|tag| tag < 256), "{name}");
    let limit = Limit::new(10, HOUR);
    assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    let mut connection = inspect(&redis);
    let ttl: i64 = redis::cmd("PTTL")
        .arg(&name)
        .query(&mut connection)
        .unwrap();
    // One call of ten an hour: full again in six minutes.
    assert!(ttl > 0 && ttl <= 360_001, "{ttl}");
    assert!(ttl > 350_000, "{ttl}");
    assert_eq!(buckets(&redis), [name]);
}

/// A 10 MB value ending in `last`.
fn huge(last: char) -> String {
    let mut value = "u".repeat(10 * 1024 * 1024 - 1);
    value.push(last);
    value
}

#[tokio::test]
async fn a_ten_megabyte_value_makes_a_short_key_and_values_that_differ_stay_apart() {
    let redis = start().await;
    let limiter = RateLimiter::new(config(
        &redis,
        vec![Rule::new(1, HOUR).by([By::User, By::Metadata("org".into())])],
    ))
    .unwrap();
    let sessions = [
        Session::new("s").with_user(huge('a')),
        Session::new("s").with_user(huge('b')),
        Session::new("s").with_metadata("org", huge('a')),
        Session::new("s").with_metadata("org", json!({ "name": huge('a') })),
    ];
    for session in &sessions {
        let call = PreToolUse::new(session, "search", json!({}));
        assert_eq!(limiter.check(&call).wait().await, Decision::Continue);
    }
    for session in &sessions {
        let call = PreToolUse::new(session, "search", json!({}));
        assert!(
            matches!(limiter.check(&call).wait().await, Decision::Deny(_)),
            "a bucket counted nothing"
        );
    }
    let keys = buckets(&redis);
    assert_eq!(keys.len(), 4, "one bucket each");
    for key in keys {
        assert!(key.len() < 1024, "a Redis key of {} bytes", key.len());
    }
}

#[tokio::test]
async fn a_given_back_slot_can_be_taken_again() {
    let redis = start().await;
    let store = RedisStore::open(&redis.url()).unwrap();
    let key = Key::new(0, [text("dana")]);
    let limit = Limit::new(2, HOUR);
    for _ in 0..2 {
        assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    }
    assert!(matches!(
        store.admit(&key, limit).await,
        Ok(Admission::RetryAfter(_))
    ));
    store.give_back(&key, limit).await.unwrap();
    assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    assert!(matches!(
        store.admit(&key, limit).await,
        Ok(Admission::RetryAfter(_))
    ));
    // Giving everything back leaves a full bucket: no key at all.
    for _ in 0..2 {
        store.give_back(&key, limit).await.unwrap();
    }
    let exists: i64 = redis::cmd("EXISTS")
        .arg(store.redis_key(&key))
        .query(&mut inspect(&redis))
        .unwrap();
    assert_eq!(exists, 0);
    // Giving back to a bucket with no key creates none.
    let nobody = Key::new(0, [text("nobody")]);
    store.give_back(&nobody, limit).await.unwrap();
    let exists: i64 = redis::cmd("EXISTS")
        .arg(store.redis_key(&nobody))
        .query(&mut inspect(&redis))
        .unwrap();
    assert_eq!(exists, 0);
}

#[tokio::test]
async fn a_later_rule_refusing_gives_the_earlier_slot_back() {
    let redis = start().await;
    let limiter = RateLimiter::new(config(
        &redis,
        vec![
            Rule::new(5, HOUR).by([By::User]),
            Rule::new(1, HOUR).tools("sql_*").by([By::User]),
        ],
    ))
    .unwrap();
    let session = Session::new("s").with_user("dana");
    let sql = || PreToolUse::new(&session, "sql_query", json!({}));
    assert_eq!(limiter.check(&sql()).wait().await, Decision::Continue);
    for _ in 0..3 {
        assert!(matches!(
            limiter.check(&sql()).wait().await,
            Decision::Deny(_)
        ));
    }
    // The refused calls' slots in the first rule were given back: four left.
    for _ in 0..4 {
        let call = PreToolUse::new(&session, "search", json!({}));
        assert_eq!(limiter.check(&call).wait().await, Decision::Continue);
    }
    let call = PreToolUse::new(&session, "search", json!({}));
    assert!(matches!(
        limiter.check(&call).wait().await,
        Decision::Deny(_)
    ));
}

#[tokio::test]
async fn redis_stopped_mid_run_denies_saying_so_then_counts_again() {
    let mut redis = start().await;
    let limiter = RateLimiter::new(config(&redis, vec![Rule::new(1_000, HOUR)])).unwrap();
    let session = Session::new("s").with_user("dana");
    let call = || PreToolUse::new(&session, "search", json!({}));
    for _ in 0..10 {
        assert_eq!(limiter.check(&call()).wait().await, Decision::Continue);
    }
    redis.stop();
    for _ in 0..10 {
        let Decision::Deny(refusal) = limiter.check(&call()).wait().await else {
            panic!("a call was admitted while Redis was down");
        };
        let reason = refusal.reason();
        assert!(
            reason.contains(&format!("Redis at {}/0: unreachable", redis.address())),
            "{reason}"
        );
        assert!(
            reason.starts_with("the rate limit cannot be checked"),
            "{reason}"
        );
    }
    redis.resume();
    // The connection is remade: within a few tries, calls are counted again,
    // at the steady rate (one per 3.6 s): the server came back empty, and
    // the burst waits a window (see `rate_limit_redis_restart.rs`).
    let mut tries = 0;
    while limiter.check(&call()).wait().await != Decision::Continue {
        tries += 1;
        assert!(tries < 100, "still denied after Redis came back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let Decision::Deny(refusal) = limiter.check(&call()).wait().await else {
        panic!("a burst right after the restart");
    };
    assert!(
        refusal.reason().starts_with("rate limit reached"),
        "{}",
        refusal.reason()
    );
}

#[tokio::test]
async fn on_store_error_allow_lets_calls_through_uncounted() {
    let mut redis = start().await;
    let limiter = RateLimiter::new(RateLimit {
        on_store_error: OnStoreError::Allow,
        ..config(&redis, vec![Rule::new(1, HOUR)])
    })
    .unwrap();
    let session = Session::new("s").with_user("dana");
    let call = || PreToolUse::new(&session, "search", json!({}));
    assert_eq!(limiter.check(&call()).wait().await, Decision::Continue);
    assert!(matches!(
        limiter.check(&call()).wait().await,
        Decision::Deny(_)
    ));
    redis.stop();
    for _ in 0..3 {
        assert_eq!(limiter.check(&call()).wait().await, Decision::Continue);
    }
}

#[test]
fn an_unset_variable_in_the_store_address_is_an_error_naming_it() {
    // A set one is replaced: the processes test names its port that way.
    let error = RateLimiter::new(RateLimit {
        store: Some("redis://:${HOOKS_TEST_UNSET_PASSWORD}@127.0.0.1/0".to_owned()),
        ..RateLimit::new(vec![Rule::new(1, HOUR)])
    })
    .err()
    .unwrap()
    .to_string();
    assert_eq!(
        error,
        "rate-limit configuration: `store` names `${HOOKS_TEST_UNSET_PASSWORD}`, \
         and that variable is not set"
    );
}

#[test]
fn store_and_database_together_is_an_error() {
    let error = RateLimiter::new(RateLimit {
        store: Some("redis://127.0.0.1/".to_owned()),
        database: Some("counts.db".into()),
        ..RateLimit::new(vec![Rule::new(1, HOUR)])
    })
    .err()
    .unwrap()
    .to_string();
    assert!(error.contains("both `database` and `store`"), "{error}");
    let error = RateLimiter::new(RateLimit {
        store: Some("memcached://127.0.0.1/".to_owned()),
        ..RateLimit::new(vec![Rule::new(1, HOUR)])
    })
    .err()
    .unwrap()
    .to_string();
    assert!(error.contains("`memcached://`"), "{error}");
}

#[test]
fn the_store_is_read_from_a_config_table() {
    let table: RateLimit = toml::from_str(
        r#"
        store = "redis://:${REDIS_PASSWORD}@cache:6379/2"
        key_prefix = "billing:"
        on_store_error = "allow"
        [[rules]]
        max = 60
        per = "1m"
        "#,
    )
    .unwrap();
    assert_eq!(
        table.store.as_deref(),
        Some("redis://:${REDIS_PASSWORD}@cache:6379/2")
    );
    assert_eq!(table.key_prefix, "billing:");
    assert_eq!(table.on_store_error, OnStoreError::Allow);
    let unknown = toml::from_str::<RateLimit>("stor = \"redis://x/\"").unwrap_err();
    assert!(unknown.to_string().contains("unknown field"), "{unknown}");
}

/// A password no test names twice: 32 hex digits from std's random hash keys.
fn random_password() -> String {
    let half = || RandomState::new().hash_one(std::process::id());
    format!("{:016x}{:016x}", half(), half())
}

#[tokio::test]
async fn a_wrong_or_missing_password_is_an_error_that_never_shows_it() {
    let password = random_password();
    let redis = Redis::start_with_password(&password);
    let key = Key::new(0, [text("dana")]);
    let limit = Limit::new(2, HOUR);
    let right_url = format!("redis://:{password}@{}/0", redis.address());
    trust(&right_url).await;
    let right = RedisStore::open(&right_url).unwrap();
    assert_eq!(right.address(), format!("{}/0", redis.address()));
    assert_eq!(right.admit(&key, limit).await, Ok(Admission::Admitted));
    let wrong_password = random_password();
    let wrong =
        RedisStore::open(&format!("redis://:{wrong_password}@{}/0", redis.address())).unwrap();
    assert!(
        !wrong.address().contains(&wrong_password),
        "{}",
        wrong.address()
    );
    let missing = RedisStore::open(&redis.url()).unwrap();
    for store in [&wrong, &missing] {
        let started = Instant::now();
        let error = store.admit(&key, limit).await.unwrap_err().to_string();
        assert!(
            started.elapsed() < REDIS_TIMEOUT * 2,
            "{:?}",
            started.elapsed()
        );
        assert!(
            error.starts_with(&format!("Redis at {}/0: ", redis.address())),
            "{error}"
        );
        assert!(error.contains("auth") || error.contains("AUTH"), "{error}");
        assert!(!error.contains(&wrong_password), "{error}");
        assert!(!error.contains(&password), "{error}");
    }
    // Nothing was counted by the refused stores: one slot is left.
    assert_eq!(right.admit(&key, limit).await, Ok(Admission::Admitted));
    assert!(matches!(
        right.admit(&key, limit).await,
        Ok(Admission::RetryAfter(_))
    ));
}

/// The password the child's store address names, as `${…}`.
const PASSWORD_VAR: &str = "HOOKS_STD_TEST_REDIS_AUTH_PASSWORD";
/// The server's port; set only in a child.
const PORT_VAR: &str = "HOOKS_STD_TEST_REDIS_AUTH_PORT";
/// `right` or `wrong`: whether the child's password is the server's.
const EXPECT_VAR: &str = "HOOKS_STD_TEST_REDIS_AUTH_EXPECT";

/// Setting a variable in this (multithreaded) process is unsafe, so the test
/// runs itself as a child with the password in its environment, once with
/// the server's password and once with another.
#[test]
fn a_password_from_the_environment_is_used_and_never_shown() {
    const NAME: &str = "a_password_from_the_environment_is_used_and_never_shown";
    if let Ok(port) = std::env::var(PORT_VAR) {
        return password_child(&port);
    }
    let password = random_password();
    let redis = Redis::start_with_password(&password);
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(trust(&format!("redis://:{password}@{}/0", redis.address())));
    let wrong_password = random_password();
    for (given, expect) in [(&password, "right"), (&wrong_password, "wrong")] {
        let output = Command::new(std::env::current_exe().unwrap())
            .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
            .env(PORT_VAR, redis.port().to_string())
            .env(PASSWORD_VAR, given)
            .env(EXPECT_VAR, expect)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "the child with the {expect} password failed ({}):\n{stdout}\n{stderr}",
            output.status
        );
        // The child ran the test, not nothing (a filter matching no test passes too).
        assert!(stdout.contains("1 passed"), "{stdout}");
        assert!(
            stdout.contains(&format!("child: {expect} password")),
            "{stdout}"
        );
    }
}

/// The child: a limiter whose store names `${PASSWORD_VAR}`.
fn password_child(port: &str) {
    let password = std::env::var(PASSWORD_VAR).unwrap();
    let expect = std::env::var(EXPECT_VAR).unwrap();
    let limiter = RateLimiter::new(RateLimit {
        store: Some(format!("redis://:${{{PASSWORD_VAR}}}@127.0.0.1:{port}/0")),
        ..RateLimit::new(vec![Rule::new(2, HOUR).by([By::User])])
    })
    .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let session = Session::new("s").with_user("dana");
        let call = || PreToolUse::new(&session, "search", json!({}));
        let check = async || {
            tokio::time::timeout(Duration::from_secs(15), limiter.check(&call()).wait())
                .await
                .expect("no decision within 15 s")
        };
        match expect.as_str() {
            "right" => {
                assert_eq!(check().await, Decision::Continue);
                assert_eq!(check().await, Decision::Continue);
                let Decision::Deny(refusal) = check().await else {
                    panic!("a third call of two an hour was admitted");
                };
                assert!(
                    refusal.reason().starts_with("rate limit reached"),
                    "{}",
                    refusal.reason()
                );
            }
            "wrong" => {
                for _ in 0..2 {
                    let Decision::Deny(refusal) = check().await else {
                        panic!("a call was admitted with the wrong password");
                    };
                    let reason = refusal.reason();
                    assert!(
                        reason.starts_with(&format!(
                            "the rate limit cannot be checked (Redis at 127.0.0.1:{port}/0: "
                        )),
                        "{reason}"
                    );
                    assert!(
                        reason.contains("auth") || reason.contains("AUTH"),
                        "{reason}"
                    );
                    assert!(!reason.contains(&password), "{reason}");
                    println!("reason: {reason}");
                }
            }
            other => panic!("{EXPECT_VAR} is `{other}`"),
        }
    });
    println!("child: {expect} password");
}

/// A server that accepts connections and never answers: its address. The
/// accepted sockets stay open (in a thread left waiting for more), so the
/// client sees neither an answer nor a closed connection.
fn silent_server() -> SocketAddr {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming() {
            open.extend(stream.ok());
        }
    });
    address
}

/// Past [`REDIS_TIMEOUT`]: a loaded machine's scheduling, not a second timeout.
const SLACK: Duration = Duration::from_secs(3);

#[tokio::test]
async fn a_server_that_never_answers_is_a_denial_within_the_timeout() {
    let address = silent_server();
    let limiter = RateLimiter::new(RateLimit {
        store: Some(format!("redis://{address}/0")),
        ..RateLimit::new(vec![Rule::new(1_000, HOUR)])
    })
    .unwrap();
    let session = Session::new("s").with_user("dana");
    let call = || PreToolUse::new(&session, "search", json!({}));
    // The first decision connects; the second finds the connection failed.
    for _ in 0..2 {
        let started = Instant::now();
        let decision = tokio::time::timeout(Duration::from_secs(15), limiter.check(&call()).wait())
            .await
            .expect("the decision hangs on a server that never answers");
        let elapsed = started.elapsed();
        let Decision::Deny(refusal) = decision else {
            panic!("a call was admitted by a server that never answers: {decision:?}");
        };
        let reason = refusal.reason();
        assert!(
            reason.starts_with(&format!(
                "the rate limit cannot be checked (Redis at {address}/0: unreachable"
            )),
            "{reason}"
        );
        assert!(elapsed <= REDIS_TIMEOUT + SLACK, "{elapsed:?}: {reason}");
    }
}

#[tokio::test]
async fn on_store_error_allow_lets_calls_through_a_server_that_never_answers() {
    let address = silent_server();
    let limiter = RateLimiter::new(RateLimit {
        store: Some(format!("redis://{address}/0")),
        on_store_error: OnStoreError::Allow,
        ..RateLimit::new(vec![Rule::new(1, HOUR)])
    })
    .unwrap();
    let session = Session::new("s").with_user("dana");
    let call = || PreToolUse::new(&session, "search", json!({}));
    // Uncounted: more calls than the limit go through.
    for _ in 0..2 {
        let started = Instant::now();
        let decision = tokio::time::timeout(Duration::from_secs(15), limiter.check(&call()).wait())
            .await
            .expect("the decision hangs on a server that never answers");
        assert_eq!(decision, Decision::Continue);
        assert!(
            started.elapsed() <= REDIS_TIMEOUT + SLACK,
            "{:?}",
            started.elapsed()
        );
    }
}

/// The first answer that is not an outage: the store reconnects by itself
/// after a restart, within a few tries.
async fn answer(store: &RedisStore, key: &Key<'_>, limit: Limit) -> Admission {
    for _ in 0..100 {
        match store.admit(key, limit).await {
            Ok(admission) => return admission,
            Err(error) => assert!(error.to_string().contains("unreachable"), "{error}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("still unreachable after the restart");
}

#[tokio::test]
async fn a_new_server_spends_the_burst_until_trusted() {
    // A server that just started may have lost every count: no burst for
    // a window, calls at the steady rate only (one per 20 minutes here).
    let redis = Redis::start();
    let store = RedisStore::open(&redis.url()).unwrap();
    let key = Key::new(0, [text("dana")]);
    let limit = Limit::new(3, HOUR);
    let Ok(Admission::RetryAfter(wait)) = store.admit(&key, limit).await else {
        panic!("a burst right after the server started");
    };
    assert!(
        wait <= Duration::from_secs(20 * 60) && wait > Duration::from_secs(15 * 60),
        "{wait:?}"
    );
    // Declared to hold every count: the whole burst.
    store.trust_current_server().await.unwrap();
    for _ in 0..3 {
        assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    }
    assert!(matches!(
        store.admit(&key, limit).await,
        Ok(Admission::RetryAfter(_))
    ));
}

#[tokio::test]
async fn a_server_restored_from_an_older_snapshot_admits_no_more() {
    // Two calls counted, then a snapshot (`SAVE`, as RDB persistence makes),
    // two more, then a crash: the server comes back with the snapshot's two.
    let mut redis = start().await;
    let store = RedisStore::open(&redis.url()).unwrap();
    let key = Key::new(0, [text("dana")]);
    let limit = Limit::new(4, HOUR);
    for _ in 0..2 {
        assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    }
    assert_eq!(redis.command(&["SAVE"]), "+OK");
    for _ in 0..2 {
        assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    }
    redis.stop();
    redis.resume();
    let restored: Option<String> = redis::cmd("GET")
        .arg(store.redis_key(&key))
        .query(&mut inspect(&redis))
        .unwrap();
    assert!(restored.is_some(), "the snapshot was not loaded");
    // Four were admitted; the restored count says two.
    assert!(
        matches!(answer(&store, &key, limit).await, Admission::RetryAfter(_)),
        "a call past the limit admitted after the restore"
    );
    for _ in 0..5 {
        assert!(matches!(
            store.admit(&key, limit).await,
            Ok(Admission::RetryAfter(_))
        ));
    }
}

fn current_thread_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_store_outlives_the_runtime_that_used_it_first() {
    let redis = Redis::start();
    let limiter =
        RateLimiter::new(config(&redis, vec![Rule::new(3, HOUR).by([By::User])])).unwrap();
    let session = Session::new("s").with_user("dana");
    let call = || PreToolUse::new(&session, "search", json!({}));
    let first = current_thread_runtime();
    first.block_on(async {
        trust(&redis.url()).await;
        assert_eq!(limiter.check(&call()).wait().await, Decision::Continue);
    });
    // A request's, a test's runtime: gone, with whatever it ran.
    drop(first);
    let second = current_thread_runtime();
    second.block_on(async {
        for _ in 0..2 {
            let decision =
                tokio::time::timeout(Duration::from_secs(15), limiter.check(&call()).wait())
                    .await
                    .expect("no decision within 15 s");
            assert_eq!(
                decision,
                Decision::Continue,
                "after the first runtime was dropped"
            );
        }
        let Decision::Deny(refusal) = limiter.check(&call()).wait().await else {
            panic!("a fourth call of three an hour was admitted");
        };
        assert!(
            refusal.reason().starts_with("rate limit reached"),
            "{}",
            refusal.reason()
        );
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decisions_past_the_cap_are_refused_at_once_not_queued() {
    // A server that never answers: every command waits its whole timeout.
    let address = silent_server();
    let store = std::sync::Arc::new(RedisStore::open(&format!("redis://{address}/0")).unwrap());
    let limit = Limit::new(1_000, HOUR);
    let extra = 100;
    let calls: Vec<_> = (0..REDIS_MAX_WAITING + extra)
        .map(|n| {
            let store = std::sync::Arc::clone(&store);
            tokio::spawn(async move {
                let key = Key::new(0, [Part::Text(Cow::Owned(n.to_string()))]);
                store.admit(&key, limit).await
            })
        })
        .collect();
    let (mut busy, mut unreachable) = (0, 0);
    for call in calls {
        let error = call.await.unwrap().unwrap_err().to_string();
        if error.contains("busy: 4096 commands already wait for an answer") {
            busy += 1;
        } else {
            assert!(error.contains("unreachable"), "{error}");
            unreachable += 1;
        }
    }
    assert!(unreachable <= REDIS_MAX_WAITING, "{unreachable} waited");
    assert!(busy >= extra, "only {busy} refused as busy");
}
