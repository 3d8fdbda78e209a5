use hooks_core::prelude::*;

struct Limit(u64);

#[pre_tool_use]
fn between(ctx: &mut PreToolUse, low: &Limit, high: &Limit) -> Decision {
    match ctx.args()["n"].as_u64() {
        Some(n) if n >= low.0 && n <= high.0 => Decision::Continue,
        _ => Decision::deny("out of range"),
    }
}

fn main() {}
