//! What hooks note during a dispatch that is neither a decision nor a
//! rewrite: messages for the person, warnings for the audit log, what
//! shadow hooks would have decided, and a stop that was let through because
//! it had been refused too many times in a row.

use serde::Serialize;

use crate::name::HookName;
use crate::verdict::HookError;

/// Notes from one dispatch, in the order hooks made them. Carried in the
/// [`Outcome`](crate::Outcome) and, for a tool call, into its post-tool-use
/// context so the audit record has them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Notes {
    /// Messages for the person at the keyboard (not model context).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<UserMessage>,
    /// Warnings for the audit log; they change no decision.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// What shadow hooks would have done, had they been enforced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shadowed: Vec<Shadowed>,
    /// Set when a stop was let through because stop hooks had refused it
    /// too many times in a row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_capped: Option<StopCapped>,
    /// Set when a hook said the whole session should end
    /// ([`end_session`](crate::PreToolUse::end_session)): the integration
    /// stops the agent, with this reason for the person.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_session: Option<EndSession>,
}

impl Notes {
    pub(crate) const EMPTY: Notes = Notes {
        messages: Vec::new(),
        warnings: Vec::new(),
        shadowed: Vec::new(),
        stop_capped: None,
        end_session: None,
    };

    /// Whether nothing was noted.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
            && self.warnings.is_empty()
            && self.shadowed.is_empty()
            && self.stop_capped.is_none()
            && self.end_session.is_none()
    }
}

/// How loud a [`UserMessage`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageLevel {
    /// For information.
    Info,
    /// Something the person should look at.
    Warning,
    /// Something went wrong.
    Error,
}

/// A message from a hook to the person using the agent: shown to them, not
/// given to the model (Claude Code's `systemMessage`, Amplifier's `user_message`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserMessage {
    /// The hook that sent it (`None` when the integration added it).
    pub hook: Option<HookName>,
    /// How loud it is.
    pub level: MessageLevel,
    /// The text.
    pub text: String,
}

/// A warning a hook recorded without changing its decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The hook that warned (`None` when the integration added it).
    pub hook: Option<HookName>,
    /// The text.
    pub text: String,
}

/// What one shadow hook would have done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shadowed {
    /// The shadow hook.
    pub hook: HookName,
    /// What it would have done.
    #[serde(flatten)]
    pub would: Would,
}

/// What a shadow hook would have done, had it been enforced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "would", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Would {
    /// Denied the call.
    Deny {
        /// The reason it gave.
        reason: String,
        /// The denial's kind (as [`DenialCause::kind`](crate::DenialCause::kind)).
        kind: String,
    },
    /// Asked a person.
    Ask {
        /// What it would have asked.
        prompt: String,
    },
    /// Rewritten these fields (or injected context: field `context`).
    Rewrite {
        /// The fields it changed.
        fields: Vec<&'static str>,
    },
    /// Failed, and its failure would have been let through.
    Fail {
        /// How it failed.
        error: HookError,
    },
}

impl Would {
    /// Whether it would have denied (or, on `stop`, kept the agent going).
    pub fn is_deny(&self) -> bool {
        matches!(self, Would::Deny { .. })
    }
}

/// A stop let through because stop hooks had refused it `cap` times in a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StopCapped {
    /// The hook whose refusal was overridden.
    pub hook: HookName,
    /// Its reason.
    pub reason: String,
    /// The cap: how many refusals in a row are allowed.
    pub cap: u32,
}

/// A hook's word that the session should end (Claude Code's `continue: false`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EndSession {
    /// The hook that said so (`None` when the integration did).
    pub hook: Option<HookName>,
    /// Why, for the person (Claude Code's `stopReason`).
    pub reason: String,
}
