use hooks_core::prelude::*;

#[pre_tool_use]
unsafe fn guard(_ctx: &mut PreToolUse) {}

fn main() {}
