//! Asking a person: a hook returned `Decision::Ask`, the dispatcher asks the
//! approver, within the approval's timeout, and records the answer.

use std::borrow::Cow;

use crate::name::HookName;
use crate::registry::Event;
use crate::verdict::{
    Approval, ApprovalOutcome, ApprovalRecord, ApprovalRequest, Approver, Denial, DenialCause,
    HookError, catch, grace, within,
};

/// Asks the approver; `Some` is a denial (no, no answer in time, no approver,
/// a failing approver). The answer is recorded on the context either way.
pub(crate) async fn ask<C: Event>(
    approver: Option<&dyn Approver>,
    hook: &HookName,
    ctx: &mut C,
    approval: Approval,
) -> Option<Denial> {
    let outcome = match approver {
        None => ApprovalOutcome::NoApprover,
        Some(approver) => {
            let request =
                ApprovalRequest::new(hook, C::KIND, ctx.session(), ctx.__tool_call(), &approval);
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
