use hooks_core::prelude::*;

#[pre_tool_use]
fn guard(_ctx: &mut PreToolUse, limit: u32) {
    let _ = limit;
}

fn main() {}
