use std::fmt;
use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use crate::verdict::Verdict;

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

    /// What went wrong, without the message: for text the model reads
    /// where the message could quote what the hook was hiding.
    pub fn kind(&self) -> String {
        match self {
            HookError::Panicked(_) => "panicked".to_owned(),
            HookError::Failed(_) => "returned an error".to_owned(),
            HookError::TimedOut(after) => format!("timed out after {} ms", after.as_millis()),
        }
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

/// `{"kind": "panicked" | "failed" | "timed_out", "message": .., "after_ms": ..}`.
impl serde::Serialize for HookError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(2))?;
        match self {
            HookError::Panicked(message) => {
                map.serialize_entry("kind", "panicked")?;
                map.serialize_entry("message", message)?;
            }
            HookError::Failed(message) => {
                map.serialize_entry("kind", "failed")?;
                map.serialize_entry("message", message)?;
            }
            HookError::TimedOut(after) => {
                map.serialize_entry("kind", "timed_out")?;
                map.serialize_entry("after_ms", &after.as_millis())?;
            }
        }
        map.end()
    }
}

// Running a hook so that nothing it does escapes: panics, errors and
// timeouts all become a `HookError`.

/// Awaits a hook's future within `limit`, if there is one, turning a panic
/// or a timeout into an error verdict. Generated `async fn` wrappers and
/// runtime hooks' futures both go through here.
pub(crate) async fn guard(
    limit: Option<Duration>,
    future: impl Future<Output = Verdict>,
) -> Verdict {
    within(limit, future).await.and_then(|verdict| verdict)
}

/// Calls `f`, turning a panic into a [`HookError`].
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, HookError> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| HookError::from_panic(&*payload))
}

/// Awaits `future`, turning a panic in any poll into a [`HookError`].
pub(crate) async fn catch_async<T>(future: impl Future<Output = T>) -> Result<T, HookError> {
    let mut future = pin!(future);
    poll_fn(|cx| match catch(|| future.as_mut().poll(cx)) {
        Ok(Poll::Pending) => Poll::Pending,
        Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
        Err(error) => Poll::Ready(Err(error)),
    })
    .await
}

/// Awaits `future` within `limit`, if there is one.
///
/// The future is polled once before any timer is set: a hook (or approver)
/// that answers at once costs no timer and needs no runtime.
pub(crate) async fn within<T>(
    limit: Option<Duration>,
    future: impl Future<Output = T>,
) -> Result<T, HookError> {
    let mut future = pin!(catch_async(future));
    let Some(limit) = limit else {
        return future.await;
    };
    if let Poll::Ready(result) = poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await {
        return result;
    }
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(HookError::failed(
            "a timeout needs a Tokio runtime (with the time driver enabled) to measure it",
        ));
    }
    // Creating the timer panics when the runtime has no time driver; that is
    // caught like any other failure rather than taking the agent down.
    match catch_async(async { tokio::time::timeout(limit, future).await }).await {
        Ok(Ok(result)) => result,
        Ok(Err(_elapsed)) => Err(HookError::TimedOut(limit)),
        Err(error) => Err(error),
    }
}
