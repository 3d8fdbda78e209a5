use std::fmt;
use std::time::Duration;

use serde::Serialize;

/// What a hook's failure (panic, `Err`, timeout) does to the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// The call is denied, naming the hook and the cause (fail-closed).
    Deny,
    /// The failure is logged as a `tracing` warning and the chain goes on (fail-open).
    Continue,
}

impl OnError {
    /// The name used in attributes and config files: `deny` or `continue`.
    pub const fn as_str(self) -> &'static str {
        match self {
            OnError::Deny => "deny",
            OnError::Continue => "continue",
        }
    }
}

impl fmt::Display for OnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a hook failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookError {
    /// The hook panicked; the panic message.
    Panicked(String),
    /// The hook returned `Err`; the error's `Display`.
    Failed(String),
    /// The hook did not finish within its `timeout_ms`.
    TimedOut(Duration),
}

impl HookError {
    /// A failure with this message, for [`RuntimeHook`](crate::RuntimeHook)s.
    pub fn failed(message: impl fmt::Display) -> Self {
        HookError::Failed(message.to_string())
    }

    pub(crate) fn from_panic(payload: &(dyn std::any::Any + Send)) -> Self {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-string panic payload".to_owned());
        HookError::Panicked(message)
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HookError::Panicked(message) => write!(f, "panicked: {message}"),
            HookError::Failed(message) => write!(f, "returned an error: {message}"),
            HookError::TimedOut(after) => write!(f, "timed out after {} ms", after.as_millis()),
        }
    }
}

impl std::error::Error for HookError {}
