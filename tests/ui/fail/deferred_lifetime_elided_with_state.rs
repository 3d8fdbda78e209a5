use hooks_core::prelude::*;

struct Store;

#[pre_tool_use]
fn later(_ctx: &mut PreToolUse, _store: &Store) -> Deferred<'_, Decision> {
    Deferred::Ready(Decision::Continue)
}

fn main() {}
