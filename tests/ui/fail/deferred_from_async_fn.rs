use hooks_core::prelude::*;

#[pre_tool_use]
async fn twice_late(_ctx: &mut PreToolUse) -> Deferred<'static, Decision> {
    Deferred::Ready(Decision::Continue)
}

fn main() {}
