use hooks_core::prelude::*;

#[pre_tool_use(matches = "")]
fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
