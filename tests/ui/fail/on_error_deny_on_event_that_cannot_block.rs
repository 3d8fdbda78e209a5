use hooks_core::prelude::*;

#[post_tool_use(on_error = "deny")]
fn observer(_ctx: &mut PostToolUse) {}

fn main() {}
