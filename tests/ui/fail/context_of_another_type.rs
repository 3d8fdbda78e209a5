use hooks_core::prelude::*;

#[pre_tool_use]
fn guard(ctx: &mut String) -> Decision {
    ctx.push('!');
    Decision::Continue
}

fn main() {}
