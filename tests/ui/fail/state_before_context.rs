use hooks_core::prelude::*;

struct Limits {
    max: u64,
}

#[pre_tool_use]
fn cap(limits: &Limits, ctx: &mut PreToolUse) -> Decision {
    match ctx.args()["amount"].as_u64() {
        Some(amount) if amount <= limits.max => Decision::Continue,
        _ => Decision::deny("too much"),
    }
}

fn main() {}
