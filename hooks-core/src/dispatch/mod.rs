//! Dispatch: running an event's hooks. One dispatch, in ten lines:
//!
//! 1. [`Hooks::dispatch`] (or a [`ToolHandle`]) picks the event's table and
//!    the entries to walk ([`chain`]: all of them, or a handle's candidates).
//! 2. The returned future ([`walk`]) runs, on its first poll, stretches of
//!    plain `fn` hooks as plain calls, one panic guard per stretch.
//! 3. Each verdict is settled: `Continue` goes on, `Deny` ends the chain, a
//!    failure denies or is logged as the hook's `on_error` says, `Ask` waits
//!    for the chain's end: a person is asked only about a call every hook
//!    allowed, with its final arguments, and the yes binds them.
//! 4. A hook that may wait (`async fn`, `Deferred`) takes the context and
//!    hands it back, now or from its future; the walk waits on that future.
//! 5. Approvals ([`ask`]), traced runs and runtime futures go on in a boxed task.
//! 6. When the deciding hooks are done, observers run, seeing the denial if any.
//! 7. The outcome says which hook decided and why; the context keeps the trail.
//!
//! [`run`] runs one hook so that nothing it does escapes (panics, errors,
//! timeouts); [`tool`] runs pre-hooks, the tool and post-hooks as one unit.

mod ask;
mod chain;
mod run;
mod tool;
mod walk;

use std::borrow::Cow;
use std::future::Future;

pub use tool::{ToolHandle, ToolRun};

use crate::event::OnError;
use crate::registry::Event;
use crate::registry::Hooks;
use crate::registry::table::Entry;
use crate::verdict::{Approval, Decision, Denial, DenialCause, HookError, Outcome, Verdict};

use chain::Chain;
use walk::Dispatch;

impl Hooks {
    /// Runs the hooks of `ctx`'s event, in order, and says how it went.
    ///
    /// On tool events every hook's matcher is checked against the call; a
    /// [`ToolHandle`] checks only the hooks that can match its tool.
    pub fn dispatch<'a, C: Event>(
        &'a self,
        ctx: &'a mut C,
    ) -> impl Future<Output = Outcome> + Send + 'a {
        Dispatch::new(
            self,
            Chain::All(C::__table(&self.inner.tables).entries.iter()),
            ctx,
        )
    }
}

/// Logs and records an observer's failure: observers cannot change the outcome.
pub(crate) fn record<C: Event>(entry: &Entry<C>, ctx: &mut C, verdict: Verdict) {
    if let Err(error) = verdict {
        tracing::warn!(
            hook = %entry.meta.name,
            event = C::KIND.as_str(),
            %error,
            "observer failed; continuing (observers cannot change the outcome)"
        );
        ctx.__trail().record_failure(&entry.meta.name, error);
    }
}

/// What one hook's verdict means for the chain.
pub(crate) fn settle<C: Event>(
    entry: &Entry<C>,
    ctx: &mut C,
    verdict: Result<Decision, HookError>,
) -> Settled {
    let hook = &entry.meta.name;
    match verdict {
        Ok(Decision::Continue) => Settled::Continue,
        Ok(Decision::Deny(reason)) if C::KIND.can_block() => {
            Settled::Denied(Denial::new(hook.clone(), reason, DenialCause::Decided))
        }
        Ok(Decision::Ask(approval)) if C::KIND.can_block() => Settled::Ask(approval),
        Ok(decision) => {
            // Typed hooks cannot get here; a runtime hook can.
            tracing::warn!(
                hook = %hook,
                event = C::KIND.as_str(),
                ?decision,
                "a hook tried to block an event that cannot block; ignored"
            );
            Settled::Continue
        }
        Err(error) if entry.meta.on_error == OnError::Deny && C::KIND.can_block() => {
            let reason = format!(
                "hook `{hook}` {error}, so the call was denied \
                 ({} hooks fail closed unless they say `on_error = \"continue\"`)",
                C::KIND
            );
            Settled::Denied(Denial::new(
                hook.clone(),
                Cow::Owned(reason),
                DenialCause::Failed(error),
            ))
        }
        Err(error) if entry.meta.on_error == OnError::Deny && C::KIND.can_withhold() => {
            // A scrubber that failed half-way: the model gets this, not
            // the output it was scrubbing — nor the error's message, which
            // may quote it (the message is in the log and the trail).
            ctx.__withhold(format!(
                "hook `{hook}` {}, and it fails closed (`on_error = \"deny\"`)",
                error.kind()
            ));
            tracing::warn!(
                hook = %hook,
                event = C::KIND.as_str(),
                %error,
                "hook failed; its output withheld (its failure policy is `deny`)"
            );
            ctx.__trail().record_failure(hook, error);
            Settled::Continue
        }
        Err(error) => {
            tracing::warn!(
                hook = %hook,
                event = C::KIND.as_str(),
                %error,
                "hook failed; continuing (its failure policy is `continue`)"
            );
            ctx.__trail().record_failure(hook, error);
            Settled::Continue
        }
    }
}

/// What a verdict means for the chain.
pub(crate) enum Settled {
    Continue,
    Denied(Denial),
    Ask(Approval),
}
