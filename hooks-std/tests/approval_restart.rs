//! A pending approval survives its process: the agent is killed (SIGKILL)
//! while its request waits, a person approves it with the `hooks-approve`
//! CLI, a new agent process makes the same call and it runs — exactly once.
//! A third process making it again must ask again. An answer nobody used
//! for longer than `answers_expire_after` is not used by a later process.
//!
//! A program of its own (`harness = false`): the agent is this binary, run
//! again, so no child entry point shows up as a passing test.

#[path = "support/children.rs"]
mod children;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_std::approval::{ApprovalGate, Approvals, Database, ScriptedChannel, Status};

hooks_core::link!(hooks_std);

const CHILD_DATABASE: &str = "HOOKS_STD_APPROVAL_CHILD_DB";
const CHILD_MARKER: &str = "HOOKS_STD_APPROVAL_CHILD_MARKER";
const CHILD_TIMEOUT_MS: &str = "HOOKS_STD_APPROVAL_CHILD_TIMEOUT_MS";
const CHILD_ANSWERS_EXPIRE_MS: &str = "HOOKS_STD_APPROVAL_CHILD_ANSWERS_EXPIRE_MS";
/// The exit status of a child whose call was denied.
const DENIED: i32 = 3;

fn main() {
    match (
        std::env::var_os(CHILD_DATABASE),
        std::env::var_os(CHILD_MARKER),
    ) {
        (Some(database), Some(marker)) => agent(database.into(), Path::new(&marker)),
        _ => {
            print!("test a_call_approved_while_its_process_was_down_runs_exactly_once ... ");
            a_call_approved_while_its_process_was_down_runs_exactly_once();
            println!("ok");
            print!("test an_answer_left_unused_too_long_is_not_used_after_a_restart ... ");
            an_answer_left_unused_too_long_is_not_used_after_a_restart();
            println!("ok");
        }
    }
}

/// The agent, making one refund through the hooks; it says on stdout when
/// its request is stored and waiting for a person.
fn agent(database: PathBuf, marker: &Path) {
    let timeout: u64 = std::env::var(CHILD_TIMEOUT_MS).unwrap().parse().unwrap();
    let answers_expire: u64 = std::env::var(CHILD_ANSWERS_EXPIRE_MS)
        .unwrap()
        .parse()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ran = runtime.block_on(async {
        let gate = ApprovalGate::open(&Approvals {
            tools: vec!["payments_*".into()],
            database,
            timeout: Duration::from_millis(timeout),
            poll_interval: Duration::from_millis(20),
            answers_expire_after: Duration::from_millis(answers_expire),
            ..Approvals::default()
        })
        .unwrap()
        // Answered from the store (the CLI), like `CliChannel`, and says it asked.
        .channel(ScriptedChannel(|request: &hooks_std::approval::Request| {
            println!("asked #{}", request.id);
            None
        }));
        let hooks = Hooks::builder()
            .only(["hooks_std::approval::gate"])
            .state(gate.policy().clone())
            .approver(gate)
            .build()
            .unwrap();
        let run = hooks
            .tool("payments_refund")
            .run(
                &Session::new("restart-session").with_user("dana"),
                json!({"order": 7, "amount_usd": 500}),
                async |args: &Value| {
                    let mut file = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(marker)
                        .unwrap();
                    writeln!(file, "refunded {args}").unwrap();
                    Ok::<_, String>(json!("refunded"))
                },
            )
            .await;
        run.ran()
    });
    std::process::exit(if ran { 0 } else { DENIED });
}

fn spawn_agent(database: &Path, marker: &Path, timeout: Duration) -> Child {
    spawn_agent_with(database, marker, timeout, Duration::from_secs(600))
}

fn spawn_agent_with(
    database: &Path,
    marker: &Path,
    timeout: Duration,
    answers_expire_after: Duration,
) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .env(CHILD_DATABASE, database)
        .env(CHILD_MARKER, marker)
        .env(CHILD_TIMEOUT_MS, timeout.as_millis().to_string())
        .env(
            CHILD_ANSWERS_EXPIRE_MS,
            answers_expire_after.as_millis().to_string(),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn refunds(marker: &Path) -> usize {
    std::fs::read_to_string(marker).map_or(0, |text| text.lines().count())
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn a_call_approved_while_its_process_was_down_runs_exactly_once() {
    let database = temp("approvals.sqlite3");
    let marker = temp("refunds.log");

    // 1. The agent asks, and dies while waiting.
    let mut first = spawn_agent(&database, &marker, Duration::from_secs(60));
    assert_eq!(children::asked(&mut first), 1);
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    assert_eq!(refunds(&marker), 0);

    // 2. A person approves it from another terminal.
    approve_with_the_cli(&database, 1);

    // 3. A new agent process makes the same call: it runs, once.
    let mut second = spawn_agent(&database, &marker, Duration::from_secs(60));
    assert!(children::wait(&mut second, Duration::from_secs(30)).success());
    assert_eq!(refunds(&marker), 1);

    // 4. Making it yet again needs a new yes; nobody gives one.
    let mut third = spawn_agent(&database, &marker, Duration::from_millis(300));
    assert_eq!(
        children::wait(&mut third, Duration::from_secs(30)).code(),
        Some(DENIED)
    );
    assert_eq!(refunds(&marker), 1, "an approved call runs exactly once");

    let store = Database::open(&database, Duration::from_secs(5)).unwrap();
    let first_request = store.get(1).unwrap().unwrap();
    assert_eq!(first_request.status, Status::Approved);
    assert_eq!(first_request.responded_by.as_deref(), Some("alice"));
    assert!(first_request.consumed_at.is_some());
    assert_eq!(store.get(2).unwrap().unwrap().status, Status::Expired);
}

/// `hooks-approve approve ID --by alice`, as a person at another terminal.
fn approve_with_the_cli(database: &Path, id: i64) {
    let output = Command::new(env!("CARGO_BIN_EXE_hooks-approve"))
        .args(["--db".as_ref(), database.as_os_str()])
        .args(["approve", &id.to_string(), "--by", "alice"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("#{id} approved by alice")
    );
}

fn an_answer_left_unused_too_long_is_not_used_after_a_restart() {
    let database = temp("stale-approvals.sqlite3");
    let marker = temp("stale-refunds.log");
    let expire = Duration::from_millis(400);

    // The agent asks and dies; a person approves; nobody comes back for it
    // until the answer is older than `answers_expire_after`.
    let mut first = spawn_agent_with(&database, &marker, Duration::from_secs(60), expire);
    assert_eq!(children::asked(&mut first), 1);
    first.kill().unwrap();
    first.wait().unwrap();
    approve_with_the_cli(&database, 1);
    let answered = Instant::now();
    // Waiting out a deadline, not hoping for an ordering: past this the
    // answer is stale whatever the scheduler does.
    std::thread::sleep(expire.saturating_sub(answered.elapsed()) + Duration::from_millis(100));

    // The same call from a new process asks again, and nobody answers.
    let mut second = spawn_agent_with(&database, &marker, Duration::from_millis(300), expire);
    assert_eq!(
        children::wait(&mut second, Duration::from_secs(30)).code(),
        Some(DENIED)
    );
    assert_eq!(refunds(&marker), 0, "a stale yes let the refund through");

    let store = Database::open(&database, Duration::from_secs(5)).unwrap();
    let stale = store.get(1).unwrap().unwrap();
    assert_eq!(stale.status, Status::Approved);
    assert!(stale.consumed_at.is_none(), "the stale yes was not used");
    assert_eq!(store.get(2).unwrap().unwrap().status, Status::Expired);
}
