use hooks_core::prelude::*;

struct Limits {
    max: u64,
}

#[pre_tool_use]
fn cap(ctx: &mut PreToolUse, limits: Option<&Limits>) -> Decision {
    match (limits, ctx.args()["amount"].as_u64()) {
        (Some(limits), Some(amount)) if amount > limits.max => Decision::deny("too much"),
        _ => Decision::Continue,
    }
}

fn main() {}
