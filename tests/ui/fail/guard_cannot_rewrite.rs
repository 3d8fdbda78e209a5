use hooks_core::prelude::*;

// The guard form: the compiler proves it cannot change the call.
#[pre_tool_use(matches = "payments_*")]
fn cap_amounts(ctx: &PreToolUse) -> Decision {
    ctx.args_mut()["amount"] = json!(100);
    Decision::Continue
}

fn main() {}
