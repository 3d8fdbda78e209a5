use std::rc::Rc;

use hooks_core::prelude::*;

#[pre_tool_use]
async fn guard(ctx: &mut PreToolUse) {
    let shared = Rc::new(ctx.tool().to_owned());
    tokio::task::yield_now().await;
    drop(shared);
}

fn main() {}
