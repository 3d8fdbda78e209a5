use std::borrow::Cow;
use std::future::ready;

use serde::Serialize;
use serde_json::Value;

use crate::decision::Approval;
use crate::event::{Event, EventKind};
use crate::failure::HookError;
use crate::hook::BoxFuture;
use crate::name::HookName;
use crate::outcome::{Denial, DenialCause};
use crate::run::{catch, within};
use crate::session::Session;

/// Delivers approval requests ([`Decision::Ask`](crate::Decision::Ask)) to a
/// person and reports the answer.
///
/// The dispatcher owns the timeout and the default (deny); an approver only
/// delivers and listens. Any `Fn(&ApprovalRequest) -> ApprovalAnswer` closure
/// is an approver, which suits tests and scripted runs:
///
/// ```
/// use hooks_core::{ApprovalAnswer, Hooks};
///
/// let hooks = Hooks::builder()
///     .approver(|request: &hooks_core::ApprovalRequest| {
///         if request.tool() == Some("refund") {
///             ApprovalAnswer::approve().by("on-call")
///         } else {
///             ApprovalAnswer::deny("only refunds are pre-approved")
///         }
///     })
///     .build()
///     .unwrap();
/// # drop(hooks);
/// ```
pub trait Approver: Send + Sync + 'static {
    /// Asks a person and resolves with their answer.
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer>;
}

impl<F> Approver for F
where
    F: Fn(&ApprovalRequest) -> ApprovalAnswer + Send + Sync + 'static,
{
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer> {
        Box::pin(ready(self(request)))
    }
}

/// What a person is asked to approve.
#[derive(Debug, Clone, Serialize)]
pub struct ApprovalRequest {
    hook: HookName,
    event: EventKind,
    session: Session,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Value>,
    prompt: String,
    timeout_ms: u128,
}

impl ApprovalRequest {
    pub(crate) fn new<C: Event>(hook: &HookName, ctx: &C, approval: &Approval) -> Self {
        let call = ctx.__tool_call();
        ApprovalRequest {
            hook: hook.clone(),
            event: C::KIND,
            session: ctx.session().clone(),
            tool: call.map(|call| call.tool().to_owned()),
            args: call.map(|call| call.args().clone()),
            prompt: approval.prompt().to_owned(),
            timeout_ms: approval.wait().as_millis(),
        }
    }

    /// The hook asking.
    pub fn hook(&self) -> &HookName {
        &self.hook
    }

    /// The event it runs on.
    pub fn event(&self) -> EventKind {
        self.event
    }

    /// The session the call belongs to.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The tool to approve, on tool events.
    pub fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// The tool's arguments, on tool events.
    pub fn args(&self) -> Option<&Value> {
        self.args.as_ref()
    }

    /// The hook's prompt for the person.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }
}

/// A person's answer to an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovalAnswer {
    approved: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

impl ApprovalAnswer {
    /// Yes.
    pub fn approve() -> Self {
        ApprovalAnswer {
            approved: true,
            by: None,
            reason: None,
        }
    }

    /// No, with a reason for the model.
    pub fn deny(reason: impl Into<String>) -> Self {
        ApprovalAnswer {
            approved: false,
            by: None,
            reason: Some(reason.into()),
        }
    }

    /// Records who answered.
    #[must_use]
    pub fn by(mut self, who: impl Into<String>) -> Self {
        self.by = Some(who.into());
        self
    }

    /// Whether the answer is yes.
    pub fn is_approved(&self) -> bool {
        self.approved
    }

    /// Who answered, if the approver said.
    pub fn responder(&self) -> Option<&str> {
        self.by.as_deref()
    }

    /// The reason given, if any.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }
}

/// How an approval ended, kept on the context for audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovalRecord {
    /// The hook that asked.
    pub hook: HookName,
    /// What the person was asked.
    pub prompt: String,
    /// How it ended.
    pub outcome: ApprovalOutcome,
}

/// How an approval ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum ApprovalOutcome {
    /// A person answered.
    Answered(ApprovalAnswer),
    /// Nobody answered in time; the call was denied.
    TimedOut {
        /// How long the dispatcher waited.
        after_ms: u128,
    },
    /// No approver is configured; the call was denied.
    NoApprover,
    /// The approver failed (panicked, or no timer was available); the call was denied.
    Failed {
        /// What went wrong.
        message: String,
    },
}

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
