//! The rewrite workload does the same work every way it is measured: the
//! same final arguments by hand, through our hooks (`set_arg` and
//! `args_mut`, by handle and without a future) and through the dynamic
//! registry — so the benchmark compares dispatch, not different work.

use hooks_benches::{allowed_now, bodies, dynamic, hooks, linked, ready};
use hooks_core::prelude::*;

fn expected() -> Value {
    json!({"url": "https://example.com/v1/orders", "host": "api.internal", "timeout_ms": 5_000})
}

#[test]
fn every_rewrite_path_leaves_the_same_arguments() {
    let session = Session::new("bench");
    let fresh = || PreToolUse::new(&session, "http_get", bodies::rewrite_input());

    let mut direct = fresh();
    linked::direct_rewrites(&mut direct);
    assert_eq!(direct.args(), &expected());

    for groups in [["rewrite3"], ["rewrite3_borrowed"]] {
        let ours = hooks(&groups);
        let handle = ours.tool("http_get");
        let mut awaited = fresh();
        assert!(ready(handle.dispatch(&mut awaited)).is_continue());
        assert_eq!(awaited.args(), &expected(), "{groups:?}");
        let hooks: Vec<&str> = awaited.rewrites().iter().map(|r| r.hook.as_str()).collect();
        assert_eq!(hooks.len(), 3, "{groups:?}: {hooks:?}");

        let mut now = fresh();
        assert!(allowed_now(&handle.dispatch_now(&mut now)));
        assert_eq!(now.args(), &expected(), "{groups:?}");
        assert_eq!(now.rewrites(), awaited.rewrites());
    }

    let registry = dynamic::rewrites();
    let mut event = dynamic::ToolEvent::pre_tool_use("http_get", bodies::rewrite_input());
    assert_eq!(ready(registry.dispatch(&mut event)).len(), 3);
    assert_eq!(event.tool_input, expected());
}
