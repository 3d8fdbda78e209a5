//! Dispatch: running an event's hooks. One dispatch, in ten lines:
//!
//! 1. [`Hooks::dispatch`] (or a [`ToolHandle`]) picks the event's table and
//!    the entries to walk ([`chain`]: all of them, or a handle's candidates).
//! 2. The returned future ([`walk`]) runs, on its first poll, stretches of
//!    plain `fn` hooks as plain calls, one panic guard per stretch;
//!    `dispatch_now` runs the same start at once, without a future, and
//!    hands back the rest as one only if a hook really waits ([`now`]).
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
mod now;
mod run;
mod tool;
mod walk;

use std::borrow::Cow;
use std::future::Future;

pub use now::{Now, Waiting};
pub use tool::{RunError, ToolHandle, ToolRun};

use crate::event::{EventKind, OnError};
use crate::registry::Event;
use crate::registry::Hooks;
use crate::registry::table::Entry;
use crate::verdict::{
    Approval, Decision, Denial, DenialCause, HookError, MessageLevel, Notes, Outcome, Shadowed,
    StopCapped, Verdict, Would, redacted,
};

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
        attach_facts(self, ctx);
        let table = C::__table(&self.inner.tables);
        Dispatch::new(
            self,
            Chain::All(table.entries.iter()),
            table.observers > 0,
            ctx,
        )
    }

    /// [`dispatch`](Self::dispatch) without a future: the hooks run now,
    /// and unless one must be waited on, the outcome is
    /// [`Now::Done`] — what `dispatch` would have given, at less cost
    /// (no future to build, move and drop). For a loop that calls tools
    /// synchronously; `Now::Wait` holds the rest of the dispatch.
    ///
    /// ```
    /// use hooks_core::prelude::*;
    ///
    /// let hooks = Hooks::builder().build().unwrap();
    /// let mut ctx = PreToolUse::new(&Session::new("s1"), "search", json!({"q": "rust"}));
    /// assert!(matches!(hooks.dispatch_now(&mut ctx), Now::Done(outcome) if outcome.is_continue()));
    /// ```
    pub fn dispatch_now<'a, C: Event>(&'a self, ctx: &'a mut C) -> Now<'a> {
        attach_facts(self, ctx);
        let table = C::__table(&self.inner.tables);
        walk::now(
            self,
            Chain::All(table.entries.iter()),
            table.observers > 0,
            ctx,
        )
    }
}

/// Gives a tool event what the dispatcher's catalog knows about its tool,
/// unless the context already has facts. Costs one load when the catalog is
/// empty, one lookup otherwise. Done when the dispatch is made, not when
/// it is first polled: a [`ToolHandle`] looked its tool's facts up once.
#[inline]
pub(crate) fn attach_facts<C: Event>(hooks: &Hooks, ctx: &mut C) {
    let catalog = &hooks.inner.catalog;
    if catalog.is_empty() {
        return;
    }
    let Some(call) = ctx.__tool_call() else {
        return;
    };
    if let Some(facts) = catalog.get(call.tool()).cloned() {
        give_facts(ctx, &facts);
    }
}

/// Gives a tool event `facts` about its tool, unless it already has facts.
#[inline]
pub(crate) fn give_facts<C: Event>(ctx: &mut C, facts: &std::sync::Arc<crate::catalog::ToolFacts>) {
    if let Some(slot) = ctx.__facts_slot()
        && slot.is_none()
    {
        *slot = Some(std::sync::Arc::clone(facts));
    }
}

/// Whether `C` is a stop event, where a denial keeps the agent going.
#[inline]
pub(crate) const fn is_stop<C: Event>() -> bool {
    matches!(C::KIND, EventKind::Stop | EventKind::SubagentStop)
}

/// Whether `C` is the host's permission dialog, which hooks answer for its person.
#[inline]
pub(crate) const fn is_permission_request<C: Event>() -> bool {
    matches!(C::KIND, EventKind::PermissionRequest)
}

/// Ends the deciding phase of a stop event: a run of refusals longer than
/// the dispatcher's cap is broken by letting the agent stop (noted), and
/// an allowed stop starts the count again. Other events pass through.
#[inline]
pub(crate) fn cap_stops<C: Event>(
    hooks: &Hooks,
    ctx: &mut C,
    denial: Option<Denial>,
) -> Option<Denial> {
    if !is_stop::<C>() {
        return denial;
    }
    let stops = ctx.session().stops();
    let Some(denial) = denial else {
        stops.reset();
        return None;
    };
    let cap = hooks.inner.stop_denial_cap;
    if stops.refused() <= cap {
        return Some(denial);
    }
    stops.reset();
    tracing::warn!(
        hook = %denial.hook(),
        event = C::KIND.as_str(),
        cap,
        "stop hooks refused to let the agent stop {cap} times in a row; letting it stop"
    );
    ctx.__trail().notes_mut().stop_capped = Some(StopCapped {
        hook: denial.hook().clone(),
        reason: denial.reason().to_owned(),
        cap,
    });
    None
}

/// The outcome of a finished dispatch: the denial, and what hooks noted
/// (copied: the context keeps them for its own readers).
#[inline]
pub(crate) fn conclude<C: Event>(ctx: &mut C, denial: Option<Denial>) -> Outcome {
    let notes = ctx.__trail().notes_if_any().map(boxed);
    Outcome::new(ctx.__call_id(), denial, notes)
}

/// [`conclude`] for a dispatch every hook allowed. The `None` is written in
/// place: passed as a value, it was built on the stack and copied into the
/// outcome, whose first load of it waited for the store (a stall `perf`
/// put at most of the first poll's time).
#[inline]
pub(crate) fn conclude_allowed<C: Event>(ctx: &mut C) -> Outcome {
    let notes = ctx.__trail().notes_if_any().map(boxed);
    Outcome::new(ctx.__call_id(), None, notes)
}

/// A copy of what hooks noted, for the outcome: out of line, as most
/// dispatches note nothing.
#[inline(never)]
fn boxed(notes: &Notes) -> Box<Notes> {
    Box::new(notes.clone())
}

/// Runs a shadow hook: it runs as any hook would, and what it would have
/// done — deny, ask, rewrite, fail — is noted, then undone.
pub(crate) async fn shadow<C: Event>(hooks: &Hooks, entry: &Entry<C>, ctx: &mut C, traced: bool) {
    let saved = ctx.__save();
    let mark = ctx.__trail().mark();
    let session_end = ctx.__trail().notes_now().end_session.clone();
    let verdict = redacted(run::run(entry, ctx, traced).await, hooks.redactor());
    ctx.__settle();
    let mut fields = ctx.__trail().back_to(mark);
    ctx.__restore(saved);
    // Ending the session is enforced too: a shadow hook's is noted, not kept.
    if ctx.__trail().notes_now().end_session != session_end {
        ctx.__trail().notes_mut().end_session = session_end;
        fields.push("end_session");
    }
    let hook = &entry.meta.name;
    let blocks = C::KIND.can_block();
    let would = match verdict {
        Ok(Decision::Deny(refusal)) if blocks => {
            let (reason, details) = refusal.into_parts();
            Some(Would::Deny {
                kind: DenialCause::from_refusal(details).kind().to_owned(),
                reason: reason.into_owned(),
            })
        }
        Ok(Decision::Ask(approval)) if blocks => Some(Would::Ask {
            prompt: approval.prompt().to_owned(),
        }),
        Ok(_) => None,
        Err(error) if blocks && entry.meta.on_error == OnError::Deny => Some(Would::Deny {
            reason: format!("hook `{hook}` {error}"),
            kind: "hook_failed".to_owned(),
        }),
        Err(error) => Some(Would::Fail { error }),
    };
    let rewrite = (!fields.is_empty()).then_some(Would::Rewrite { fields });
    for would in would.into_iter().chain(rewrite) {
        tracing::info!(
            hook = %hook,
            event = C::KIND.as_str(),
            shadow = true,
            ?would,
            "shadow hook: not enforced"
        );
        ctx.__trail().notes_mut().shadowed.push(Shadowed {
            hook: hook.clone(),
            would,
        });
    }
}

/// Logs and records an observer's failure: observers cannot change the outcome.
pub(crate) fn record<C: Event>(hooks: &Hooks, entry: &Entry<C>, ctx: &mut C, verdict: Verdict) {
    if let Err(error) = redacted(verdict, hooks.redactor()) {
        tracing::warn!(
            hook = %entry.meta.name,
            event = C::KIND.as_str(),
            %error,
            "observer failed; continuing (observers cannot change the outcome)"
        );
        ctx.__trail().record_failure(&entry.meta.name, error);
    }
}

/// What one hook's verdict means for the chain. What the hook said is
/// redacted first: everything below logs it or hands it on.
pub(crate) fn settle<C: Event>(
    hooks: &Hooks,
    entry: &Entry<C>,
    ctx: &mut C,
    verdict: Result<Decision, HookError>,
) -> Settled {
    let hook = &entry.meta.name;
    match redacted(verdict, hooks.redactor()) {
        Ok(Decision::Continue) => Settled::Continue,
        Ok(Decision::Deny(refusal)) if C::KIND.can_block() => {
            let (reason, details) = refusal.into_parts();
            Settled::Denied(Denial::new(
                hook.clone(),
                reason,
                DenialCause::from_refusal(details),
            ))
        }
        // The host asks its person itself (its permission dialog): an ask
        // there is a wish that they be asked, not a question for an approver.
        // Its prompt goes to the person, who sees the dialog.
        Ok(Decision::Ask(approval)) if is_permission_request::<C>() => {
            ctx.__leave_to_person();
            ctx.__trail().user_message(
                MessageLevel::Info,
                format!("hook `{hook}` leaves this to you: {}", approval.prompt()),
            );
            Settled::Continue
        }
        Ok(Decision::Ask(approval)) if C::KIND.can_block() => Settled::Ask(approval),
        Ok(decision) => {
            // Typed hooks cannot get here; a runtime hook can (a script
            // exiting 2 on `SessionStart`). It meant to tell someone: its
            // reason goes to the person, as Claude Code shows such a
            // hook's stderr, and the event goes ahead.
            tracing::warn!(
                hook = %hook,
                event = C::KIND.as_str(),
                ?decision,
                "a hook tried to block an event that cannot block; not enforced, told to the person"
            );
            if let Decision::Deny(refusal) = decision {
                ctx.__trail().user_message(
                    MessageLevel::Warning,
                    format!(
                        "hook `{hook}` said to block {}, which cannot be blocked (it goes \
                         ahead): {}",
                        C::KIND.context_name(),
                        refusal.reason()
                    ),
                );
            }
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
            if is_permission_request::<C>() {
                // A hook that failed answered nothing: what it granted first goes.
                ctx.__withdraw(hook);
            }
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
