//! Two tenants in one process, at the same time: tenant A is read-only,
//! limited to 2 calls a minute per tool and audited to its own file; tenant B
//! may write, 100 calls a minute, audited to another file. Each dispatcher
//! holds its own policy; neither sees the other's.

use std::path::{Path, PathBuf};
use std::sync::Barrier;
use std::time::Duration;

use hooks_core::prelude::*;
use hooks_std::audit::{Audit, Auditor};
use hooks_std::rate_limit::{RateLimit, RateLimiter, Rule};
use hooks_std::read_only::{ReadOnly, ReadOnlyGuard};

hooks_core::link!(hooks_std);

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-tenants-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn tenant(read_only: bool, per_minute: u32, audit: &Path) -> Hooks {
    Hooks::builder()
        .groups(["hooks_std"])
        .without(["hooks_std::approval::gate", "hooks_std::truncate::cut"])
        .state(
            ReadOnlyGuard::new(ReadOnly {
                enabled: read_only,
                ..ReadOnly::default()
            })
            .unwrap(),
        )
        .state(
            RateLimiter::new(RateLimit::new(vec![Rule::new(
                per_minute,
                Duration::from_secs(60),
            )]))
            .unwrap(),
        )
        .state(
            Auditor::from_config(Audit {
                path: audit.to_owned(),
                ..Audit::default()
            })
            .unwrap(),
        )
        .build()
        .unwrap()
}

/// `writes` calls of `write_file` and `reads` of `read_file`, interleaved;
/// how many of each ran.
fn work(hooks: &Hooks, user: &str, writes: usize, reads: usize, start: &Barrier) -> (usize, usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let session = Session::new(format!("{user}-session")).with_user(user);
    let (write_tool, read_tool) = (hooks.tool("write_file"), hooks.tool("read_file"));
    start.wait();
    runtime.block_on(async {
        let (mut wrote, mut read_ran) = (0, 0);
        for i in 0..writes.max(reads) {
            if i < writes {
                let run = write_tool
                    .run(
                        &session,
                        json!({"path": format!("{user}/{i}")}),
                        async |_: &Value| Ok::<_, String>(json!("ok")),
                    )
                    .await;
                wrote += usize::from(run.ran());
            }
            if i < reads {
                let run = read_tool
                    .run(
                        &session,
                        json!({"path": format!("{user}/{i}")}),
                        async |_: &Value| Ok::<_, String>(json!("text")),
                    )
                    .await;
                read_ran += usize::from(run.ran());
            }
        }
        (wrote, read_ran)
    })
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect()
}

#[test]
fn two_tenants_hold_their_own_policies_in_parallel() {
    let (audit_a, audit_b) = (temp("tenant-a.jsonl"), temp("tenant-b.jsonl"));
    let a = tenant(true, 2, &audit_a);
    let b = tenant(false, 100, &audit_b);
    let start = Barrier::new(2);
    let ((a_wrote, a_read), (b_wrote, b_read)) = std::thread::scope(|scope| {
        let a = scope.spawn(|| work(&a, "alice", 5, 5, &start));
        let b = scope.spawn(|| work(&b, "bob", 50, 50, &start));
        (a.join().unwrap(), b.join().unwrap())
    });

    // A: every write refused by its read-only guard; 2 reads, then its limit.
    assert_eq!((a_wrote, a_read), (0, 2));
    // B: writes allowed, and 50 calls per tool are well within 100 a minute.
    assert_eq!((b_wrote, b_read), (50, 50));

    let a_records = records(&audit_a);
    let b_records = records(&audit_b);
    assert_eq!(
        a_records.len(),
        10,
        "every call of A, denied or not, in A's file"
    );
    assert_eq!(b_records.len(), 100);
    let deciders = |records: &[Value], tool: &str| -> Vec<String> {
        records
            .iter()
            .filter(|record| record["tool"] == tool)
            .map(|record| record["decided_by"].as_str().unwrap_or("-").to_owned())
            .collect()
    };
    assert_eq!(
        deciders(&a_records, "write_file"),
        ["hooks_std::read_only::guard"; 5]
    );
    assert_eq!(
        deciders(&a_records, "read_file"),
        [
            "-",
            "-",
            "hooks_std::rate_limit::guard",
            "hooks_std::rate_limit::guard",
            "hooks_std::rate_limit::guard"
        ]
    );
    assert!(a_records.iter().all(|record| record["user"] == "alice"));
    assert!(
        b_records
            .iter()
            .all(|record| record["user"] == "bob" && record["decision"] == "allowed")
    );
}
