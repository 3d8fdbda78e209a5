use std::borrow::Cow;
use std::time::Duration;

use super::printable::printable;
use super::refusal::Refusal;
#[cfg(feature = "shell")]
use crate::matcher::NotAllowed;

/// What a hook on a blocking event decides.
///
/// Blocking events are `UserPromptSubmit`, `PostModelResponse`, `PreToolUse`,
/// `PermissionRequest`, `SubagentStart`, `SubagentStop` and `Stop`. On `Stop` and `SubagentStop`,
/// `Deny` means "do not stop yet": the agent keeps going and the reason is
/// given to the model.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[pre_tool_use(matches = "sql_*")]
/// fn no_drop(ctx: &mut PreToolUse) -> Decision {
///     match ctx.args()["query"].as_str() {
///         Some(q) if q.trim_start().to_ascii_uppercase().starts_with("DROP") => {
///             Decision::deny("DROP statements are not allowed; use DELETE with a WHERE clause")
///         }
///         _ => Decision::Continue,
///     }
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a decision does nothing unless it is returned from the hook"]
pub enum Decision {
    /// Let the call through to the next hook.
    Continue,
    /// Stop the chain: nothing after this hook runs, and the call is refused
    /// with this reason (written for the model to read) and, optionally,
    /// machine-readable details (a rate limit's wait).
    Deny(Refusal),
    /// Ask a person (see [`Approver`](crate::Approver)) once the rest of the
    /// chain has allowed the call: a later `Deny` means nobody is asked, and
    /// a later rewrite of the arguments voids the request (the call is
    /// denied), so the person approves exactly the call that runs. On
    /// `PermissionRequest`, the host's own dialog is that question: an `Ask`
    /// there grants nothing and asks no approver, so the dialog is shown
    /// ([`PermissionRequest::asked`](crate::PermissionRequest::asked)), and
    /// its prompt is a message for the person ([`Outcome::messages`](crate::Outcome::messages)).
    Ask(Approval),
}

impl Decision {
    /// Refuses the call with a reason the model can act on.
    pub fn deny(reason: impl Into<Cow<'static, str>>) -> Self {
        Decision::Deny(Refusal::new(reason))
    }

    /// Refuses the call as over a rate limit: the reason, and when to retry
    /// (for programs: [`DenialCause::RateLimited`](crate::DenialCause::RateLimited)).
    pub fn rate_limited(reason: impl Into<Cow<'static, str>>, retry_after: Duration) -> Self {
        Decision::Deny(Refusal::new(reason).rate_limited(retry_after))
    }

    /// Asks a person, with this prompt, before the call goes on.
    pub fn ask(prompt: impl Into<Cow<'static, str>>) -> Self {
        Decision::Ask(Approval::new(prompt))
    }
}

/// A command an allow-list refused is denied, with its reason.
#[cfg(feature = "shell")]
impl From<NotAllowed> for Decision {
    fn from(refusal: NotAllowed) -> Self {
        Decision::deny(refusal.to_string())
    }
}

/// What a [`ShellAllowList`](crate::ShellAllowList) found: `Continue` when it
/// allows the command, `Deny` saying what it does not allow.
#[cfg(feature = "shell")]
impl From<Result<(), NotAllowed>> for Decision {
    fn from(allowed: Result<(), NotAllowed>) -> Self {
        allowed.map_or_else(Decision::from, |()| Decision::Continue)
    }
}

/// A request for a person's yes, returned as [`Decision::Ask`].
///
/// With no answer by the timeout (five minutes unless set), or with no
/// [`Approver`](crate::Approver) configured, the call is denied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    prompt: Cow<'static, str>,
    timeout: Duration,
}

impl Approval {
    /// How long an approval waits unless told otherwise.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

    /// An approval showing this prompt to the person asked.
    ///
    /// Control characters (but line feeds) and invisible formatting
    /// characters are escaped ([`printable`]): a prompt that quotes the
    /// model's arguments cannot erase a line, move the cursor or reverse the
    /// text on the approver's screen.
    ///
    /// ```
    /// use hooks_core::Approval;
    ///
    /// let approval = Approval::new("Pay 10\u{202e}00?\n\x1b[2Kyes");
    /// assert_eq!(approval.prompt(), "Pay 10\\u202e00?\n\\u001b[2Kyes");
    /// ```
    pub fn new(prompt: impl Into<Cow<'static, str>>) -> Self {
        let mut prompt = prompt.into();
        let escaped = match printable(&prompt, true) {
            Cow::Owned(escaped) => Some(escaped),
            Cow::Borrowed(_) => None,
        };
        if let Some(escaped) = escaped {
            prompt = Cow::Owned(escaped);
        }
        Approval {
            prompt,
            timeout: Self::DEFAULT_TIMEOUT,
        }
    }

    /// Sets how long to wait for an answer before denying.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The prompt shown to the person asked.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// How long to wait for an answer.
    pub fn wait(&self) -> Duration {
        self.timeout
    }

    /// The same approval with its prompt passed through `f` (redaction),
    /// and made printable again whatever `f` wrote.
    pub(crate) fn map_prompt(self, f: impl FnOnce(Cow<'static, str>) -> Cow<'static, str>) -> Self {
        Approval::new(f(self.prompt)).timeout(self.timeout)
    }
}

impl From<Approval> for Decision {
    fn from(approval: Approval) -> Self {
        Decision::Ask(approval)
    }
}
