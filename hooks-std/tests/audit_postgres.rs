//! The audit log in PostgreSQL, with real processes and a real server
//! started by the test (Debian's `postgresql`, a temporary cluster on a unix
//! socket):
//!
//! - 8 writer processes × 10,000 records, 64 in flight each: exactly 80,000
//!   rows, each record once;
//! - a writer killed with SIGKILL mid-run loses no record it acknowledged:
//!   it prints each record's number once the dispatcher's record call has
//!   resolved, and every number printed is a row;
//! - each record commits with `synchronous_commit = on`, though the server's
//!   default is `off`;
//! - a sink used from one runtime, then another after the first is dropped;
//! - faults (`faults.rs`): the server killed (SIGKILL) mid-run, frozen with SIGSTOP,
//!   and behind a network black hole — no tool runs without its row, and
//!   calls are denied within the sink's timeout;
//! - TLS (`tls.rs`): `verify-full` against a CA the test makes, a server
//!   with `ssl = on` that refuses plain TCP; an unknown CA and a wrong name
//!   refused.
//!
//! Throughput is printed (BENCHMARKS.md). A program of its own
//! (`harness = false`): the writers are this binary.

#[path = "support/postgres.rs"]
mod postgres;

#[path = "support/children.rs"]
mod children;

#[path = "support/proxy.rs"]
mod proxy;

#[path = "audit_postgres/faults.rs"]
mod faults;

#[path = "audit_postgres/tls.rs"]
mod tls;
use std::collections::HashSet;
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_std::audit::{Audit, AuditRecord, Auditor, PostgresSink, Sink};
use hooks_std::redact::Redactor;
use postgres::{Postgres, Setup};

hooks_core::link!(hooks_std);

const ROLE: &str = "HOOKS_STD_PG_AUDIT_WRITER";
const HOST: &str = "HOOKS_STD_PG_HOST";
const WRITERS: u64 = 8;
const RECORDS_PER_WRITER: u64 = 10_000;
/// Records a writer has in flight at once, as concurrent calls would.
const IN_FLIGHT: u64 = 64;

fn main() {
    if let Ok(role) = std::env::var(ROLE) {
        writer(&role);
        return;
    }
    // `cargo test --test audit_postgres -- NAME`: only the tests whose name holds NAME.
    let only = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let check = |name: &str, test: &mut dyn FnMut()| {
        if only
            .as_ref()
            .is_none_or(|only| name.contains(only.as_str()))
        {
            children::check(name, test);
        }
    };
    let server = Postgres::start();
    check("eight_writers_write_exactly_80000_rows", &mut || {
        eight_writers(&server);
    });
    check("a_writer_killed_loses_no_acknowledged_record", &mut || {
        killed_writer(&server);
    });
    check("the_config_opens_a_postgres_sink", &mut || config(&server));
    check("each_record_commits_synchronously", &mut || {
        synchronous(&server);
    });
    check("a_sink_outlives_the_runtime_it_first_wrote_on", &mut || {
        runtimes(&server);
    });
    check("a_full_queue_refuses_records_at_once", &mut || {
        bounded(&server);
    });
    check(
        "the_config_bounds_connecting_to_a_server_that_never_answers",
        &mut never_answers,
    );
    check(
        "a_frozen_server_denies_calls_within_the_timeout",
        &mut || {
            faults::frozen(&server);
        },
    );
    let mut server = server;
    check(
        "the_server_killed_mid_run_no_tool_runs_unrecorded",
        &mut || {
            faults::killed(&mut server);
        },
    );
    drop(server);
    check(
        "records_per_second_with_synchronous_commit_on_disk",
        &mut || {
            durable();
        },
    );
    check(
        "tls_verify_full_refuses_an_unknown_ca_and_a_wrong_name",
        &mut tls::tls,
    );
    let tcp = Postgres::start_with(&Setup {
        tcp: true,
        ..Setup::default()
    });
    check(
        "a_network_black_hole_denies_calls_within_the_timeout",
        &mut || {
            faults::black_hole(&tcp);
        },
    );
}

/// The connection string the writers get: the socket's directory comes from
/// the environment, as a secret would.
fn connection(database: &str) -> String {
    format!("host=${{{HOST}}} user={} dbname={database}", postgres::USER)
}

/// `N DATABASE COUNT [IN_FLIGHT]`: writes COUNT records (or until killed,
/// with `0`), `IN_FLIGHT` (64 unless given) at a time, through the audit hooks' auditor; prints the
/// number of each record once its record call resolved.
fn writer(role: &str) {
    let mut words = role.split(' ');
    let writer: u64 = words.next().unwrap().parse().unwrap();
    let database = words.next().unwrap();
    let count = match words.next().unwrap().parse().unwrap() {
        0 => u64::MAX,
        count => count,
    };
    let in_flight: u64 = words.next().map_or(IN_FLIGHT, |n| n.parse().unwrap());
    children::runtime().block_on(async {
        let sink = PostgresSink::connect(&connection(database)).await.unwrap();
        let auditor = Arc::new(Auditor::new(sink));
        let session = Session::new("fleet").with_user("u");
        let mut next = 0;
        while next < count {
            let batch: Vec<_> = (next..count.min(next + in_flight))
                .map(|i| {
                    let auditor = Arc::clone(&auditor);
                    let pre = PreToolUse::new(
                        &session,
                        "write_file",
                        json!({"writer": writer, "i": i, "body": "y".repeat(usize::try_from(i % 500).unwrap())}),
                    );
                    let post = PostToolUse::after(&pre, Ok(json!(i)));
                    tokio::spawn(async move {
                        auditor.record_completed(&post).wait().await;
                        assert!(
                            matches!(auditor.gate(&pre), Decision::Continue),
                            "record {i} could not be written"
                        );
                        i
                    })
                })
                .collect();
            next += in_flight;
            let mut out = std::io::stdout().lock();
            for task in batch {
                // Acknowledged: the dispatcher's record call has resolved.
                writeln!(out, "{}", task.await.unwrap()).unwrap();
            }
            out.flush().unwrap();
        }
    });
}

fn spawn(server: &Postgres, role: &str, stdout: Stdio) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .env(ROLE, role)
        .env(HOST, server.socket_dir())
        .stdout(stdout)
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

/// Creates `database`; the writers race to migrate it.
pub(crate) fn create_database(server: &Postgres, database: &str) {
    children::runtime().block_on(async {
        let admin = server.connect("postgres").await.unwrap();
        admin
            .client
            .batch_execute(&format!("CREATE DATABASE {database}"))
            .await
            .unwrap();
    });
}

/// `(writer, i)` of every row.
pub(crate) fn rows(server: &Postgres, database: &str) -> Vec<(i64, i64)> {
    children::runtime().block_on(async {
        let connection = server.connect(database).await.unwrap();
        connection
            .client
            .query(
                "SELECT COALESCE((record -> 'args' ->> 'writer')::bigint, -1),
                        COALESCE((record -> 'args' ->> 'i')::bigint, -1)
                 FROM hooks_audit_log",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect()
    })
}

fn eight_writers(server: &Postgres) {
    create_database(server, "writers");
    let started = Instant::now();
    let children: Vec<_> = (0..WRITERS)
        .map(|writer| {
            spawn(
                server,
                &format!("{writer} writers {RECORDS_PER_WRITER}"),
                Stdio::null(),
            )
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let elapsed = started.elapsed();
    let rows = rows(server, "writers");
    let distinct: HashSet<_> = rows.iter().copied().collect();
    assert_eq!(rows.len(), 80_000, "exactly 80,000 rows");
    assert_eq!(distinct.len(), 80_000, "every record once");
    print!(
        "{} records in {:.2} s ({:.0} records/s, 8 processes) ... ",
        rows.len(),
        elapsed.as_secs_f64(),
        80_000.0 / elapsed.as_secs_f64()
    );
}

fn killed_writer(server: &Postgres) {
    create_database(server, "killed");
    let mut child = spawn(server, "0 killed 0", Stdio::piped());
    let mut acknowledged = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = HashSet::new();
    for line in acknowledged.by_ref() {
        seen.insert(line.unwrap().parse::<i64>().unwrap());
        if seen.len() == 5_000 {
            child.kill().unwrap(); // SIGKILL
            break;
        }
    }
    child.wait().unwrap();
    // What it acknowledged before it died, still in the pipe.
    for line in acknowledged.map_while(Result::ok) {
        if let Ok(i) = line.parse() {
            seen.insert(i);
        }
    }
    let stored: HashSet<i64> = rows(server, "killed").into_iter().map(|(_, i)| i).collect();
    let lost: Vec<_> = seen.difference(&stored).collect();
    assert!(lost.is_empty(), "acknowledged, then lost: {lost:?}");
    assert!(stored.len() >= seen.len());
}

/// `[audit_log] sink = "postgres://..."` opens (and migrates) the table.
fn config(server: &Postgres) {
    create_database(server, "configured");
    let table: Audit = toml::from_str(&format!(
        "sink = \"host={} user={} dbname=configured\"",
        server.socket_dir().display(),
        postgres::USER
    ))
    .unwrap();
    let auditor = Auditor::from_config(table).unwrap();
    children::runtime().block_on(async {
        let session = Session::new("configured");
        let pre = PreToolUse::new(&session, "read_file", json!({"path": "a"}));
        auditor
            .record_completed(&PostToolUse::after(&pre, Ok(json!("x"))))
            .wait()
            .await;
        assert!(matches!(auditor.gate(&pre), Decision::Continue));
    });
    assert_eq!(rows(server, "configured").len(), 1);
    let unset: Audit =
        toml::from_str("sink = \"host=${HOOKS_STD_SURELY_UNSET} dbname=x\"").unwrap();
    let error = Auditor::from_config(unset).err().unwrap().to_string();
    assert!(error.contains("HOOKS_STD_SURELY_UNSET"), "{error}");
}

/// Each record's `INSERT` runs with `synchronous_commit = on` (seen by a
/// trigger in the sink's own transaction), on a server whose default is `off`.
fn synchronous(server: &Postgres) {
    create_database(server, "durable");
    let sink = PostgresSink::open(&connection_to(server, "durable")).unwrap();
    children::runtime().block_on(async {
        let admin = server.connect("durable").await.unwrap();
        let default: String = admin
            .client
            .query_one("SHOW synchronous_commit", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(default, "off", "the test server commits asynchronously");
        admin
            .client
            .batch_execute(
                "CREATE TABLE seen (setting TEXT NOT NULL);
                 CREATE FUNCTION note_setting() RETURNS TRIGGER LANGUAGE plpgsql AS $$
                 BEGIN
                     INSERT INTO seen VALUES (current_setting('synchronous_commit'));
                     RETURN NEW;
                 END $$;
                 CREATE TRIGGER note BEFORE INSERT ON hooks_audit_log
                     FOR EACH ROW EXECUTE FUNCTION note_setting();",
            )
            .await
            .unwrap();
        let auditor = Auditor::new(sink);
        let session = Session::new("durable");
        for i in 0..3 {
            let pre = PreToolUse::new(&session, "write_file", json!({"i": i}));
            auditor
                .record_completed(&PostToolUse::after(&pre, Ok(json!(i))))
                .wait()
                .await;
            assert!(matches!(auditor.gate(&pre), Decision::Continue));
        }
        let settings: Vec<String> = admin
            .client
            .query("SELECT setting FROM seen", &[])
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        assert_eq!(settings, ["on", "on", "on"]);
    });
}

/// Written from a runtime that is then dropped, then from a new one, and
/// from a single-threaded one: every record is written.
fn runtimes(server: &Postgres) {
    create_database(server, "runtimes");
    let auditor = Auditor::new(PostgresSink::open(&connection_to(server, "runtimes")).unwrap());
    let session = Session::new("runtimes");
    for round in 0..4 {
        let runtime = if round % 2 == 0 {
            children::runtime()
        } else {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
        };
        runtime.block_on(async {
            let pre = PreToolUse::new(&session, "write_file", json!({"i": round}));
            auditor
                .record_completed(&PostToolUse::after(&pre, Ok(json!(round))))
                .wait()
                .await;
            assert!(
                matches!(auditor.gate(&pre), Decision::Continue),
                "round {round}: {:?}",
                auditor.gate(&pre)
            );
        });
        drop(runtime);
    }
    assert_eq!(rows(server, "runtimes").len(), 4);
}

/// The server's socket and `database`, spelled out.
fn connection_to(server: &Postgres, database: &str) -> String {
    format!(
        "host={} user={} dbname={database}",
        server.socket_dir().display(),
        postgres::USER
    )
}

/// While the server is frozen, a sink whose queue holds 4 records refuses
/// the rest of 50 at once (the writer holds at most one batch besides);
/// those queued fail at their deadline; thawed, records are written again.
fn bounded(server: &Postgres) {
    const QUEUE: usize = 4;
    const WRITES: usize = 50;
    create_database(server, "bounded");
    let timeout = Duration::from_secs(1);
    let sink = PostgresSink::builder(&connection_to(server, "bounded"))
        .queue(QUEUE)
        .timeout(timeout)
        .open()
        .unwrap();
    let session = Session::new("bounded");
    let pre = PreToolUse::new(&session, "write_file", json!({"i": 0}));
    let record = AuditRecord::completed(
        &PostToolUse::after(&pre, Ok(json!(0))),
        &Redactor::default(),
    );
    server.signal("STOP");
    let writes: Vec<_> = (0..WRITES).map(|_| sink.write(&record)).collect();
    let mut refused = 0;
    let mut queued = Vec::new();
    for write in writes {
        match write {
            hooks_core::Deferred::Ready(Err(error)) => {
                assert!(error.to_string().contains("queue"), "{error}");
                refused += 1;
            }
            hooks_core::Deferred::Ready(Ok(())) => panic!("written while the server is frozen"),
            hooks_core::Deferred::Later(pending) => queued.push(pending),
        }
    }
    let failed = children::runtime().block_on(async {
        tokio::time::timeout(Duration::from_secs(120), async {
            let mut failed = 0;
            for pending in queued {
                failed += usize::from(pending.await.is_err());
            }
            failed
        })
        .await
    });
    server.signal("CONT");
    assert!(
        refused >= WRITES - 2 * QUEUE,
        "only {refused} of {WRITES} refused"
    );
    assert_eq!(
        failed,
        Ok(WRITES - refused),
        "every queued record failed at its deadline"
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    children::runtime().block_on(async {
        while sink.write(&record).wait().await.is_err() {
            assert!(Instant::now() < deadline, "records are not written again");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    print!("{refused} of {WRITES} refused at once ... ");
}

/// `connect_timeout` from the table bounds opening a sink on a listener that
/// accepts connections and never answers.
fn never_answers() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let table: Audit = toml::from_str(&format!(
        "sink = \"host=127.0.0.1 port={port} user=x dbname=x\"\nconnect_timeout = \"1s\"\ntimeout = \"2s\"\nqueue = 8"
    ))
    .unwrap();
    assert_eq!((table.timeout, table.queue), (Duration::from_secs(2), 8));
    let started = Instant::now();
    let error = Auditor::from_config(table).err().unwrap().to_string();
    let took = started.elapsed();
    assert!(error.contains("could not connect within 1s"), "{error}");
    assert!(took < Duration::from_secs(30), "took {took:?}");
    drop(listener);
}

/// Throughput with each commit flushed to disk: a server with `fsync = on`
/// (its `synchronous_commit` stays `off`; the sink sets it `on` for its own
/// transactions). 8 writer processes × 2,000 records, 64 in flight each;
/// then one writer with one record in flight (a lone agent's calls).
fn durable() {
    let server = Postgres::start_with(&Setup {
        durable: true,
        ..Setup::default()
    });
    create_database(&server, "busy");
    let started = Instant::now();
    let children: Vec<_> = (0..WRITERS)
        .map(|writer| spawn(&server, &format!("{writer} busy 2000 64"), Stdio::null()))
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let busy = started.elapsed();
    assert_eq!(rows(&server, "busy").len(), 16_000);
    create_database(&server, "lone");
    let started = Instant::now();
    let mut child = spawn(&server, "0 lone 500 1", Stdio::null());
    assert!(child.wait().unwrap().success());
    let lone = started.elapsed();
    assert_eq!(rows(&server, "lone").len(), 500);
    print!(
        "8 processes: 16000 records in {:.2} s ({:.0}/s); 1 in flight: 500 in {:.2} s ({:.0}/s, {:.2} ms each) ... ",
        busy.as_secs_f64(),
        16_000.0 / busy.as_secs_f64(),
        lone.as_secs_f64(),
        500.0 / lone.as_secs_f64(),
        lone.as_secs_f64() * 1000.0 / 500.0
    );
}
