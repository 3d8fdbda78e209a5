//! The `hooks-approve` CLI: list, show, approve, deny, and its refusals.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use hooks_std::approval::{Database, Status};

fn database() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("approvals.sqlite3")
}

fn cli(database: &PathBuf, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hooks-approve"))
        .arg("--db")
        .arg(database)
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_cli_answers_requests_and_refuses_what_it_cannot_do() {
    let database = database();
    let listed = cli(&database, &["list"]);
    assert!(listed.status.success());
    assert!(text(&listed.stdout).starts_with("no pending requests"));

    // Two requests, made the way the gate makes them.
    let seeder = rusqlite::Connection::open(&database).unwrap();
    for fingerprint in ["0", "1"] {
        seeder
            .execute(
                "INSERT INTO requests (fingerprint, session, agent, user, tool, args, prompt, status, created_at) \
                 VALUES (?1, 's1', 'main', 'dana', 'payments_refund', '{}', 'Allow a refund?', 'pending', '2026-11-22T00:00:00.000Z')",
                [fingerprint],
            )
            .unwrap();
    }
    drop(seeder);

    let listed = text(&cli(&database, &["list"]).stdout);
    assert!(
        listed.contains("#1 ") && listed.contains("#2 ") && listed.contains("payments_refund"),
        "{listed}"
    );

    let shown = cli(&database, &["show", "1"]);
    let json: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("show prints JSON");
    assert_eq!(json["status"], "pending");
    assert_eq!(json["prompt"], "Allow a refund?");

    let approved = cli(&database, &["approve", "#1", "--by", "alice", "--always"]);
    assert!(approved.status.success(), "{}", text(&approved.stderr));
    assert_eq!(
        text(&approved.stdout).trim(),
        "#1 approved by alice for the rest of the session"
    );

    let again = cli(
        &database,
        &["deny", "1", "--reason", "changed my mind", "--by", "bob"],
    );
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        text(&again.stderr).trim(),
        "hooks-approve: request #1 is already approved (by alice)"
    );

    let no_reason = cli(&database, &["deny", "2"]);
    assert_eq!(no_reason.status.code(), Some(2));
    assert!(text(&no_reason.stderr).contains("`deny` needs `--reason TEXT`"));

    let denied = cli(
        &database,
        &["deny", "2", "--reason", "not this one", "--by", "bob"],
    );
    assert!(denied.status.success());

    let missing = cli(&database, &["approve", "99"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        text(&missing.stderr).trim(),
        "hooks-approve: no request #99"
    );

    let bad = cli(&database, &["approve"]);
    assert_eq!(bad.status.code(), Some(2));
    let unknown = cli(&database, &["frobnicate"]);
    assert_eq!(unknown.status.code(), Some(2));

    let store = Database::open(&database, Duration::from_secs(1)).unwrap();
    assert_eq!(store.get(1).unwrap().unwrap().status, Status::Approved);
    let second = store.get(2).unwrap().unwrap();
    assert_eq!(
        (second.status, second.reason.as_deref()),
        (Status::Denied, Some("not this one"))
    );
}

#[test]
fn without_a_database_named_nothing_is_made() {
    let dir = std::env::temp_dir().join(format!("hooks-std-cli-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hooks-approve"))
        .arg("list")
        .current_dir(&dir)
        .env_remove("HOOKS_APPROVALS_DB")
        .env_remove("HOOKS_APPROVALS_STORE")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no database: give `--db PATH`"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "no file was made"
    );
    std::fs::remove_dir(&dir).unwrap();
}
