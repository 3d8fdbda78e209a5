use hooks_core::prelude::*;

#[pre_tool_use]
struct Guard;

fn main() {}
