use hooks_core::prelude::*;

trait Policy {
    fn allows(&self, tool: &str) -> bool;
}

#[pre_tool_use]
fn check(ctx: &mut PreToolUse, policy: &dyn Policy) -> Decision {
    if policy.allows(ctx.tool()) { Decision::Continue } else { Decision::deny("no") }
}

fn main() {}
