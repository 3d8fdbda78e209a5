use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;

use crate::verdict::Decision;
use crate::verdict::HookError;

/// A boxed, sendable future: what async hooks and approvers return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What one hook run came to: a decision, or a failure.
pub type Verdict = Result<Decision, HookError>;

/// A type a hook on event `E` may return.
///
/// - `()` on every event;
/// - [`Decision`] on events that may block: `UserPromptSubmit`,
///   `PostModelResponse`, `PreToolUse`, `PermissionRequest`, `SubagentStart`,
///   `SubagentStop`, `Stop`;
/// - `Result<T, E>` of those, where `E: Display`: an `Err` is a hook failure,
///   handled by the hook's `on_error` policy;
/// - [`Deferred`] of those, from a plain `fn`: an answer now, or a future of it.
///
/// The compiler enforces the table: a `#[post_tool_use]` hook returning
/// `Decision` does not compile, because a tool that already ran cannot be denied.
#[diagnostic::on_unimplemented(
    message = "a `{E}` hook cannot return `{Self}`",
    label = "not a return type for `{E}` hooks",
    note = "hooks return `()`, `Decision` (only on events that may block: UserPromptSubmit, PostModelResponse, PreToolUse, PermissionRequest, SubagentStart, SubagentStop, Stop), or a `Result<_, E: Display>` of those",
    note = "events that cannot block change things through the context instead, e.g. `ctx.result_mut()` on PostToolUse"
)]
pub trait HookOutput<E> {
    /// Converts the hook's return value into a verdict.
    fn into_verdict(self) -> Verdict;
}

/// A type an `observe` hook on event `E` may return: `()`, or `Result<(), E: Display>`
/// (or a [`Deferred`] of those).
///
/// Observers run after the decision; they cannot make one.
#[diagnostic::on_unimplemented(
    message = "an observer cannot return `{Self}`",
    label = "observers return `()` or `Result<(), E>`",
    note = "`observe` hooks run after the decision and cannot change it; drop `observe` to make a hook that decides"
)]
pub trait ObserverOutput<E> {
    /// Converts the observer's return value into a verdict (only ever `Continue` or a failure).
    fn into_verdict(self) -> Verdict;
}

impl<E> ObserverOutput<E> for () {
    fn into_verdict(self) -> Verdict {
        Ok(Decision::Continue)
    }
}

impl<E, Err: Display> ObserverOutput<E> for Result<(), Err> {
    fn into_verdict(self) -> Verdict {
        self.map(|()| Decision::Continue)
            .map_err(|err| HookError::Failed(err.to_string()))
    }
}

impl<E> HookOutput<E> for () {
    fn into_verdict(self) -> Verdict {
        Ok(Decision::Continue)
    }
}

// `Decision` is a return type of the blocking events only: those impls are
// generated from the event table (`registry::event`), one per event, so the
// compiler lists them when a hook returns `Decision` from an event that cannot block.

impl<E, T: HookOutput<E>, Err: Display> HookOutput<E> for Result<T, Err> {
    fn into_verdict(self) -> Verdict {
        match self {
            Ok(value) => value.into_verdict(),
            Err(err) => Err(HookError::Failed(err.to_string())),
        }
    }
}

/// An answer that is ready now, or a future of it.
///
/// For hooks and stores that usually answer at once but sometimes must wait —
/// an in-memory cache in front of a network service, a local counter or a
/// shared one. A plain `fn` hook returning `Deferred` costs nothing extra
/// when it answers [`Ready`](Deferred::Ready) (no allocation, no task); the
/// dispatcher waits on a [`Later`](Deferred::Later) as on an `async fn` hook.
///
/// The future may borrow the hook's state, not its context: write the
/// state's lifetime and leave the context's elided.
///
/// ```standalone_crate
/// use hooks_core::prelude::*;
///
/// struct Quota { left: std::sync::atomic::AtomicU32 }
///
/// #[pre_tool_use(matches = "search")]
/// fn quota<'s>(_ctx: &mut PreToolUse, quota: &'s Quota) -> Deferred<'s, Decision> {
///     use std::sync::atomic::Ordering;
///     if quota.left.load(Ordering::Relaxed) > 0 {
///         quota.left.fetch_sub(1, Ordering::Relaxed);
///         Deferred::Ready(Decision::Continue)
///     } else {
///         // Out of local quota: ask the (here pretend) quota service.
///         Deferred::Later(Box::pin(async { Decision::deny("search quota used up for today") }))
///     }
/// }
/// # fn main() {}
/// ```
#[must_use = "a deferred answer does nothing unless it is returned or awaited"]
pub enum Deferred<'a, T> {
    /// The answer, now.
    Ready(T),
    /// The answer, when this future is done.
    Later(BoxFuture<'a, T>),
}

impl<'a, T: Send + 'a> Deferred<'a, T> {
    /// Waits for the answer.
    pub async fn wait(self) -> T {
        match self {
            Deferred::Ready(value) => value,
            Deferred::Later(future) => future.await,
        }
    }

    /// Applies `f` to the answer, now or when it comes.
    pub fn map<U>(self, f: impl FnOnce(T) -> U + Send + 'a) -> Deferred<'a, U> {
        match self {
            Deferred::Ready(value) => Deferred::Ready(f(value)),
            Deferred::Later(future) => Deferred::Later(Box::pin(async move { f(future.await) })),
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Deferred<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Deferred::Ready(value) => f.debug_tuple("Ready").field(value).finish(),
            Deferred::Later(_) => f.write_str("Later(..)"),
        }
    }
}
