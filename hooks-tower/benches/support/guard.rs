//! The guard the layer bench and the `layer_calls` driver both run — as a
//! hand-written tower layer and as a hook for `HooksLayer` — and the tool
//! behind it: one definition, so that the driver counts the bench's work.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use hooks_core::prelude::*;
use hooks_tower::ToolRequest;
use tower::{Layer, Service};

/// The guard body both run.
fn refuses(args: &Value) -> bool {
    args["query"]
        .as_str()
        .is_some_and(|query| query.trim_start().to_ascii_uppercase().starts_with("DROP"))
}

/// The hand-written layer's service.
#[derive(Clone)]
pub struct Guard<S>(S);

/// The hand-written layer.
pub struct GuardLayer;

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

/// The same guard as a hook, for `HooksLayer`.
pub fn hooks() -> Hooks {
    Hooks::builder()
        .without_linked()
        .hook(Hook::new("guard", |ctx: &mut PreToolUse| {
            if refuses(ctx.args()) {
                Decision::deny("DROP is not allowed")
            } else {
                Decision::Continue
            }
        }))
        .build()
        .expect("hooks")
}
