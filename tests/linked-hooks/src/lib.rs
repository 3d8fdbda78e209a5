//! A crate that only defines hooks, as a team's shared guards would.
//!
//! Nothing in it is called directly: a binary that depends on it gets these
//! hooks only if it links the crate (`hooks_core::link!(hooks_linked_fixture)`).
//! The tests `cross_crate.rs` and `unlinked.rs` show both sides.

use hooks_core::prelude::*;

#[pre_tool_use(group = "fixture", matches = "deploy")]
fn no_unreviewed_deploys(ctx: &mut PreToolUse) -> Decision {
    if ctx.args()["reviewed"] == json!(true) {
        Decision::Continue
    } else {
        Decision::deny("deploys need a reviewed change (from the fixture crate)")
    }
}

#[session_start(group = "fixture")]
fn house_rules(ctx: &mut SessionStart) {
    ctx.inject("house rules from another crate");
}
