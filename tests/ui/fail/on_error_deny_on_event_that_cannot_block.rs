use hooks_core::prelude::*;

#[session_start(on_error = "deny")]
fn greet(ctx: &mut SessionStart) {
    ctx.inject("hello");
}

fn main() {}
