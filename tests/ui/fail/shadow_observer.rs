use hooks_core::prelude::*;

#[pre_tool_use(observe, shadow)]
fn audit(_ctx: &PreToolUse) {}

fn main() {}
