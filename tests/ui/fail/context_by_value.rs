use hooks_core::prelude::*;

#[session_start]
fn greet(ctx: SessionStart) {
    drop(ctx);
}

fn main() {}
