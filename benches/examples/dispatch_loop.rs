//! A dispatch in a loop, for profilers (`perf stat -e instructions:u`,
//! `perf record`, `valgrind --tool=callgrind`): criterion's harness would
//! blur a profile. `dispatch_loop CASE [ITERATIONS]`, CASE one of `direct`,
//! `handle` (10 registered, 2 matching), `handle1000`, `fixed` (no hook
//! matching), `name`, `rewrite`, `rewrite-direct`, `dynamic`; `handle-now`,
//! `fixed-now` and `rewrite-now` dispatch without a future (`dispatch_now`);
//! `rewrite` writes through `set_arg`, `rewrite-borrowed` through `args_mut`.

use std::hint::black_box;

use hooks_benches::{allowed_now, bodies, dynamic, hooks, linked, ready};
use hooks_core::prelude::*;

const QUERY: &str = "SELECT id, total FROM orders WHERE customer_id = 42";

fn main() {
    let mut args = std::env::args().skip(1);
    let case = args.next().unwrap_or_else(|| "handle".to_owned());
    let iterations: u64 = args
        .next()
        .map_or(10_000_000, |n| n.parse().expect("a count"));
    let session = Session::new("bench").with_user("dana");
    let mut ctx = PreToolUse::new(&session, "sql_query", json!({"query": QUERY}));
    let mut passed = 0_u64;
    match case.as_str() {
        "direct" => {
            for _ in 0..iterations {
                passed += u64::from(linked::direct_2(black_box(&mut ctx)) == Decision::Continue);
            }
        }
        "handle" | "handle1000" | "fixed" | "name" | "handle-now" | "fixed-now" => {
            let groups: &[&str] = match case.as_str() {
                "handle1000" => &["match2", "noise8", "noise90", "noise900"],
                "fixed" | "fixed-now" => &["noise8", "noise2"],
                _ => &["match2", "noise8"],
            };
            let ours = hooks(groups);
            let handle = ours.tool("sql_query");
            if case == "name" {
                for _ in 0..iterations {
                    passed += u64::from(ready(ours.dispatch(black_box(&mut ctx))).is_continue());
                }
            } else if case.ends_with("-now") {
                for _ in 0..iterations {
                    passed += u64::from(allowed_now(&handle.dispatch_now(black_box(&mut ctx))));
                }
            } else {
                for _ in 0..iterations {
                    passed += u64::from(ready(handle.dispatch(black_box(&mut ctx))).is_continue());
                }
            }
        }
        "rewrite" | "rewrite-direct" | "rewrite-now" | "rewrite-borrowed" => {
            let ours = hooks(if case == "rewrite-borrowed" {
                &["rewrite3_borrowed"]
            } else {
                &["rewrite3"]
            });
            let handle = ours.tool("http_get");
            let mut fresh: Vec<PreToolUse> = Vec::new();
            for _ in 0..iterations / 1000 {
                fresh.extend(
                    (0..1000)
                        .map(|_| PreToolUse::new(&session, "http_get", bodies::rewrite_input())),
                );
                for ctx in &mut fresh {
                    if case == "rewrite" || case == "rewrite-borrowed" {
                        passed += u64::from(ready(handle.dispatch(ctx)).is_continue());
                    } else if case == "rewrite-now" {
                        passed += u64::from(allowed_now(&handle.dispatch_now(ctx)));
                    } else {
                        linked::direct_rewrites(ctx);
                        passed += 1;
                    }
                }
                fresh.clear();
            }
        }
        "dynamic" => {
            let registry = dynamic::guards(10, 2);
            let mut event = dynamic::ToolEvent::pre_tool_use("sql_query", json!({"query": QUERY}));
            for _ in 0..iterations {
                passed += u64::from(ready(registry.dispatch(black_box(&mut event))).len() == 2);
            }
        }
        other => panic!("unknown case `{other}`"),
    }
    println!("{case}: {passed} of {iterations} passed");
}
