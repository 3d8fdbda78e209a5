//! One hook per event, with every return type each event allows.

use std::fmt;

use hooks_core::prelude::*;

#[derive(Debug)]
struct PolicyError;

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("policy store unavailable")
    }
}

#[session_start(priority = core::i32::MIN)]
fn start(ctx: &mut SessionStart) {
    ctx.inject("hello");
}

#[user_prompt_submit]
fn prompt(ctx: &mut UserPromptSubmit) -> Decision {
    ctx.prompt_mut().push('!');
    Decision::Continue
}

#[pre_model_request]
fn model(ctx: &mut PreModelRequest) -> Result<(), PolicyError> {
    ctx.exclude_tools(&["shell"]);
    Ok(())
}

#[pre_tool_use(priority = -1, matches = "sql_*|Bash(git push*)", name = "guards.sql", group = "db")]
fn pre(_ctx: &mut PreToolUse) -> Result<Decision, PolicyError> {
    Ok(Decision::Continue)
}

#[pre_tool_use(observe, matches = "sql_*")]
fn audit(ctx: &PreToolUse) -> Result<(), PolicyError> {
    let _ = ctx.denial();
    Ok(())
}

#[post_tool_use(observe, timeout_ms = 100)]
async fn audit_after(ctx: &PostToolUse) {
    let _ = ctx.pre_rewrites();
}

#[post_tool_use(matches = "*", on_error = "continue")]
fn post<'a>(ctx: &'a mut PostToolUse) {
    let _ = ctx.result_mut();
}

#[stop(on_error = "deny", priority = i32::MAX)]
fn stop(ctx: &mut Stop) -> Decision {
    if ctx.stop_hook_active() { Decision::Continue } else { Decision::deny("keep going") }
}

#[post_model_response]
fn reply(ctx: &mut PostModelResponse) -> Result<Decision, PolicyError> {
    let _ = ctx.text_mut();
    Ok(Decision::Continue)
}

#[post_tool_use_failure(matches = "sql_*", on_error = "deny")]
fn failed(ctx: &mut PostToolUseFailure) {
    let _ = ctx.error_mut();
}

#[subagent_start(observe)]
fn spawned(ctx: &SubagentStart) {
    let _ = ctx.subagent_id();
}

#[subagent_stop]
fn sub_stop(_ctx: &SubagentStop) -> Decision {
    Decision::Continue
}

#[pre_compact]
async fn compact(ctx: &mut PreCompact) -> Result<(), PolicyError> {
    ctx.inject("keep");
    Ok(())
}

#[permission_request(matches = "Bash(cargo test*)", on_error = "deny")]
fn permission(ctx: &mut PermissionRequest) -> Result<Decision, PolicyError> {
    ctx.args_mut()["description"] = json!("tests");
    ctx.grant();
    Ok(Decision::Continue)
}

#[permission_request(observe)]
fn permission_seen(ctx: &PermissionRequest) {
    let _ = (ctx.granted(), ctx.permission_suggestions());
}

#[notification]
async fn notified(ctx: &mut Notification) -> Result<(), PolicyError> {
    let _ = (ctx.message(), ctx.title(), ctx.notification_type());
    Ok(())
}

#[session_end]
fn end(_: &mut SessionEnd) -> Result<(), std::io::Error> {
    Ok(())
}

fn main() {
    let hooks = Hooks::builder().build().unwrap();
    assert_eq!(hooks.describe().hooks().len(), 17);
}
