//! The events added for real agent loops, the guard form, shadow hooks and
//! hook messages: each compiles as the docs show it.

use hooks_core::prelude::*;

#[post_model_response]
fn redact_hosts(ctx: &mut PostModelResponse) -> Decision {
    if ctx.text().contains("db.internal") {
        let text = ctx.text().replace("db.internal", "[host]");
        *ctx.text_mut() = text;
    }
    ctx.tool_calls_mut().retain(|call| call.name() != "exfiltrate");
    Decision::Continue
}

#[post_tool_use_failure(matches = "sql_*")]
fn hint(ctx: &mut PostToolUseFailure) {
    if ctx.error().is_panic() {
        ctx.error_mut().message_mut().push_str(" (the tool crashed)");
    }
    ctx.inject(Injection::user("Try a smaller query.").ephemeral());
}

#[subagent_start]
fn no_nesting(ctx: &mut SubagentStart) -> Decision {
    if ctx.session().parent_agent_id().is_some() {
        Decision::deny("no nested sub-agents")
    } else {
        Decision::Continue
    }
}

#[subagent_stop(on_error = "deny")]
fn findings(ctx: &mut SubagentStop) -> Decision {
    if ctx.stop_hook_active() { Decision::Continue } else { Decision::deny("report first") }
}

#[pre_compact]
fn keep(ctx: &mut PreCompact) {
    if ctx.trigger() == CompactTrigger::Auto {
        ctx.inject("Keep the ticket number.");
    }
}

// Guards: a shared borrow on a blocking event; they may warn and message.
#[pre_tool_use(matches = "deploy")]
fn friday(ctx: &PreToolUse) -> Decision {
    ctx.warn("a deploy on a Friday");
    ctx.user_message(MessageLevel::Info, "deploying");
    Decision::Continue
}

#[user_prompt_submit]
async fn slow_guard(ctx: &UserPromptSubmit) -> Decision {
    if ctx.prompt().is_empty() { Decision::deny("empty") } else { Decision::Continue }
}

#[stop(shadow)]
fn stricter_stop(_ctx: &Stop) -> Decision {
    Decision::deny("not yet")
}

#[pre_tool_use(shadow, matches = "sql_*", group = "rollout")]
fn new_sql_guard(_ctx: &mut PreToolUse) -> Decision {
    Decision::deny("would refuse")
}

fn main() {
    let hooks = Hooks::builder().build().unwrap();
    assert_eq!(hooks.describe().hooks().len(), 9);
    assert!(hooks.describe().hooks().iter().any(|hook| hook.shadow));
}
