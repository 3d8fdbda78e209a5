//! Dispatch cost: by tool handle and by tool name, with 10 and 1,000
//! registered hooks of which 2 match, against calling the two hook bodies
//! directly. Run with `cargo bench -p hooks-benches`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_benches::{hooks, no_drop_body, ready, ready_pinned, users_need_limit_body};
use hooks_core::prelude::*;

fn dispatch(c: &mut Criterion) {
    let session = Session::new("bench");
    let mut ctx = PreToolUse::new(
        &session,
        "sql_query",
        json!({"query": "SELECT id FROM orders"}),
    );
    let mut group = c.benchmark_group("pre_tool_use, 2 matching");

    group.bench_function("direct calls", |b| {
        b.iter(|| {
            let args = black_box(&ctx).args();
            black_box(no_drop_body(args)) == Decision::Continue
                && black_box(users_need_limit_body(args)) == Decision::Continue
        });
    });
    for (label, groups) in [
        ("10 registered", &["matching", "ten_noise"][..]),
        (
            "1000 registered",
            &["matching", "ten_noise", "thousand_noise"][..],
        ),
    ] {
        let hooks = hooks(groups);
        let handle = hooks.tool("sql_query");
        assert_eq!(handle.count::<PreToolUse>(), 2);
        group.bench_function(format!("by handle, {label}"), |b| {
            b.iter(|| ready(handle.dispatch(black_box(&mut ctx))).is_continue());
        });
        group.bench_function(format!("by handle pinned in place, {label}"), |b| {
            b.iter(|| {
                ready_pinned(std::pin::pin!(handle.dispatch(black_box(&mut ctx)))).is_continue()
            });
        });
        group.bench_function(format!("by name, {label}"), |b| {
            b.iter(|| ready(hooks.dispatch(black_box(&mut ctx))).is_continue());
        });
    }
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
