use hooks_core::prelude::*;

#[pre_tool_use(prority = 5)]
fn guard(_ctx: &mut PreToolUse) {}

#[pre_tool_use(when = "always")]
fn other(_ctx: &mut PreToolUse) {}

fn main() {}
