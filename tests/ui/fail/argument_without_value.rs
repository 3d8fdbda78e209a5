use hooks_core::prelude::*;

#[pre_tool_use(priority)]
fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
