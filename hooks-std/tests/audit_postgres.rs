//! The audit log in PostgreSQL, with real processes and a real server
//! started by the test (Debian's `postgresql`, a temporary cluster on a unix
//! socket):
//!
//! - 8 writer processes × 10,000 records, 64 in flight each: exactly 80,000
//!   rows, each record once;
//! - a writer killed with SIGKILL mid-run loses no record it acknowledged:
//!   it prints each record's number once the dispatcher's record call has
//!   resolved, and every number printed is a row.
//!
//! Throughput is printed (BENCHMARKS.md). A program of its own
//! (`harness = false`): the writers are this binary.

#[path = "support/postgres.rs"]
mod postgres;

#[path = "support/children.rs"]
mod children;
use std::collections::HashSet;
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use hooks_core::prelude::*;
use hooks_std::audit::{Audit, Auditor, PostgresSink};
use postgres::Postgres;

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
    let server = Postgres::start();
    children::check("eight_writers_write_exactly_80000_rows", || {
        eight_writers(&server);
    });
    children::check("a_writer_killed_loses_no_acknowledged_record", || {
        killed_writer(&server);
    });
    children::check("the_config_opens_a_postgres_sink", || config(&server));
}

/// The connection string the writers get: the socket's directory comes from
/// the environment, as a secret would.
fn connection(database: &str) -> String {
    format!("host=${{{HOST}}} user={} dbname={database}", postgres::USER)
}

/// `N DATABASE COUNT`: writes COUNT records (or until killed, with `0`),
/// `IN_FLIGHT` at a time, through the audit hooks' auditor; prints the
/// number of each record once its record call resolved.
fn writer(role: &str) {
    let mut words = role.split(' ');
    let writer: u64 = words.next().unwrap().parse().unwrap();
    let database = words.next().unwrap();
    let count = match words.next().unwrap().parse().unwrap() {
        0 => u64::MAX,
        count => count,
    };
    children::runtime().block_on(async {
        let sink = PostgresSink::connect(&connection(database)).await.unwrap();
        let auditor = Arc::new(Auditor::new(sink));
        let session = Session::new("fleet").with_user("u");
        let mut next = 0;
        while next < count {
            let batch: Vec<_> = (next..count.min(next + IN_FLIGHT))
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
            next += IN_FLIGHT;
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
fn create_database(server: &Postgres, database: &str) {
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
fn rows(server: &Postgres, database: &str) -> Vec<(i64, i64)> {
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
