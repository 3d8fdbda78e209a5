use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use crate::approval::Approver;
use crate::builder::HooksBuilder;
use crate::chain::Chain;
use crate::decision::{Approval, Decision};
use crate::describe::Description;
use crate::event::Event;
use crate::failure::{HookError, OnError};
use crate::future::Dispatch;
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
        Dispatch::new(
            self,
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

/// Runs one hook off the fast path. Traced runs are boxed: their spans
/// would otherwise make every dispatch's future larger, and a subscriber
/// listening at DEBUG allocates for each span anyway.
pub(crate) async fn run<C: Event>(entry: &Entry<C>, ctx: &mut C, traced: bool) -> Verdict {
    if traced {
        Box::pin(traced_run(entry, ctx)).await
    } else {
        untraced_run(entry, ctx).await
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

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("hooks", &self.inner.tables.metas().count())
            .field("approver", &self.inner.approver.is_some())
            .field("injection_budget", &self.inner.injection_budget)
            .finish()
    }
}
