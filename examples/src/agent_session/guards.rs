//! The example's hooks: what a team would write for its own agent.

use hooks_core::prelude::*;
use hooks_std::redact::Redactor;

/// Tells the model the house rules before its first turn.
#[session_start]
fn house_rules(ctx: &mut SessionStart) {
    ctx.inject("House rules: never drop tables; refunds need a human's yes.");
}

/// Refuses prompts that carry what looks like a live secret.
#[user_prompt_submit(priority = -10)]
fn no_pasted_secrets(ctx: &mut UserPromptSubmit) -> Decision {
    if ctx.prompt().contains("sk-live-") {
        Decision::deny("the prompt contains a live API key; remove it and try again")
    } else {
        Decision::Continue
    }
}

/// Guests never get a shell.
#[pre_model_request]
fn no_shell_for_guests(ctx: &mut PreModelRequest) {
    if ctx.session().metadata_value("role") == Some(&json!("guest")) {
        ctx.exclude_tools(&["Bash"]);
    }
}

/// No destructive shell commands, whoever asks.
#[pre_tool_use(priority = -10, matches = "Bash(rm -rf *)")]
fn no_rm_rf(ctx: &mut PreToolUse) -> Decision {
    Decision::deny(format!(
        "`{}` would delete recursively; remove specific files instead",
        ctx.subject().unwrap_or_default()
    ))
}

/// DROP is never allowed; DELETE needs a WHERE clause.
#[pre_tool_use(priority = 0, matches = "sql_*")]
fn careful_sql(ctx: &mut PreToolUse) -> Decision {
    let query = ctx.args()["query"]
        .as_str()
        .unwrap_or_default()
        .trim()
        .to_ascii_uppercase();
    if query.starts_with("DROP") {
        Decision::deny("DROP is not allowed; archive rows with an UPDATE instead")
    } else if query.starts_with("DELETE") && !query.contains(" WHERE ") {
        Decision::deny("DELETE without WHERE would empty the table; add a WHERE clause")
    } else {
        Decision::Continue
    }
}

/// Keeps file reads inside the workspace: rewrites relative paths.
#[pre_tool_use(priority = -5, matches = "read_file")]
fn anchor_paths(ctx: &mut PreToolUse) {
    if let Some(path) = ctx.args()["path"].as_str()
        && !path.starts_with("/workspace/")
    {
        let anchored = format!("/workspace/{}", path.trim_start_matches("./"));
        ctx.args_mut()["path"] = json!(anchored);
    }
}

/// Keys never reach the model, even when a file holds them: the same
/// redaction the audit log applies, from `hooks_std`, given to the
/// dispatcher as state (`.state(Redactor::default())`).
#[post_tool_use(matches = "read_file")]
fn redact_keys(ctx: &mut PostToolUse, redactor: &Redactor) {
    let redacted = match ctx.result() {
        Ok(Value::String(text)) => redactor.redact_text(text),
        _ => None,
    };
    // Only a real change is written, so only a real change is recorded as a rewrite.
    if let Some(redacted) = redacted {
        *ctx.result_mut() = Ok(Value::String(redacted));
    }
}

/// The agent may not stop before it has reported on the refund.
#[stop]
fn report_before_stopping(ctx: &mut Stop) -> Decision {
    let reported = ctx.last_message().is_some_and(|m| m.contains("refund"));
    if reported || ctx.stop_hook_active() {
        Decision::Continue
    } else {
        Decision::deny("summarize what happened to the refund before stopping")
    }
}

/// Output guardrail: the model's replies never name internal hosts.
#[post_model_response]
fn no_internal_hosts(ctx: &mut PostModelResponse) {
    if ctx.text().contains(".internal") {
        let redacted: Vec<String> = ctx
            .text()
            .split(' ')
            .map(|word| {
                if word.contains(".internal") {
                    "[internal host]".to_owned()
                } else {
                    word.to_owned()
                }
            })
            .collect();
        *ctx.text_mut() = redacted.join(" ");
    }
}

/// A guard being rolled out: in shadow, it records the searches it would
/// refuse to guest users, and enforces nothing. A read-only guard: it takes
/// `&PreToolUse`, so the compiler proves it cannot change the call.
#[pre_tool_use(shadow, matches = "search")]
fn no_searches_for_guests(ctx: &PreToolUse) -> Decision {
    if ctx.session().metadata_value("role").and_then(Value::as_str) == Some("guest") {
        Decision::deny("guests may not search the web")
    } else {
        Decision::Continue
    }
}

/// Payments get a warning in the audit log and a note for the person.
#[pre_tool_use(matches = "payments_*", priority = 100)]
fn note_payments(ctx: &PreToolUse) -> Decision {
    ctx.warn(format!("payment call: {}", ctx.args()));
    ctx.user_message(MessageLevel::Info, "a payment is about to run");
    Decision::Continue
}
