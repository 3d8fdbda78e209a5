//! One audit record per tool call.

use std::io;
use std::time::SystemTime;

use hooks_core::context::Rewrite;
use hooks_core::{
    AfterToolUse, ApprovalOutcome, ApprovalRecord, Notes, PostToolUse, PostToolUseFailure,
    PreToolUse, Session, Value,
};
use serde::Serialize;

use crate::redact::Redactor;

/// What the audit log records about one tool call: who, what, the decision and
/// who made it, what hooks changed, how long it took and how big the result was.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRecord {
    /// When the record was made (RFC 3339, UTC, milliseconds).
    pub ts: String,
    /// The session id.
    pub session: String,
    /// The agent id.
    pub agent: String,
    /// The parent agent, for sub-agents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_agent: Option<String>,
    /// The user, if known.
    pub user: Option<String>,
    /// The session's metadata (role, tenant, read-only mode, ...), secrets
    /// redacted: what policies keyed on it decided from, and what a replay
    /// needs to decide the same way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// The tool.
    pub tool: String,
    /// The provider's id for the call, if the agent loop gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Its final arguments, secrets redacted.
    pub args: Value,
    /// `allowed` (the tool ran), `denied`, or `started` (about to run).
    pub decision: Decision,
    /// The hook that denied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// Why it denied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The denial's kind and typed details, for programs
    /// ([`DenialCause`](hooks_core::DenialCause) as JSON, secrets redacted):
    /// `{"kind": "rate_limited", "retry_after_ms": 1500}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<Value>,
    /// Each rewrite of the arguments (or result), with the hook that made it.
    pub rewrites: Vec<Rewrite>,
    /// Each approval asked for, with who answered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub approvals: Vec<ApprovalRecord>,
    /// How long the tool ran, if measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The size of the result the model got, as compact JSON bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_bytes: Option<u64>,
    /// The tool's error, secrets redacted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What hooks noted on the call, secrets redacted: warnings
    /// (`ctx.warn`), messages for the person, and what shadow hooks would
    /// have done (`{"hook": .., "would": "deny", "reason": ..}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<Value>,
}

/// The decision an [`AuditRecord`] records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The tool ran.
    Allowed,
    /// A hook refused the call; the tool did not run.
    Denied,
    /// The call passed every hook and is about to run: written before it
    /// runs by sinks that ask for it ([`Sink::records_before_call`](super::Sink::records_before_call)),
    /// and followed by the call's `allowed` record once it ran.
    Started,
}

impl AuditRecord {
    /// The record of a denied call; `None` if `ctx` was not denied.
    pub fn denied(ctx: &PreToolUse, redactor: &Redactor) -> Option<Self> {
        let denial = ctx.denial()?;
        Some(AuditRecord {
            decision: Decision::Denied,
            decided_by: Some(denial.hook().to_string()),
            // A reason may quote what it refused.
            reason: Some(redactor.redacted(denial.reason())),
            cause: Some(redacted_json(denial.cause(), redactor)),
            rewrites: ctx.rewrites().to_vec(),
            approvals: redacted_approvals(ctx.approvals(), redactor),
            notes: redacted_notes(&ctx.notes(), redactor),
            ..Self::base(
                ctx.session(),
                ctx.tool(),
                ctx.call_id(),
                ctx.args(),
                redactor,
            )
        })
    }

    /// The record of a call about to run: its final arguments, what the
    /// pre-hooks did to it, and the approvals it got.
    pub fn started(ctx: &PreToolUse, redactor: &Redactor) -> Self {
        AuditRecord {
            decision: Decision::Started,
            rewrites: ctx.rewrites().to_vec(),
            approvals: redacted_approvals(ctx.approvals(), redactor),
            notes: redacted_notes(&ctx.notes(), redactor),
            ..Self::base(
                ctx.session(),
                ctx.tool(),
                ctx.call_id(),
                ctx.args(),
                redactor,
            )
        }
    }

    /// The record of a call whose tool failed (returned an error or panicked).
    pub fn failed(ctx: &PostToolUseFailure, redactor: &Redactor) -> Self {
        AuditRecord {
            error: Some(redactor.redacted(ctx.error().message())),
            ..Self::after(ctx, ctx.rewrites(), &ctx.notes(), redactor)
        }
    }

    /// The record of a call that ran.
    pub fn completed(ctx: &PostToolUse, redactor: &Redactor) -> Self {
        let (result_bytes, error) = match ctx.result() {
            Ok(value) => (Some(json_bytes(value)), None),
            Err(message) => (
                None,
                Some(
                    redactor
                        .redact_text(message)
                        .unwrap_or_else(|| message.to_owned()),
                ),
            ),
        };
        AuditRecord {
            result_bytes,
            error,
            ..Self::after(ctx, ctx.rewrites(), &ctx.notes(), redactor)
        }
    }

    /// What both kinds of record after a call hold: the call, what the pre-
    /// and post-hooks did to it, and how long it ran.
    fn after<C: AfterToolUse>(
        ctx: &C,
        rewrites: &[Rewrite],
        notes: &Notes,
        redactor: &Redactor,
    ) -> Self {
        let mut all = ctx.pre_rewrites().to_vec();
        all.extend_from_slice(rewrites);
        AuditRecord {
            decision: Decision::Allowed,
            rewrites: all,
            approvals: redacted_approvals(ctx.pre_approvals(), redactor),
            duration_ms: ctx
                .duration()
                .map(|duration| u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)),
            notes: redacted_notes(&merged(ctx.pre_notes(), notes), redactor),
            ..Self::base(
                ctx.session(),
                ctx.tool(),
                AfterToolUse::call_id(ctx),
                AfterToolUse::args(ctx),
                redactor,
            )
        }
    }

    fn base(
        session: &Session,
        tool: &str,
        call_id: Option<&str>,
        args: &Value,
        redactor: &Redactor,
    ) -> Self {
        AuditRecord {
            ts: humantime::format_rfc3339_millis(SystemTime::now()).to_string(),
            session: session.id().to_owned(),
            agent: session.agent_id().to_owned(),
            parent_agent: session.parent_agent_id().map(ToOwned::to_owned),
            user: session.user_id().map(ToOwned::to_owned),
            metadata: (!session.metadata().is_empty())
                .then(|| redactor.redact(&Value::Object(session.metadata().clone()))),
            tool: tool.to_owned(),
            call_id: call_id.map(ToOwned::to_owned),
            args: redactor.redact(args),
            decision: Decision::Allowed,
            decided_by: None,
            reason: None,
            cause: None,
            rewrites: Vec::new(),
            approvals: Vec::new(),
            duration_ms: None,
            result_bytes: None,
            error: None,
            notes: None,
        }
    }
}

impl AuditRecord {
    /// The record redacted once more, by a second redactor (the
    /// dispatcher's, which may know secrets by value): every field a hook,
    /// the model or the tool wrote.
    pub(crate) fn redacted_again(self, redactor: &Redactor) -> Self {
        let text = |text: Option<String>| text.map(|text| redactor.redacted(&text));
        let json = |value: Option<Value>| value.map(|value| redactor.redact(&value));
        AuditRecord {
            metadata: json(self.metadata),
            args: redactor.redact(&self.args),
            reason: text(self.reason),
            cause: json(self.cause),
            approvals: redacted_approvals(&self.approvals, redactor),
            error: text(self.error),
            notes: json(self.notes),
            ..self
        }
    }
}

/// The notes of the whole call: what pre-tool-use hooks noted, then post.
fn merged(pre: &Notes, post: &Notes) -> Notes {
    let mut notes = pre.clone();
    notes.messages.extend_from_slice(&post.messages);
    notes.warnings.extend_from_slice(&post.warnings);
    notes.shadowed.extend_from_slice(&post.shadowed);
    notes
}

/// Notes as JSON, redacted (a warning or a shadow reason may quote the
/// arguments); `None` when there are none.
fn redacted_notes(notes: &Notes, redactor: &Redactor) -> Option<Value> {
    (!notes.is_empty()).then(|| redacted_json(notes, redactor))
}

/// Any serializable value as JSON, every string in it redacted.
fn redacted_json<T: Serialize + ?Sized>(value: &T, redactor: &Redactor) -> Value {
    redactor.redact(&serde_json::to_value(value).unwrap_or(Value::Null))
}

/// Approvals as recorded, their prompts and answers' reasons redacted: a
/// prompt may quote the call's arguments.
fn redacted_approvals(approvals: &[ApprovalRecord], redactor: &Redactor) -> Vec<ApprovalRecord> {
    approvals
        .iter()
        .map(|record| ApprovalRecord {
            prompt: redactor.redacted(&record.prompt),
            outcome: match &record.outcome {
                ApprovalOutcome::Answered(answer) => ApprovalOutcome::Answered(
                    answer
                        .clone()
                        .map_reason(|reason| redactor.redacted(reason)),
                ),
                ApprovalOutcome::Failed { message } => ApprovalOutcome::Failed {
                    message: redactor.redacted(message),
                },
                other => other.clone(),
            },
            hook: record.hook.clone(),
            // Arguments are audited once, redacted, in `args`.
            bound_args: None,
        })
        .collect()
}

fn json_bytes(value: &Value) -> u64 {
    struct Counter(u64);
    impl io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0 += bytes.len() as u64;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).expect("writing to a counter cannot fail");
    counter.0
}
