use hooks_core::prelude::*;

#[pre_tool_use(priority = 5 matches = "sql_*")]
fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
