use hooks_core::prelude::*;

struct Limit(u64);

fn main() {
    let _ = Hooks::builder()
        .state(Limit(1))
        .hook(Hook::new("cap", |_ctx: &mut PreToolUse, limit: Limit| {
            if limit.0 > 0 { Decision::Continue } else { Decision::deny("no") }
        }));
}
