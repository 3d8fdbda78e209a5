use hooks_core::prelude::*;

#[pre_tool_use]
fn guard(ctx: &PreToolUse) -> Decision {
    if ctx.tool() == "rm" { Decision::deny("no") } else { Decision::Continue }
}

fn main() {}
