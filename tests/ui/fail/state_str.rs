use hooks_core::prelude::*;

#[pre_tool_use]
fn prefix(ctx: &mut PreToolUse, allowed_prefix: &str) -> Decision {
    if ctx.tool().starts_with(allowed_prefix) { Decision::Continue } else { Decision::deny("no") }
}

fn main() {}
