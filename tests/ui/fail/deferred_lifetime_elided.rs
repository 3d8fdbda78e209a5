use hooks_core::prelude::*;

#[pre_tool_use]
fn later(ctx: &mut PreToolUse) -> Deferred<Decision> {
    let slow = ctx.tool() == "slow";
    Deferred::Later(Box::pin(async move {
        if slow { Decision::deny("too slow") } else { Decision::Continue }
    }))
}

fn main() {}
