use std::borrow::Cow;
use std::sync::Arc;

use crate::approval::{ApprovalOutcome, ApprovalRecord, ApprovalRequest, Approver};
use crate::builder::HooksBuilder;
use crate::decision::{Approval, Decision};
use crate::describe::Description;
use crate::event::Event;
use crate::failure::{HookError, OnError};
use crate::name::HookName;
use crate::outcome::{Denial, DenialCause, Outcome};
use crate::run::{catch, run, within};
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
    pub async fn dispatch<C: Event>(&self, ctx: &mut C) -> Outcome {
        let entries = &C::__table(&self.inner.tables).entries;
        self.run_chain(entries.iter(), ctx).await
    }

    /// Lists the hooks of this dispatcher, in dispatch order.
    pub fn describe(&self) -> Description {
        Description::of(&self.inner.tables)
    }

    /// How many hooks this dispatcher runs on `C`'s event (before matching).
    pub fn count<C: Event>(&self) -> usize {
        C::__table(&self.inner.tables).entries.len()
    }

    /// Runs the chain, then the observers, which see how the chain ended.
    pub(crate) async fn run_chain<'t, C: Event>(
        &self,
        entries: impl Iterator<Item = &'t Entry<C>> + Clone,
        ctx: &mut C,
    ) -> Outcome {
        ctx.__trail().set_budget(self.inner.injection_budget);
        let mut denial = None;
        for entry in entries.clone() {
            if entry.meta.observer || !entry.applies_to(ctx) {
                continue;
            }
            ctx.__trail().enter(&entry.meta.name);
            let verdict = run(entry, ctx).await;
            denial = self.settle(entry, ctx, verdict).await;
            if denial.is_some() {
                break;
            }
        }
        ctx.__trail().set_denial(denial);
        for entry in entries {
            if !entry.meta.observer || !entry.applies_to(ctx) {
                continue;
            }
            ctx.__trail().enter(&entry.meta.name);
            let verdict = run(entry, ctx).await;
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
        ctx.__trail().leave();
        match ctx.__trail().take_denial() {
            Some(denial) => Outcome::Denied(denial),
            None => Outcome::Continue,
        }
    }

    /// Applies one hook's verdict; `Some` stops the chain.
    async fn settle<C: Event>(
        &self,
        entry: &Entry<C>,
        ctx: &mut C,
        verdict: Result<Decision, HookError>,
    ) -> Option<Denial> {
        let hook = &entry.meta.name;
        match verdict {
            Ok(Decision::Continue) => None,
            Ok(Decision::Deny(reason)) if C::KIND.can_block() => {
                Some(Denial::new(hook.clone(), reason, DenialCause::Decided))
            }
            Ok(Decision::Ask(approval)) if C::KIND.can_block() => {
                self.ask(hook, ctx, approval).await
            }
            Ok(decision) => {
                // Typed hooks cannot get here; a runtime hook can.
                tracing::warn!(
                    hook = %hook,
                    event = C::KIND.as_str(),
                    ?decision,
                    "a hook tried to block an event that cannot block; ignored"
                );
                None
            }
            Err(error) if entry.meta.on_error == OnError::Deny && C::KIND.can_block() => {
                let reason = format!(
                    "hook `{hook}` {error}, so the call was denied \
                     ({} hooks fail closed unless they say `on_error = \"continue\"`)",
                    C::KIND
                );
                Some(Denial::new(
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
                None
            }
        }
    }

    /// Asks the approver; `Some` is a denial (no, no answer in time, no approver).
    async fn ask<C: Event>(
        &self,
        hook: &HookName,
        ctx: &mut C,
        approval: Approval,
    ) -> Option<Denial> {
        let outcome = match &self.inner.approver {
            None => ApprovalOutcome::NoApprover,
            Some(approver) => {
                let request = ApprovalRequest::new(hook, ctx, &approval);
                let answer = match catch(|| approver.decide(&request)) {
                    Ok(pending) => within(Some(approval.wait()), pending).await,
                    Err(error) => Err(error),
                };
                match answer {
                    Ok(answer) => ApprovalOutcome::Answered(answer),
                    Err(HookError::TimedOut(after)) => ApprovalOutcome::TimedOut {
                        after_ms: after.as_millis(),
                    },
                    Err(error) => ApprovalOutcome::Failed {
                        message: error.to_string(),
                    },
                }
            }
        };
        let prompt = approval.prompt();
        let reason = match &outcome {
            ApprovalOutcome::Answered(answer) if answer.is_approved() => None,
            ApprovalOutcome::Answered(answer) => Some(format!(
                "not approved{}{}",
                answer
                    .responder()
                    .map(|by| format!(" by {by}"))
                    .unwrap_or_default(),
                answer
                    .reason()
                    .map(|why| format!(": {why}"))
                    .unwrap_or_default(),
            )),
            ApprovalOutcome::TimedOut { after_ms } => Some(format!(
                "approval \"{prompt}\" got no answer within {after_ms} ms; denied by default"
            )),
            ApprovalOutcome::NoApprover => Some(format!(
                "approval \"{prompt}\" is required but no approver is configured; denied by default"
            )),
            ApprovalOutcome::Failed { message } => Some(format!(
                "approval \"{prompt}\" could not be asked ({message}); denied by default"
            )),
        };
        ctx.__trail().record_approval(ApprovalRecord {
            hook: hook.clone(),
            prompt: prompt.to_owned(),
            outcome: outcome.clone(),
        });
        reason.map(|reason| {
            Denial::new(
                hook.clone(),
                Cow::Owned(reason),
                DenialCause::NotApproved(outcome),
            )
        })
    }
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
