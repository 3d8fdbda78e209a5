//! The same guard body as a hand-written tower layer and as a hook behind
//! `HooksLayer`, around the same instant tool service: what the hooks cost
//! a tower stack. Both layers box their future (as hand-written tower
//! middleware commonly does); ours also runs the post-tool-use dispatch.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_core::prelude::*;
use hooks_tower::{HooksLayer, ToolRequest};
use tower::{Layer, Service, ServiceExt, service_fn};

/// The guard body both run.
fn refuses(args: &Value) -> bool {
    args["query"]
        .as_str()
        .is_some_and(|query| query.trim_start().to_ascii_uppercase().starts_with("DROP"))
}

#[derive(Clone)]
struct Guard<S>(S);

struct GuardLayer;

impl<S> Layer<S> for GuardLayer {
    type Service = Guard<S>;
    fn layer(&self, inner: S) -> Guard<S> {
        Guard(inner)
    }
}

impl<S> Service<ToolRequest> for Guard<S>
where
    S: Service<ToolRequest, Response = Value, Error = String> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Value;
    type Error = String;
    type Future = Pin<Box<dyn Future<Output = Result<Value, String>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: ToolRequest) -> Self::Future {
        if refuses(&request.args) {
            return Box::pin(async { Err("DROP is not allowed".to_owned()) });
        }
        let clone = self.0.clone();
        let mut inner = std::mem::replace(&mut self.0, clone);
        Box::pin(async move { inner.call(request).await })
    }
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let tool = service_fn(|_: ToolRequest| async { Ok::<_, String>(json!({"rows": 1})) });
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("guard", |ctx: &mut PreToolUse| {
            if refuses(ctx.args()) {
                Decision::deny("DROP is not allowed")
            } else {
                Decision::Continue
            }
        }))
        .build()
        .unwrap();
    let native = GuardLayer.layer(tool);
    let hooked = HooksLayer::new(hooks).layer(tool);
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
