use hooks_core::prelude::*;

struct A;
struct B;

fn main() {
    let _ = Hooks::builder()
        .state(A)
        .state(B)
        .hook(Hook::observer("look", |_ctx: &PreToolUse, _a: &A, _b: &B| {}));
}
