use hooks_core::prelude::*;

#[pre_tool_use(timeout_ms = 0)]
async fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
