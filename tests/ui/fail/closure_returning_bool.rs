use hooks_core::prelude::*;

fn main() {
    let _ = Hooks::builder()
        .hook(Hook::new("deny_rm", |ctx: &mut PreToolUse| ctx.tool() == "rm"));
}
