//! The event on stdin, as Claude Code and Codex write it, made into the
//! context our hooks take: the reverse of `hooks_config::protocol`.
//!
//! Every field either tool sends that the context has no place for
//! (`transcript_path`, `permission_mode`, `model`, `cwd`, Codex's `turn_id`,
//! ...) goes into the session's metadata under its own name, so a hook can
//! read it and a config hook sees it again at the top level of its input.
//! One is moved: inside a sub-agent, when the host names the sub-agent's own
//! transcript (`agent_transcript_path`), that is the session's
//! `transcript_path`, and the main session's is `parent_transcript_path`.
//!
//! The event is read strictly: a key named twice in one object, at any
//! depth (`"tool_name": "Bash", …, "tool_name": "Read"`), is refused, naming
//! the key and where it is. Which of the two a guard would see and which the
//! host would run is anyone's guess; one reader taking the first and another
//! the last is how a check is walked around.

use std::fmt;

use hooks_core::{
    Notification, PermissionRequest, PostToolUse, PostToolUseFailure, PreCompact, PreToolUse,
    Session, SessionEnd, SessionStart, Stop, SubagentStart, SubagentStop, ToolError,
    UserPromptSubmit, Value,
};
use serde_json::Map;

/// The most input read from stdin: a tool call's arguments or result can be
/// large, but not without bound.
pub const MAX_INPUT: usize = 32 * 1024 * 1024;

/// An event read from stdin, as a context ready to dispatch.
#[derive(Debug)]
pub(crate) enum Incoming {
    PreToolUse(PreToolUse),
    PermissionRequest(PermissionRequest),
    PostToolUse(PostToolUse),
    Notification(Notification),
    PostToolUseFailure(PostToolUseFailure),
    UserPromptSubmit(UserPromptSubmit),
    SessionStart(SessionStart),
    SessionEnd(SessionEnd),
    Stop(Stop),
    SubagentStart(SubagentStart),
    SubagentStop(SubagentStop),
    PreCompact(PreCompact),
    /// An event the host documents that has no counterpart here
    /// (`WorktreeCreate`, `Setup`, ...): nothing to run.
    Unmapped(String),
}

/// Why the input could not be read: the binary refuses (exit 2), since it
/// cannot tell what it would be letting through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub(crate) String);

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read the hook event on stdin: {}", self.0)
    }
}

impl std::error::Error for InputError {}

/// Fields every event may carry that are about the session, not the event.
const SESSION_FIELDS: &[&str] = &["session_id", "hook_event_name", "agent_id"];

/// Parses the event; `user` is who runs the tool (the OS user, for the
/// audit log and per-user limits).
pub(crate) fn parse(input: &[u8], user: Option<&str>) -> Result<Incoming, InputError> {
    let value = hooks_config::strict_json::parse_slice(input).map_err(|error| {
        if error.is_data() {
            // Well-formed JSON that means two things: a key named twice.
            InputError(error.to_string())
        } else {
            InputError(format!("not JSON ({error})"))
        }
    })?;
    let Value::Object(mut fields) = value else {
        return Err(InputError("expected a JSON object".into()));
    };
    let event = take_string(&mut fields, "hook_event_name")?;
    let session_id = take_string(&mut fields, "session_id")?;
    let mut session = Session::new(session_id);
    if let Some(user) = user {
        session = session.with_user(user);
    }
    let agent = optional_string(&mut fields, "agent_id")?;
    context(event, session, agent, &mut fields)
}

/// The context of `event`, from its fields.
fn context(
    event: String,
    session: Session,
    agent: Option<String>,
    fields: &mut Map<String, Value>,
) -> Result<Incoming, InputError> {
    let incoming = match event.as_str() {
        "PreToolUse" => {
            let (tool, args, id) = tool_call(fields)?;
            let session = in_agent(session, agent, fields);
            let mut ctx = PreToolUse::new(&session, tool, args);
            if let Some(id) = id {
                ctx = ctx.with_call_id(id);
            }
            Incoming::PreToolUse(ctx)
        }
        "PermissionRequest" => Incoming::PermissionRequest(permission(session, agent, fields)?),
        "Notification" => Incoming::Notification(notification(session, agent, fields)?),
        "PostToolUse" => {
            let (tool, args, id) = tool_call(fields)?;
            let response = fields.remove("tool_response").unwrap_or(Value::Null);
            let session = in_agent(session, agent, fields);
            let mut ctx = PostToolUse::new(&session, tool, args, Ok(response));
            if let Some(id) = id {
                ctx = ctx.with_call_id(id);
            }
            Incoming::PostToolUse(ctx)
        }
        "PostToolUseFailure" => {
            let (tool, args, id) = tool_call(fields)?;
            let error = optional_string(fields, "error")?.unwrap_or_default();
            let session = in_agent(session, agent, fields);
            let mut ctx = PostToolUseFailure::new(&session, tool, args, ToolError::new(error));
            if let Some(id) = id {
                ctx = ctx.with_call_id(id);
            }
            Incoming::PostToolUseFailure(ctx)
        }
        "UserPromptSubmit" => {
            let prompt = take_string(fields, "prompt")?;
            let session = in_agent(session, agent, fields);
            Incoming::UserPromptSubmit(UserPromptSubmit::new(&session, prompt))
        }
        "SessionStart" => {
            let source = optional_string(fields, "source")?;
            let session = in_agent(session, agent, fields);
            let ctx = SessionStart::new(&session);
            Incoming::SessionStart(match source {
                Some(source) => ctx.with_source(source),
                None => ctx,
            })
        }
        "SessionEnd" => {
            let reason = optional_string(fields, "reason")?.unwrap_or_else(|| "other".into());
            let session = in_agent(session, agent, fields);
            Incoming::SessionEnd(SessionEnd::new(&session, reason))
        }
        "Stop" => {
            let (active, last) = stopping(fields)?;
            let session = in_agent(session, agent, fields);
            let mut ctx = Stop::new(&session).with_stop_hook_active(active);
            if let Some(last) = last {
                ctx = ctx.with_last_message(last);
            }
            Incoming::Stop(ctx)
        }
        "SubagentStop" => {
            let (active, last) = stopping(fields)?;
            // The sub-agent is the one stopping: its session is the context's.
            let session = in_agent(session, agent, fields);
            let mut ctx = SubagentStop::new(&session).with_stop_hook_active(active);
            if let Some(last) = last {
                ctx = ctx.with_last_message(last);
            }
            Incoming::SubagentStop(ctx)
        }
        "SubagentStart" => {
            // `agent_id` is the sub-agent being started, not the one asking.
            let subagent = agent.unwrap_or_default();
            let prompt = optional_string(fields, "prompt")?.unwrap_or_default();
            let agent_type = optional_string(fields, "agent_type")?;
            let session = with_metadata(session, fields);
            let mut ctx = SubagentStart::new(&session, subagent, prompt);
            if let Some(agent_type) = agent_type {
                ctx = ctx.with_agent_type(agent_type);
            }
            Incoming::SubagentStart(ctx)
        }
        "PreCompact" => {
            // A trigger this binary does not know (a newer host's) is kept
            // as named: exit 2 here would block the compaction.
            let trigger = optional_string(fields, "trigger")?.unwrap_or_else(|| "auto".into());
            let instructions = optional_string(fields, "custom_instructions")?;
            let session = in_agent(session, agent, fields);
            let mut ctx = PreCompact::named(&session, trigger);
            if let Some(instructions) = instructions.filter(|text| !text.is_empty()) {
                ctx = ctx.with_custom_instructions(instructions);
            }
            Incoming::PreCompact(ctx)
        }
        _ => Incoming::Unmapped(event),
    };
    Ok(incoming)
}

/// `PermissionRequest`: the call the host would ask about, and the rules
/// it offers the person to add.
fn permission(
    session: Session,
    agent: Option<String>,
    fields: &mut Map<String, Value>,
) -> Result<PermissionRequest, InputError> {
    let (tool, args, id) = tool_call(fields)?;
    let suggestions = fields
        .remove("permission_suggestions")
        .unwrap_or(Value::Null);
    let session = in_agent(session, agent, fields);
    let ctx = PermissionRequest::new(&session, tool, args).with_permission_suggestions(suggestions);
    Ok(match id {
        Some(id) => ctx.with_call_id(id),
        None => ctx,
    })
}

/// `Notification`: `message`, and `title` and `notification_type` if sent.
fn notification(
    session: Session,
    agent: Option<String>,
    fields: &mut Map<String, Value>,
) -> Result<Notification, InputError> {
    let message = take_string(fields, "message")?;
    let title = optional_string(fields, "title")?;
    let kind = optional_string(fields, "notification_type")?;
    let session = in_agent(session, agent, fields);
    let mut ctx = Notification::new(&session, message);
    if let Some(title) = title {
        ctx = ctx.with_title(title);
    }
    if let Some(kind) = kind {
        ctx = ctx.with_notification_type(kind);
    }
    Ok(ctx)
}

/// The session, inside the sub-agent `agent` if the event came from one
/// (Claude Code sends `agent_id` only there), with the rest as metadata.
///
/// A sub-agent's `transcript_path` is the main session's; its own is
/// `agent_transcript_path` (on `SubagentStop`). Where the host names it,
/// the sub-agent's own is its `transcript_path`, the main one is kept as
/// `parent_transcript_path`, and `agent_transcript_path` stays as sent.
fn in_agent(session: Session, agent: Option<String>, fields: &mut Map<String, Value>) -> Session {
    let session = match agent {
        Some(agent) => {
            if let Some(own @ Value::String(_)) = fields.get("agent_transcript_path").cloned()
                && let Some(parent) = fields.insert("transcript_path".into(), own)
            {
                fields.insert("parent_transcript_path".into(), parent);
            }
            session.sub_agent(agent)
        }
        None => session,
    };
    with_metadata(session, fields)
}

/// Every field not read into the context, as session metadata.
fn with_metadata(mut session: Session, fields: &mut Map<String, Value>) -> Session {
    for (key, value) in std::mem::take(fields) {
        if !SESSION_FIELDS.contains(&key.as_str()) {
            session = session.with_metadata(key, value);
        }
    }
    session
}

/// `tool_name`, `tool_input` (an object) and `tool_use_id`.
fn tool_call(
    fields: &mut Map<String, Value>,
) -> Result<(String, Value, Option<String>), InputError> {
    let tool = take_string(fields, "tool_name")?;
    let args = match fields.remove("tool_input") {
        Some(args @ Value::Object(_)) => args,
        // A tool without arguments: Codex sends none for some.
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(other) => {
            return Err(InputError(format!(
                "`tool_input` must be an object of arguments, not {}",
                kind(&other)
            )));
        }
    };
    let id = optional_string(fields, "tool_use_id")?;
    Ok((tool, args, id))
}

/// `stop_hook_active` and `last_assistant_message`.
fn stopping(fields: &mut Map<String, Value>) -> Result<(bool, Option<String>), InputError> {
    let active = match fields.remove("stop_hook_active") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(active)) => active,
        Some(other) => {
            return Err(InputError(format!(
                "`stop_hook_active` must be true or false, not {}",
                kind(&other)
            )));
        }
    };
    Ok((active, optional_string(fields, "last_assistant_message")?))
}

fn take_string(fields: &mut Map<String, Value>, key: &str) -> Result<String, InputError> {
    optional_string(fields, key)?.ok_or_else(|| InputError(format!("no `{key}`")))
}

fn optional_string(
    fields: &mut Map<String, Value>,
    key: &str,
) -> Result<Option<String>, InputError> {
    match fields.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(InputError(format!(
            "`{key}` must be a string, not {}",
            kind(&other)
        ))),
    }
}

/// A value's JSON kind, for messages and for comparing shapes.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pre_tool_use_keeps_every_field() {
        let input = br#"{"session_id": "s1", "hook_event_name": "PreToolUse",
            "transcript_path": "/tmp/t.jsonl", "cwd": "/work", "permission_mode": "default",
            "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}"#;
        let Incoming::PreToolUse(ctx) = parse(input, Some("ada")).unwrap() else {
            panic!("not a PreToolUse");
        };
        assert_eq!(ctx.tool(), "Bash");
        assert_eq!(ctx.args(), &serde_json::json!({"command": "ls"}));
        assert_eq!(ctx.call_id(), Some("toolu_1"));
        let session = ctx.session();
        assert_eq!((session.id(), session.user_id()), ("s1", Some("ada")));
        assert_eq!(session.agent_id(), Session::MAIN_AGENT);
        for (key, value) in [
            ("transcript_path", "/tmp/t.jsonl"),
            ("cwd", "/work"),
            ("permission_mode", "default"),
        ] {
            assert_eq!(session.metadata_value(key), Some(&Value::from(value)));
        }
        assert!(session.metadata_value("tool_name").is_none());
    }

    #[test]
    fn agent_id_puts_the_event_in_a_sub_agent() {
        let input = br#"{"session_id": "s", "hook_event_name": "PreToolUse", "agent_id": "a7",
            "tool_name": "Read", "tool_input": {}}"#;
        let Incoming::PreToolUse(ctx) = parse(input, None).unwrap() else {
            panic!("not a PreToolUse");
        };
        assert_eq!(ctx.session().agent_id(), "a7");
        assert_eq!(ctx.session().parent_agent_id(), Some(Session::MAIN_AGENT));
    }

    #[test]
    fn broken_input_is_an_error_saying_what_is_wrong() {
        for (input, says) in [
            (&b"not json"[..], "not JSON"),
            (
                br#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                    "tool_input": {"command": "ls", "command": "rm -rf /"}}"#,
                "duplicate key `command` at /tool_input/command",
            ),
            (b"[1]", "expected a JSON object"),
            (br#"{"session_id": "s"}"#, "no `hook_event_name`"),
            (
                br#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}"#,
                "`tool_input` must be an object",
            ),
            (
                br#"{"session_id": 7, "hook_event_name": "Stop"}"#,
                "`session_id` must be a string, not a number",
            ),
        ] {
            let error = parse(input, None).unwrap_err().to_string();
            assert!(error.contains(says), "{error}");
        }
    }

    #[test]
    fn events_without_a_counterpart_are_named() {
        let input = br#"{"session_id": "s", "hook_event_name": "WorktreeCreate", "name": "x"}"#;
        assert!(
            matches!(parse(input, None).unwrap(), Incoming::Unmapped(name) if name == "WorktreeCreate")
        );
    }
}
