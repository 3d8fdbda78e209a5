//! A dispatch without a future: run now, as far as it goes without waiting.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::verdict::{BoxFuture, Outcome};

/// What [`ToolHandle::dispatch_now`](crate::ToolHandle::dispatch_now) and
/// [`Hooks::dispatch_now`](crate::Hooks::dispatch_now) came to: the
/// dispatch finished, or something in it must be waited on — an `async fn`
/// hook that is not ready, a person's approval — and the rest of it is a
/// future. What may wait is tried once first: an `async fn` hook or an
/// approver that answers at once gives `Done`.
///
/// `Wait` is not an answer: the call may go ahead only on a
/// [`Done`](Now::Done) outcome that [is not denied](Outcome::is_continue).
/// A loop that cannot wait refuses the call.
///
/// ```standalone_crate
/// use hooks_core::prelude::*;
///
/// #[pre_tool_use(matches = "delete_*")]
/// fn no_deletes(_: &mut PreToolUse) -> Decision {
///     Decision::deny("deleting is not allowed")
/// }
///
/// let hooks = Hooks::builder().build().unwrap();
/// let delete = hooks.tool("delete_user");
/// let mut ctx = delete.pre_tool_use(&Session::new("s1"), json!({"id": 7}));
/// let allowed = match delete.dispatch_now(&mut ctx) {
///     Now::Done(outcome) => outcome.is_continue(),
///     // This loop cannot wait: a call that needs waiting for is refused.
///     Now::Wait(_) => false,
/// };
/// assert!(!allowed);
/// ```
#[must_use = "a dispatch that must wait has not decided: await it, or refuse the call"]
pub enum Now<'a> {
    /// Every hook ran: the outcome, as [`dispatch`](crate::ToolHandle::dispatch) gives it.
    Done(Outcome),
    /// A hook must be waited on: the rest of the dispatch. Awaited, it
    /// gives the outcome [`dispatch`](crate::ToolHandle::dispatch) would have.
    /// Dropped, the dispatch is abandoned where it waited (the hooks after
    /// it never run): refuse the call, and do not dispatch its context again.
    Wait(Waiting<'a>),
}

impl fmt::Debug for Now<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Now::Done(outcome) => f.debug_tuple("Done").field(outcome).finish(),
            Now::Wait(_) => f.write_str("Wait(..)"),
        }
    }
}

/// The rest of a dispatch that must wait: a future of its [`Outcome`].
#[must_use = "a dispatch that must wait has not decided: await it, or refuse the call"]
pub struct Waiting<'a>(BoxFuture<'a, Outcome>);

impl<'a> Waiting<'a> {
    pub(crate) fn new(future: impl Future<Output = Outcome> + Send + 'a) -> Self {
        Waiting(Box::pin(future))
    }
}

impl Future for Waiting<'_> {
    type Output = Outcome;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        self.0.as_mut().poll(cx)
    }
}

impl fmt::Debug for Waiting<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Waiting(..)")
    }
}
