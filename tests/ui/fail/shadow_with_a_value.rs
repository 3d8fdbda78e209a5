use hooks_core::prelude::*;

#[pre_tool_use(shadow = true)]
fn new_guard(_ctx: &mut PreToolUse) -> Decision {
    Decision::Continue
}

fn main() {}
