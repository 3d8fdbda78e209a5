use hooks_core::prelude::*;

#[post_tool_use]
fn too_late(_ctx: &mut PostToolUse) -> Decision {
    Decision::deny("the tool already ran")
}

fn main() {}
