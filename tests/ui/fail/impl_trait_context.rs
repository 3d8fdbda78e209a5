use hooks_core::prelude::*;

#[pre_tool_use]
fn guard(_ctx: &mut impl hooks_core::Event) {}

fn main() {}
