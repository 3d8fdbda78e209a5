use hooks_core::prelude::*;

#[pre_tool_use]
fn guard(ctx: &mut PreToolUse) -> bool {
    ctx.tool() != "rm"
}

fn main() {}
