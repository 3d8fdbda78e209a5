use hooks_core::prelude::*;

struct Names<'a> {
    allowed: &'a [&'a str],
}

#[pre_tool_use]
fn allow_list(ctx: &mut PreToolUse, names: &Names<'_>) -> Decision {
    if names.allowed.contains(&ctx.tool()) {
        Decision::Continue
    } else {
        Decision::deny("not allowed")
    }
}

fn main() {}
