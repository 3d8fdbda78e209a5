use hooks_core::prelude::*;

#[pre_tool_use(observe = true)]
fn audit(_ctx: &PreToolUse) {}

fn main() {}
