use hooks_core::prelude::*;

struct Low(u64);
struct High(u64);

fn main() {
    let _ = Hooks::builder()
        .state(Low(1))
        .state(High(10))
        .hook(Hook::new("range", |ctx: &mut PreToolUse, low: &Low, high: &High| {
            match ctx.args()["n"].as_u64() {
                Some(n) if n >= low.0 && n <= high.0 => Decision::Continue,
                _ => Decision::deny("out of range"),
            }
        }));
}
