use hooks_core::prelude::*;

// One error, on the misspelling: the `&` borrow is read as the observer it meant.
#[post_tool_use(obsrve)]
fn watcher(_ctx: &PostToolUse) {}

fn main() {}
