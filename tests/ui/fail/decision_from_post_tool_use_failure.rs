use hooks_core::prelude::*;

#[post_tool_use_failure]
fn retry_instead(_ctx: &mut PostToolUseFailure) -> Decision {
    Decision::deny("the tool already failed; there is nothing left to refuse")
}

fn main() {}
