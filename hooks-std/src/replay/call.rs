//! One recorded tool call: who made it, what it was, and what happened to it.

use std::fmt;

use hooks_core::{PreToolUse, Session, Value, printable};
use serde::Serialize;
use serde_json::Map;

/// The session a line names when it names none.
const DEFAULT_SESSION: &str = "replay";

/// A tool call read from a log or a transcript, ready to replay.
///
/// Built by [`parse`](super::parse) and [`read`](super::read), or by hand
/// for calls recorded some other way.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedCall {
    /// The line of the file it was read from (1-based).
    pub line: usize,
    /// The session id.
    pub session: String,
    /// The agent id ([`Session::MAIN_AGENT`] unless the line says).
    pub agent: String,
    /// The parent agent, for sub-agents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_agent: Option<String>,
    /// The user, if known.
    pub user: Option<String>,
    /// The session's metadata, as recorded (an audit log's is redacted).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// The tool.
    pub tool: String,
    /// The provider's id for the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The arguments as recorded (an audit log's are redacted, and final:
    /// after the hooks' rewrites).
    pub args: Value,
    /// What happened to the call.
    pub recorded: Recorded,
}

/// What happened to a recorded call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Recorded {
    /// The tool ran.
    Allowed {
        /// A person was asked first, and said yes.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        asked: bool,
    },
    /// A hook refused the call.
    Denied {
        /// The hook that denied, if recorded.
        by: Option<String>,
        /// Its reason, if recorded.
        reason: Option<String>,
        /// The denial's kind (`denied`, `rate_limited`, `not_approved`, ...), if recorded.
        kind: Option<String>,
    },
}

impl Recorded {
    /// Whether a person was asked about the call (whatever they answered).
    pub fn asked(&self) -> bool {
        match self {
            Recorded::Allowed { asked } => *asked,
            Recorded::Denied { kind, .. } => kind.as_deref() == Some("not_approved"),
        }
    }
}

impl fmt::Display for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Recorded::Allowed { asked: false } => f.write_str("allowed"),
            Recorded::Allowed { asked: true } => f.write_str("allowed, after a person's yes"),
            Recorded::Denied { by, reason, .. } => {
                f.write_str("denied")?;
                if let Some(by) = by {
                    write!(f, " by `{}`", printable(by, false))?;
                }
                if let Some(reason) = reason {
                    write!(f, ": {}", printable(reason, false))?;
                }
                Ok(())
            }
        }
    }
}

impl RecordedCall {
    /// The session the call ran in, as the hooks see it: ids, user and
    /// metadata as recorded.
    pub fn session(&self) -> Session {
        let mut session = match &self.parent_agent {
            Some(parent) => Session::new(&self.session)
                .with_agent(parent)
                .sub_agent(&self.agent),
            None => Session::new(&self.session).with_agent(&self.agent),
        };
        if let Some(user) = &self.user {
            session = session.with_user(user);
        }
        for (key, value) in &self.metadata {
            session = session.with_metadata(key.clone(), value.clone());
        }
        session
    }

    /// The context to dispatch: the call as it was about to run.
    pub fn context(&self) -> PreToolUse {
        let ctx = PreToolUse::new(&self.session(), self.tool.clone(), self.args.clone());
        match &self.call_id {
            Some(id) => ctx.with_call_id(id.as_str()),
            None => ctx,
        }
    }

    /// A call from an audit record or a simple JSON line (`tool` or
    /// `tool_name`, `args` or `tool_input`, ...); the message says what is wrong.
    pub(super) fn from_line(line: usize, fields: &Map<String, Value>) -> Result<Self, String> {
        let tool = text(fields, &["tool", "tool_name"])?.ok_or(
            "it looks like a tool call (it has call fields) but names no tool: \
             expected `tool` or `tool_name`",
        )?;
        if tool.is_empty() {
            return Err("its tool name is empty".to_owned());
        }
        Ok(RecordedCall {
            line,
            session: text(fields, &["session", "session_id"])?
                .unwrap_or_else(|| DEFAULT_SESSION.to_owned()),
            agent: text(fields, &["agent"])?.unwrap_or_else(|| Session::MAIN_AGENT.to_owned()),
            parent_agent: text(fields, &["parent_agent"])?,
            user: text(fields, &["user", "user_id"])?,
            metadata: match fields.get("metadata") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(metadata)) => metadata.clone(),
                Some(other) => {
                    return Err(format!(
                        "`metadata` must be an object, not {}",
                        kind_of(other)
                    ));
                }
            },
            tool,
            call_id: text(fields, &["call_id", "tool_use_id"])?,
            args: first(fields, &["args", "tool_input"])
                .map_or_else(|| Value::Object(Map::new()), |(_, args)| args.clone()),
            recorded: recorded(fields)?,
        })
    }

    /// A call from a Claude Code transcript: it ran, nobody recorded more.
    pub(super) fn ran(
        line: usize,
        session: Option<String>,
        tool: String,
        call_id: Option<String>,
        args: Value,
    ) -> Self {
        RecordedCall {
            line,
            session: session.unwrap_or_else(|| DEFAULT_SESSION.to_owned()),
            agent: Session::MAIN_AGENT.to_owned(),
            parent_agent: None,
            user: None,
            metadata: Map::new(),
            tool,
            call_id,
            args,
            recorded: Recorded::Allowed { asked: false },
        }
    }
}

/// The line's `decision`, `decided_by`, `reason`, `cause` and `approvals`;
/// no decision means the call ran.
fn recorded(fields: &Map<String, Value>) -> Result<Recorded, String> {
    match text(fields, &["decision"])?.as_deref() {
        None | Some("allowed") => Ok(Recorded::Allowed {
            asked: fields
                .get("approvals")
                .and_then(Value::as_array)
                .is_some_and(|approvals| !approvals.is_empty()),
        }),
        Some("denied") => Ok(Recorded::Denied {
            by: text(fields, &["decided_by"])?,
            reason: text(fields, &["reason"])?,
            kind: match fields.get("cause") {
                Some(Value::Object(cause)) => text(cause, &["kind"])?,
                None | Some(Value::Null) => None,
                Some(other) => {
                    return Err(format!(
                        "`cause` must be an object with a `kind`, not {}",
                        kind_of(other)
                    ));
                }
            },
        }),
        Some(other) => Err(format!(
            "`decision` is `{}`: expected `allowed` or `denied`",
            printable(other, false)
        )),
    }
}

/// The first of `keys` present and not null, with its value.
pub(super) fn first<'v>(
    fields: &'v Map<String, Value>,
    keys: &[&'static str],
) -> Option<(&'static str, &'v Value)> {
    keys.iter().find_map(|&key| {
        fields
            .get(key)
            .filter(|value| !value.is_null())
            .map(|value| (key, value))
    })
}

/// The first of `keys` present and not null, which must be a string.
pub(super) fn text(
    fields: &Map<String, Value>,
    keys: &[&'static str],
) -> Result<Option<String>, String> {
    match first(fields, keys) {
        None => Ok(None),
        Some((_, Value::String(text))) => Ok(Some(text.clone())),
        Some((key, other)) => Err(format!("`{key}` must be a string, not {}", kind_of(other))),
    }
}

/// What kind of JSON value this is, for messages.
pub(super) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
