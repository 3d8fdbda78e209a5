//! The answer to `PermissionRequest`, the host's permission dialog about to
//! be shown: `hookSpecificOutput.decision` with `behavior: "deny"` (and the
//! reason as `message`) when a hook denied, `behavior: "allow"` when a hook
//! granted the call (with `updatedInput` if hooks changed it, on Claude
//! Code), and no decision at all otherwise: the dialog is shown, and its
//! person decides.
//!
//! Codex fails a hook whose decision carries `updatedInput` or `interrupt`
//! (it reserves them), so neither is sent to it: a grant of a rewritten call
//! is not sent either (Codex would run the call as asked, not as granted),
//! and its own approval decides, told why. Nor is it sent to a Claude Code
//! older than 2.1.110 (when told the version), which ran a granted
//! `updatedInput` without checking it against the person's deny rules.

use hooks_core::{Outcome, PermissionRequest, Value, json};

use crate::answer::{Answer, Reply, reason};
use crate::host::Host;
use crate::version::{self, HostVersion, claude};

const EVENT: &str = "PermissionRequest";

/// What the binary answers, after dispatch; `original` is the input the host sent.
pub(crate) fn answer(
    host: Host,
    version: Option<HostVersion>,
    outcome: &Outcome,
    ctx: &PermissionRequest,
    original: &Value,
) -> Answer {
    let reply = Reply::new(EVENT, outcome);
    if let Some(denial) = outcome.denial() {
        let mut decision = json!({"behavior": "deny", "message": reason(denial)});
        if host == Host::Claude && outcome.end_session().is_some() {
            decision["interrupt"] = json!(true);
        }
        return reply.specific("decision", decision).answer();
    }
    let rewritten = ctx.args() != original;
    let Some(grant) = ctx.granted() else {
        return match note_ungranted(ctx, rewritten) {
            Some(note) => with_note(reply, outcome, &note),
            None => reply.answer(),
        };
    };
    match (host, rewritten) {
        (_, false) => reply
            .specific("decision", json!({"behavior": "allow"}))
            .answer(),
        (Host::Claude, true) if version::reads(version, claude::GRANTED_INPUT_CHECKED) => reply
            .specific(
                "decision",
                json!({"behavior": "allow", "updatedInput": ctx.args()}),
            )
            .answer(),
        (Host::Claude, true) => {
            let by = grant.hook.as_ref().map_or("a hook", |hook| hook.as_str());
            let named = version.map_or_else(String::new, |version| format!(" {version}"));
            let note = format!(
                "hooks: `{by}` granted this call with its input rewritten, which Claude \
                 Code{named} would run without checking it against your deny rules (it \
                 does from {}); the dialog decides on the call as asked",
                claude::GRANTED_INPUT_CHECKED
            );
            with_note(reply, outcome, &note)
        }
        (Host::Codex, true) => {
            let by = grant.hook.as_ref().map_or("a hook", |hook| hook.as_str());
            let note = format!(
                "hooks: `{by}` granted this call with its input rewritten, which Codex cannot \
                 take on a permission request; Codex's own approval decides on the call as asked"
            );
            with_note(reply, outcome, &note)
        }
    }
}

/// Why hooks that did something left the call to the person, if they did.
fn note_ungranted(ctx: &PermissionRequest, rewritten: bool) -> Option<String> {
    if ctx.asked() {
        return None;
    }
    if let Some(grant) = ctx.grants().first() {
        let by = grant.hook.as_ref().map_or("a hook", |hook| hook.as_str());
        return Some(format!(
            "hooks: `{by}` granted this call, but its input was changed after that, so the \
             grant does not hold; the dialog decides"
        ));
    }
    rewritten.then(|| {
        "hooks: the hooks rewrote this call's input without granting it, and the host takes \
         new input only with a grant; the dialog shows the call as asked"
            .to_owned()
    })
}

/// `reply` with `note` after the hooks' own messages for the person.
fn with_note(reply: Reply, outcome: &Outcome, note: &str) -> Answer {
    let messages: Vec<&str> = outcome
        .messages()
        .iter()
        .map(|message| message.text.as_str())
        .chain([note])
        .collect();
    reply
        .top("systemMessage", json!(messages.join("\n")))
        .answer()
}
