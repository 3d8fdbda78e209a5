//! Rate-limit decisions per second with 8 concurrent clients (tokio tasks,
//! each its own user), counted in memory and in a Redis server on this
//! machine (started by the tests' own setup, stopped after), over plain TCP
//! and over TLS (a CA and certificate made here with rcgen, the store told
//! the CA). Criterion's elements per second are decisions per second.
//! Run with `cargo bench -p hooks-benches --bench rate_limit_stores`.

#[path = "../../hooks-std/tests/support/redis.rs"]
mod redis_server;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hooks_core::prelude::*;
use hooks_std::rate_limit::{By, RateLimit, RateLimiter, RedisStore, Rule};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};

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

    let plain = redis_limiter(&runtime, &redis.url(), None);
    group.bench_function("Redis store (127.0.0.1, one script per decision)", |b| {
        b.iter_custom(|iters| decide(&runtime, &plain, iters));
    });

    let (ca, certificate, key) = certificates();
    let tls = redis_server::Redis::start_tls(&certificate, &key);
    let ca_file = tls.dir().join("ca.pem");
    std::fs::write(&ca_file, &ca).expect("write the CA");
    let secure = redis_limiter(&runtime, &tls.tls_url(), Some(ca_file));
    group.bench_function("Redis store over TLS (rediss://127.0.0.1, rustls)", |b| {
        b.iter_custom(|iters| decide(&runtime, &secure, iters));
    });
    group.finish();
}

/// A limiter counting on the server at `url`, declared complete (a new
/// server: no window after its start), trusting `ca` if given.
fn redis_limiter(
    runtime: &tokio::runtime::Runtime,
    url: &str,
    ca: Option<std::path::PathBuf>,
) -> Arc<RateLimiter> {
    let mut store = RedisStore::open(url).expect("a Redis address");
    if let Some(ca) = &ca {
        store = store
            .with_ca(&std::fs::read(ca).expect("read the CA"))
            .expect("a CA");
    }
    runtime
        .block_on(store.trust_current_server())
        .expect("Redis answers");
    Arc::new(
        RateLimiter::new(RateLimit {
            store: Some(url.to_owned()),
            store_ca: ca,
            ..RateLimit::new(rules())
        })
        .expect("valid rules"),
    )
}

/// A CA (PEM), and a certificate for 127.0.0.1 it signed with its key (PEM).
fn certificates() -> (String, String, String) {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca =
        CertifiedIssuer::self_signed(params, KeyPair::generate().expect("a key")).expect("a CA");
    let key = KeyPair::generate().expect("a key");
    let certificate = CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .expect("certificate parameters")
        .signed_by(&key, &ca)
        .expect("a certificate");
    (ca.pem(), certificate.pem(), key.serialize_pem())
}

criterion_group!(benches, stores);
criterion_main!(benches);
