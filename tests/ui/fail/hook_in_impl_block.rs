use hooks_core::prelude::*;

struct Guards;

impl Guards {
    #[pre_tool_use]
    fn no_rm(ctx: &mut PreToolUse) -> Decision {
        if ctx.tool() == "rm" { Decision::deny("no") } else { Decision::Continue }
    }
}

fn main() {}
