use std::borrow::Cow;
use std::fmt;

use crate::name::HookName;
use crate::verdict::ApprovalOutcome;
use crate::verdict::HookError;

/// What dispatching an event came to.
///
/// On events that cannot block it is always [`Outcome::Continue`]. On `Stop`,
/// [`Outcome::Denied`] means "keep going", with the reason for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a denied outcome must stop the call"]
pub enum Outcome {
    /// Every hook let the call through.
    Continue,
    /// A hook stopped the call; nothing after it ran.
    Denied(Denial),
}

impl Outcome {
    /// Whether the call may go on.
    pub fn is_continue(&self) -> bool {
        matches!(self, Outcome::Continue)
    }

    /// Whether a hook stopped the call.
    pub fn is_denied(&self) -> bool {
        matches!(self, Outcome::Denied(_))
    }

    /// The denial, if a hook stopped the call.
    pub fn denial(&self) -> Option<&Denial> {
        match self {
            Outcome::Continue => None,
            Outcome::Denied(denial) => Some(denial),
        }
    }
}

/// Which hook stopped a call, and why.
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

/// Why a hook stopped a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DenialCause {
    /// The hook returned [`Decision::Deny`](crate::Decision::Deny).
    Decided,
    /// The hook failed and its failure policy is `deny`.
    Failed(HookError),
    /// The hook asked for approval and did not get it.
    NotApproved(ApprovalOutcome),
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

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "denied by `{}`: {}", self.hook, self.reason)
    }
}
