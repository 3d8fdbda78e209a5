use hooks_core::prelude::*;

#[pre_tool_use(on_error = "ignore")]
fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
