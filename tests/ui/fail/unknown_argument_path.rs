use hooks_core::prelude::*;

#[pre_tool_use(hooks::priority = 5)]
fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
