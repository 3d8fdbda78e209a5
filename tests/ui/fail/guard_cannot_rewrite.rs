use hooks_core::prelude::*;

// The guard form: the compiler proves it cannot change the call, whether
// through the whole arguments or one of them.
#[pre_tool_use(matches = "payments_*")]
fn cap_amounts(ctx: &PreToolUse) -> Decision {
    ctx.args_mut()["amount"] = json!(100);
    Decision::Continue
}

#[pre_tool_use(matches = "payments_*")]
fn cap_one_amount(ctx: &PreToolUse) -> Decision {
    let _ = ctx.set_arg("amount", 100);
    Decision::Continue
}

fn main() {}
