//! A refusal: the text a `Deny` gives the model, and, for programs, what
//! kind of refusal it is with its typed details (a rate limit's wait).

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::time::Duration;

use serde_json::Value;

use super::outcome::DenialCause;

/// What [`Decision::Deny`](crate::Decision::Deny) carries: the reason,
/// written for the model, and optional machine-readable details.
///
/// It reads as its reason (`Deref<Target = str>`, `Display`), and is made
/// from any text, so `Decision::Deny("no".into())` and `Decision::deny("no")`
/// work as they always did.
///
/// ```
/// use std::time::Duration;
/// use hooks_core::{Decision, DenialCause, Refusal};
///
/// let slow_down = Decision::Deny(
///     Refusal::new("rate limit reached; retry in 2s").rate_limited(Duration::from_secs(2)),
/// );
/// let Decision::Deny(refusal) = &slow_down else { unreachable!() };
/// assert!(refusal.starts_with("rate limit"));
/// assert_eq!(
///     refusal.cause(),
///     Some(&DenialCause::RateLimited { retry_after: Duration::from_secs(2) })
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    reason: Cow<'static, str>,
    /// What the denial it makes will say of its cause: a rate limit, or a
    /// kind of the hook's own. Boxed: most refusals have none, and decisions
    /// stay small.
    cause: Option<Box<DenialCause>>,
}

impl Refusal {
    /// A refusal with this reason and no details.
    pub fn new(reason: impl Into<Cow<'static, str>>) -> Self {
        Refusal {
            reason: reason.into(),
            cause: None,
        }
    }

    /// Marks it a rate limit, retryable after `retry_after`.
    #[must_use]
    pub fn rate_limited(self, retry_after: Duration) -> Self {
        self.caused_by(DenialCause::RateLimited { retry_after })
    }

    /// Gives it a kind of the hook's own, with data.
    #[must_use]
    pub fn kind(self, kind: impl Into<Cow<'static, str>>, data: Value) -> Self {
        self.caused_by(DenialCause::Refused {
            kind: kind.into(),
            data,
        })
    }

    fn caused_by(mut self, cause: DenialCause) -> Self {
        self.cause = Some(Box::new(cause));
        self
    }

    /// The reason, for the model.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The cause the denial will carry, if the hook gave one
    /// ([`rate_limited`](Self::rate_limited), [`kind`](Self::kind)).
    pub fn cause(&self) -> Option<&DenialCause> {
        self.cause.as_deref()
    }

    pub(crate) fn map_reason(
        mut self,
        f: impl FnOnce(Cow<'static, str>) -> Cow<'static, str>,
    ) -> Self {
        self.reason = f(self.reason);
        self
    }

    pub(crate) fn into_parts(self) -> (Cow<'static, str>, Option<Box<DenialCause>>) {
        (self.reason, self.cause)
    }
}

impl Deref for Refusal {
    type Target = str;

    fn deref(&self) -> &str {
        &self.reason
    }
}

impl AsRef<str> for Refusal {
    fn as_ref(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl From<&'static str> for Refusal {
    fn from(reason: &'static str) -> Self {
        Refusal::new(reason)
    }
}

impl From<String> for Refusal {
    fn from(reason: String) -> Self {
        Refusal::new(reason)
    }
}

impl From<Cow<'static, str>> for Refusal {
    fn from(reason: Cow<'static, str>) -> Self {
        Refusal::new(reason)
    }
}

impl PartialEq<str> for Refusal {
    fn eq(&self, other: &str) -> bool {
        *self.reason == *other
    }
}

impl PartialEq<&str> for Refusal {
    fn eq(&self, other: &&str) -> bool {
        *self.reason == **other
    }
}
