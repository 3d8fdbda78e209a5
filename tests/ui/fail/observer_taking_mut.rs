use hooks_core::prelude::*;

#[pre_tool_use(observe)]
fn audit(ctx: &mut PreToolUse) {
    ctx.args_mut()["seen"] = json!(true);
}

fn main() {}
