use hooks_core::prelude::*;

#[pre_tool_use(timeout_ms = 500)]
fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
