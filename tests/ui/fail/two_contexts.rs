use hooks_core::prelude::*;

#[post_tool_use]
fn compare(_ctx: &mut PostToolUse, _before: &PreToolUse) {}

fn main() {}
