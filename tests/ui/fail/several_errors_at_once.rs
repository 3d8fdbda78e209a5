use hooks_core::prelude::*;

#[post_tool_use(priority = "first", matches = "a*b", timeout_ms = 10)]
fn observer(_ctx: &PostToolUse, _extra: u8) {}

fn main() {}
