use std::fmt;

use serde::Serialize;

use crate::context::{ToolCall, Trail};
use crate::failure::OnError;
use crate::registry::LinkedHook;
use crate::session::Session;
use crate::table::{Table, Tables};

/// The seven points of an agent's lifecycle where hooks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A session begins (or resumes).
    SessionStart,
    /// The user submitted a prompt; hooks may block or rewrite it.
    UserPromptSubmit,
    /// A request to the model is about to be sent; hooks may filter tools and change parameters.
    PreModelRequest,
    /// A tool is about to run; hooks may deny, ask a person, or rewrite its arguments.
    PreToolUse,
    /// A tool has run; hooks may rewrite its result.
    PostToolUse,
    /// The agent wants to stop; hooks may keep it going.
    Stop,
    /// The session is over.
    SessionEnd,
}

impl EventKind {
    /// Every event, in lifecycle order.
    pub const ALL: [EventKind; 7] = [
        EventKind::SessionStart,
        EventKind::UserPromptSubmit,
        EventKind::PreModelRequest,
        EventKind::PreToolUse,
        EventKind::PostToolUse,
        EventKind::Stop,
        EventKind::SessionEnd,
    ];

    /// The snake-case name, as in the attribute (`pre_tool_use`).
    pub const fn as_str(self) -> &'static str {
        match self {
            EventKind::SessionStart => "session_start",
            EventKind::UserPromptSubmit => "user_prompt_submit",
            EventKind::PreModelRequest => "pre_model_request",
            EventKind::PreToolUse => "pre_tool_use",
            EventKind::PostToolUse => "post_tool_use",
            EventKind::Stop => "stop",
            EventKind::SessionEnd => "session_end",
        }
    }

    /// Whether hooks on this event may return [`Decision`](crate::Decision).
    pub const fn can_block(self) -> bool {
        matches!(
            self,
            EventKind::UserPromptSubmit | EventKind::PreToolUse | EventKind::Stop
        )
    }

    /// Whether this event is about one tool call (so hooks may take `matches`).
    pub const fn has_tool(self) -> bool {
        matches!(self, EventKind::PreToolUse | EventKind::PostToolUse)
    }

    /// Whether hooks on this event may add context for the model.
    pub const fn can_inject(self) -> bool {
        !matches!(self, EventKind::SessionEnd)
    }

    /// What happens when a hook on this event fails and says nothing else.
    ///
    /// Guards fail closed: a failing `UserPromptSubmit` or `PreToolUse` hook
    /// denies. `Stop` fails *open* (the agent stops): denying a stop keeps the
    /// agent running, and a hook that keeps failing would keep it running for
    /// ever. Hooks that cannot block fail open, with a warning.
    pub const fn default_on_error(self) -> OnError {
        match self {
            EventKind::UserPromptSubmit | EventKind::PreToolUse => OnError::Deny,
            _ => OnError::Continue,
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A hook context, which is also the type naming its event.
///
/// Implemented by the seven context types only.
pub trait Event: Serialize + Send + Sync + Sized + 'static + sealed::Sealed {
    /// Which event this is.
    const KIND: EventKind;

    /// The session the event belongs to.
    fn session(&self) -> &Session;

    /// The context as JSON: the session facts and the event's data, tagged
    /// with `"event": "pre_tool_use"` (and so on), for logs and your own
    /// transports. (Command and HTTP hooks declared with `hooks-config` get
    /// the Claude Code hook protocol's shape instead: `hooks_config::protocol`.)
    ///
    /// # Panics
    ///
    /// Never: contexts hold only JSON-representable data.
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("contexts serialize to JSON")
    }

    #[doc(hidden)]
    fn __linked() -> &'static [LinkedHook<Self>];
    #[doc(hidden)]
    fn __table(tables: &Tables) -> &Table<Self>;
    #[doc(hidden)]
    fn __table_mut(tables: &mut Tables) -> &mut Table<Self>;
    #[doc(hidden)]
    fn __trail(&mut self) -> &mut Trail;
    #[doc(hidden)]
    fn __tool_call(&self) -> Option<ToolCall<'_>> {
        None
    }
}

/// An event about one tool call: [`PreToolUse`](crate::PreToolUse) and
/// [`PostToolUse`](crate::PostToolUse). Only these take `matches`.
pub trait ToolEvent: Event {
    /// The tool's name.
    fn tool(&self) -> &str;
}

pub(crate) mod sealed {
    pub trait Sealed {}
}
