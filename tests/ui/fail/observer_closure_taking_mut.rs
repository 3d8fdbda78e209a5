use hooks_core::prelude::*;

fn main() {
    let _ = Hooks::builder().hook(Hook::observer("log", |ctx: &mut PostToolUse| {
        let _ = ctx.tool();
    }));
}
