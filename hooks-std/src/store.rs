//! The one error every standard hook's store answers with (the approval
//! store, the rate limit's): which store, and what went wrong.

use std::fmt;

/// A store could not answer: a file that cannot be opened, a server that
/// cannot be reached. The hook that asked denies the call (no call runs
/// uncounted, or unapproved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    store: String,
    message: String,
}

impl StoreError {
    /// A failure of `store`, named as a person would (for example "Redis at
    /// 127.0.0.1:6379" or "approval store x.sqlite3").
    pub fn new(store: impl Into<String>, message: impl fmt::Display) -> Self {
        StoreError {
            store: store.into(),
            message: message.to_string(),
        }
    }

    /// Which store failed.
    pub fn store(&self) -> &str {
        &self.store
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.store, self.message)
    }
}

impl std::error::Error for StoreError {}
