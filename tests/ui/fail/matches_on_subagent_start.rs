use hooks_core::prelude::*;

#[subagent_start(matches = "researcher")]
fn researchers_only(_ctx: &mut SubagentStart) -> Decision {
    Decision::Continue
}

fn main() {}
