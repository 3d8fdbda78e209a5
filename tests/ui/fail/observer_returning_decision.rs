use hooks_core::prelude::*;

#[pre_tool_use(observe)]
fn audit(_ctx: &PreToolUse) -> Decision {
    Decision::deny("observers cannot decide")
}

fn main() {}
