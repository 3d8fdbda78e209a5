//! Faults of a real server under a dispatcher whose audit log is in it: the
//! server killed (SIGKILL) and restarted, frozen with SIGSTOP, behind a network
//! black hole. No tool runs without its row; every call is answered within
//! the sink's timeout (denied while the record cannot be committed).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_std::audit::{Auditor, PostgresSink};

use super::postgres::{self, Postgres};
use super::proxy::Proxy;
use super::{children, create_database};

/// The sink's default: a record not committed within it refuses its call.
const TIMEOUT: Duration = Duration::from_secs(5);
/// How long past the timeout a call may take to be answered on a loaded
/// machine: generous, so only a call that waits for the server fails.
const SLACK: u32 = 4;
/// How long to wait for a condition the test causes before failing.
const PATIENCE: Duration = Duration::from_secs(120);

/// A dispatcher with the audit hooks, writing to `sink`.
fn audited(sink: PostgresSink) -> Arc<Hooks> {
    Arc::new(
        Hooks::builder()
            .state(Auditor::new(sink))
            .only([
                "hooks_std::audit::gate",
                "hooks_std::audit::denied",
                "hooks_std::audit::completed",
                "hooks_std::audit::failed",
            ])
            .build()
            .unwrap(),
    )
}

/// What the agents did: the numbers of the calls whose tool ran, and how
/// many calls were denied.
#[derive(Default)]
struct Tally {
    ran: Mutex<HashSet<i64>>,
    denied: AtomicU64,
    next: AtomicU64,
    stop: AtomicBool,
    reasons: Mutex<Vec<String>>,
}

impl Tally {
    fn ran(&self) -> usize {
        self.ran.lock().unwrap().len()
    }
}

/// One call through the dispatcher; the tool notes that it ran.
async fn call(hooks: &Hooks, tally: &Tally) -> (bool, Duration) {
    let session = Session::new("faults").with_user("u");
    let i = i64::try_from(tally.next.fetch_add(1, Ordering::SeqCst)).unwrap();
    let started = Instant::now();
    let run = hooks
        .tool("write_file")
        .run(&session, json!({"i": i}), async |args: &Value| {
            tally
                .ran
                .lock()
                .unwrap()
                .insert(args["i"].as_i64().unwrap());
            Ok::<_, String>(json!("written"))
        })
        .await;
    if let Some(denial) = run.denial() {
        tally.denied.fetch_add(1, Ordering::SeqCst);
        tally
            .reasons
            .lock()
            .unwrap()
            .push(denial.reason().to_owned());
    }
    (run.ran(), started.elapsed())
}

/// Agents calling in a loop until told to stop.
fn agents(
    runtime: &tokio::runtime::Runtime,
    hooks: &Arc<Hooks>,
    tally: &Arc<Tally>,
    count: usize,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..count)
        .map(|_| {
            let hooks = Arc::clone(hooks);
            let tally = Arc::clone(tally);
            runtime.spawn(async move {
                while !tally.stop.load(Ordering::SeqCst) {
                    call(&hooks, &tally).await;
                }
            })
        })
        .collect()
}

/// Waits until `condition` holds; past [`PATIENCE`] the test fails with `what`.
fn until(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !condition() {
        assert!(Instant::now() < deadline, "waited {PATIENCE:?} for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The `i` of every row in `database`.
fn recorded(server: &Postgres, database: &str) -> HashSet<i64> {
    children::runtime().block_on(async {
        let connection = server.connect(database).await.unwrap();
        connection
            .client
            .query(
                "SELECT (record -> 'args' ->> 'i')::bigint FROM hooks_audit_log",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect()
    })
}

fn socket(server: &Postgres, database: &str) -> String {
    format!(
        "host={} user={} dbname={database}",
        server.socket_dir().display(),
        postgres::USER
    )
}

/// SIGKILL mid-run, with 8 agents calling; restarted; every tool that ran
/// has its row, and calls run again after the restart.
pub(crate) fn killed(server: &mut Postgres) {
    create_database(server, "crash");
    let runtime = children::runtime();
    let sink = runtime
        .block_on(PostgresSink::connect(&socket(server, "crash")))
        .unwrap();
    let hooks = audited(sink);
    let tally = Arc::new(Tally::default());
    let agents = agents(&runtime, &hooks, &tally, 8);
    until("200 calls to run", || tally.ran() >= 200);
    server.crash();
    let ran_before = tally.ran();
    until("calls to be denied while the server is down", || {
        tally.denied.load(Ordering::SeqCst) >= 20
    });
    server.restart();
    until("200 more calls to run after the restart", || {
        tally.ran() >= ran_before + 200
    });
    tally.stop.store(true, Ordering::SeqCst);
    for agent in agents {
        runtime.block_on(agent).unwrap();
    }
    let rows = recorded(server, "crash");
    let ran = tally.ran.lock().unwrap().clone();
    let mut unrecorded: Vec<_> = ran.difference(&rows).copied().collect();
    unrecorded.sort_unstable();
    assert!(
        unrecorded.is_empty(),
        "{} of {} tools ran with no audit row: {unrecorded:?}",
        unrecorded.len(),
        ran.len()
    );
    print!(
        "{} ran, {} denied while down ... ",
        ran.len(),
        tally.denied.load(Ordering::SeqCst)
    );
}

/// Calls while the server cannot answer (`stall` done, `resume` to undo):
/// each is denied, none runs, each within the timeout × [`SLACK`]; after
/// `resume` calls run again.
fn stalled(hooks: &Arc<Hooks>, stall: impl FnOnce(), resume: impl FnOnce()) {
    let runtime = children::runtime();
    let tally = Arc::new(Tally::default());
    let (ran, _) = runtime.block_on(call(hooks, &tally));
    assert!(ran, "a call runs while the server answers");
    stall();
    let ran_before = tally.ran();
    let calls: Vec<_> = (0..8)
        .map(|_| {
            let hooks = Arc::clone(hooks);
            let tally = Arc::clone(&tally);
            runtime.spawn(async move { call(&hooks, &tally).await })
        })
        .collect();
    // A watchdog only: the assertion below is what the test checks.
    let answered = runtime.block_on(async {
        tokio::time::timeout(PATIENCE, async {
            let mut answers = Vec::new();
            for call in calls {
                answers.push(call.await.unwrap());
            }
            answers
        })
        .await
    });
    let Ok(answers) = answered else {
        resume();
        panic!("calls still unanswered after {PATIENCE:?} while the server could not answer");
    };
    resume();
    for (ran, took) in &answers {
        assert!(
            !ran,
            "a tool ran while its record could not be committed: {answers:?} {:?}",
            tally.reasons.lock().unwrap()
        );
        assert!(
            *took < TIMEOUT * SLACK,
            "a call took {took:?}, the sink's timeout is {TIMEOUT:?}"
        );
    }
    assert_eq!(tally.ran(), ran_before, "no tool ran");
    let reasons = tally.reasons.lock().unwrap().clone();
    assert!(
        reasons.iter().all(|reason| reason.contains("audit")),
        "{reasons:?}"
    );
    let slowest = answers.iter().map(|(_, took)| *took).max().unwrap();
    // The server answers again: calls run (the first may find the old connection gone).
    let deadline = Instant::now() + PATIENCE;
    while !runtime.block_on(call(hooks, &tally)).0 {
        assert!(Instant::now() < deadline, "calls did not run again");
        std::thread::sleep(Duration::from_millis(50));
    }
    print!("denied within {slowest:.1?} ... ");
}

/// SIGSTOP: the server frozen, its sockets open.
pub(crate) fn frozen(server: &Postgres) {
    create_database(server, "frozen");
    let sink = PostgresSink::open(&socket(server, "frozen")).unwrap();
    stalled(
        &audited(sink),
        || server.signal("STOP"),
        || server.signal("CONT"),
    );
}

/// A proxy that stops forwarding: the network drops every packet.
pub(crate) fn black_hole(server: &Postgres) {
    create_database(server, "hole");
    let proxy = Proxy::start(server.port());
    let sink = PostgresSink::open(&format!(
        "host=127.0.0.1 port={} user={} dbname=hole sslmode=disable",
        proxy.port,
        postgres::USER
    ))
    .unwrap();
    stalled(&audited(sink), || proxy.black_hole(), || proxy.restore());
}
