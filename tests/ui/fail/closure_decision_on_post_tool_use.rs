use hooks_core::prelude::*;

fn main() {
    let _ = Hooks::builder()
        .hook(Hook::new("deny_after", |_ctx: &mut PostToolUse| Decision::deny("too late")));
}
