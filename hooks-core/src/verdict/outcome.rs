use std::borrow::Cow;
use std::fmt;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::name::HookName;
use crate::verdict::ApprovalOutcome;
use crate::verdict::HookError;
use crate::verdict::{EndSession, Notes, Shadowed, StopCapped, UserMessage, Warning};

/// What dispatching an event came to: whether a hook stopped the call (and
/// why), and what hooks noted on the way — messages for the person,
/// warnings, what shadow hooks would have done.
///
/// On events that cannot block it is never denied. On `Stop`, a denial
/// means "keep going", with the reason for the model.
///
/// It costs nothing when nothing was noted: the notes are boxed, and only
/// when there are some.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[must_use = "a denied outcome must stop the call"]
pub struct Outcome {
    /// The provider's id for the tool call, on tool events that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<Arc<str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    denial: Option<Denial>,
    #[serde(skip_serializing_if = "Option::is_none", flatten)]
    notes: Option<Box<Notes>>,
}

/// Notes with nothing in them, for what noted nothing.
pub(crate) static NO_NOTES: Notes = Notes::EMPTY;

impl Outcome {
    /// Every hook let the call through, and noted nothing.
    pub const CONTINUE: Outcome = Outcome {
        call_id: None,
        denial: None,
        notes: None,
    };

    #[inline]
    pub(crate) fn new(
        call_id: Option<Arc<str>>,
        denial: Option<Denial>,
        notes: Option<Box<Notes>>,
    ) -> Self {
        Outcome {
            call_id,
            denial,
            notes,
        }
    }

    /// The provider's id for the tool call this outcome is about, if the
    /// context had one: how a loop running calls in parallel matches
    /// outcomes to calls.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// Whether the call may go on.
    #[inline]
    pub fn is_continue(&self) -> bool {
        self.denial.is_none()
    }

    /// Whether a hook stopped the call.
    pub fn is_denied(&self) -> bool {
        self.denial.is_some()
    }

    /// The denial, if a hook stopped the call.
    pub fn denial(&self) -> Option<&Denial> {
        self.denial.as_ref()
    }

    /// The denial, by value.
    pub fn into_denial(self) -> Option<Denial> {
        self.denial
    }

    /// What hooks noted.
    pub fn notes(&self) -> &Notes {
        self.notes.as_deref().unwrap_or(&NO_NOTES)
    }

    /// Messages hooks sent to the person: show them (they are not model context).
    pub fn messages(&self) -> &[UserMessage] {
        &self.notes().messages
    }

    /// Warnings hooks recorded.
    pub fn warnings(&self) -> &[Warning] {
        &self.notes().warnings
    }

    /// What shadow hooks would have done.
    pub fn shadowed(&self) -> &[Shadowed] {
        &self.notes().shadowed
    }

    /// Set when a stop went through because it had been refused too many times in a row.
    pub fn stop_capped(&self) -> Option<&StopCapped> {
        self.notes().stop_capped.as_ref()
    }

    /// Set when a hook said the session should end ([`EndSession`]): stop
    /// the agent after this event, telling the person the reason.
    pub fn end_session(&self) -> Option<&EndSession> {
        self.notes().end_session.as_ref()
    }
}

/// Which hook stopped a call, and why: the reason for the model, the
/// [cause](DenialCause) for programs. Serializes as
/// `{"hook": .., "reason": .., "cause": {"kind": .., ..}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    hook: HookName,
    reason: Cow<'static, str>,
    cause: Cause,
}

/// The cause, small: a plain `Deny` (the common case) needs no allocation,
/// and the rarer causes, which already carry strings, sit behind a box so
/// every future holding an outcome stays small.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cause {
    Decided,
    Other(Box<DenialCause>),
}

static DECIDED: DenialCause = DenialCause::Decided;

/// Why a hook stopped a call: what kind of denial, with its typed details,
/// for programs (a retry loop, a dashboard) rather than the model.
///
/// It serializes with a `kind` tag:
///
/// ```
/// use std::time::Duration;
/// use hooks_core::DenialCause;
///
/// let cause = DenialCause::RateLimited { retry_after: Duration::from_millis(1500) };
/// assert_eq!(cause.kind(), "rate_limited");
/// assert_eq!(
///     serde_json::to_value(&cause).unwrap(),
///     serde_json::json!({"kind": "rate_limited", "retry_after_ms": 1500})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DenialCause {
    /// The hook returned [`Decision::Deny`](crate::Decision::Deny) with no details.
    Decided,
    /// The hook refused the call as over a rate limit.
    RateLimited {
        /// How long until the call would be admitted.
        retry_after: Duration,
    },
    /// The hook refused with a kind of its own ([`Refusal::kind`](crate::Refusal::kind)).
    Refused {
        /// The hook's kind, in `snake_case`.
        kind: Cow<'static, str>,
        /// Its data.
        data: Value,
    },
    /// The hook failed and its failure policy is `deny`.
    Failed(HookError),
    /// The hook asked for approval and did not get it.
    NotApproved(ApprovalOutcome),
}

impl DenialCause {
    /// The kind, as a program matches on it: `denied`, `rate_limited`,
    /// `hook_failed`, `not_approved`, or a hook's own kind.
    pub fn kind(&self) -> &str {
        match self {
            DenialCause::Decided => "denied",
            DenialCause::RateLimited { .. } => "rate_limited",
            DenialCause::Refused { kind, .. } => kind,
            DenialCause::Failed(_) => "hook_failed",
            DenialCause::NotApproved(_) => "not_approved",
        }
    }

    /// The cause of a denial by a hook's refusal: its own, or `Decided`.
    pub(crate) fn from_refusal(cause: Option<Box<DenialCause>>) -> Self {
        cause.map_or(DenialCause::Decided, |cause| *cause)
    }
}

impl Serialize for DenialCause {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", self.kind())?;
        match self {
            DenialCause::Decided => {}
            DenialCause::RateLimited { retry_after } => {
                map.serialize_entry("retry_after_ms", &retry_after.as_millis())?;
            }
            DenialCause::Refused { data, .. } => {
                if !data.is_null() {
                    map.serialize_entry("data", data)?;
                }
            }
            DenialCause::Failed(error) => map.serialize_entry("error", error)?,
            DenialCause::NotApproved(outcome) => map.serialize_entry("approval", outcome)?,
        }
        map.end()
    }
}

impl Denial {
    pub(crate) fn new(hook: HookName, reason: Cow<'static, str>, cause: DenialCause) -> Self {
        let cause = match cause {
            DenialCause::Decided => Cause::Decided,
            other => Cause::Other(Box::new(other)),
        };
        Denial {
            hook,
            reason,
            cause,
        }
    }

    /// The hook that decided.
    pub fn hook(&self) -> &HookName {
        &self.hook
    }

    /// The reason, written for the model to read.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Why the hook stopped the call.
    pub fn cause(&self) -> &DenialCause {
        match &self.cause {
            Cause::Decided => &DECIDED,
            Cause::Other(cause) => cause,
        }
    }
}

impl Serialize for Denial {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut denial = serializer.serialize_struct("Denial", 3)?;
        denial.serialize_field("hook", &self.hook)?;
        denial.serialize_field("reason", &self.reason)?;
        denial.serialize_field("cause", self.cause())?;
        denial.end()
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "denied by `{}`: {}", self.hook, self.reason)
    }
}
