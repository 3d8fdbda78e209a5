//! The Redis rate-limit store on a real Redis Cluster the test starts
//! itself: three `redis-server --cluster-enabled yes` on free ports, joined
//! by `redis-cli --cluster create`, named `redis+cluster://…`. Buckets
//! spread over the nodes, each counted exactly beside its epoch (one slot:
//! the script would fail otherwise); a node killed and restarted empty
//! admits no fresh burst.

#[path = "support/redis.rs"]
mod support;

use std::borrow::Cow;
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::rate_limit::{
    Admission, By, Key, Limit, Part, RateLimit, RateLimiter, RedisStore, Rule,
};
use support::{Cluster, Redis};

const HOUR: Duration = Duration::from_secs(3_600);

fn user(n: usize) -> Key<'static> {
    Key::new(0, [Part::Text(Cow::Owned(format!("user-{n}")))])
}

/// The bucket keys a node holds (its epochs left out).
fn buckets(node: &Redis) -> Vec<String> {
    let mut connection = redis::Client::open(node.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut connection).unwrap();
    keys.into_iter()
        .filter(|key| !key.ends_with("}epoch"))
        .collect()
}

/// The first answer that is not an outage: the client finds the node again
/// by itself, within a few tries.
async fn answer(store: &RedisStore, key: &Key<'_>, limit: Limit) -> Admission {
    for _ in 0..200 {
        match store.admit(key, limit).await {
            Ok(admission) => return admission,
            Err(error) => assert!(
                error.to_string().starts_with("Redis cluster at 127.0.0.1:"),
                "{error}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the cluster still fails after the node came back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_counts_each_bucket_exactly_on_its_node() {
    let mut cluster = Cluster::start();
    let store = RedisStore::open(&cluster.url()).unwrap();
    store.trust_current_server().await.unwrap();
    let limit = Limit::new(3, HOUR);
    let users = 60;
    for n in 0..users {
        for _ in 0..3 {
            assert_eq!(store.admit(&user(n), limit).await, Ok(Admission::Admitted));
        }
        assert!(matches!(
            store.admit(&user(n), limit).await,
            Ok(Admission::RetryAfter(_))
        ));
    }
    // Spread over the nodes: every node holds some of the 60 buckets.
    let held: Vec<Vec<String>> = cluster.nodes.iter().map(buckets).collect();
    assert_eq!(held.iter().map(Vec::len).sum::<usize>(), users);
    assert!(held.iter().all(|keys| !keys.is_empty()), "{held:?}");

    // The node holding user 0's bucket is killed and comes back empty (no
    // persistence), with its slots (its nodes.conf): user 0 gets no fresh
    // burst; users on the other nodes keep their counts.
    let name = store.redis_key(&user(0));
    let at = held.iter().position(|keys| keys.contains(&name)).unwrap();
    cluster.nodes[at].stop();
    cluster.nodes[at].resume();
    cluster.wait_until_ok();
    assert!(buckets(&cluster.nodes[at]).is_empty(), "restarted empty");
    assert!(
        matches!(
            answer(&store, &user(0), limit).await,
            Admission::RetryAfter(_)
        ),
        "a fresh burst after the node restarted"
    );
    for n in 0..users {
        assert!(
            matches!(
                answer(&store, &user(n), limit).await,
                Admission::RetryAfter(_)
            ),
            "user {n} admitted past the limit"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limiter_configured_with_a_cluster_address_counts_there() {
    let cluster = Cluster::start();
    RedisStore::open(&cluster.url())
        .unwrap()
        .trust_current_server()
        .await
        .unwrap();
    let limiter = RateLimiter::new(RateLimit {
        store: Some(cluster.url()),
        key_prefix: "{billing}:".to_owned(),
        ..RateLimit::new(vec![Rule::new(2, HOUR).by([By::User])])
    })
    .unwrap();
    for n in 0..20 {
        let session = Session::new("s").with_user(format!("user-{n}"));
        let call = || PreToolUse::new(&session, "search", json!({}));
        for _ in 0..2 {
            assert_eq!(limiter.check(&call()).wait().await, Decision::Continue);
        }
        let Decision::Deny(refusal) = limiter.check(&call()).wait().await else {
            panic!("a third call of two an hour was admitted");
        };
        assert!(
            refusal.reason().starts_with("rate limit reached"),
            "{}",
            refusal.reason()
        );
    }
    // A prefix holding braces does not choose the slot: the buckets still
    // spread over the nodes.
    let held: Vec<usize> = cluster
        .nodes
        .iter()
        .map(|node| buckets(node).len())
        .collect();
    assert_eq!(held.iter().sum::<usize>(), 20);
    assert!(held.iter().filter(|&&n| n > 0).count() >= 2, "{held:?}");
}

#[test]
fn cluster_addresses_are_checked_at_start() {
    let error = |address: &str| {
        RedisStore::open(address)
            .err()
            .unwrap_or_else(|| panic!("{address} accepted"))
            .to_string()
    };
    assert!(error("redis+cluster://127.0.0.1:7000/3").contains("database 0 only"));
    assert!(error("rediss+cluster://127.0.0.1:7000#insecure").contains("`#insecure`"));
    assert!(error("redis+cluster:///").contains("names no node"));
    let secret = "hunter2-cluster";
    let bad = error(&format!("redis+cluster://:{secret}@127.0.0.1:notaport"));
    assert!(!bad.contains(secret), "{bad}");
    let store = RedisStore::open(&format!(
        "redis+cluster://:{secret}@127.0.0.1:7000,127.0.0.1:7001"
    ))
    .unwrap();
    assert_eq!(store.address(), "127.0.0.1:7000,127.0.0.1:7001");
}
