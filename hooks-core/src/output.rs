use std::fmt::Display;

use crate::context::{PreToolUse, Stop, UserPromptSubmit};
use crate::decision::Decision;
use crate::event::Event;
use crate::failure::HookError;

/// What one hook run came to: a decision, or a failure.
pub type Verdict = Result<Decision, HookError>;

/// A type a hook on event `E` may return.
///
/// - `()` on every event;
/// - [`Decision`] on events that may block: `UserPromptSubmit`, `PreToolUse`, `Stop`;
/// - `Result<T, E>` of those, where `E: Display`: an `Err` is a hook failure,
///   handled by the hook's `on_error` policy.
///
/// The compiler enforces the table: a `#[post_tool_use]` hook returning
/// `Decision` does not compile, because a tool that already ran cannot be denied.
#[diagnostic::on_unimplemented(
    message = "a `{E}` hook cannot return `{Self}`",
    label = "not a return type for `{E}` hooks",
    note = "hooks return `()`, `Decision` (only on events that may block: UserPromptSubmit, PreToolUse, Stop), or a `Result<_, E: Display>` of those",
    note = "events that cannot block change things through the context instead, e.g. `ctx.result_mut()` on PostToolUse"
)]
pub trait HookOutput<E: Event> {
    /// Converts the hook's return value into a verdict.
    fn into_verdict(self) -> Verdict;
}

/// A type an `observe` hook on event `E` may return: `()`, or `Result<(), E: Display>`.
///
/// Observers run after the decision; they cannot make one.
#[diagnostic::on_unimplemented(
    message = "an observer cannot return `{Self}`",
    label = "observers return `()` or `Result<(), E>`",
    note = "`observe` hooks run after the decision and cannot change it; drop `observe` to make a hook that decides"
)]
pub trait ObserverOutput<E: Event> {
    /// Converts the observer's return value into a verdict (only ever `Continue` or a failure).
    fn into_verdict(self) -> Verdict;
}

impl<E: Event> ObserverOutput<E> for () {
    fn into_verdict(self) -> Verdict {
        Ok(Decision::Continue)
    }
}

impl<E: Event, Err: Display> ObserverOutput<E> for Result<(), Err> {
    fn into_verdict(self) -> Verdict {
        self.map(|()| Decision::Continue)
            .map_err(|err| HookError::Failed(err.to_string()))
    }
}

impl<E: Event> HookOutput<E> for () {
    fn into_verdict(self) -> Verdict {
        Ok(Decision::Continue)
    }
}

// One impl per blocking event, written out: they are what the compiler lists
// when a hook returns `Decision` from an event that cannot block.
impl HookOutput<UserPromptSubmit> for Decision {
    fn into_verdict(self) -> Verdict {
        Ok(self)
    }
}

impl HookOutput<PreToolUse> for Decision {
    fn into_verdict(self) -> Verdict {
        Ok(self)
    }
}

impl HookOutput<Stop> for Decision {
    fn into_verdict(self) -> Verdict {
        Ok(self)
    }
}

impl<E: Event, T: HookOutput<E>, Err: Display> HookOutput<E> for Result<T, Err> {
    fn into_verdict(self) -> Verdict {
        match self {
            Ok(value) => value.into_verdict(),
            Err(err) => Err(HookError::Failed(err.to_string())),
        }
    }
}
