//! The same guard body as a hand-written tower layer and as a hook behind
//! `HooksLayer`, around the same instant tool service: what the hooks cost
//! a tower stack. Both layers box their future (as hand-written tower
//! middleware commonly does); ours also runs the post-tool-use dispatch.

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_core::prelude::*;
use hooks_tower::{HooksLayer, ToolRequest};
use tower::{Layer, ServiceExt, service_fn};

#[allow(dead_code, unreachable_pub)]
#[path = "support/guard.rs"]
mod guard;

use guard::{GuardLayer, hooks};

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let tool = service_fn(|_: ToolRequest| async { Ok::<_, String>(json!({"rows": 1})) });
    let native = GuardLayer.layer(tool);
    let hooked = HooksLayer::new(hooks()).layer(tool);
    let session = Session::new("bench");
    let select = ToolRequest::new(&session, "sql", json!({"query": "SELECT 1"}));
    let drop = ToolRequest::new(&session, "sql", json!({"query": "DROP TABLE t"}));

    let mut group = c.benchmark_group("tower layer, guard allows");
    group.bench_function("hand-written tower layer", |b| {
        b.iter(|| {
            runtime
                .block_on(native.clone().oneshot(select.clone()))
                .unwrap()
        });
    });
    group.bench_function("HooksLayer", |b| {
        b.iter(|| {
            runtime
                .block_on(hooked.clone().oneshot(select.clone()))
                .unwrap()
        });
    });
    group.finish();
    let mut group = c.benchmark_group("tower layer, guard denies");
    group.bench_function("hand-written tower layer", |b| {
        b.iter(|| {
            runtime
                .block_on(native.clone().oneshot(drop.clone()))
                .unwrap_err()
        });
    });
    group.bench_function("HooksLayer", |b| {
        b.iter(|| {
            runtime
                .block_on(hooked.clone().oneshot(drop.clone()))
                .unwrap_err()
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
