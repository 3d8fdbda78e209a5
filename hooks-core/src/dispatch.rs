use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use crate::approval::{Approver, ask};
use crate::builder::HooksBuilder;
use crate::chain::{Chain, Stretch, sync_stretch};
use crate::decision::{Approval, Decision};
use crate::describe::Description;
use crate::event::Event;
use crate::failure::{HookError, OnError};
use crate::outcome::{Denial, DenialCause, Outcome};
use crate::output::Verdict;
use crate::run::{run as traced_run, untraced as untraced_run};
use crate::table::{Entry, Tables};

/// The dispatcher: every hook of every event, sorted once, shared cheaply.
///
/// Build it once at start-up with [`Hooks::builder`], clone it into
/// sub-agents (a clone is a reference count), and dispatch each event through
/// [`dispatch`](Hooks::dispatch), or tool events through a
/// [`ToolHandle`](crate::ToolHandle). Dispatching sync hooks allocates nothing.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[pre_tool_use(matches = "delete_*")]
/// fn no_deletes(_ctx: &mut PreToolUse) -> Decision {
///     Decision::deny("deleting is disabled in this deployment")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let hooks = Hooks::builder().build().unwrap();
/// let session = Session::new("s1");
///
/// let mut call = PreToolUse::new(&session, "delete_user", json!({"id": 7}));
/// let outcome = hooks.dispatch(&mut call).await;
/// let denial = outcome.denial().unwrap();
/// assert!(denial.hook().as_str().ends_with("no_deletes"));
/// assert_eq!(denial.reason(), "deleting is disabled in this deployment");
/// # }
/// ```
#[derive(Clone)]
pub struct Hooks {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) tables: Tables,
    pub(crate) approver: Option<Arc<dyn Approver>>,
    pub(crate) injection_budget: usize,
}

impl Hooks {
    /// A builder starting from every hook linked into the binary.
    pub fn builder() -> HooksBuilder {
        HooksBuilder::new()
    }

    /// Runs the hooks of `ctx`'s event, in order, and says how it went.
    ///
    /// On tool events every hook's matcher is checked against the call; a
    /// [`ToolHandle`](crate::ToolHandle) checks only the hooks that can match its tool.
    pub fn dispatch<'a, C: Event>(
        &'a self,
        ctx: &'a mut C,
    ) -> impl Future<Output = Outcome> + Send + 'a {
        self.run_chain(
            Chain::All(C::__table(&self.inner.tables).entries.iter()),
            ctx,
        )
    }

    /// Lists the hooks of this dispatcher, in dispatch order.
    pub fn describe(&self) -> Description {
        Description::of(&self.inner.tables)
    }

    /// How many hooks this dispatcher runs on `C`'s event (before matching).
    pub fn count<C: Event>(&self) -> usize {
        C::__table(&self.inner.tables).entries.len()
    }

    /// Runs the deciding hooks, then the observers, which see how the chain ended.
    pub(crate) async fn run_chain<C: Event>(&self, entries: Chain<'_, C>, ctx: &mut C) -> Outcome {
        ctx.__trail().set_budget(self.inner.injection_budget);
        // A span costs more than a small hook even when nobody listens: ask
        // once per dispatch whether anyone does (one relaxed atomic load).
        let traced = tracing::level_enabled!(tracing::Level::DEBUG);
        let observed = C::__table(&self.inner.tables).observers > 0;
        let mut chain = entries.clone();
        let denial = loop {
            let (entry, verdict) = match sync_stretch(&mut chain, ctx, traced) {
                Stretch::Done => break None,
                Stretch::Stopped(entry, verdict) => (entry, verdict),
                Stretch::Slow(entry) => {
                    ctx.__trail().enter(&entry.meta.name);
                    (entry, run(entry, ctx, traced).await)
                }
            };
            match settle(entry, ctx, verdict) {
                Settled::Continue => {}
                Settled::Denied(denial) => break Some(denial),
                // Boxed: a person's answer takes seconds, and keeping this
                // rarely-taken path out of line keeps every dispatch's future small.
                Settled::Ask(approval) => {
                    let approver = self.inner.approver.as_deref();
                    let asked = Box::pin(ask(approver, &entry.meta.name, ctx, approval)).await;
                    if asked.is_some() {
                        break asked;
                    }
                }
            }
        };
        let outcome = if observed {
            self.observe(entries, ctx, denial).await
        } else {
            denial.map_or(Outcome::Continue, Outcome::Denied)
        };
        ctx.__trail().leave();
        outcome
    }

    /// Runs the observers with the chain's denial visible on the context.
    async fn observe<C: Event>(
        &self,
        mut entries: Chain<'_, C>,
        ctx: &mut C,
        denial: Option<Denial>,
    ) -> Outcome {
        ctx.__trail().set_denial(denial);
        while let Some(entry) = entries.next_observer(ctx) {
            ctx.__trail().enter(&entry.meta.name);
            let traced = tracing::level_enabled!(tracing::Level::DEBUG);
            if let Err(error) = run(entry, ctx, traced).await {
                tracing::warn!(
                    hook = %entry.meta.name,
                    event = C::KIND.as_str(),
                    %error,
                    "observer failed; continuing (observers cannot change the outcome)"
                );
                ctx.__trail().record_failure(&entry.meta.name, error);
            }
        }
        ctx.__trail()
            .take_denial()
            .map_or(Outcome::Continue, Outcome::Denied)
    }
}

/// Runs one hook off the fast path. Traced runs are boxed: their spans
/// would otherwise make every dispatch's future larger, and a subscriber
/// listening at DEBUG allocates for each span anyway.
async fn run<C: Event>(entry: &Entry<C>, ctx: &mut C, traced: bool) -> Verdict {
    if traced {
        Box::pin(traced_run(entry, ctx)).await
    } else {
        untraced_run(entry, ctx).await
    }
}

/// What one hook's verdict means for the chain.
fn settle<C: Event>(
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
enum Settled {
    Continue,
    Denied(Denial),
    Ask(Approval),
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("hooks", &self.inner.tables.metas().count())
            .field("approver", &self.inner.approver.is_some())
            .field("injection_budget", &self.inner.injection_budget)
            .finish()
    }
}
