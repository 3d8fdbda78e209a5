use hooks_core::prelude::*;

#[pre_tool_use]
fn guard<T: Default>(_ctx: &mut PreToolUse) {
    let _ = T::default();
}

fn main() {}
