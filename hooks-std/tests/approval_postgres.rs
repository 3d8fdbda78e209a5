//! Approvals in PostgreSQL, shared by replicas, on a real server started by
//! the test (Debian's `postgresql`, a temporary cluster on a unix socket):
//!
//! - the state machine: a yes is used once, the first answer wins, a yes for
//!   the session is a grant, a no, expiry, and replicas migrating together;
//! - across replicas, with real processes: replica A asks and is killed (SIGKILL)
//!   while waiting; replicas B1 and B2 make the same call and wait on A's
//!   request, with no polling at all (a poll interval of an hour); an answer
//!   from a third connection wakes them (`NOTIFY`) within a second, and the
//!   call runs exactly once; the same call made again must ask again;
//! - an answer dated in the future (by a forged row, or a clock set wrong) is
//!   not used, and is spent;
//! - the latency from an answer to the resumed call, printed (BENCHMARKS.md);
//! - a store used from a runtime that is then dropped works from the next;
//! - with the server frozen (SIGSTOP), an operation fails within the
//!   statement timeout instead of waiting for the server;
//! - the gate over a frozen server denies a flagged call within the timeout;
//! - the listening connection cut silently (a proxy that forgets its
//!   connections): noticed and replaced, and the waiter gets the answer.
//!
//! A program of its own (`harness = false`): the replicas are this binary.

#[path = "support/postgres.rs"]
mod postgres;

#[path = "support/children.rs"]
mod children;

#[path = "support/future_answer.rs"]
mod future_answer;

#[path = "support/proxy.rs"]
mod proxy;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hooks_core::prelude::*;
use hooks_std::approval::store::{Answering, NewRequest};
use hooks_std::approval::{
    ApprovalGate, ApprovalStore, Approvals, PostgresStore, Request, Scope, ScriptedChannel, Status,
};
use postgres::{Postgres, Setup};

hooks_core::link!(hooks_std);

const ROLE: &str = "HOOKS_STD_PG_REPLICA";
const HOST: &str = "HOOKS_STD_PG_HOST";
const MARKER: &str = "HOOKS_STD_PG_MARKER";
const TIMEOUT_MS: &str = "HOOKS_STD_PG_TIMEOUT_MS";
/// The exit status of a replica whose call was denied.
const DENIED: i32 = 3;
/// How many approvals the latency measurement answers.
const SAMPLES: usize = 200;

fn main() {
    if std::env::var_os(ROLE).is_some() {
        replica();
        return;
    }
    let server = Postgres::start();
    children::check("the_state_machine_holds", || state_machine(&server));
    children::check(
        "a_call_asked_on_a_killed_replica_runs_once_on_another_woken_by_notify",
        || cross_replica(&server),
    );
    children::check("an_answer_dated_in_the_future_is_not_used", || {
        future_answer(&server);
    });
    children::check("approval_latency_answer_to_resumed_call", || {
        latency(&server);
    });
    children::check("a_store_outlives_the_runtime_it_first_ran_on", || {
        runtimes(&server);
    });
    children::check(
        "a_frozen_server_fails_operations_within_the_timeout",
        || {
            frozen(&server);
        },
    );
    children::check("a_frozen_store_denies_the_call_within_the_timeout", || {
        frozen_gate(&server);
    });
    children::check("a_listening_connection_cut_silently_is_replaced", || {
        cut_listener();
    });
}

/// The gate over a frozen server (SIGSTOP): a flagged call is denied, not
/// run, and answered within the statement timeout × a generous factor.
fn frozen_gate(server: &Postgres) {
    create_database(server, "gatefrozen");
    let timeout = Duration::from_secs(1);
    let gate = ApprovalGate::open(&Approvals {
        tools: vec!["payments_*".into()],
        store: Some(connection(server, "gatefrozen")),
        connect_timeout: timeout,
        statement_timeout: timeout,
        ..Approvals::default()
    })
    .unwrap()
    .channel(ScriptedChannel(|_: &Request| None));
    let hooks = Hooks::builder()
        .only(["hooks_std::approval::gate"])
        .state(gate.policy().clone())
        .approver(gate)
        .build()
        .unwrap();
    let runtime = children::runtime();
    server.signal("STOP");
    let started = Instant::now();
    let run = runtime.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(120),
            hooks.tool("payments_refund").run(
                &Session::new("frozen").with_user("dana"),
                json!({"order": 7}),
                async |_: &Value| Ok::<_, String>(json!("refunded")),
            ),
        )
        .await
    });
    let took = started.elapsed();
    server.signal("CONT");
    let run = run.expect("unanswered after 120 s");
    assert!(!run.ran(), "the tool ran with its approval store frozen");
    assert!(took < timeout * 10, "took {took:?}");
    print!("denied in {took:.1?} ... ");
}

/// The store reaches the server through a proxy that then cuts every open
/// connection without closing it; the request is answered from elsewhere:
/// the waiter, woken only by notifications, still learns of it.
fn cut_listener() {
    let server = Postgres::start_with(&Setup {
        tcp: true,
        ..Setup::default()
    });
    create_database(&server, "cut");
    let proxy = proxy::Proxy::start(server.port());
    let store = PostgresStore::new(&format!(
        "host=127.0.0.1 port={} user={} dbname=cut sslmode=disable",
        proxy.port,
        postgres::USER
    ))
    .unwrap()
    .timeouts(Duration::from_secs(1), Duration::from_secs(1));
    let direct = PostgresStore::new(&format!(
        "{} port={}",
        connection(&server, "cut"),
        server.port()
    ))
    .unwrap();
    let runtime = children::runtime();
    let id = runtime
        .block_on(store.insert(new_request("f", "s", "deploy")))
        .unwrap();
    // Listening: the first wake-up comes once `LISTEN` is in place.
    runtime.block_on(store.answered(id).unwrap()).unwrap();
    proxy.black_hole();
    proxy.restore();
    // The store's own connection was cut too: the next calls reconnect it.
    let deadline = Instant::now() + Duration::from_secs(120);
    while runtime.block_on(store.get(id)).is_err() {
        assert!(Instant::now() < deadline, "the store did not reconnect");
    }
    // Waiting as the gate does: subscribed, then the status read.
    let woken = store.answered(id).unwrap();
    let pending = runtime.block_on(store.get(id)).unwrap().unwrap();
    assert_eq!(pending.status, Status::Pending);
    assert!(
        runtime
            .block_on(direct.answer(id, yes(Scope::Once)))
            .unwrap()
    );
    let learned =
        runtime.block_on(async { tokio::time::timeout(Duration::from_secs(120), woken).await });
    let status = runtime.block_on(store.get(id)).unwrap().unwrap().status;
    assert_eq!(status, Status::Approved);
    assert!(learned.is_ok(), "the answer never reached the waiter");
}

/// Used from a runtime, which is dropped, then from another: still works.
fn runtimes(server: &Postgres) {
    create_database(server, "runtimes");
    let store = PostgresStore::new(&connection(server, "runtimes")).unwrap();
    for round in 0..3 {
        let runtime = children::runtime();
        let id = runtime
            .block_on(store.insert(new_request(&format!("f{round}"), "s", "deploy")))
            .unwrap_or_else(|error| panic!("round {round}: {error}"));
        assert!(runtime.block_on(store.get(id)).unwrap().is_some());
        drop(runtime);
    }
}

/// SIGSTOP: an operation errs within the statement timeout × a generous
/// factor, naming the timeout; thawed, the store works again.
fn frozen(server: &Postgres) {
    create_database(server, "frozen");
    let timeout = Duration::from_secs(1);
    let store = PostgresStore::new(&connection(server, "frozen"))
        .unwrap()
        .timeouts(timeout, timeout);
    let runtime = children::runtime();
    runtime.block_on(store.list(Status::Pending)).unwrap();
    server.signal("STOP");
    let started = Instant::now();
    let answer = runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(120), store.list(Status::Pending)).await
    });
    let took = started.elapsed();
    server.signal("CONT");
    let error = answer
        .expect("unanswered after 120 s")
        .expect_err("listed while the server is frozen");
    assert!(error.to_string().contains("within 1s"), "{error}");
    assert!(took < timeout * 10, "took {took:?}");
    let deadline = Instant::now() + Duration::from_secs(120);
    while runtime.block_on(store.list(Status::Pending)).is_err() {
        assert!(Instant::now() < deadline, "the store did not recover");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A connection string for `database` on the test server.
fn connection(server: &Postgres, database: &str) -> String {
    format!(
        "host={} user={} dbname={database}",
        server.socket_dir().display(),
        postgres::USER
    )
}

fn create_database(server: &Postgres, name: &str) {
    children::runtime().block_on(async {
        let admin = server.connect("postgres").await.unwrap();
        admin
            .client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
    });
}

fn new_request(fingerprint: &str, session: &str, tool: &str) -> NewRequest {
    NewRequest {
        fingerprint: fingerprint.to_owned(),
        session: session.to_owned(),
        agent: "agent".to_owned(),
        user: Some("dana".to_owned()),
        tool: tool.to_owned(),
        args: r#"{"order":7}"#.to_owned(),
        prompt: "Allow it?".to_owned(),
    }
}

fn yes(scope: Scope) -> Answering {
    Answering {
        approved: true,
        scope,
        by: Some("alice".to_owned()),
        reason: None,
    }
}

fn state_machine(server: &Postgres) {
    create_database(server, "states");
    children::runtime().block_on(async {
        // Replicas starting together migrate once, without racing.
        let opened = futures_join((0..6).map(|_| {
            let connection = connection(server, "states");
            async move { PostgresStore::connect(&connection).await }
        }))
        .await;
        let mut stores = opened.into_iter().map(Result::unwrap);
        let (store, other) = (stores.next().unwrap(), stores.next().unwrap());
        used_once(&store, &other).await;
        session_grant_and_denial(&store, &other).await;
        expiry(&store).await;
        notified(server, &store, &other).await;
    });
}

async fn used_once(store: &PostgresStore, other: &PostgresStore) {
    // A yes for this call: used once, never twice, by whichever replica claims it.
    let id = store
        .insert(new_request("f1", "s1", "payments_refund"))
        .await
        .unwrap();
    assert_eq!(
        store.get(id).await.unwrap().unwrap().status,
        Status::Pending
    );
    assert_eq!(store.list(Status::Pending).await.unwrap().len(), 1);
    assert!(store.answer(id, yes(Scope::Once)).await.unwrap());
    let mut no = yes(Scope::Once);
    no.approved = false;
    assert!(
        !other.answer(id, no).await.unwrap(),
        "the first answer wins"
    );
    let open = other.open_request("f1").await.unwrap().unwrap();
    assert_eq!((open.id, open.status), (id, Status::Approved));
    assert_eq!(open.responded_by.as_deref(), Some("alice"));
    assert!(humantime::parse_rfc3339_weak(open.responded_at.as_deref().unwrap()).is_ok());
    let (first, second) = tokio::join!(store.consume(id), other.consume(id));
    assert!(first.unwrap() ^ second.unwrap(), "consumed exactly once");
    assert!(store.open_request("f1").await.unwrap().is_none());
    assert!(store.get(id).await.unwrap().unwrap().consumed_at.is_some());
    assert!(
        store
            .grant("s1", "payments_refund")
            .await
            .unwrap()
            .is_none()
    );
}

async fn session_grant_and_denial(store: &PostgresStore, other: &PostgresStore) {
    // A yes for the session: a grant for the tool, in the same transaction.
    let id = store
        .insert(new_request("f2", "s2", "deploy"))
        .await
        .unwrap();
    assert!(store.answer(id, yes(Scope::Session)).await.unwrap());
    let grant = other.grant("s2", "deploy").await.unwrap().unwrap();
    assert_eq!((grant.request, grant.by.as_deref()), (id, Some("alice")));
    assert!(
        other
            .grant("s2", "payments_refund")
            .await
            .unwrap()
            .is_none()
    );

    // A no, with its reason, grants nothing.
    let id = store
        .insert(new_request("f3", "s3", "deploy"))
        .await
        .unwrap();
    let no = Answering {
        approved: false,
        scope: Scope::Session,
        by: Some("bob".to_owned()),
        reason: Some("not on a Friday".to_owned()),
    };
    assert!(store.answer(id, no).await.unwrap());
    let denied = store.get(id).await.unwrap().unwrap();
    assert_eq!(denied.status, Status::Denied);
    assert_eq!(denied.reason.as_deref(), Some("not on a Friday"));
    assert!(store.grant("s3", "deploy").await.unwrap().is_none());
}

async fn expiry(store: &PostgresStore) {
    // Expiry: one request, then every one left pending; an expired one takes no answer.
    let id = store
        .insert(new_request("f4", "s4", "deploy"))
        .await
        .unwrap();
    store.expire(id).await.unwrap();
    assert_eq!(
        store.get(id).await.unwrap().unwrap().status,
        Status::Expired
    );
    assert!(!store.answer(id, yes(Scope::Once)).await.unwrap());
    for fingerprint in ["f5", "f6"] {
        store
            .insert(new_request(fingerprint, "s5", "deploy"))
            .await
            .unwrap();
    }
    assert_eq!(
        store
            .expire_older_than(Duration::from_secs(3600))
            .await
            .unwrap(),
        0
    );
    assert_eq!(store.expire_older_than(Duration::ZERO).await.unwrap(), 2);
    assert!(store.list(Status::Pending).await.unwrap().is_empty());
    assert_eq!(store.list(Status::Expired).await.unwrap().len(), 3);
}

async fn notified(server: &Postgres, store: &PostgresStore, other: &PostgresStore) {
    // A waiter is told of an answer given on another connection: the
    // trigger notifies once per answer, whoever wrote it.
    let listener = server.connect("states").await.unwrap();
    listener
        .client
        .batch_execute("LISTEN hooks_approval_answers")
        .await
        .unwrap();
    let id = store
        .insert(new_request("f7", "s7", "deploy"))
        .await
        .unwrap();
    let told = store.answered(id).expect("PostgreSQL tells waiters");
    let started = Instant::now();
    other.answer(id, yes(Scope::Once)).await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), told)
        .await
        .expect("woken by NOTIFY")
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    listener.client.batch_execute("SELECT 1").await.unwrap();
    assert_eq!(listener.notifications(), 1);
}

/// Every future to completion, on the current runtime.
async fn futures_join<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outputs = Vec::with_capacity(handles.len());
    for handle in handles {
        outputs.push(handle.await.unwrap());
    }
    outputs
}

/// A yes dated an hour ahead by the server (a forged row, or a clock set
/// wrong) is not used, and is spent.
fn future_answer(server: &Postgres) {
    create_database(server, "future");
    let config = Approvals {
        tools: vec!["payments_*".into()],
        store: Some(connection(server, "future")),
        timeout: Duration::from_secs(20),
        ..Approvals::default()
    };
    let gate = ApprovalGate::open(&config).unwrap();
    children::runtime().block_on(async {
        let admin = server.connect("future").await.unwrap();
        future_answer::a_yes_dated_ahead_is_not_used(
            gate,
            async |id| {
                let changed = admin
                    .client
                    .execute(
                        "UPDATE hooks_approval_requests SET status = 'approved',
                             responded_by = 'mallory', consumed_at = NULL,
                             responded_at = $2::text::timestamptz
                         WHERE id = $1",
                        &[&id, &future_answer::an_hour_ahead()],
                    )
                    .await
                    .unwrap();
                assert_eq!(changed, 1);
            },
            async |id| {
                let row = admin
                    .client
                    .query_one(
                        "SELECT consumed_at IS NOT NULL FROM hooks_approval_requests WHERE id = $1",
                        &[&id],
                    )
                    .await
                    .unwrap();
                row.get(0)
            },
        )
        .await;
    });
}

/// A replica making one refund through the hooks, its approvals in
/// PostgreSQL and no polling; it says on stdout when it waits on a request,
/// and records in the marker file when (µs since the epoch) the refund ran.
fn replica() {
    let marker = PathBuf::from(std::env::var_os(MARKER).unwrap());
    let timeout: u64 = std::env::var(TIMEOUT_MS).unwrap().parse().unwrap();
    let ran = children::runtime().block_on(async {
        let gate = ApprovalGate::open(&Approvals {
            tools: vec!["payments_*".into()],
            // The socket's directory from the environment, as a secret would be.
            store: Some(format!(
                "host=${{{HOST}}} user={} dbname=replicas",
                postgres::USER
            )),
            timeout: Duration::from_millis(timeout),
            // Nobody checks: only a NOTIFY wakes a waiting replica in time.
            poll_interval: Duration::from_secs(3600),
            ..Approvals::default()
        })
        .unwrap()
        .channel(ScriptedChannel(|request: &Request| {
            println!("asked #{}", request.id);
            None
        }));
        let hooks = Hooks::builder()
            .only(["hooks_std::approval::gate"])
            .state(gate.policy().clone())
            .approver(gate)
            .build()
            .unwrap();
        hooks
            .tool("payments_refund")
            .run(
                &Session::new("fleet-session").with_user("dana"),
                json!({"order": 7, "amount_usd": 500}),
                async |_: &Value| {
                    let mut file = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(&marker)
                        .unwrap();
                    writeln!(file, "{}", micros_now()).unwrap();
                    Ok::<_, String>(json!("refunded"))
                },
            )
            .await
            .ran()
    });
    std::process::exit(if ran { 0 } else { DENIED });
}

fn micros_now() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros()
}

fn spawn_replica(server: &Postgres, marker: &Path, timeout: Duration) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .env(ROLE, "1")
        .env(HOST, server.socket_dir())
        .env(MARKER, marker)
        .env(TIMEOUT_MS, timeout.as_millis().to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

fn runs(marker: &Path) -> Vec<u128> {
    std::fs::read_to_string(marker)
        .map(|text| text.lines().map(|line| line.parse().unwrap()).collect())
        .unwrap_or_default()
}

fn cross_replica(server: &Postgres) {
    create_database(server, "replicas");
    let marker = server.out_dir().join("runs.log");

    // 1. Replica A asks, and is killed while it waits.
    let mut a = spawn_replica(server, &marker, Duration::from_secs(120));
    let id = children::asked(&mut a);
    a.kill().unwrap(); // SIGKILL
    a.wait().unwrap();

    // 2. Replicas B1 and B2 make the same call: both wait on A's request.
    let mut b1 = spawn_replica(server, &marker, Duration::from_secs(120));
    let mut b2 = spawn_replica(server, &marker, Duration::from_secs(120));
    assert_eq!(
        children::asked(&mut b1),
        id,
        "B1 waits on the request A made"
    );
    assert_eq!(
        children::asked(&mut b2),
        id,
        "B2 waits on the request A made"
    );

    // 3. A person answers from anywhere: here, `hooks-approve --store` in a
    //    terminal of its own.
    children::runtime().block_on(async {
        let person = PostgresStore::connect(&connection(server, "replicas"))
            .await
            .unwrap();
        assert_eq!(person.list(Status::Pending).await.unwrap().len(), 1);
    });
    let answered_at = micros_now();
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_hooks-approve"))
        .args(["--store", &connection(server, "replicas")])
        .args(["approve", &id.to_string(), "--by", "alice"])
        .output()
        .unwrap();
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&cli.stdout).trim(),
        format!("#{id} approved by alice")
    );
    let statuses = [
        children::wait(&mut b1, Duration::from_secs(30)),
        children::wait(&mut b2, Duration::from_secs(30)),
    ];
    let ran: Vec<u128> = runs(&marker);
    assert_eq!(ran.len(), 1, "the approved call ran exactly once: {ran:?}");
    assert_eq!(statuses.iter().filter(|status| status.success()).count(), 1);
    assert_eq!(
        statuses
            .iter()
            .filter(|status| status.code() == Some(DENIED))
            .count(),
        1,
        "the other replica is told the yes was used"
    );
    let woken_after = Duration::from_micros(u64::try_from(ran[0] - answered_at).unwrap());
    assert!(
        woken_after < Duration::from_secs(1),
        "woken {woken_after:?} after the answer: not by NOTIFY"
    );

    // 4. The same call again needs a new yes; nobody gives one.
    let mut c = spawn_replica(server, &marker, Duration::from_millis(300));
    assert_eq!(
        children::wait(&mut c, Duration::from_secs(30)).code(),
        Some(DENIED)
    );
    assert_eq!(runs(&marker).len(), 1, "an approved call runs exactly once");

    children::runtime().block_on(async {
        let store = PostgresStore::connect(&connection(server, "replicas"))
            .await
            .unwrap();
        let first = store.get(id).await.unwrap().unwrap();
        assert_eq!(first.status, Status::Approved);
        assert!(first.consumed_at.is_some());
        assert_eq!(
            store.get(id + 1).await.unwrap().unwrap().status,
            Status::Expired
        );
    });
}

/// Answer → resumed call, on separate connections (the waiting gate's
/// store, and the person's), `SAMPLES` times; prints p50 and p99.
fn latency(server: &Postgres) -> (Duration, Duration) {
    create_database(server, "latency");
    let mut samples = children::runtime().block_on(async {
        let (asked_tx, asked_rx) = std::sync::mpsc::channel::<i64>();
        let asked_tx = Mutex::new(asked_tx);
        let store = PostgresStore::connect(&connection(server, "latency"))
            .await
            .unwrap();
        let gate = ApprovalGate::with_store(
            store,
            &Approvals {
                tools: vec!["payments_*".into()],
                poll_interval: Duration::from_secs(3600),
                ..Approvals::default()
            },
        )
        .await
        .unwrap()
        .channel(ScriptedChannel(move |request: &Request| {
            asked_tx.lock().unwrap().send(request.id).unwrap();
            None
        }));
        let hooks = Arc::new(
            Hooks::builder()
                .only(["hooks_std::approval::gate"])
                .state(gate.policy().clone())
                .approver(gate)
                .build()
                .unwrap(),
        );
        let person = PostgresStore::connect(&connection(server, "latency"))
            .await
            .unwrap();
        let asked = Arc::new(Mutex::new(asked_rx));
        let mut samples = Vec::with_capacity(SAMPLES);
        for order in 0..SAMPLES {
            let resumed = Arc::new(Mutex::new(None));
            let call = tokio::spawn({
                let (hooks, resumed) = (Arc::clone(&hooks), Arc::clone(&resumed));
                async move {
                    hooks
                        .tool("payments_refund")
                        .run(
                            &Session::new("latency"),
                            json!({"order": order}),
                            async |_: &Value| {
                                *resumed.lock().unwrap() = Some(Instant::now());
                                Ok::<_, String>(json!("refunded"))
                            },
                        )
                        .await
                        .ran()
                }
            });
            let asked = Arc::clone(&asked);
            let id = tokio::task::spawn_blocking(move || asked.lock().unwrap().recv().unwrap())
                .await
                .unwrap();
            // Let the gate reach its wait: the answer is then news to it.
            tokio::time::sleep(Duration::from_millis(5)).await;
            let answered = Instant::now();
            assert!(person.answer(id, yes(Scope::Once)).await.unwrap());
            assert!(call.await.unwrap());
            let resumed = resumed.lock().unwrap().unwrap();
            samples.push(resumed - answered);
        }
        samples
    });
    samples.sort();
    let (p50, p99) = (samples[SAMPLES / 2], samples[SAMPLES * 99 / 100]);
    print!(
        "{SAMPLES} approvals, answer → resumed call: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ... ",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        samples[SAMPLES - 1].as_secs_f64() * 1e3
    );
    (p50, p99)
}
