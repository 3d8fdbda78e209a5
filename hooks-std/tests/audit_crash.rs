//! A crash loses at most the record being written: a child process writing
//! audit records as fast as it can is killed with SIGKILL, and every line it
//! left is whole JSON (only the very last may be cut).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::audit::{Auditor, Durability, JsonLinesFile};

const CHILD_ENV: &str = "HOOKS_STD_AUDIT_CRASH_CHILD";

/// In the child: writes records until killed. In the parent: does nothing.
#[test]
fn child_writes_until_killed() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let auditor = Auditor::new(JsonLinesFile::open(Path::new(&path), Durability::Flush).unwrap());
    let session = Session::new("crash").with_user("u");
    for i in 0u64.. {
        let pre = PreToolUse::new(
            &session,
            "write_file",
            json!({"i": i, "body": "y".repeat(usize::try_from(i % 2_000).unwrap())}),
        );
        auditor.record_completed(&PostToolUse::after(&pre, Ok(json!(i))));
    }
}

#[test]
fn every_line_before_the_last_is_whole_after_sigkill() {
    let dir = std::env::temp_dir().join(format!("hooks-std-crash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("audit.jsonl");
    let _ = std::fs::remove_file(&path);

    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_writes_until_killed",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, &path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Let it write a good number of records, then kill it mid-stride.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::fs::metadata(&path).map_or(0, |meta| meta.len()) < 2_000_000
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();

    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    assert!(lines.len() > 100, "the child wrote {} records", lines.len());
    let complete = if text.ends_with('\n') {
        lines.len()
    } else {
        lines.len() - 1
    };
    for (n, line) in lines[..complete].iter().enumerate() {
        let record: Value = line
            .parse()
            .unwrap_or_else(|error| panic!("line {n} is torn ({error}): {line}"));
        assert_eq!(
            record["args"]["i"], n as u64,
            "records are in order, none lost before the crash"
        );
    }
}
