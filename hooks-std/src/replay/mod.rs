//! **replay**: runs recorded tool calls through a dispatcher and reports,
//! call by call, where its decisions differ from what happened — before a
//! new policy goes live, or after an incident. Replay never runs a tool:
//! only `pre_tool_use` hooks are dispatched (no tool runs, so no post hooks).
//!
//! It reads, one JSON object a line ([`parse`], [`read`]):
//!
//! - the audit log (`audit-log` feature): allowed and denied calls, with who denied them;
//! - simple lines: `{"tool" | "tool_name": .., "args" | "tool_input": ..}`, with
//!   optional `session` | `session_id`, `agent`, `user`, `metadata`, `call_id` |
//!   `tool_use_id` and `decision` (`"allowed"` or `"denied"`; none means it
//!   ran; `"started"`, a record written before the call ran, is passed over);
//! - Claude Code transcripts: every `tool_use` block of an `assistant` line
//!   is a call that ran; user messages, tool results and summaries hold no
//!   call and are passed over.
//!
//! A line that is not JSON, or looks like a call but names no tool, is
//! reported with its line number in the [`Report`]; the other lines are
//! still replayed.
//!
//! ```
//! use hooks_core::prelude::*;
//! use hooks_std::replay;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let log = concat!(
//!     r#"{"session": "s1", "user": "dana", "tool": "delete_file", "args": {"path": "a.txt"}, "decision": "allowed"}"#, "\n",
//!     r#"{"session": "s1", "user": "dana", "tool": "read_file", "args": {"path": "b.txt"}, "decision": "allowed"}"#, "\n",
//! );
//! let stricter = replay::prepare(Hooks::builder().hook(
//!     Hook::new("no_deletes", |_: &mut PreToolUse| Decision::deny("deleting is off"))
//!         .matches("delete_*"),
//! ))
//! .build()?;
//!
//! let report = replay::replay(&stricter, &replay::parse(log)).await?;
//! assert_eq!(report.summary().newly_denied, 1);
//! assert_eq!(report.changes().next().unwrap().call.line, 1);
//! println!("{report}"); // ... would newly deny 1, would newly allow 0, ...
//! # Ok(())
//! # }
//! ```
//!
//! # What a replay cannot see
//!
//! - **Redacted arguments.** An audit log's arguments are redacted: a guard
//!   keyed on a secret's value sees `[redacted]` and may decide otherwise.
//! - **Final arguments.** An audit log records the arguments after the
//!   hooks' rewrites, so a rewriting hook sees its own output.
//! - **Redacted metadata.** The audit log records the session's metadata,
//!   redacted like the arguments; a transcript records none, so a policy
//!   that reads it (read-only mode, approvals switched on per session) sees
//!   none there.
//! - **Time.** Stateful guards see replay time, not the recorded times: the
//!   calls come back to back, so a rate limit counts them faster than they
//!   came, and a fresh dispatcher's limiter starts empty. Denials by a rate
//!   limit are counted apart ([`Summary::newly_rate_limited`]); leave the
//!   limit out to compare the rest.
//! - **People.** Nobody is asked: a call a hook wants approved is reported
//!   as *would ask*, not as allowed or denied.
//!
//! # Replaying must not write
//!
//! A dispatcher running the audit hooks would append records of calls that
//! never ran — to the very log being replayed, if its `[audit_log]` names
//! it — and one with an approver would ask a person. [`prepare`] leaves out
//! the one and replaces the other; [`replay`] refuses a dispatcher that runs
//! any audit hook.

mod call;
mod report;
mod ruling;
mod source;
mod transcript;

use std::fmt;

use hooks_core::{ApprovalAnswer, ApprovalRequest, Hooks, HooksBuilder};

pub use call::{Recorded, RecordedCall};
pub use report::{CallReport, Report, ShadowDenial, Summary};
pub use ruling::{Change, Ruling};
pub use source::{LineError, Recording, parse, read};

/// The audit hooks, by name; all but `gate` write records, and `gate`
/// denies while the log cannot be written, which says nothing about a policy.
#[cfg(feature = "audit-log")]
const AUDIT_HOOKS: [&str; 4] = [
    "hooks_std::audit::gate",
    "hooks_std::audit::denied",
    "hooks_std::audit::completed",
    "hooks_std::audit::failed",
];

/// Makes `builder` safe to replay with: leaves out the audit hooks, and
/// answers every approval "no" at once without asking anyone (a call a hook
/// wants approved is then reported as *would ask*). Call it last, after
/// anything that sets an approver (a config file's `[approval]` table).
///
/// The builder must keep the linked hooks (not
/// [`without_linked`](HooksBuilder::without_linked)): leaving out a hook the
/// builder does not know fails its build.
pub fn prepare(builder: HooksBuilder) -> HooksBuilder {
    #[cfg(feature = "audit-log")]
    let builder = builder.without(AUDIT_HOOKS);
    builder.approver(|_: &ApprovalRequest| ApprovalAnswer::deny("a replay asks nobody"))
}

/// Replays every call of `recording` through `hooks`, in order, and
/// compares each decision with the recorded one. No tool runs; the
/// recording's unreadable lines are carried into the report.
///
/// Refused if `hooks` runs an audit hook (see [`prepare`]).
pub async fn replay(hooks: &Hooks, recording: &Recording) -> Result<Report, ReplayError> {
    let audit: Vec<String> = hooks
        .describe()
        .hooks()
        .iter()
        .filter(|hook| hook.name.starts_with("hooks_std::audit::"))
        .map(|hook| hook.name.clone())
        .collect();
    if !audit.is_empty() {
        return Err(ReplayError::AuditHooks { hooks: audit });
    }
    let mut calls = Vec::with_capacity(recording.calls.len());
    for call in &recording.calls {
        let mut ctx = call.context();
        let outcome = hooks.dispatch(&mut ctx).await;
        calls.push(CallReport::new(call.clone(), &outcome, &ctx));
    }
    Ok(Report::new(calls, recording.errors.clone()))
}

/// Why a replay was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayError {
    /// The dispatcher runs audit hooks: replaying would record calls that never ran.
    AuditHooks {
        /// The audit hooks it runs.
        hooks: Vec<String>,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::AuditHooks { hooks } => write!(
                f,
                "the dispatcher runs the audit hooks ({}), which would record calls that never \
                 ran; build it with `hooks_std::replay::prepare`",
                hooks
                    .iter()
                    .map(|hook| format!("`{hook}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl std::error::Error for ReplayError {}
