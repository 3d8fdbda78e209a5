use hooks_core::prelude::*;

#[session_end(shadow)]
fn goodbye(ctx: &mut SessionEnd) {
    let _ = ctx.reason();
}

fn main() {}
