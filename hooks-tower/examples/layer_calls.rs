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

use hooks_core::prelude::*;
use hooks_tower::{HooksLayer, ToolRequest};
use tower::{Layer, Service, ServiceExt, service_fn};

#[allow(dead_code, unreachable_pub)]
#[path = "../benches/support/guard.rs"]
mod guard;

use guard::{GuardLayer, hooks};

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
            let native = GuardLayer.layer(tool);
            for _ in 0..calls {
                answered += u64::from(
                    runtime
                        .block_on(native.clone().oneshot(request.clone()))
                        .is_ok(),
                );
            }
        }
        "hooked" => {
            let hooked = HooksLayer::new(hooks()).layer(tool);
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
