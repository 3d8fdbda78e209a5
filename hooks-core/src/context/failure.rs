use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::fingerprint::{Fingerprint, Print};
use super::ran::Ran;
use super::{Rewritable, Saved, Trail, restored};
use crate::session::Session;

/// A tool's failure: it returned an error, or panicked. What the model is
/// told is [`message`](Self::message); `data` carries any structured
/// content the tool gave with it (an MCP result with `is_error`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolError {
    message: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    panicked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

impl ToolError {
    /// The tool returned an error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            panicked: false,
            data: None,
        }
    }

    /// The tool panicked with this message.
    pub fn panicked(message: impl Into<String>) -> Self {
        ToolError {
            panicked: true,
            ..ToolError::new(message)
        }
    }

    /// Adds the structured content the tool returned with its error.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The message, as the model will see it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The message, to rewrite.
    pub fn message_mut(&mut self) -> &mut String {
        &mut self.message
    }

    /// Whether the tool panicked (rather than returning an error).
    pub fn is_panic(&self) -> bool {
        self.panicked
    }

    /// The structured content the tool returned with its error, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// The structured content, to rewrite (or remove).
    pub fn data_mut(&mut self) -> &mut Option<Value> {
        &mut self.data
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

impl Fingerprint for ToolError {
    fn feed(&self, hasher: &mut impl std::hash::Hasher) {
        self.message.feed(hasher);
        hasher.write_u8(u8::from(self.panicked));
        self.data.feed(hasher);
    }
}

/// The context of `#[post_tool_use_failure]` hooks: a tool returned an
/// error or panicked.
///
/// Hooks cannot block (the tool already ran) but may rewrite the error the
/// model sees, and inject context (a hint on how to recover).
///
/// ```
/// use hooks_core::{PostToolUseFailure, Session, ToolError, json};
///
/// let ctx = PostToolUseFailure::new(
///     &Session::new("s"),
///     "sql_query",
///     json!({"sql": "SELECT 1"}),
///     ToolError::new("connection refused"),
/// );
/// assert_eq!(ctx.error().message(), "connection refused");
/// ```
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "post_tool_use_failure")]
pub struct PostToolUseFailure {
    pub(crate) session: Session,
    #[serde(flatten)]
    ran: Ran,
    error: ToolError,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

super::ran::after_tool_use!(PostToolUseFailure);

impl PostToolUseFailure {
    /// The context for a call of `tool` with `args` that failed with `error`.
    pub fn new(
        session: &Session,
        tool: impl Into<Cow<'static, str>>,
        args: Value,
        error: ToolError,
    ) -> Self {
        PostToolUseFailure {
            session: session.clone(),
            ran: Ran::new(super::ToolName::from(tool.into()), args),
            error,
            trail: Trail::default(),
        }
    }

    /// The context for the call `pre` allowed, which failed with `error`:
    /// same session, tool, call id and final arguments, and what the
    /// pre-tool-use hooks did.
    pub fn after(pre: &super::PreToolUse, error: ToolError) -> Self {
        PostToolUseFailure {
            session: pre.session().clone(),
            ran: Ran::after(pre),
            error,
            trail: Trail::default(),
        }
    }

    /// [`after`](Self::after), taking the pre-tool-use context apart
    /// instead of copying its arguments.
    pub fn from_pre(pre: super::PreToolUse, error: ToolError) -> Self {
        PostToolUseFailure {
            session: pre.session().clone(),
            ran: Ran::from(pre),
            error,
            trail: Trail::default(),
        }
    }

    /// The error, as rewritten by earlier hooks.
    pub fn error(&self) -> &ToolError {
        &self.error
    }

    /// The error, to rewrite. If the hook changes it, the rewrite is
    /// recorded under its name when it returns.
    pub fn error_mut(&mut self) -> &mut ToolError {
        super::touch(&mut self.trail, "error", &self.error);
        &mut self.error
    }

    /// Replaces the error with one saying it was withheld, and why: what a
    /// failing hook with `on_error = "deny"` does, so the model never sees
    /// an error message a scrubber could not finish with.
    pub(crate) fn withhold(&mut self, why: &str) {
        self.trail.record_rewrite("error");
        self.trail.forget_prints();
        self.error = ToolError::new(format!("the tool's error was withheld: {why}"));
    }

    /// The final error, for the model.
    pub fn into_error(self) -> ToolError {
        self.error
    }
}

impl Rewritable for PostToolUseFailure {
    fn print_of(&self, field: &'static str) -> Print {
        match field {
            "error" => self.error.print(),
            _ => Print::NONE,
        }
    }

    fn save(&self) -> Saved {
        Box::new(self.error.clone())
    }

    fn restore(&mut self, saved: Saved) {
        if let Some(error) = restored(saved) {
            self.error = error;
        }
    }
}
