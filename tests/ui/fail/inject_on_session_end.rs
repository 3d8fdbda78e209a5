use hooks_core::prelude::*;

#[session_end]
fn too_late_to_tell_the_model(ctx: &mut SessionEnd) {
    ctx.inject("there is no next turn to read this");
}

fn main() {}
