//! What the contexts after a tool call share, succeeded or failed: the
//! call (tool, id, final arguments), how long it ran, and what the
//! pre-tool-use hooks did to it.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::{PreToolUse, Rewrite, ToolName};
use crate::catalog::ToolFacts;
use crate::verdict::{ApprovalRecord, Notes};

/// The call a tool ran for.
#[derive(Debug, Serialize)]
pub(crate) struct Ran {
    pub(crate) tool: ToolName,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) call_id: Option<Arc<str>>,
    pub(crate) args: Value,
    #[serde(
        rename = "duration_ms",
        serialize_with = "as_millis",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) duration: Option<Duration>,
    /// What the pre-tool-use hooks did to this call, for audit.
    #[serde(skip)]
    pub(crate) before: Before,
    /// What the dispatcher knows about the tool.
    #[serde(skip)]
    pub(crate) facts: Option<Arc<ToolFacts>>,
}

impl Ran {
    pub(crate) fn new(tool: ToolName, args: Value) -> Self {
        Ran {
            tool,
            call_id: None,
            args,
            duration: None,
            before: Before::default(),
            facts: None,
        }
    }

    /// The call `pre` allowed: its tool, id, final arguments and record.
    pub(crate) fn after(pre: &PreToolUse) -> Self {
        Ran {
            call_id: pre.call_id_arc(),
            before: pre.before(),
            facts: pre.facts_arc(),
            ..Ran::new(pre.tool_name(), pre.args().clone())
        }
    }

    /// The same, taking `pre` apart rather than copying its arguments.
    pub(crate) fn from(pre: PreToolUse) -> Self {
        let before = pre.before();
        let (tool, call_id, facts) = (pre.tool_name(), pre.call_id_arc(), pre.facts_arc());
        Ran {
            call_id,
            before,
            facts,
            ..Ran::new(tool, pre.into_args())
        }
    }
}

/// What pre-tool-use hooks did to a call, carried into the context after
/// it, so one observer can audit the whole call.
#[derive(Debug, Default)]
pub(crate) struct Before {
    pub(crate) rewrites: Vec<Rewrite>,
    pub(crate) approvals: Vec<ApprovalRecord>,
    pub(crate) notes: Notes,
}

#[allow(clippy::ref_option)] // the signature `serialize_with` calls
fn as_millis<S: serde::Serializer>(
    duration: &Option<Duration>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match duration {
        Some(duration) => serializer.serialize_u128(duration.as_millis()),
        None => serializer.serialize_none(),
    }
}

/// The accessors both after-call contexts have, over their `ran` field.
macro_rules! after_tool_use {
    ($kind:ident) => {
        impl $kind {
            /// Sets the provider's id for this tool call.
            #[must_use]
            pub fn with_call_id(mut self, id: impl Into<std::sync::Arc<str>>) -> Self {
                self.ran.call_id = Some(id.into());
                self
            }

            /// Records how long the tool ran.
            #[must_use]
            pub fn with_duration(mut self, duration: std::time::Duration) -> Self {
                self.ran.duration = Some(duration);
                self
            }

            /// Sets what is known about the tool (see [`PreToolUse::with_facts`](crate::PreToolUse::with_facts)).
            #[must_use]
            pub fn with_facts(mut self, facts: std::sync::Arc<crate::catalog::ToolFacts>) -> Self {
                self.ran.facts = Some(facts);
                self
            }

            /// What the dispatcher's catalog knows about the tool, if anything.
            #[inline]
            pub fn facts(&self) -> Option<&crate::catalog::ToolFacts> {
                self.ran.facts.as_deref()
            }

            #[inline]
            pub(crate) fn facts_slot(
                &mut self,
            ) -> &mut Option<std::sync::Arc<crate::catalog::ToolFacts>> {
                &mut self.ran.facts
            }

            /// The provider's id for this tool call, if the agent loop gave it.
            #[inline]
            pub fn call_id(&self) -> Option<&str> {
                self.ran.call_id.as_deref()
            }

            pub(crate) fn call_id_arc(&self) -> Option<std::sync::Arc<str>> {
                self.ran.call_id.clone()
            }

            /// How long the tool ran, if the agent loop measured it.
            pub fn duration(&self) -> Option<std::time::Duration> {
                self.ran.duration
            }

            /// The tool that ran.
            #[inline]
            pub fn tool(&self) -> &str {
                &self.ran.tool
            }

            /// The arguments it ran with.
            #[inline]
            pub fn args(&self) -> &serde_json::Value {
                &self.ran.args
            }

            /// The call's subject: its `command`, `file_path`, `path` or `url` argument.
            pub fn subject(&self) -> Option<&str> {
                crate::matcher::ToolCall::new(&self.ran.tool, &self.ran.args).subject()
            }

            /// The rewrites pre-tool-use hooks made, when built with `after`.
            pub fn pre_rewrites(&self) -> &[super::Rewrite] {
                &self.ran.before.rewrites
            }

            /// The approvals pre-tool-use hooks asked for, when built with `after`.
            pub fn pre_approvals(&self) -> &[crate::verdict::ApprovalRecord] {
                &self.ran.before.approvals
            }

            /// What pre-tool-use hooks noted on the call (warnings, messages,
            /// shadow decisions), when built with `after`.
            pub fn pre_notes(&self) -> &crate::verdict::Notes {
                &self.ran.before.notes
            }
        }
    };
}
pub(crate) use after_tool_use;
