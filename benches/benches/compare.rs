//! Our dispatch against direct calls, a dynamic registry and command hooks,
//! on the same hook bodies, in one run. `BENCHMARKS.md` has the numbers and
//! how to read them. Run with `cargo bench -p hooks-benches --bench compare`,
//! then `python3 benches/report.py` for the table.

use std::hint::black_box;
use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use hooks_benches::dynamic::{self, ToolEvent};
use hooks_benches::{allowed_now, bodies, hooks, linked, ready};
use hooks_core::prelude::*;

const QUERY: &str = "SELECT id, total FROM orders WHERE customer_id = 42";

/// A workload: its label, our sync groups, our async groups, how many hooks
/// are registered and how many match.
struct Workload(
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    usize,
    usize,
);

const WORKLOADS: [Workload; 4] = [
    Workload(
        "10 registered, 2 matching",
        &["match2", "noise8"],
        &["async_match2", "noise8"],
        10,
        2,
    ),
    Workload(
        "10 registered, 8 matching",
        &["match2", "match6", "noise2"],
        &["async_match2", "async_match6", "noise2"],
        10,
        8,
    ),
    Workload(
        "100 registered, 2 matching",
        &["match2", "noise8", "noise90"],
        &["async_match2", "noise8", "noise90"],
        100,
        2,
    ),
    Workload(
        "1000 registered, 2 matching",
        &["match2", "noise8", "noise90", "noise900"],
        &["async_match2", "noise8", "noise90", "noise900"],
        1_000,
        2,
    ),
];

fn guards(c: &mut Criterion) {
    let session = Session::new("bench").with_user("dana");
    for Workload(label, groups, async_groups, registered, matching) in WORKLOADS {
        let mut group = c.benchmark_group(label);
        let mut ctx = PreToolUse::new(&session, "sql_query", json!({"query": QUERY}));

        let direct: fn(&mut PreToolUse) -> Decision = if matching == 2 {
            linked::direct_2
        } else {
            linked::direct_8
        };
        group.bench_function("direct calls", |b| {
            b.iter(|| direct(black_box(&mut ctx)) == Decision::Continue);
        });

        let ours = hooks(groups);
        assert_eq!(ours.count::<PreToolUse>(), registered);
        let handle = ours.tool("sql_query");
        assert_eq!(handle.count::<PreToolUse>(), matching);
        group.bench_function("ours, by handle", |b| {
            b.iter(|| ready(handle.dispatch(black_box(&mut ctx))).is_continue());
        });
        group.bench_function("ours, by handle, now", |b| {
            b.iter(|| allowed_now(&handle.dispatch_now(black_box(&mut ctx))));
        });
        group.bench_function("ours, by name", |b| {
            b.iter(|| ready(ours.dispatch(black_box(&mut ctx))).is_continue());
        });

        let ours_async = hooks(async_groups);
        assert_eq!(ours_async.count::<PreToolUse>(), registered);
        let async_handle = ours_async.tool("sql_query");
        assert_eq!(async_handle.count::<PreToolUse>(), matching);
        group.bench_function("ours, async hooks, by handle", |b| {
            b.iter(|| ready(async_handle.dispatch(black_box(&mut ctx))).is_continue());
        });

        let registry = dynamic::guards(registered, matching);
        let mut event = ToolEvent::pre_tool_use("sql_query", json!({"query": QUERY}));
        group.bench_function("dynamic registry", |b| {
            b.iter(|| {
                let runs = ready(registry.dispatch(black_box(&mut event)));
                runs.len() == matching
                    && runs.iter().all(|run| run.output["decision"] == "continue")
            });
        });
        group.finish();
    }
}

/// What a dispatch costs before any hook runs: a handle none of whose hooks
/// match, so only the fixed bookkeeping is left.
fn fixed_cost(c: &mut Criterion) {
    let session = Session::new("bench");
    let mut group = c.benchmark_group("fixed cost");
    let mut ctx = PreToolUse::new(&session, "sql_query", json!({"query": QUERY}));
    let noise = hooks(&["noise8", "noise2"]);
    let handle = noise.tool("sql_query");
    assert_eq!(handle.count::<PreToolUse>(), 0);
    group.bench_function("ours, by handle, no hook matching", |b| {
        b.iter(|| ready(handle.dispatch(black_box(&mut ctx))).is_continue());
    });
    group.bench_function("ours, by handle, now, no hook matching", |b| {
        b.iter(|| allowed_now(&handle.dispatch_now(black_box(&mut ctx))));
    });

    group.finish();
}

fn rewrites(c: &mut Criterion) {
    let session = Session::new("bench").with_user("dana");
    let mut group = c.benchmark_group("rewrite chained through 3 hooks");
    let fresh = || PreToolUse::new(&session, "http_get", bodies::rewrite_input());
    group.bench_function("direct calls", |b| {
        b.iter_batched_ref(fresh, linked::direct_rewrites, BatchSize::SmallInput);
    });
    let ours = hooks(&["rewrite3"]);
    let handle = ours.tool("http_get");
    group.bench_function("ours, by handle", |b| {
        b.iter_batched_ref(
            fresh,
            |ctx| ready(handle.dispatch(ctx)).is_continue(),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("ours, by handle, now", |b| {
        b.iter_batched_ref(
            fresh,
            |ctx| allowed_now(&handle.dispatch_now(ctx)),
            BatchSize::SmallInput,
        );
    });
    let borrowed = hooks(&["rewrite3_borrowed"]);
    let borrowed_handle = borrowed.tool("http_get");
    group.bench_function("ours, by handle, args_mut", |b| {
        b.iter_batched_ref(
            fresh,
            |ctx| ready(borrowed_handle.dispatch(ctx)).is_continue(),
            BatchSize::SmallInput,
        );
    });
    let registry = dynamic::rewrites();
    group.bench_function("dynamic registry", |b| {
        b.iter_batched_ref(
            || ToolEvent::pre_tool_use("http_get", bodies::rewrite_input()),
            |event| ready(registry.dispatch(event)).len(),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

/// Two command hooks per call, each a process that reads the event as JSON
/// on stdin and answers on stdout: the cost of the subprocess model.
fn command_hooks(c: &mut Criterion) {
    let mut group = c.benchmark_group("10 registered, 2 matching");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(5));
    let event = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "bench",
        "tool_name": "sql_query",
        "tool_input": {"query": QUERY},
    })
    .to_string();
    group.bench_function("command hooks", |b| {
        b.iter(|| {
            bodies::KEYWORDS[..2].iter().all(|keyword| {
                let mut child = Command::new(env!("CARGO_BIN_EXE_bench-command-hook"))
                    .arg(keyword)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .expect("the command hook starts");
                child
                    .stdin
                    .take()
                    .expect("piped")
                    .write_all(event.as_bytes())
                    .expect("stdin");
                let output = child.wait_with_output().expect("the command hook finishes");
                let answer: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
                answer["hookSpecificOutput"]["permissionDecision"] == "allow"
            })
        });
    });
    group.finish();
}

criterion_group!(benches, guards, fixed_cost, rewrites, command_hooks);
criterion_main!(benches);
