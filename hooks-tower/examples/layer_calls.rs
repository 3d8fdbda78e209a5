//! The bench's two layers (`benches/layer.rs`) called in a loop, for
//! instruction counts: criterion's harness would blur a profile.
//! `layer_calls native|hooked allow|deny [CALLS]`.
//!
//! ```sh
//! cargo build --release -p hooks-tower --example layer_calls
//! valgrind --tool=callgrind target/release/examples/layer_calls hooked allow 20000
//! ```
//!
//! The count for 2n calls less the count for n, over n, is one call's.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use hooks_core::prelude::*;
use hooks_tower::{HooksLayer, ToolRequest};
use tower::{Layer, Service, ServiceExt, service_fn};

fn refuses(args: &Value) -> bool {
    args["query"]
        .as_str()
        .is_some_and(|query| query.trim_start().to_ascii_uppercase().starts_with("DROP"))
}

/// The hand-written layer, as in the bench.
#[derive(Clone)]
struct Guard<S>(S);

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

fn main() {
    let mut args = std::env::args().skip(1);
    let layer = args.next().unwrap_or_else(|| "hooked".to_owned());
    let case = args.next().unwrap_or_else(|| "allow".to_owned());
    let calls: u64 = args.next().map_or(10_000, |n| n.parse().expect("a count"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let tool = service_fn(|_: ToolRequest| async { Ok::<_, String>(json!({"rows": 1})) });
    let session = Session::new("bench");
    let query = match case.as_str() {
        "allow" => "SELECT 1",
        "deny" => "DROP TABLE t",
        other => panic!("unknown case {other}: allow or deny"),
    };
    let request = ToolRequest::new(&session, "sql", json!({ "query": query }));
    let mut answered = 0_u64;
    match layer.as_str() {
        "native" => {
            let native = Guard(tool);
            for _ in 0..calls {
                answered += u64::from(
                    runtime
                        .block_on(native.clone().oneshot(request.clone()))
                        .is_ok(),
                );
            }
        }
        "hooked" => {
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
                .expect("hooks");
            let hooked = HooksLayer::new(hooks).layer(tool);
            // What each call allocates for its future.
            let future = hooked.clone().call(request.clone());
            eprintln!("HooksLayer future: {} bytes", size_of_val(&*future));
            drop(future);
            for _ in 0..calls {
                answered += u64::from(
                    runtime
                        .block_on(hooked.clone().oneshot(request.clone()))
                        .is_ok(),
                );
            }
        }
        other => panic!("unknown layer {other}: native or hooked"),
    }
    println!("{answered} of {calls} calls answered");
}
