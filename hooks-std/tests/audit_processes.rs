//! The audit log across processes, with real processes:
//!
//! - a writer killed with SIGKILL loses no record it acknowledged: the child
//!   prints the number of each record once `record_completed` has returned,
//!   the parent kills it mid-stride, and every acknowledged record is in the
//!   file, whole and in order (only a line after the last acknowledged one
//!   may be cut);
//! - writers in separate processes appending to one file never tear a line.
//!
//! A program of its own (`harness = false`): the same binary runs as the
//! children, so no child entry point shows up as a passing test.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hooks_core::Deferred;
use hooks_core::prelude::*;
use hooks_std::audit::{Auditor, Durability, JsonLinesFile};

const CHILD: &str = "HOOKS_STD_AUDIT_CHILD";
const WRITERS: u64 = 4;
const RECORDS_PER_WRITER: u64 = 5_000;

fn main() {
    match std::env::var(CHILD).ok().as_deref() {
        Some(role) => child(role),
        None => {
            check(
                "acknowledged_records_survive_sigkill",
                acknowledged_records_survive_sigkill,
            );
            check(
                "writers_in_separate_processes_never_tear_a_line",
                writers_in_separate_processes_never_tear_a_line,
            );
        }
    }
}

fn check(name: &str, test: fn()) {
    print!("test {name} ... ");
    test();
    println!("ok");
}

/// A child: `until-killed PATH` writes and acknowledges records until it
/// dies; `writer N PATH` writes its share of records and exits.
fn child(role: &str) {
    let mut words = role.splitn(3, ' ');
    let (mode, id, path) = (
        words.next().unwrap(),
        words.next().unwrap(),
        words.next().unwrap(),
    );
    let auditor = Auditor::new(JsonLinesFile::open(Path::new(path), Durability::Flush).unwrap());
    let session = Session::new("processes").with_user("u");
    let writer: u64 = id.parse().unwrap();
    let count = if mode == "until-killed" {
        u64::MAX
    } else {
        RECORDS_PER_WRITER
    };
    for i in 0..count {
        let pre = PreToolUse::new(
            &session,
            "write_file",
            json!({"writer": writer, "i": i, "body": "y".repeat(usize::try_from(i % 2_000).unwrap())}),
        );
        let Deferred::Ready(()) = auditor.record_completed(&PostToolUse::after(&pre, Ok(json!(i))))
        else {
            panic!("a file sink answers at once")
        };
        if mode == "until-killed" {
            // The record is acknowledged: say so.
            println!("{i}");
        }
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-processes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn spawn(role: &str, stdout: Stdio) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .env(CHILD, role)
        .stdout(stdout)
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

fn acknowledged_records_survive_sigkill() {
    let path = temp("crash.jsonl");
    let mut child = spawn(
        &format!("until-killed 0 {}", path.display()),
        Stdio::piped(),
    );
    let mut acknowledged = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut last = None;
    // Kill it mid-stride, once it has acknowledged a good number of records.
    for line in acknowledged.by_ref() {
        let i: u64 = line.unwrap().parse().unwrap();
        last = Some(i);
        if i == 3_000 {
            child.kill().unwrap(); // SIGKILL on Unix
            break;
        }
    }
    child.wait().unwrap();
    // What it acknowledged before it died, still in the pipe.
    for line in acknowledged.map_while(Result::ok) {
        if let Ok(i) = line.parse() {
            last = Some(i);
        }
    }
    let last: u64 = last.expect("the child acknowledged records");

    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    for i in 0..=last {
        let line = lines.get(usize::try_from(i).unwrap()).unwrap_or_else(|| {
            panic!(
                "record {i} was acknowledged, then lost ({} lines)",
                lines.len()
            )
        });
        let record: Value = line
            .parse()
            .unwrap_or_else(|error| panic!("acknowledged record {i} is torn ({error}): {line}"));
        assert_eq!(record["args"]["i"], i, "records are in order");
    }
    // Past the last acknowledged record, only the very last line may be cut.
    let whole = if text.ends_with('\n') {
        lines.len()
    } else {
        lines.len() - 1
    };
    for line in &lines[..whole] {
        assert!(
            line.parse::<Value>().is_ok(),
            "a torn line before the end: {line}"
        );
    }
}

fn writers_in_separate_processes_never_tear_a_line() {
    let path = temp("shared.jsonl");
    let children: Vec<_> = (0..WRITERS)
        .map(|writer| {
            spawn(
                &format!("writer {writer} {}", path.display()),
                Stdio::null(),
            )
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let mut seen = std::collections::HashSet::new();
    for line in text.lines() {
        let record: Value = line
            .parse()
            .unwrap_or_else(|error| panic!("a torn line ({error}): {line}"));
        assert!(seen.insert((
            record["args"]["writer"].as_u64().unwrap(),
            record["args"]["i"].as_u64().unwrap()
        )));
    }
    assert_eq!(
        seen.len() as u64,
        WRITERS * RECORDS_PER_WRITER,
        "every record of every writer, once"
    );
}
