//! The Redis rate-limit store over TLS (`rediss://`), against a real
//! `redis-server` serving TLS only, with certificates these tests make
//! (rcgen): the CA the store is told about (`store_ca`) is trusted; a
//! certificate for another name, or from another CA, is refused — the call
//! denied saying why, nothing counted — and so is `#insecure`.

#[path = "support/redis.rs"]
mod support;

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::rate_limit::{
    Admission, Key, Limit, Part, RateLimit, RateLimiter, RedisStore, Rule,
};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use support::{Cluster, Redis};

const HOUR: Duration = Duration::from_secs(3_600);

/// A certificate authority of the test's own.
struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Ca {
    fn new() -> Ca {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        // A name of its own, as two real CAs have.
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        params
            .distinguished_name
            .push(DnType::CommonName, format!("hooks test CA {n}"));
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Ca { issuer }
    }

    fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// A server certificate for `names` (host names or IP addresses), and its key.
    fn server(&self, names: &[&str]) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        let certificate = CertificateParams::new(names)
            .unwrap()
            .signed_by(&key, &self.issuer)
            .unwrap();
        (certificate.pem(), key.serialize_pem())
    }
}

/// A TLS server whose certificate, from `ca`, names `names`.
fn server(ca: &Ca, names: &[&str]) -> Redis {
    let (certificate, key) = ca.server(names);
    Redis::start_tls(&certificate, &key)
}

/// `pem` in a file of the server's directory: what `store_ca` names.
fn ca_file(redis: &Redis, pem: &str) -> PathBuf {
    let path = redis.dir().join("ca.pem");
    std::fs::write(&path, pem).unwrap();
    path
}

fn limiter(redis: &Redis, ca: Option<PathBuf>) -> RateLimiter {
    RateLimiter::new(RateLimit {
        store: Some(redis.tls_url()),
        store_ca: ca,
        ..RateLimit::new(vec![Rule::new(2, HOUR)])
    })
    .unwrap()
}

fn call(session: &Session) -> PreToolUse {
    PreToolUse::new(session, "search", json!({}))
}

/// Declares the new server complete, through a store that trusts `ca`.
async fn trust(redis: &Redis, ca: &Ca) {
    RedisStore::open(&redis.tls_url())
        .unwrap()
        .with_ca(ca.pem().as_bytes())
        .unwrap()
        .trust_current_server()
        .await
        .unwrap();
}

#[tokio::test]
async fn a_rediss_store_trusting_the_servers_ca_counts() {
    let ca = Ca::new();
    let redis = server(&ca, &["127.0.0.1"]);
    trust(&redis, &ca).await;
    let limiter = limiter(&redis, Some(ca_file(&redis, &ca.pem())));
    let session = Session::new("s").with_user("dana");
    for _ in 0..2 {
        assert_eq!(
            limiter.check(&call(&session)).wait().await,
            Decision::Continue
        );
    }
    let Decision::Deny(refusal) = limiter.check(&call(&session)).wait().await else {
        panic!("a third call of two an hour was admitted");
    };
    assert!(
        refusal.reason().starts_with("rate limit reached"),
        "{}",
        refusal.reason()
    );
}

/// Calls through `limiter` are denied because the certificate is not
/// trusted, saying so.
async fn refused(redis: &Redis, limiter: &RateLimiter) {
    let session = Session::new("s").with_user("dana");
    for _ in 0..3 {
        let Decision::Deny(refusal) = limiter.check(&call(&session)).wait().await else {
            panic!("a call was admitted over an untrusted TLS connection");
        };
        let reason = refusal.reason();
        assert!(
            reason.starts_with(&format!(
                "the rate limit cannot be checked (Redis at {}/0: ",
                redis.address()
            )),
            "{reason}"
        );
        assert!(reason.contains("certificate"), "{reason}");
    }
}

#[tokio::test]
async fn a_certificate_for_another_name_is_refused() {
    let ca = Ca::new();
    let redis = server(&ca, &["redis.example"]);
    let limiter = limiter(&redis, Some(ca_file(&redis, &ca.pem())));
    refused(&redis, &limiter).await;
}

#[tokio::test]
async fn a_certificate_from_another_ca_is_refused() {
    let theirs = Ca::new();
    let ours = Ca::new();
    let redis = server(&theirs, &["127.0.0.1"]);
    let limiter = limiter(&redis, Some(ca_file(&redis, &ours.pem())));
    refused(&redis, &limiter).await;
    // Nothing was counted: the server's own CA finds the whole burst.
    trust(&redis, &theirs).await;
    let store = RedisStore::open(&redis.tls_url())
        .unwrap()
        .with_ca(theirs.pem().as_bytes())
        .unwrap();
    let key = Key::new(0, [Part::Text(Cow::Borrowed("x"))]);
    assert_eq!(
        store.admit(&key, Limit::new(1, HOUR)).await,
        Ok(Admission::Admitted)
    );
}

#[tokio::test]
async fn a_private_ca_is_not_trusted_without_store_ca() {
    let ca = Ca::new();
    let redis = server(&ca, &["127.0.0.1"]);
    let limiter = limiter(&redis, None);
    refused(&redis, &limiter).await;
}

#[test]
fn insecure_tls_and_a_ca_without_tls_are_refused_at_start() {
    let error = |store: &str, ca: Option<PathBuf>| {
        RateLimiter::new(RateLimit {
            store: Some(store.to_owned()),
            store_ca: ca,
            ..RateLimit::new(vec![Rule::new(2, HOUR)])
        })
        .err()
        .unwrap_or_else(|| panic!("{store} accepted"))
        .to_string()
    };
    let insecure = error("rediss://127.0.0.1:6380/0#insecure", None);
    assert!(insecure.contains("`#insecure`"), "{insecure}");
    let plain = error("redis://127.0.0.1:6379/0", Some("ca.pem".into()));
    assert!(plain.contains("`store_ca`"), "{plain}");
    assert!(plain.contains("rediss://"), "{plain}");
    let missing = error(
        "rediss://127.0.0.1:6380/0",
        Some("/nonexistent/hooks-ca.pem".into()),
    );
    assert!(missing.contains("/nonexistent/hooks-ca.pem"), "{missing}");
    let empty = RedisStore::open("rediss://127.0.0.1:6380/0")
        .unwrap()
        .with_ca(b"not a certificate")
        .err()
        .unwrap()
        .to_string();
    assert!(empty.contains("no certificate"), "{empty}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_cluster_trusting_its_ca_counts_and_another_ca_is_refused() {
    let ca = Ca::new();
    let (certificate, key) = ca.server(&["127.0.0.1"]);
    let cluster = Cluster::start_tls(&ca.pem(), &certificate, &key);
    let url = cluster.url();
    assert!(url.starts_with("rediss+cluster://"), "{url}");
    let store = RedisStore::open(&url)
        .unwrap()
        .with_ca(ca.pem().as_bytes())
        .unwrap();
    store.trust_current_server().await.unwrap();
    let limit = Limit::new(2, HOUR);
    for n in 0..20 {
        let key = Key::new(0, [Part::Text(Cow::Owned(format!("user-{n}")))]);
        for _ in 0..2 {
            assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
        }
        assert!(matches!(
            store.admit(&key, limit).await,
            Ok(Admission::RetryAfter(_))
        ));
    }
    let other = Ca::new();
    let untrusting = RedisStore::open(&url)
        .unwrap()
        .with_ca(other.pem().as_bytes())
        .unwrap();
    let key = Key::new(0, [Part::Text(Cow::Borrowed("someone new"))]);
    let error = untrusting.admit(&key, limit).await.unwrap_err().to_string();
    assert!(error.starts_with("Redis cluster at 127.0.0.1:"), "{error}");
    assert!(error.contains("certificate"), "{error}");
    // Nothing counted: the whole burst is there for a store that trusts it.
    for _ in 0..2 {
        assert_eq!(store.admit(&key, limit).await, Ok(Admission::Admitted));
    }
}
