//! The `hooks-replay` CLI: a log and a configuration in, the report out (as
//! text and as JSON), nothing written to the log, nobody asked; and what it
//! refuses, with exit status 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use hooks_std::approval::Database;

fn dir(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("hooks-config-replay-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hooks-replay"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Four audit records and a line that is not JSON.
const LOG: &str = r#"{"ts":"2026-01-05T10:00:00.000Z","session":"s1","agent":"main","user":"dana","tool":"read_file","call_id":"c1","args":{"path":"notes.txt"},"decision":"allowed","rewrites":[]}
{"ts":"2026-01-05T10:00:01.000Z","session":"s1","agent":"main","user":"dana","tool":"delete_file","call_id":"c2","args":{"path":"old.txt"},"decision":"allowed","rewrites":[]}
{"ts":"2026-01-05T10:00:02.000Z","session":"s1","agent":"main","user":"dana","tool":"drop_table","call_id":"c3","args":{"table":"users"},"decision":"denied","decided_by":"no_drops","reason":"no DDL","cause":{"kind":"denied"},"rewrites":[]}
{"ts":"2026-01-05T10:00:03.000Z","session":"s1","agent":"main","user":"dana","tool":"payments_refund","call_id":"c4","args":{"amount":5},"decision":"allowed","rewrites":[]}
this line was cut
"#;

/// The log and a configuration whose audit log is that very file, and
/// whose approvals would be stored (and waited for) in a database.
fn setup(dir: &Path) -> (String, String, PathBuf) {
    let log = dir.join("audit.jsonl");
    std::fs::write(&log, LOG).unwrap();
    let database = dir.join("approvals.sqlite3");
    let config = dir.join("hooks.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[[hooks]]
event = "pre_tool_use"
name = "no-deletes"
matches = "delete_*"
command = "cat > /dev/null; echo 'deleting is off' >&2; exit 2"
shell = true

[audit_log]
path = "{}"

[approval]
tools = ["payments_*"]
database = "{}"
timeout = "5s"
"#,
            log.display(),
            database.display()
        ),
    )
    .unwrap();
    (
        log.display().to_string(),
        config.display().to_string(),
        database,
    )
}

#[test]
fn the_report_names_each_difference_and_sums_them_up() {
    let dir = dir("text");
    let (log, config, database) = setup(&dir);
    let replayed = cli(&["--config", &config, &log]);
    let stdout = text(&replayed.stdout);
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        text(&replayed.stderr)
    );
    assert!(
        stdout.contains(
            "4 calls replayed: would newly deny 1, would newly allow 1, would ask 1, \
             denied by another hook 0, unchanged 1; 1 line could not be read"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "line 2: `delete_file` (call c2) in session s1 for dana: would newly deny\n    \
             recorded: allowed\n    replayed: denied by `no-deletes` (denied): deleting is off"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("line 3: `drop_table` (call c3) in session s1 for dana: would newly allow"),
        "{stdout}"
    );
    assert!(
        stdout.contains("would ask a person (`hooks_std::approval::gate`)"),
        "{stdout}"
    );
    assert!(stdout.contains("    line 5: not JSON"), "{stdout}");

    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        LOG,
        "the log the configuration audits to was not written"
    );
    let store = Database::open(&database, Duration::from_secs(1)).unwrap();
    assert!(
        store.get(1).unwrap().is_none(),
        "no approval request was stored: nobody was asked"
    );
}

#[test]
fn json_holds_every_call_and_the_summary() {
    let dir = dir("json");
    let (log, config, _) = setup(&dir);
    let replayed = cli(&["--json", "--config", &config, &log]);
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        text(&replayed.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&replayed.stdout).expect("--json prints JSON");
    assert_eq!(report["summary"]["calls"], 4);
    assert_eq!(report["summary"]["newly_denied"], 1);
    assert_eq!(report["summary"]["newly_allowed"], 1);
    assert_eq!(report["summary"]["would_ask"], 1);
    assert_eq!(report["summary"]["unreadable_lines"], 1);
    let changes: Vec<&str> = report["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["change"].as_str().unwrap())
        .collect();
    assert_eq!(
        changes,
        ["unchanged", "newly_denied", "newly_allowed", "would_ask"]
    );
    assert_eq!(report["calls"][1]["now"]["by"], "no-deletes");
    assert_eq!(report["errors"][0]["line"], 5);
}

#[test]
fn a_hook_can_be_left_out() {
    let dir = dir("without");
    let (log, config, _) = setup(&dir);
    let replayed = cli(&[
        "--config",
        &config,
        "--without",
        "hooks_std::approval::gate",
        &log,
    ]);
    let stdout = text(&replayed.stdout);
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        text(&replayed.stderr)
    );
    assert!(
        stdout.contains("would newly deny 1, would newly allow 1, would ask 0"),
        "{stdout}"
    );
}

#[test]
fn unusable_input_exits_2_saying_what_and_where() {
    let dir = dir("refusals");
    let (log, config, _) = setup(&dir);

    let missing = dir.join("missing.jsonl").display().to_string();
    let output = cli(&["--config", &config, &missing]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot read the log `{missing}`")),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());

    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[[hooks]]\nevent = \"pre_tool_use\"\ncommand = 7\n").unwrap();
    let output = cli(&["--config", &bad.display().to_string(), &log]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!("{}:3:", bad.display())),
        "{stderr}"
    );

    let output = cli(&["--config", &config, "--without", "no_such_hook", &log]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("no_such_hook"));

    for args in [
        &["--frobnicate", log.as_str()][..],
        &[],
        &[log.as_str(), log.as_str()],
    ] {
        let output = cli(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            text(&output.stderr).contains("usage: hooks-replay"),
            "{args:?}"
        );
    }

    let help = cli(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help.stdout).starts_with("usage: hooks-replay"));
}
