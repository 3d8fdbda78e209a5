use serde::Serialize;
use serde_json::Value;

use super::fingerprint::{Fingerprint, Print};
use super::{Rewritable, Saved, Trail, restored};
use crate::session::Session;

/// The context of `#[post_model_response]` hooks: the model answered.
///
/// Hooks may rewrite the text and the tool calls the model asks for (to
/// redact, or to drop a call), inject context, or deny: the reply is
/// discarded, with a reason, and the agent loop decides whether to retry.
///
/// ```
/// use hooks_core::{PostModelResponse, RequestedCall, Session, json};
///
/// let ctx = PostModelResponse::new(&Session::new("s"), "Let me look.")
///     .with_tool_calls([RequestedCall::new("read_file", json!({"path": "a.rs"})).with_id("call_1")]);
/// assert_eq!(ctx.tool_calls()[0].name(), "read_file");
/// assert_eq!(ctx.tool_calls()[0].id(), Some("call_1"));
/// ```
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "post_model_response")]
pub struct PostModelResponse {
    pub(crate) session: Session,
    text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<RequestedCall>,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

/// A tool call the model asked for in its reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestedCall {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    name: String,
    args: Value,
}

impl RequestedCall {
    /// A call of `name` with `args`.
    pub fn new(name: impl Into<String>, args: Value) -> Self {
        RequestedCall {
            id: None,
            name: name.into(),
            args,
        }
    }

    /// Sets the provider's id for the call.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The provider's id for the call, if it has one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The tool asked for.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its arguments.
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// Its arguments, to rewrite.
    pub fn args_mut(&mut self) -> &mut Value {
        &mut self.args
    }
}

impl PostModelResponse {
    /// The context for a reply with this text and no tool calls.
    pub fn new(session: &Session, text: impl Into<String>) -> Self {
        PostModelResponse {
            session: session.clone(),
            text: text.into(),
            tool_calls: Vec::new(),
            trail: Trail::default(),
        }
    }

    /// Sets the tool calls the reply asks for.
    #[must_use]
    pub fn with_tool_calls(mut self, calls: impl IntoIterator<Item = RequestedCall>) -> Self {
        self.tool_calls = calls.into_iter().collect();
        self
    }

    /// The reply's text, as rewritten by earlier hooks.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, to rewrite. If the hook changes it, the rewrite is recorded
    /// under its name when it returns.
    pub fn text_mut(&mut self) -> &mut String {
        super::touch(&mut self.trail, "text", &self.text);
        &mut self.text
    }

    /// The tool calls the reply asks for, as rewritten by earlier hooks.
    pub fn tool_calls(&self) -> &[RequestedCall] {
        &self.tool_calls
    }

    /// The tool calls, to rewrite (drop one, change its arguments).
    pub fn tool_calls_mut(&mut self) -> &mut Vec<RequestedCall> {
        super::touch(&mut self.trail, "tool_calls", &self.tool_calls[..]);
        &mut self.tool_calls
    }

    /// The final text and tool calls, for the conversation.
    pub fn into_parts(self) -> (String, Vec<RequestedCall>) {
        (self.text, self.tool_calls)
    }
}

impl Fingerprint for RequestedCall {
    fn feed(&self, hasher: &mut impl std::hash::Hasher) {
        self.id.feed(hasher);
        self.name.feed(hasher);
        self.args.feed(hasher);
    }
}

impl Rewritable for PostModelResponse {
    fn print_of(&self, field: &'static str) -> Print {
        match field {
            "text" => self.text.print(),
            "tool_calls" => self.tool_calls[..].print(),
            _ => Print::NONE,
        }
    }

    fn save(&self) -> Saved {
        Box::new((self.text.clone(), self.tool_calls.clone()))
    }

    fn restore(&mut self, saved: Saved) {
        if let Some((text, tool_calls)) = restored(saved) {
            self.text = text;
            self.tool_calls = tool_calls;
        }
    }
}
