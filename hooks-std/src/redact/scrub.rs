//! Known secrets out of what the model reads: a tool's result and a tool's
//! error (its message and its structured data), scrubbed by the
//! dispatcher's [`Redactor`] before the model, the audit log and any later
//! hook see them.
//!
//! Only the secrets the dispatcher *knows* are taken out of results, in
//! every encoding the redactor finds: they are facts. The shape rules
//! (`password=…`, tokens by prefix) stay out of results, where a guess
//! would change what a tool legitimately returned (a config file the user
//! asked to read); they apply to records, prompts and denials.
//!
//! The hooks run at priority 990, after the hooks of the call but before
//! truncation (1000), which could otherwise cut a secret in two and leave a
//! part no longer recognised. They fail closed (`on_error = "deny"`): if one
//! fails, the model gets an error instead of the unscrubbed result. A
//! dispatcher that knows no secrets pays one check per call.

use hooks_core::prelude::*;

use super::Redactor;

/// Takes known secrets out of a tool's result.
#[post_tool_use(
    name = "hooks_std::redact::scrub",
    group = "hooks_std",
    priority = 990,
    on_error = "deny"
)]
fn scrub(ctx: &mut PostToolUse, redactor: &Redactor) {
    let known = redactor.known();
    if known.is_empty() {
        return;
    }
    let dirty = match ctx.result() {
        Ok(value) => known.is_in(value),
        Err(message) => known.redact_text(message).is_some(),
    };
    // Only a result that holds one is touched, so only a real scrub is a rewrite.
    if dirty {
        match ctx.result_mut() {
            Ok(value) => known.scrub(value),
            Err(message) => {
                if let Some(clean) = known.redact_text(message) {
                    *message = clean;
                }
            }
        }
    }
}

/// Takes known secrets out of a failed tool's error: its message and its data.
#[post_tool_use_failure(
    name = "hooks_std::redact::scrub_error",
    group = "hooks_std",
    priority = 990,
    on_error = "deny"
)]
fn scrub_error(ctx: &mut PostToolUseFailure, redactor: &Redactor) {
    let known = redactor.known();
    if known.is_empty() {
        return;
    }
    if let Some(clean) = known.redact_text(ctx.error().message()) {
        *ctx.error_mut().message_mut() = clean;
    }
    if ctx.error().data().is_some_and(|data| known.is_in(data))
        && let Some(data) = ctx.error_mut().data_mut()
    {
        known.scrub(data);
    }
}
