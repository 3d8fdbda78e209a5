use hooks_core::prelude::*;

#[pre_tool_use(priority = 1, matches = "sql_*", priority = 2)]
fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
