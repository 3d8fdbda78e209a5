//! What the dispatcher decides about a replayed call, and how that compares
//! with what was recorded.

use std::fmt;

use hooks_core::{ApprovalOutcome, DenialCause, Outcome, PreToolUse, printable};
use serde::Serialize;

use super::call::Recorded;

/// What the dispatcher decides about a call now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Ruling {
    /// Every hook lets it through.
    Allowed,
    /// A hook refuses it.
    Denied {
        /// The hook.
        by: String,
        /// Its reason.
        reason: String,
        /// The denial's kind (`denied`, `rate_limited`, `hook_failed`, ...).
        kind: String,
    },
    /// Every hook lets it through, but one wants a person's yes first.
    #[serde(rename = "ask")]
    Asks {
        /// The hook asking.
        by: String,
        /// What the person would be asked.
        prompt: Option<String>,
    },
}

impl Ruling {
    /// The ruling a dispatch came to. A hook asking for approval is an ask
    /// whatever the approver said (nobody, in a replay), unless a later
    /// hook's rewrite voided the request: that call cannot run at all.
    pub(super) fn of(outcome: &Outcome, ctx: &PreToolUse) -> Self {
        let Some(denial) = outcome.denial() else {
            return Ruling::Allowed;
        };
        match denial.cause() {
            DenialCause::NotApproved(ApprovalOutcome::Superseded { .. }) => {}
            DenialCause::NotApproved(_) => {
                return Ruling::Asks {
                    by: denial.hook().to_string(),
                    prompt: ctx.approvals().last().map(|record| record.prompt.clone()),
                };
            }
            _ => {}
        }
        Ruling::Denied {
            by: denial.hook().to_string(),
            reason: denial.reason().to_owned(),
            kind: denial.cause().kind().to_owned(),
        }
    }
}

impl fmt::Display for Ruling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ruling::Allowed => f.write_str("allowed"),
            Ruling::Denied { by, reason, kind } => write!(
                f,
                "denied by `{}` ({}): {}",
                printable(by, false),
                printable(kind, false),
                printable(reason, false)
            ),
            Ruling::Asks { by, prompt } => {
                write!(f, "would ask a person (`{}`)", printable(by, false))?;
                match prompt {
                    Some(prompt) => write!(f, ": {}", printable(prompt, false)),
                    None => Ok(()),
                }
            }
        }
    }
}

/// How the replayed decision compares with the recorded one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// The same: allowed both times, denied both times by the same hook, or
    /// put to a person both times.
    Unchanged,
    /// It ran; now a hook would refuse it.
    NewlyDenied,
    /// A hook refused it; now it would run.
    NewlyAllowed,
    /// Nobody was asked; now a person would have to say yes first.
    WouldAsk,
    /// Refused both times, by different hooks.
    DeniedByAnother,
}

impl Change {
    pub(super) fn between(recorded: &Recorded, now: &Ruling) -> Self {
        match (recorded, now) {
            (_, Ruling::Asks { .. }) if recorded.asked() => Change::Unchanged,
            (_, Ruling::Asks { .. }) => Change::WouldAsk,
            (Recorded::Allowed { .. }, Ruling::Allowed) => Change::Unchanged,
            (Recorded::Allowed { .. }, Ruling::Denied { .. }) => Change::NewlyDenied,
            (Recorded::Denied { .. }, Ruling::Allowed) => Change::NewlyAllowed,
            (Recorded::Denied { by, .. }, Ruling::Denied { by: now, .. }) => {
                // A record that does not say who denied cannot disagree.
                if by.as_deref().is_none_or(|by| by == now) {
                    Change::Unchanged
                } else {
                    Change::DeniedByAnother
                }
            }
        }
    }

    pub(super) fn describe(self) -> &'static str {
        match self {
            Change::Unchanged => "unchanged",
            Change::NewlyDenied => "would newly deny",
            Change::NewlyAllowed => "would newly allow",
            Change::WouldAsk => "would ask a person",
            Change::DeniedByAnother => "denied by another hook",
        }
    }
}
