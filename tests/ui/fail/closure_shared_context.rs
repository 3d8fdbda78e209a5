use hooks_core::prelude::*;

fn main() {
    let _ = Hooks::builder()
        .hook(Hook::new("deny_rm", |ctx: &PreToolUse| {
            if ctx.tool() == "rm" { Decision::deny("no") } else { Decision::Continue }
        }));
}
