use std::borrow::Cow;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::{Rewrite, Trail};
use crate::ApprovalRecord;
use crate::Session;

/// The context of `#[pre_tool_use]` hooks: a tool is about to run.
///
/// Hooks may deny the call, ask a person, rewrite the arguments, or inject context.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "pre_tool_use")]
pub struct PreToolUse {
    session: Session,
    tool: Cow<'static, str>,
    args: Value,
    #[serde(skip)]
    trail: Trail,
}

impl PreToolUse {
    /// The context for a call of `tool` with `args`.
    pub fn new(session: &Session, tool: impl Into<Cow<'static, str>>, args: Value) -> Self {
        PreToolUse {
            session: session.clone(),
            tool: tool.into(),
            args,
            trail: Trail::default(),
        }
    }

    /// The tool about to run.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The arguments, as rewritten by earlier hooks.
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// The arguments, to rewrite; the rewrite is recorded under this hook's name.
    pub fn args_mut(&mut self) -> &mut Value {
        self.trail.record_rewrite("args");
        &mut self.args
    }

    /// The call's subject: its `command`, `file_path`, `path` or `url` argument.
    pub fn subject(&self) -> Option<&str> {
        ToolCall::new(&self.tool, &self.args).subject()
    }

    /// The final arguments, for running the tool.
    pub fn into_args(self) -> Value {
        self.args
    }
}

super::context!(
    PreToolUse,
    PreToolUse,
    __HOOKS_CORE_V1_PRE_TOOL_USE,
    pre_tool_use,
    tool_call
);
super::injectable!(PreToolUse);

impl crate::ToolEvent for PreToolUse {
    fn tool(&self) -> &str {
        &self.tool
    }
}

/// The context of `#[post_tool_use]` hooks: a tool has run.
///
/// Hooks cannot block (the tool already ran) but may rewrite the result or
/// the error, and inject context.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "post_tool_use")]
pub struct PostToolUse {
    session: Session,
    tool: Cow<'static, str>,
    args: Value,
    result: Result<Value, String>,
    #[serde(
        rename = "duration_ms",
        serialize_with = "as_millis",
        skip_serializing_if = "Option::is_none"
    )]
    duration: Option<Duration>,
    /// What the pre-tool-use hooks did to this call, for audit.
    #[serde(skip)]
    before: Before,
    #[serde(skip)]
    trail: Trail,
}

/// What pre-tool-use hooks did to a call, carried into its `PostToolUse`.
#[derive(Debug, Default)]
struct Before {
    rewrites: Vec<Rewrite>,
    approvals: Vec<ApprovalRecord>,
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

impl PostToolUse {
    /// The context for a call of `tool` with `args` that returned `result`
    /// (`Err` holds the tool's error message).
    pub fn new(
        session: &Session,
        tool: impl Into<Cow<'static, str>>,
        args: Value,
        result: Result<Value, String>,
    ) -> Self {
        PostToolUse {
            session: session.clone(),
            tool: tool.into(),
            args,
            result,
            duration: None,
            before: Before::default(),
            trail: Trail::default(),
        }
    }

    /// The context for the call `pre` allowed, which returned `result`: same
    /// session, tool and (final) arguments, and the record of what the
    /// pre-tool-use hooks did ([`pre_rewrites`](Self::pre_rewrites),
    /// [`pre_approvals`](Self::pre_approvals)), so one observer can audit the whole call.
    pub fn after(pre: &PreToolUse, result: Result<Value, String>) -> Self {
        PostToolUse {
            before: Before {
                rewrites: pre.rewrites().to_vec(),
                approvals: pre.approvals().to_vec(),
            },
            ..PostToolUse::new(pre.session(), pre.tool.clone(), pre.args.clone(), result)
        }
    }

    /// The rewrites pre-tool-use hooks made, when built with [`after`](Self::after).
    pub fn pre_rewrites(&self) -> &[Rewrite] {
        &self.before.rewrites
    }

    /// The approvals pre-tool-use hooks asked for, when built with [`after`](Self::after).
    pub fn pre_approvals(&self) -> &[ApprovalRecord] {
        &self.before.approvals
    }

    /// Records how long the tool ran.
    #[must_use]
    pub fn with_duration(mut self, duration: Duration) -> Self {
        self.duration = Some(duration);
        self
    }

    /// How long the tool ran, if the agent loop measured it.
    pub fn duration(&self) -> Option<Duration> {
        self.duration
    }

    /// The tool that ran.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The arguments it ran with.
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// The call's subject: its `command`, `file_path`, `path` or `url` argument.
    pub fn subject(&self) -> Option<&str> {
        ToolCall::new(&self.tool, &self.args).subject()
    }

    /// The result (or the tool's error), as rewritten by earlier hooks.
    pub fn result(&self) -> Result<&Value, &str> {
        self.result.as_ref().map_err(String::as_str)
    }

    /// The result, to rewrite; the rewrite is recorded under this hook's name.
    pub fn result_mut(&mut self) -> &mut Result<Value, String> {
        self.trail.record_rewrite("result");
        &mut self.result
    }

    /// The final result, for the model.
    pub fn into_result(self) -> Result<Value, String> {
        self.result
    }
}

super::context!(
    PostToolUse,
    PostToolUse,
    __HOOKS_CORE_V1_POST_TOOL_USE,
    post_tool_use,
    tool_call
);
super::injectable!(PostToolUse);

impl crate::ToolEvent for PostToolUse {
    fn tool(&self) -> &str {
        &self.tool
    }
}

/// A tool call as matchers see it.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    tool: &'a str,
    args: &'a Value,
}

impl<'a> ToolCall<'a> {
    /// The arguments that may be a call's subject, in the order they are looked for.
    pub const SUBJECT_KEYS: [&'static str; 4] = ["command", "file_path", "path", "url"];

    /// A view of a call.
    pub fn new(tool: &'a str, args: &'a Value) -> Self {
        ToolCall { tool, args }
    }

    /// The tool's name.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// The arguments.
    pub fn args(&self) -> &'a Value {
        self.args
    }

    /// The first of the [`SUBJECT_KEYS`](Self::SUBJECT_KEYS) arguments that is a string.
    pub fn subject(&self) -> Option<&'a str> {
        Self::SUBJECT_KEYS
            .iter()
            .find_map(|key| self.args.get(key).and_then(Value::as_str))
    }
}
