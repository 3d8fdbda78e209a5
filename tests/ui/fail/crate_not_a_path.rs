use hooks_core::prelude::*;

#[pre_tool_use(crate = "hooks_core")]
fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
