use std::future::ready;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::event::EventKind;
use crate::matcher::ToolCall;
use crate::name::HookName;
use crate::session::Session;
use crate::verdict::{Approval, BoxFuture, Redact, SharedRedactor};

/// Delivers approval requests ([`Decision::Ask`](crate::Decision::Ask)) to a
/// person and reports the answer.
///
/// The dispatcher owns the timeout and the default (deny): an approver
/// delivers and listens, and one that keeps state ends its wait at the
/// request's [`deadline`](ApprovalRequest::deadline). Any `Fn(&ApprovalRequest) -> ApprovalAnswer` closure
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
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<String>,
    prompt: String,
    timeout_ms: u128,
    /// When the dispatcher stops waiting for the person.
    #[serde(skip)]
    deadline: Instant,
    #[serde(skip)]
    redactor: SharedRedactor,
}

impl ApprovalRequest {
    pub(crate) fn new(
        hook: &HookName,
        event: EventKind,
        session: &Session,
        call: Option<ToolCall<'_>>,
        approval: &Approval,
    ) -> Self {
        ApprovalRequest {
            hook: hook.clone(),
            event,
            session: session.clone(),
            tool: call.map(|call| call.tool().to_owned()),
            args: call.map(|call| call.args().clone()),
            call_id: call.and_then(|call| call.call_id().map(ToOwned::to_owned)),
            prompt: approval.prompt().to_owned(),
            timeout_ms: approval.wait().as_millis(),
            deadline: Instant::now() + approval.wait(),
            redactor: SharedRedactor::default(),
        }
    }

    /// The request, with the dispatcher's redactor for approvers to use.
    pub(crate) fn with_redactor(mut self, redactor: SharedRedactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// The dispatcher's redactor ([`HooksBuilder::redactor`](crate::HooksBuilder::redactor)),
    /// if it has one: the prompt is redacted already, the arguments are not
    /// (the answer binds the exact call), so an approver that stores or
    /// shows them redacts them with this first.
    pub fn redactor(&self) -> Option<&dyn Redact> {
        self.redactor.0.as_deref()
    }

    /// The provider's id for the tool call, if the context has one: two
    /// identical calls the model made in parallel are two requests.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
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

    /// How long the person has to answer.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(u64::try_from(self.timeout_ms).unwrap_or(u64::MAX))
    }

    /// When the person's time is up. An approver that keeps state (a stored
    /// request) ends its wait here and records the expiry itself; the
    /// dispatcher waits a short grace past it (a tenth of the timeout, at
    /// most a second) for that, then denies whatever the approver is doing.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }
}

/// How long past an approval's deadline the dispatcher still waits for the
/// approver to come back (with its own record of the expiry).
pub(crate) fn grace(timeout: Duration) -> Duration {
    (timeout / 10).min(Duration::from_secs(1))
}

/// A person's answer to an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovalAnswer {
    approved: bool,
    /// Nobody answered by the deadline (the approver says so, having recorded it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    timed_out: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The approver's id for the request (a database row, a ticket).
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
}

impl ApprovalAnswer {
    /// Yes.
    pub fn approve() -> Self {
        ApprovalAnswer {
            approved: true,
            timed_out: false,
            by: None,
            reason: None,
            id: None,
        }
    }

    /// No, with a reason for the model.
    pub fn deny(reason: impl Into<String>) -> Self {
        ApprovalAnswer {
            approved: false,
            timed_out: false,
            by: None,
            reason: Some(reason.into()),
            id: None,
        }
    }

    /// Nobody answered by the request's [`deadline`](ApprovalRequest::deadline):
    /// for an approver that ends its own wait there (and records the expiry),
    /// so the call is denied as timed out, as if the dispatcher had timed it out.
    pub fn timed_out() -> Self {
        ApprovalAnswer {
            approved: false,
            timed_out: true,
            by: None,
            reason: None,
            id: None,
        }
    }

    /// Records who answered.
    #[must_use]
    pub fn by(mut self, who: impl Into<String>) -> Self {
        self.by = Some(who.into());
        self
    }

    /// Records the approver's id for the request, so a denial can name the
    /// request a person refused (or let time out).
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The approver's id for the request, if it gave one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// Whether the answer is yes.
    pub fn is_approved(&self) -> bool {
        self.approved
    }

    /// Whether nobody answered in time.
    pub fn is_timed_out(&self) -> bool {
        self.timed_out
    }

    /// The same answer with its reason passed through `f` (to redact it, say).
    #[must_use]
    pub fn map_reason(mut self, f: impl FnOnce(&str) -> String) -> Self {
        self.reason = self.reason.as_deref().map(f);
        self
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
    /// The exact arguments a yes covers: the call may run with these and no
    /// others ([`PreToolUse::args_as_approved`](crate::PreToolUse::args_as_approved)).
    /// Kept in memory only: never serialized, so no audit record holds them unredacted.
    #[serde(skip)]
    pub bound_args: Option<serde_json::Value>,
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
    /// A later hook changed the call's arguments after this approval was
    /// requested, so nobody was asked: the call was denied.
    Superseded {
        /// The hook whose rewrite voided the request.
        by: HookName,
    },
}
