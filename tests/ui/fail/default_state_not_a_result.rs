use hooks_core::prelude::*;

pub struct Limits {
    pub max_calls: u32,
}

fn limits() -> Limits {
    Limits { max_calls: 100 }
}

hooks_core::default_state!(Limits, limits);

#[pre_tool_use]
fn enforce(_ctx: &mut PreToolUse, limits: &Limits) -> Decision {
    if limits.max_calls == 0 { Decision::deny("no calls") } else { Decision::Continue }
}

fn main() {}
