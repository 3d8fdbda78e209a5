use hooks_core::prelude::*;

struct Budget {
    left: u32,
}

#[pre_tool_use]
fn spend(_ctx: &mut PreToolUse, budget: &mut Budget) {
    budget.left -= 1;
}

fn main() {}
