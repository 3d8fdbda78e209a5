//! Async hooks on every kind of event, with and without timeouts.

use hooks_core::prelude::*;

#[pre_tool_use(timeout_ms = 1_000, matches = "fetch")]
async fn check_remote(ctx: &mut PreToolUse) -> Decision {
    tokio::task::yield_now().await;
    if ctx.args()["url"].as_str().is_some_and(|url| url.starts_with("http://")) {
        Decision::deny("use https")
    } else {
        Decision::Continue
    }
}

#[post_tool_use]
async fn record(ctx: &mut PostToolUse) -> Result<(), String> {
    tokio::task::yield_now().await;
    ctx.inject("recorded");
    Ok(())
}

#[session_end(timeout_ms = 50)]
async fn flush(_: &mut SessionEnd) {
    tokio::task::yield_now().await;
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let hooks = Hooks::builder().build().unwrap();
    let mut ctx = PreToolUse::new(&Session::new("s"), "fetch", json!({"url": "http://x"}));
    assert!(hooks.tool("fetch").dispatch(&mut ctx).await.is_denied());
}
