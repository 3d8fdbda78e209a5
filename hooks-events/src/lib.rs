//! What the attribute macros and the runtime of `hooks-core` share: the
//! events, listed once, and the tool-matcher pattern language ([`pattern`]).
//!
//! `hooks-core` generates its event kinds, link-time slices, dispatch tables,
//! capability rules and macro re-exports from this table, and `hooks-macros`
//! its attribute macros. Adding an event is one entry here plus its context
//! type in `hooks-core/src/context/`.
//!
//! [`for_each_event!`] hands the table to a macro of the caller's:
//!
//! ```
//! macro_rules! names {
//!     ($($kind:ident { attr: $attr:ident, $($rest:tt)* })*) => {
//!         const NAMES: &[&str] = &[$(stringify!($attr)),*];
//!     };
//! }
//! hooks_events::for_each_event!(names);
//! assert_eq!(NAMES[0], "session_start");
//! ```
//!
//! Each entry: the context type (also the event's name), then
//! - `attr`: the attribute macro and the snake-case name;
//! - `slice`: the link-time slice its hooks go into (versioned, so an
//!   incompatible layout gets a new slice rather than a silent mismatch);
//! - `block`: whether hooks may return `Decision` (deny, ask);
//! - `tool`: whether the event is about one tool call (so hooks may take `matches`);
//! - `inject`: whether hooks may add context for the model;
//! - `fail_closed`: whether a failing hook denies unless it says otherwise;
//! - `withhold`: whether a failing hook may withhold what the event hands
//!   on (`on_error = "deny"` on an event that cannot block: the model gets
//!   an error naming the hook instead of the tool's result);
//! - `what`: one line for the event kind's docs;
//! - `doc`, `example`: the attribute macro's docs and a runnable example.

pub mod pattern;

/// Calls `$callback! { .. }` with every event, in lifecycle order.
#[macro_export]
macro_rules! for_each_event {
    ($callback:ident) => {
        $callback! {
            SessionStart {
                attr: session_start,
                slice: __HOOKS_CORE_V1_SESSION_START,
                block: false,
                tool: false,
                inject: true,
                fail_closed: false,
                withhold: false,
                what: "A session begins (or resumes).",
                doc: "Runs when a session starts; may inject context for the first turn.",
                example: r#"
use hooks_core::prelude::*;

#[session_start]
fn conventions(ctx: &mut SessionStart) {
    ctx.inject("This repository uses rustfmt defaults and denies warnings.");
}
# fn main() {}
"#,
            }
            UserPromptSubmit {
                attr: user_prompt_submit,
                slice: __HOOKS_CORE_V1_USER_PROMPT_SUBMIT,
                block: true,
                tool: false,
                inject: true,
                fail_closed: true,
                withhold: false,
                what: "The user submitted a prompt; hooks may block or rewrite it.",
                doc: "Runs when the user submits a prompt; may block it, rewrite it, or inject context.",
                example: r#"
use hooks_core::prelude::*;

#[user_prompt_submit]
fn no_pasted_keys(ctx: &mut UserPromptSubmit) -> Decision {
    if ctx.prompt().contains("sk-live-") {
        Decision::deny("the prompt contains what looks like a live API key; remove it and resend")
    } else {
        Decision::Continue
    }
}
# fn main() {}
"#,
            }
            PreModelRequest {
                attr: pre_model_request,
                slice: __HOOKS_CORE_V1_PRE_MODEL_REQUEST,
                block: false,
                tool: false,
                inject: true,
                fail_closed: false,
                withhold: false,
                what: "A request to the model is about to be sent; hooks may filter tools and change parameters.",
                doc: "Runs before each request to the model; may narrow the tools offered and change parameters.",
                example: r#"
use hooks_core::prelude::*;

#[pre_model_request]
fn no_shell_for_guests(ctx: &mut PreModelRequest) {
    if ctx.session().user_id().is_none() {
        ctx.exclude_tools(&["Bash"]);
    }
}
# fn main() {}
"#,
            }
            PostModelResponse {
                attr: post_model_response,
                slice: __HOOKS_CORE_V1_POST_MODEL_RESPONSE,
                block: true,
                tool: false,
                inject: true,
                fail_closed: true,
                withhold: false,
                what: "The model answered; hooks may read and rewrite its text and the tool calls it asks for, or discard the reply.",
                doc: "Runs after the model answers; may rewrite its text and requested tool calls, or deny (discard the reply, with a reason).",
                example: r#"
use hooks_core::prelude::*;

#[post_model_response]
fn no_internal_hosts_in_answers(ctx: &mut PostModelResponse) {
    if ctx.text().contains("db.internal") {
        let text = ctx.text().replace("db.internal", "[internal host]");
        *ctx.text_mut() = text;
    }
}
# fn main() {}
"#,
            }
            PreToolUse {
                attr: pre_tool_use,
                slice: __HOOKS_CORE_V1_PRE_TOOL_USE,
                block: true,
                tool: true,
                inject: true,
                fail_closed: true,
                withhold: false,
                what: "A tool is about to run; hooks may deny, ask a person, or rewrite its arguments.",
                doc: "Runs before a tool call; may deny it, ask a person, rewrite its arguments, or inject context.",
                example: r#"
use hooks_core::prelude::*;

#[pre_tool_use(priority = -10, matches = "Bash(rm -rf *)")]
fn no_rm_rf(ctx: &mut PreToolUse) -> Decision {
    Decision::deny(format!("`{}` is destructive; delete specific files instead", ctx.subject().unwrap_or_default()))
}

#[pre_tool_use(matches = "payments_*", timeout_ms = 2_000)]
async fn large_payments_need_a_human(ctx: &mut PreToolUse) -> Decision {
    match ctx.args()["amount"].as_u64() {
        Some(amount) if amount > 10_000 => Decision::ask(format!("Pay {amount}?")),
        _ => Decision::Continue,
    }
}
# fn main() {}
"#,
            }
            PermissionRequest {
                attr: permission_request,
                slice: __HOOKS_CORE_V1_PERMISSION_REQUEST,
                block: true,
                tool: true,
                inject: false,
                fail_closed: true,
                withhold: false,
                what: "The host is about to ask the person to allow a tool call; hooks may grant it, deny it, or leave it to the person.",
                doc: "Runs when the host is about to show its permission dialog for a tool call; may deny the call (`Decision::Deny`), grant it (`ctx.grant()`, with the input as it then stands), or say nothing, and the person is asked. A denial wins over any grant, an `Ask` leaves it to the person, and a failing hook denies.",
                example: r#"
use hooks_core::prelude::*;

#[permission_request(matches = "Bash(cargo test*)")]
fn tests_may_run(ctx: &mut PermissionRequest) {
    ctx.grant();
}

#[permission_request(matches = "Bash(git push*)")]
fn no_pushing(_ctx: &PermissionRequest) -> Decision {
    Decision::deny("push from a terminal, not from the agent")
}
# fn main() {}
"#,
            }
            PostToolUse {
                attr: post_tool_use,
                slice: __HOOKS_CORE_V1_POST_TOOL_USE,
                block: false,
                tool: true,
                inject: true,
                fail_closed: false,
                withhold: true,
                what: "A tool has run; hooks may rewrite its result.",
                doc: "Runs after a tool call; may rewrite the result or inject context, but cannot block.",
                example: r#"
use hooks_core::prelude::*;

#[post_tool_use(matches = "read_file")]
fn redact_keys(ctx: &mut PostToolUse) {
    if let Ok(Value::String(text)) = ctx.result_mut() {
        *text = text.replace("AKIA", "[redacted]AKIA");
    }
}
# fn main() {}
"#,
            }
            PostToolUseFailure {
                attr: post_tool_use_failure,
                slice: __HOOKS_CORE_V1_POST_TOOL_USE_FAILURE,
                block: false,
                tool: true,
                inject: true,
                fail_closed: false,
                withhold: true,
                what: "A tool returned an error or panicked; hooks may rewrite what the model sees.",
                doc: "Runs after a tool call failed (returned an error or panicked); may rewrite the error the model sees, or inject context.",
                example: r#"
use hooks_core::prelude::*;

#[post_tool_use_failure(matches = "sql_*")]
fn hint_on_timeouts(ctx: &mut PostToolUseFailure) {
    if ctx.error().message().contains("statement timeout") {
        ctx.inject("The query timed out: add a WHERE clause or a LIMIT and try again.");
    }
}
# fn main() {}
"#,
            }
            Notification {
                attr: notification,
                slice: __HOOKS_CORE_V1_NOTIFICATION,
                block: false,
                tool: false,
                inject: false,
                fail_closed: false,
                withhold: false,
                what: "The host tells the person something (a permission prompt, an idle prompt); hooks observe it.",
                doc: "Runs when the host sends the person a notification (it needs a permission, it waits for input, ...); hooks observe it (play a sound, page someone) and can neither block nor inject.",
                example: r#"
use hooks_core::prelude::*;

#[notification]
fn note_idle(ctx: &mut Notification) {
    if ctx.notification_type() == Some("idle_prompt") {
        tracing::info!(message = ctx.message(), "the agent waits for its person");
    }
}
# mod tracing { macro_rules! info { ($($t:tt)*) => {} } pub(crate) use info; }
# fn main() {}
"#,
            }
            SubagentStart {
                attr: subagent_start,
                slice: __HOOKS_CORE_V1_SUBAGENT_START,
                block: true,
                tool: false,
                inject: true,
                fail_closed: true,
                withhold: false,
                what: "A sub-agent is about to be spawned; hooks may refuse it, with a reason.",
                doc: "Runs before a sub-agent is spawned; may refuse to spawn it (with a reason) or inject context for it.",
                example: r#"
use hooks_core::prelude::*;

#[subagent_start]
fn no_nested_researchers(ctx: &mut SubagentStart) -> Decision {
    if ctx.session().parent_agent_id().is_some() {
        Decision::deny("sub-agents may not spawn sub-agents; do the work yourself")
    } else {
        Decision::Continue
    }
}
# fn main() {}
"#,
            }
            SubagentStop {
                attr: subagent_stop,
                slice: __HOOKS_CORE_V1_SUBAGENT_STOP,
                block: true,
                tool: false,
                inject: true,
                fail_closed: false,
                withhold: false,
                what: "A sub-agent wants to stop; hooks may keep it going.",
                doc: "Runs when a sub-agent wants to stop; returning `Decision::Deny(reason)` keeps it going, like `stop`.",
                example: r#"
use hooks_core::prelude::*;

#[subagent_stop]
fn report_before_stopping(ctx: &mut SubagentStop) -> Decision {
    let reported = ctx.last_message().is_some_and(|m| m.contains("Findings:"));
    if reported || ctx.stop_hook_active() {
        Decision::Continue
    } else {
        Decision::deny("end with a `Findings:` section for the parent agent")
    }
}
# fn main() {}
"#,
            }
            PreCompact {
                attr: pre_compact,
                slice: __HOOKS_CORE_V1_PRE_COMPACT,
                block: false,
                tool: false,
                inject: true,
                fail_closed: false,
                withhold: false,
                what: "The conversation is about to be compacted; hooks may observe it and add what must survive.",
                doc: "Runs before the conversation is compacted; may inject what the summary must keep.",
                example: r#"
use hooks_core::prelude::*;

#[pre_compact]
fn keep_the_ticket(ctx: &mut PreCompact) {
    if let Some(ticket) = ctx.session().metadata_value("ticket").and_then(|t| t.as_str()) {
        ctx.inject(format!("Keep the ticket number {ticket} in the summary."));
    }
}
# fn main() {}
"#,
            }
            Stop {
                attr: stop,
                slice: __HOOKS_CORE_V1_STOP,
                block: true,
                tool: false,
                inject: true,
                fail_closed: false,
                withhold: false,
                what: "The agent wants to stop; hooks may keep it going.",
                doc: "Runs when the agent wants to stop; returning `Decision::Deny(reason)` keeps it going.",
                example: r#"
use hooks_core::prelude::*;

#[stop]
fn finish_the_checklist(ctx: &mut Stop) -> Decision {
    let said_done = ctx.last_message().is_some_and(|m| m.contains("All tests pass"));
    if said_done || ctx.stop_hook_active() {
        Decision::Continue
    } else {
        Decision::deny("run the test suite and report the result before stopping")
    }
}
# fn main() {}
"#,
            }
            SessionEnd {
                attr: session_end,
                slice: __HOOKS_CORE_V1_SESSION_END,
                block: false,
                tool: false,
                inject: false,
                fail_closed: false,
                withhold: false,
                what: "The session is over.",
                doc: "Runs when the session is over; can neither block nor inject.",
                example: r#"
use hooks_core::prelude::*;

#[session_end]
fn farewell(ctx: &mut SessionEnd) {
    tracing::info!(session = ctx.session().id(), reason = ctx.reason(), "session ended");
}
# mod tracing { macro_rules! info { ($($t:tt)*) => {} } pub(crate) use info; }
# fn main() {}
"#,
            }
        }
    };
}
