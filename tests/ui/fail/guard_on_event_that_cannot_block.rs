use hooks_core::prelude::*;

// A guard (`&Ctx`, not `observe`) decides; `post_model_response` may, but
// `post_tool_use` cannot block, so a shared borrow there is a mistake.
#[post_tool_use]
fn look(ctx: &PostToolUse) {
    let _ = ctx.result();
}

fn main() {}
