use std::cell::Cell;

use hooks_core::prelude::*;

struct Counter {
    calls: Cell<u64>,
}

#[pre_tool_use]
fn count(_ctx: &mut PreToolUse, counter: &Counter) {
    counter.calls.set(counter.calls.get() + 1);
}

fn main() {}
