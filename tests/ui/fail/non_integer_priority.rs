use hooks_core::prelude::*;

#[pre_tool_use(priority = "high")]
fn guard(_ctx: &mut PreToolUse) {}

#[pre_tool_use(priority = 1.5)]
fn other(_ctx: &mut PreToolUse) {}

#[pre_tool_use(priority = 3_000_000_000)]
fn too_big(_ctx: &mut PreToolUse) {}

fn main() {}
