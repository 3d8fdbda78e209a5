use hooks_core::prelude::*;

#[pre_tool_use(observe, on_error = "deny")]
fn audit(_ctx: &PreToolUse) {}

fn main() {}
