use hooks_core::prelude::*;

#[derive(Debug)]
struct Opaque;

#[pre_tool_use]
fn guard(_ctx: &mut PreToolUse) -> Result<Decision, Opaque> {
    Err(Opaque)
}

fn main() {}
