//! Per-call cost of each standard hook, dispatched alone through a tool
//! handle, next to a dispatcher holding one no-op hook (the floor). The audit
//! log is measured per record, in both durability modes.
//! Run with `cargo bench -p hooks-benches --bench std_hooks`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_benches::ready;
use hooks_core::prelude::*;
use hooks_std::audit::{Auditor, Durability, JsonLinesFile};
use hooks_std::rate_limit::{RateLimit, RateLimiter, Rule};

hooks_core::link!(hooks_std);

fn only(name: &str) -> Hooks {
    Hooks::builder()
        .only([name])
        .build()
        .expect("the hook is linked")
}

fn guards(c: &mut Criterion) {
    let mut group = c.benchmark_group("pre_tool_use, one hook");
    let session = Session::new("bench").with_user("dana");
    let frozen = Session::new("bench")
        .with_user("dana")
        .with_metadata("read_only", true);

    let floor = Hooks::builder()
        .without_linked()
        .hook(Hook::new("noop", |_: &mut PreToolUse| Decision::Continue))
        .build()
        .unwrap();
    let handle = floor.tool("sql_query");
    let mut ctx = PreToolUse::new(
        &session,
        "sql_query",
        json!({"query": "SELECT id FROM orders WHERE id = 7"}),
    );
    group.bench_function("no-op runtime hook (floor)", |b| {
        b.iter(|| ready(handle.dispatch(black_box(&mut ctx))).is_continue());
    });

    let read_only = only("hooks_std::read_only::guard").tool("sql_query");
    group.bench_function("read-only, mode off", |b| {
        b.iter(|| ready(read_only.dispatch(black_box(&mut ctx))).is_continue());
    });
    let mut frozen_select = PreToolUse::new(
        &frozen,
        "sql_query",
        json!({"query": "SELECT id FROM orders WHERE id = 7"}),
    );
    group.bench_function("read-only, mode on, SELECT scanned", |b| {
        b.iter(|| ready(read_only.dispatch(black_box(&mut frozen_select))).is_continue());
    });
    let mut frozen_update = PreToolUse::new(
        &frozen,
        "sql_query",
        json!({"query": "UPDATE orders SET paid = true"}),
    );
    group.bench_function("read-only, mode on, UPDATE denied", |b| {
        b.iter(|| ready(read_only.dispatch(black_box(&mut frozen_update))).is_denied());
    });

    let rate_limit = Hooks::builder()
        .only(["hooks_std::rate_limit::guard"])
        .state(
            RateLimiter::new(RateLimit::new(vec![Rule::new(
                u32::MAX,
                Duration::from_secs(1),
            )]))
            .unwrap(),
        )
        .build()
        .unwrap()
        .tool("sql_query");
    group.bench_function("rate-limit, admitted", |b| {
        b.iter(|| ready(rate_limit.dispatch(black_box(&mut ctx))).is_continue());
    });
    group.finish();
}

fn truncate(c: &mut Criterion) {
    let mut group = c.benchmark_group("post_tool_use, truncate");
    let session = Session::new("bench");
    let truncate = only("hooks_std::truncate::cut").tool("read_file");
    let small = json!({"rows": [[1, "a"], [2, "b"]]});
    group.bench_function("small result, untouched", |b| {
        b.iter_batched_ref(
            || PostToolUse::new(&session, "read_file", json!({}), Ok(small.clone())),
            |ctx| ready(truncate.dispatch(ctx)).is_continue(),
            criterion::BatchSize::SmallInput,
        );
    });
    let big = json!("x".repeat(100_000));
    group.bench_function("100 KB string, cut to 8,000 characters", |b| {
        b.iter_batched_ref(
            || PostToolUse::new(&session, "read_file", json!({}), Ok(big.clone())),
            |ctx| ready(truncate.dispatch(ctx)).is_continue(),
            criterion::BatchSize::SmallInput,
        );
    });
    group.finish();
}

fn audit(c: &mut Criterion) {
    let mut group = c.benchmark_group("audit record");
    let dir = std::env::temp_dir().join(format!("hooks-bench-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let session = Session::new("bench").with_user("dana");
    let pre = PreToolUse::new(
        &session,
        "http_get",
        json!({"url": "https://x", "headers": {"Authorization": "Bearer abcdefgh"}}),
    );
    let post = PostToolUse::after(&pre, Ok(json!({"status": 200})))
        .with_duration(Duration::from_millis(3));
    for (label, durability) in [
        ("flush (default)", Durability::Flush),
        ("sync (fdatasync)", Durability::Sync),
    ] {
        let auditor = Auditor::new(
            JsonLinesFile::open(dir.join(format!("{label}.jsonl")), durability).unwrap(),
        );
        group.bench_function(label, |b| {
            b.iter(|| {
                matches!(
                    auditor.record_completed(black_box(&post)),
                    hooks_core::Deferred::Ready(())
                )
            });
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `Bash(git push --force*)` guard: a plain command is matched in place,
/// a compound one is parsed as bash.
fn shell(c: &mut Criterion) {
    let mut group = c.benchmark_group("pre_tool_use, Bash(git push --force*) guard");
    let session = Session::new("bench");
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("no_force_push", |_: &mut PreToolUse| Decision::deny("no"))
                .matches("Bash(git push --force*)"),
        )
        .build()
        .unwrap();
    let bash = hooks.tool("Bash");
    for (name, command) in [
        ("plain command, no match", "cargo test --workspace"),
        (
            "compound command, no match",
            "cd repo && cargo test 2>&1 | tail -n 20",
        ),
        (
            "compound command, denied",
            "cd repo && git push --force origin main",
        ),
    ] {
        let mut ctx = PreToolUse::new(&session, "Bash", json!({ "command": command }));
        group.bench_function(name, |b| {
            b.iter(|| ready(bash.dispatch(black_box(&mut ctx))).is_continue());
        });
    }
    group.finish();
}

/// What the tool catalog adds to a call: a lookup of the call's tool when
/// the dispatcher has facts (a fresh context per call, so every dispatch
/// looks up), next to the same dispatch with an empty catalog; and the
/// read-only guard deciding from a declaration rather than a name.
fn catalog(c: &mut Criterion) {
    use criterion::BatchSize;
    use hooks_core::ToolFacts;

    let mut group = c.benchmark_group("tool catalog");
    let session = Session::new("bench");
    let noop = || Hook::new("noop", |_: &mut PreToolUse| Decision::Continue);
    let bare = Hooks::builder()
        .without_linked()
        .hook(noop())
        .build()
        .unwrap();
    let known = Hooks::builder()
        .without_linked()
        .tool_facts((0..1_000).map(|n| ToolFacts::new(format!("tool_{n}")).only_reads()))
        .hook(noop())
        .build()
        .unwrap();
    let fresh = || PreToolUse::new(&session, "tool_500", Value::Null);
    group.bench_function("dispatch by name, no catalog", |b| {
        b.iter_batched_ref(
            fresh,
            |ctx| ready(bare.dispatch(ctx)).is_continue(),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("dispatch by name, 1,000 tools declared (lookup)", |b| {
        b.iter_batched_ref(
            fresh,
            |ctx| ready(known.dispatch(ctx)).is_continue(),
            BatchSize::SmallInput,
        );
    });

    let frozen = Session::new("bench").with_metadata("read_only", true);
    let guard = Hooks::builder()
        .only(["hooks_std::read_only::guard"])
        .tool_facts([ToolFacts::new("frobnicate").only_reads()])
        .build()
        .unwrap();
    let mut declared = PreToolUse::new(&frozen, "frobnicate", json!({"q": "x"}));
    let mut named = PreToolUse::new(&frozen, "mcp__repo__git_status", json!({"repo_path": "/r"}));
    group.bench_function("read-only on, a declared read", |b| {
        b.iter(|| ready(guard.dispatch(black_box(&mut declared))).is_continue());
    });
    group.bench_function("read-only on, a read by the words of its name", |b| {
        b.iter(|| ready(guard.dispatch(black_box(&mut named))).is_continue());
    });
    group.finish();
}

/// A shell allow-list judging a command: every command in it must match.
fn allow_list(c: &mut Criterion) {
    let mut group = c.benchmark_group("ShellAllowList::allows");
    let list = hooks_core::ShellAllowList::new(["cd *", "cargo test*", "tail *", "git status*"]);
    for (name, command) in [
        ("plain command, allowed", "git status --short"),
        (
            "compound command, allowed",
            "cd repo && cargo test 2>&1 | tail -n 20",
        ),
        (
            "compound command, refused",
            "cd repo && git push --force origin main",
        ),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| list.allows(black_box(command)).is_ok());
        });
    }
    group.finish();
}

criterion_group!(benches, guards, shell, allow_list, truncate, audit, catalog);
criterion_main!(benches);
