use hooks_core::prelude::*;

#[pre_tool_use]
fn guard(ctx: &mut PostToolUse) {
    let _ = ctx.result();
}

fn main() {}
