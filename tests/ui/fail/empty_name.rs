use hooks_core::prelude::*;

#[pre_tool_use(name = "")]
fn guard(_ctx: &mut PreToolUse) {}

#[pre_tool_use(group = 7)]
fn grouped(_ctx: &mut PreToolUse) {}

fn main() {}
