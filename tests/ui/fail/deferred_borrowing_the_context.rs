use hooks_core::prelude::*;

struct Store;

#[pre_tool_use]
fn look_up<'a>(ctx: &'a mut PreToolUse, _store: &'a Store) -> Deferred<'a, Decision> {
    Deferred::Later(Box::pin(async move {
        if ctx.tool() == "x" { Decision::deny("no") } else { Decision::Continue }
    }))
}

fn main() {}
