use std::rc::Rc;

use hooks_core::prelude::*;

struct Policy {
    blocked: Vec<String>,
}

#[pre_tool_use]
fn check(ctx: &mut PreToolUse, policy: &Rc<Policy>) -> Decision {
    if policy.blocked.iter().any(|tool| tool == ctx.tool()) { Decision::deny("no") } else { Decision::Continue }
}

fn main() {}
