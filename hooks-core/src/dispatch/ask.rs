//! Asking a person: a hook returned `Decision::Ask`, the dispatcher asks the
//! approver, within the approval's timeout, and records the answer.

use std::borrow::Cow;

use serde_json::Value;

use crate::context::Trail;
use crate::name::HookName;
use crate::registry::{Event, Hooks};
use crate::verdict::{
    Approval, ApprovalOutcome, ApprovalRecord, ApprovalRequest, Denial, DenialCause, HookError,
    SharedRedactor, catch, grace, within,
};

/// Asks the approver; `Some` is a denial (no, no answer in time, no approver,
/// a failing approver). The answer is recorded on the context either way.
pub(crate) async fn ask<C: Event>(
    hooks: &Hooks,
    hook: &HookName,
    ctx: &mut C,
    approval: Approval,
    args: Option<Value>,
) -> Option<Denial> {
    let outcome = match hooks.approver() {
        None => ApprovalOutcome::NoApprover,
        Some(approver) => {
            let request =
                ApprovalRequest::new(hook, C::KIND, ctx.session(), ctx.__tool_call(), &approval)
                    .with_redactor(SharedRedactor(hooks.inner.redactor.clone()));
            let limit = approval.wait() + grace(approval.wait());
            let answer = match catch(|| approver.decide(&request)) {
                Ok(pending) => within(Some(limit), pending).await,
                Err(error) => Err(error),
            };
            match answer {
                Ok(answer) if answer.is_timed_out() => ApprovalOutcome::TimedOut {
                    after_ms: approval.wait().as_millis(),
                },
                Ok(answer) => ApprovalOutcome::Answered(answer),
                Err(HookError::TimedOut(_)) => ApprovalOutcome::TimedOut {
                    after_ms: approval.wait().as_millis(),
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
        ApprovalOutcome::Superseded { by } => Some(format!(
            "`{by}` changed the arguments after approval was requested; denied"
        )),
    };
    ctx.__trail().record_approval(ApprovalRecord {
        hook: hook.clone(),
        prompt: prompt.to_owned(),
        outcome: outcome.clone(),
        // A yes covers these arguments and no others.
        bound_args: if reason.is_none() { args } else { None },
    });
    if matches!(outcome, ApprovalOutcome::NoApprover) && super::is_stop::<C>() {
        // On a stop, a denial keeps the agent going; with nobody to ask,
        // it would go on for ever. Recorded above; the agent stops.
        tracing::warn!(
            hook = %hook,
            event = C::KIND.as_str(),
            "a stop hook asked for approval but no approver is configured; letting the agent stop"
        );
        return None;
    }
    // The answer's reason (or the approver's failure) is the approver's
    // words: they may quote the call too.
    let redactor = hooks.redactor();
    reason.map(|reason| {
        let reason = redactor
            .and_then(|redactor| redactor.redact_text(&reason))
            .unwrap_or(reason);
        Denial::new(
            hook.clone(),
            Cow::Owned(reason),
            DenialCause::NotApproved(outcome),
        )
    })
}

/// The denial of an ask whose arguments `by` changed after it was raised:
/// recorded, and nobody asked (they would approve a call that will not run).
pub(crate) fn superseded<C: Event>(
    hook: &HookName,
    approval: &Approval,
    by: HookName,
    ctx: &mut C,
) -> Denial {
    let reason = format!(
        "`{by}` changed the call's arguments after `{hook}` asked for approval, so the \
         request no longer describes the call; denied (rewrites belong before approval)"
    );
    let outcome = ApprovalOutcome::Superseded { by };
    ctx.__trail().record_approval(ApprovalRecord {
        hook: hook.clone(),
        prompt: approval.prompt().to_owned(),
        outcome: outcome.clone(),
        bound_args: None,
    });
    Denial::new(
        hook.clone(),
        Cow::Owned(reason),
        DenialCause::NotApproved(outcome),
    )
}

/// The hook behind the last rewrite of the arguments from `since` on.
pub(crate) fn rewriter(trail: &Trail, since: usize) -> HookName {
    let rewrites = trail.rewrites();
    rewrites[since.min(rewrites.len())..]
        .iter()
        .rev()
        .find(|rewrite| rewrite.field == "args")
        .map_or_else(
            || HookName::from_static("(outside the hooks)"),
            |rewrite| rewrite.hook.clone(),
        )
}

/// The denial of a call whose arguments are not the ones a person approved:
/// a yes from an earlier dispatch over the same context, after which a hook
/// of this one (or the integration) changed them. `None` when every yes
/// covers the arguments as they are.
#[cold]
#[inline(never)]
pub(crate) fn unbound<C: Event>(ctx: &mut C) -> Option<Denial> {
    // The last hook's changes, recorded, so the rewrite is named.
    ctx.__settle();
    let args = ctx.__tool_call()?.args().clone();
    let trail = ctx.__trail();
    let approved = trail.approvals().iter().find(|record| {
        record
            .bound_args
            .as_ref()
            .is_some_and(|bound| *bound != args)
    })?;
    let hook = approved.hook.clone();
    let by = rewriter(trail, 0);
    let reason = format!(
        "`{by}` changed the call's arguments after a person approved them for `{hook}`; \
         the approval covers those arguments only, so the call is denied"
    );
    Some(Denial::new(
        hook,
        Cow::Owned(reason),
        DenialCause::NotApproved(ApprovalOutcome::Superseded { by }),
    ))
}
