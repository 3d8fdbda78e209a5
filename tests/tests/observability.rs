//! Observability: each hook run is a `tracing` span named `hook` with the
//! hook's name, event, outcome and duration.

use hooks_core::prelude::*;
use hooks_tests::{block_on, capture_logs};

#[pre_tool_use(group = "traced")]
fn traced_guard(ctx: &mut PreToolUse) -> Decision {
    if ctx.tool() == "bad" {
        Decision::deny("bad tool")
    } else {
        Decision::Continue
    }
}

#[test]
fn each_hook_run_is_a_span_with_its_outcome() {
    let hooks = Hooks::builder().groups(["traced"]).build().unwrap();
    let session = Session::new("s");
    let ((), logs) = capture_logs(|| {
        let _ = block_on(hooks.dispatch(&mut PreToolUse::new(&session, "good", json!({}))));
        let _ = block_on(hooks.dispatch(&mut PreToolUse::new(&session, "bad", json!({}))));
    });
    let closes: Vec<&str> = logs.lines().filter(|line| line.contains("hook{")).collect();
    assert_eq!(closes.len(), 2, "{logs}");
    for (line, outcome) in closes.iter().zip(["continue", "deny"]) {
        assert!(line.contains("hook=observability::traced_guard"), "{line}");
        assert!(line.contains("event=\"pre_tool_use\""), "{line}");
        assert!(line.contains(&format!("outcome=\"{outcome}\"")), "{line}");
        assert!(line.contains("duration_us="), "{line}");
    }
}
