//! A refusal: the text a `Deny` gives the model, and, for programs, what
//! kind of refusal it is with its typed details (a rate limit's wait).

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::time::Duration;

use serde_json::Value;

/// What [`Decision::Deny`](crate::Decision::Deny) carries: the reason,
/// written for the model, and optional machine-readable details.
///
/// It reads as its reason (`Deref<Target = str>`, `Display`), and is made
/// from any text, so `Decision::Deny("no".into())` and `Decision::deny("no")`
/// work as they always did.
///
/// ```
/// use std::time::Duration;
/// use hooks_core::{Decision, DenyDetails, Refusal};
///
/// let slow_down = Decision::Deny(
///     Refusal::new("rate limit reached; retry in 2s").rate_limited(Duration::from_secs(2)),
/// );
/// let Decision::Deny(refusal) = &slow_down else { unreachable!() };
/// assert!(refusal.starts_with("rate limit"));
/// assert_eq!(
///     refusal.details(),
///     Some(&DenyDetails::RateLimited { retry_after: Duration::from_secs(2) })
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    reason: Cow<'static, str>,
    /// Boxed: most refusals have none, and decisions stay small.
    details: Option<Box<DenyDetails>>,
}

/// What kind of refusal, with its typed details, for programs to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DenyDetails {
    /// A rate limit: the call would be admitted after this long.
    RateLimited {
        /// How long to wait before retrying.
        retry_after: Duration,
    },
    /// A kind of the hook's own (`"budget_exceeded"`), with any data.
    Other {
        /// The kind, in `snake_case`.
        kind: Cow<'static, str>,
        /// Its details.
        data: Value,
    },
}

impl Refusal {
    /// A refusal with this reason and no details.
    pub fn new(reason: impl Into<Cow<'static, str>>) -> Self {
        Refusal {
            reason: reason.into(),
            details: None,
        }
    }

    /// Marks it a rate limit, retryable after `retry_after`.
    #[must_use]
    pub fn rate_limited(self, retry_after: Duration) -> Self {
        self.with(DenyDetails::RateLimited { retry_after })
    }

    /// Gives it a kind of the hook's own, with data.
    #[must_use]
    pub fn kind(self, kind: impl Into<Cow<'static, str>>, data: Value) -> Self {
        self.with(DenyDetails::Other {
            kind: kind.into(),
            data,
        })
    }

    /// Gives it these details.
    #[must_use]
    pub fn with(mut self, details: DenyDetails) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// The reason, for the model.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The details, if any.
    pub fn details(&self) -> Option<&DenyDetails> {
        self.details.as_deref()
    }

    pub(crate) fn map_reason(
        mut self,
        f: impl FnOnce(Cow<'static, str>) -> Cow<'static, str>,
    ) -> Self {
        self.reason = f(self.reason);
        self
    }

    pub(crate) fn into_parts(self) -> (Cow<'static, str>, Option<Box<DenyDetails>>) {
        (self.reason, self.details)
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
