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

#[pre_tool_use(group = "traced_shadow", shadow)]
fn shadow_guard(_ctx: &PreToolUse) -> Decision {
    Decision::deny("would refuse")
}

#[test]
fn a_shadow_hook_span_says_it_is_shadow_and_what_it_would_have_done() {
    let hooks = Hooks::builder().groups(["traced_shadow"]).build().unwrap();
    let (outcome, logs) = capture_logs(|| {
        block_on(hooks.dispatch(&mut PreToolUse::new(&Session::new("s"), "x", json!({}))))
    });
    assert!(outcome.is_continue());
    let span = logs
        .lines()
        .find(|line| line.contains("hook{"))
        .unwrap_or_else(|| panic!("no hook span in {logs}"));
    assert!(span.contains("shadow=true"), "{span}");
    assert!(span.contains("outcome=\"deny\""), "{span}");
    assert!(
        logs.contains("shadow hook: not enforced"),
        "the would-be decision is logged: {logs}"
    );
}
