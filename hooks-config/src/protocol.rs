//! The Claude Code hook protocol: what a command, HTTP or prompt hook is
//! shown (the event as JSON) and what its answer means.
//!
//! Input: `session_id`, `cwd`, `hook_event_name`, and the event's fields
//! (`tool_name`, `tool_input`, `tool_use_id`, `tool_response`, `error`,
//! `prompt`, `stop_hook_active`, `source`, `reason`, `trigger`,
//! `permission_suggestions`, `message`, `title`, `notification_type`; on
//! `SubagentStart`, `agent_id` and `agent_type` of the agent being started),
//! plus ours (`user_id`, `metadata`; `agent_id` and `parent_agent_id` inside
//! a sub-agent only, as Claude Code sends `agent_id`); `transcript_path`,
//! `permission_mode` and `model` when the host puts them in the session's
//! metadata ([`HOST_FIELDS`]). When it gives no `transcript_path` and the
//! configuration keeps transcripts (`transcript_dir`,
//! [`Config::keep_transcript`](crate::Config::keep_transcript)), a declared
//! hook is shown the kept file's path instead.
//!
//! Output, as JSON: `continue: false` with `stopReason` (the session ends:
//! [`Outcome::end_session`](hooks_core::Outcome::end_session), and this event
//! is blocked, with the script's own `reason` or `permissionDecisionReason`
//! if it gave one; without `stopReason`, that reason is the session's too); `suppressOutput` (the hook's stdout is not logged); `decision: "block"`
//! with `reason`; `hookSpecificOutput.permissionDecision` (`allow`, `deny`,
//! `ask`) with `permissionDecisionReason`; `hookSpecificOutput.updatedInput`;
//! `hookSpecificOutput.additionalContext`; `hookSpecificOutput.decision`
//! (`PermissionRequest`: `behavior` `allow` grants the call, with
//! `updatedInput` first; `deny` denies with `message`, and `interrupt` ends
//! the session too); `hookSpecificOutput.updatedToolOutput`
//! (post-tool-use: replaces what the model reads; `updatedMCPToolOutput`, the
//! field Claude Code read for MCP tools before 2.1.121, too); `systemMessage`, shown to
//! the person (a warning in the outcome's messages), not the model. Plain
//! text on a prompt or session start is context for the model; elsewhere,
//! as in Claude Code, it is not.

use hooks_core::context::ToolCall;
use hooks_core::{
    Approval, Decision, Event, HookError, MessageLevel, Notification, PermissionRequest,
    PostModelResponse, PostToolUse, PostToolUseFailure, PreCompact, PreModelRequest, PreToolUse,
    SessionEnd, SessionStart, Stop, SubagentStart, SubagentStop, UserPromptSubmit, Value, Verdict,
    json,
};
use serde::Deserialize;
use serde_json::Map;

/// An event as the protocol shows it, and how an answer applies to it.
pub trait ProtocolEvent: Event {
    /// The protocol's name for the event (`PreToolUse`).
    const NAME: &'static str;

    /// The event's own fields.
    fn fields(&self) -> Map<String, Value>;

    /// Applies a hook's answer: rewrites and context, then the decision.
    fn apply(&mut self, reply: Reply) -> Verdict;

    /// The whole input a hook receives.
    fn input(&self) -> Value {
        let session = self.session();
        let mut input = Map::new();
        input.insert("session_id".into(), json!(session.id()));
        input.insert("hook_event_name".into(), json!(Self::NAME));
        input.insert(
            "cwd".into(),
            json!(
                std::env::current_dir()
                    .map(|dir| dir.display().to_string())
                    .unwrap_or_default()
            ),
        );
        // As Claude Code: `agent_id` only inside a sub-agent.
        if let Some(parent) = session.parent_agent_id() {
            input.insert("agent_id".into(), json!(session.agent_id()));
            input.insert("parent_agent_id".into(), json!(parent));
        }
        if let Some(user) = session.user_id() {
            input.insert("user_id".into(), json!(user));
        }
        if !session.metadata().is_empty() {
            input.insert("metadata".into(), Value::Object(session.metadata().clone()));
        }
        // What only the host knows, under Claude Code's names, when it says
        // so in the session's metadata: scripts read them at the top level.
        for key in HOST_FIELDS {
            if let Some(value) = session.metadata_value(key) {
                input.insert((*key).into(), value.clone());
            }
        }
        input.extend(self.fields());
        Value::Object(input)
    }
}

/// Claude Code's input fields only the host can know, passed on from the
/// session's metadata when the host sets them (`transcript_path` for a Stop
/// hook that reads the conversation, `permission_mode`, `model`; inside a
/// sub-agent, `agent_type` and its own transcript, `agent_transcript_path`).
pub const HOST_FIELDS: &[&str] = &[
    "transcript_path",
    "permission_mode",
    "model",
    "agent_type",
    "agent_transcript_path",
];

/// How many times its input a hook's answer may be, beyond its fixed cap: a
/// hook that answers with the call rewritten (`updatedInput`,
/// `updatedToolOutput`) prints about as much as it was given, and more once
/// escaped to ASCII (Python's `json.dumps` writes `é` as `\u00e9`, three
/// times its two bytes). So a 5 MB `Write` can be rewritten, while a hook
/// printing without end is still stopped at a bound the caller already
/// holds in memory (the input) times a constant.
pub(crate) const ANSWER_ROOM: usize = 3;

/// The most a hook given `input` bytes may answer: `cap`, plus
/// [`ANSWER_ROOM`] times its input.
pub(crate) fn answer_cap(cap: usize, input: usize) -> usize {
    cap.saturating_add(input.saturating_mul(ANSWER_ROOM))
}

/// Why an answer over [`answer_cap`] was refused.
pub(crate) fn over_cap(what: &str, cap: usize, input: usize) -> String {
    format!(
        "{what} more than {} bytes ({cap}, plus {ANSWER_ROOM} times its {input}-byte input)",
        answer_cap(cap, input)
    )
}

/// The line (from 1) where a JSON object starts after some text, if one does.
fn json_after_text(text: &str) -> Option<usize> {
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if index > 0 && line.trim_start().starts_with('{') {
            let rest = text[offset..].trim();
            if serde_json::from_str::<serde::de::IgnoredAny>(rest).is_ok() {
                return Some(index + 1);
            }
        }
        offset += line.len();
    }
    None
}

/// What a hook said, whatever mode it runs in.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Reply {
    /// Stop the call (or, on `Stop`, keep the agent going), with this reason.
    pub block: Option<String>,
    /// Ask a person first, with this prompt.
    pub ask: Option<String>,
    /// Replace the tool's arguments.
    pub updated_input: Option<Value>,
    /// Context for the model (`additionalContext`).
    pub context: Option<String>,
    /// Plain text the hook printed instead of JSON: context for the model on
    /// `UserPromptSubmit` and `SessionStart`, as Claude Code reads it, and
    /// ignored elsewhere (Claude Code shows it only in its transcript view).
    pub text: Option<String>,
    /// Replace the tool's output, on post-tool-use (`updatedToolOutput`, or
    /// `updatedMCPToolOutput` as scripts for Claude Code before 2.1.121 say it).
    pub updated_output: Option<Value>,
    /// A message for the person, not the model (`systemMessage`).
    pub message: Option<String>,
    /// End the whole session with this reason (`continue: false` and its
    /// `stopReason`); the current call is blocked too ([`block`](Self::block)).
    pub end_session: Option<String>,
    /// Keep the hook's stdout out of logs and transcripts (`suppressOutput`).
    pub suppress_output: bool,
    /// Tools to hide from the model, on `PreModelRequest` (`hiddenTools`).
    pub hidden_tools: Vec<String>,
    /// Prompts to hide, on hooks-mcp's `PreModelRequest` for prompts (`hiddenPrompts`).
    pub hidden_prompts: Vec<String>,
    /// Resource URIs (or URI templates) to hide, on hooks-mcp's
    /// `PreModelRequest` for resources (`hiddenResources`).
    pub hidden_resources: Vec<String>,
    /// Grant the call, on `PermissionRequest` (`decision.behavior: "allow"`,
    /// with `decision.updatedInput` as [`updated_input`](Self::updated_input)).
    pub grant: bool,
}

/// The JSON a hook may print (exit 0) or return (HTTP 2xx). Unknown fields are ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HookJson {
    #[serde(rename = "continue")]
    keep_going: Option<bool>,
    stop_reason: Option<String>,
    decision: Option<String>,
    reason: Option<String>,
    system_message: Option<String>,
    #[serde(default)]
    suppress_output: bool,
    hook_specific_output: Option<Specific>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Specific {
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Value>,
    updated_tool_output: Option<Value>,
    /// What Claude Code before 2.1.121 read instead, for MCP tools only.
    #[serde(rename = "updatedMCPToolOutput")]
    updated_mcp_tool_output: Option<Value>,
    additional_context: Option<String>,
    #[serde(default)]
    hidden_tools: Vec<String>,
    #[serde(default)]
    hidden_prompts: Vec<String>,
    #[serde(default)]
    hidden_resources: Vec<String>,
    /// `PermissionRequest`'s answer (an object, unlike the top-level `decision`).
    decision: Option<PermissionJson>,
}

/// `hookSpecificOutput.decision` on `PermissionRequest`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PermissionJson {
    behavior: String,
    message: Option<String>,
    updated_input: Option<Value>,
    #[serde(default)]
    interrupt: bool,
}

/// Reads a successful hook's output. Empty means "no objection"; text that
/// is not JSON is plain text (context on the events Claude Code reads it
/// on, see [`Reply::text`]); text that starts
/// like JSON but does not parse, repeats a key, or follows other text is a
/// broken hook. A leading byte-order mark is dropped.
pub(crate) fn parse_output(text: &str) -> Result<Reply, HookError> {
    let text = crate::strict_json::without_bom(text.trim_start()).trim();
    if text.is_empty() {
        return Ok(Reply::default());
    }
    if !text.starts_with('{') {
        // Text, then a JSON object on a line of its own: a hook that printed
        // a debug line before its answer. Read as text, its `block` would
        // be lost — so it is a broken hook (and guards fail closed).
        if let Some(at) = json_after_text(text) {
            return Err(HookError::failed(format!(
                "its output has text before its JSON (from line {at}); print only the JSON \
                 object on stdout, and anything else on stderr"
            )));
        }
        return Ok(Reply {
            text: Some(text.to_owned()),
            ..Reply::default()
        });
    }
    let mut output: HookJson = crate::strict_json::from_str(text).map_err(|error| {
        HookError::failed(format!("its output is not valid hook JSON ({error})"))
    })?;
    let mut reply = Reply {
        message: output.system_message,
        suppress_output: output.suppress_output,
        ..Reply::default()
    };
    // The script's own reason for refusing, in whichever field it gave it.
    let mut refusal: Option<String> = None;
    match output.decision.as_deref() {
        None | Some("approve" | "allow") => {}
        Some("block" | "deny") => {
            refusal = Some(
                output
                    .reason
                    .clone()
                    .unwrap_or_else(|| "blocked by a hook".to_owned()),
            );
        }
        Some(other) => {
            return Err(HookError::failed(format!(
                "unknown `decision` \"{other}\" (expected \"block\")"
            )));
        }
    }
    if let Some(specific) = output.hook_specific_output {
        let reason = specific.permission_decision_reason;
        match specific.permission_decision.as_deref() {
            None | Some("allow") => {}
            Some("deny") => {
                refusal.get_or_insert_with(|| {
                    reason
                        .clone()
                        .unwrap_or_else(|| "denied by a hook".to_owned())
                });
            }
            Some("ask") => {
                reply.ask =
                    Some(reason.unwrap_or_else(|| "a hook asks for confirmation".to_owned()));
            }
            Some(other) => {
                return Err(HookError::failed(format!(
                    "unknown `permissionDecision` \"{other}\" (expected allow, deny or ask)"
                )));
            }
        }
        reply.updated_input = specific.updated_input;
        if let Some(permission) = specific.decision {
            let denied = permission_answer(permission, &mut reply)?;
            if let Some((reason, interrupt)) = denied {
                if interrupt {
                    // Claude Code stops the agent too.
                    output.keep_going = Some(false);
                }
                refusal.get_or_insert(reason);
            }
        }
        reply.updated_output = match (
            specific.updated_tool_output,
            specific.updated_mcp_tool_output,
        ) {
            (Some(output), Some(legacy)) if output != legacy => {
                return Err(HookError::failed(
                    "its output replaces the tool's output twice, differently \
                     (`updatedToolOutput` and `updatedMCPToolOutput`); give one",
                ));
            }
            (output, legacy) => output.or(legacy),
        };
        reply.context = specific.additional_context;
        reply.hidden_tools = specific.hidden_tools;
        reply.hidden_prompts = specific.hidden_prompts;
        reply.hidden_resources = specific.hidden_resources;
    }
    if output.keep_going == Some(false) {
        // Claude Code's reason is `stopReason`; a script that gave only
        // `reason`, or denied the call with its own reason, meant that one,
        // not a stock sentence.
        let reason = output
            .stop_reason
            .or_else(|| refusal.clone())
            .or(output.reason)
            .unwrap_or_else(|| "the hook said not to continue".to_owned());
        // The session ends, and nothing more of this event goes ahead: the
        // call is refused with the script's own refusal if it gave one.
        refusal.get_or_insert_with(|| reason.clone());
        reply.end_session = Some(reason);
    }
    reply.block = refusal;
    Ok(reply)
}

/// `PermissionRequest`'s `decision` into `reply`: a grant (with its input),
/// or the denial's reason and whether it interrupts the agent.
fn permission_answer(
    permission: PermissionJson,
    reply: &mut Reply,
) -> Result<Option<(String, bool)>, HookError> {
    match permission.behavior.as_str() {
        "allow" => {
            reply.grant = true;
            if permission.updated_input.is_some() {
                reply.updated_input = permission.updated_input;
            }
            Ok(None)
        }
        "deny" => Ok(Some((
            permission
                .message
                .unwrap_or_else(|| "denied by a hook".to_owned()),
            permission.interrupt,
        ))),
        other => Err(HookError::failed(format!(
            "unknown `decision.behavior` \"{other}\" (expected allow or deny)"
        ))),
    }
}

/// The decision part of a reply, for events that may block.
/// Passes a reply's message (`systemMessage`) on to the person and its
/// context to the model: what every event that takes context does first.
macro_rules! tell_and_inject {
    ($ctx:ident, $reply:ident) => {
        if let Some(message) = $reply.message.take() {
            $ctx.user_message(MessageLevel::Warning, message);
        }
        if let Some(reason) = $reply.end_session.take() {
            $ctx.end_session(reason);
        }
        if let Some(context) = $reply.context.take() {
            $ctx.inject(context);
        }
        if let Some(text) = $reply.text.take()
            && !$reply.suppress_output
        {
            tracing::debug!(
                event = Self::NAME,
                %text,
                "a hook printed plain text: context only on UserPromptSubmit and SessionStart, as in Claude Code"
            );
        }
    };
}

/// Plain text is context on this event (`UserPromptSubmit`, `SessionStart`).
fn text_is_context(reply: &mut Reply) {
    if reply.context.is_none() {
        reply.context = reply.text.take();
    }
}

fn decide(reply: Reply) -> Decision {
    match (reply.block, reply.ask) {
        (Some(reason), _) => Decision::deny(reason),
        (None, Some(prompt)) => Decision::Ask(Approval::new(prompt)),
        (None, None) => Decision::Continue,
    }
}

impl ProtocolEvent for PreToolUse {
    const NAME: &'static str = "PreToolUse";

    fn fields(&self) -> Map<String, Value> {
        tool_fields(ToolCall::new(self.tool(), self.args()).with_call_id(self.call_id()))
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        if let Some(input) = reply.updated_input.take() {
            if !input.is_object() {
                return Err(HookError::failed(
                    "`updatedInput` must be a JSON object of arguments",
                ));
            }
            *self.args_mut() = input;
        }
        tell_and_inject!(self, reply);
        Ok(decide(reply))
    }
}

impl ProtocolEvent for PermissionRequest {
    const NAME: &'static str = "PermissionRequest";

    fn fields(&self) -> Map<String, Value> {
        let mut fields =
            tool_fields(ToolCall::new(self.tool(), self.args()).with_call_id(self.call_id()));
        if !self.permission_suggestions().is_null() {
            fields.insert(
                "permission_suggestions".into(),
                self.permission_suggestions().clone(),
            );
        }
        fields
    }

    /// `decision.behavior: "allow"` grants (with `updatedInput` first, so
    /// the grant is for the input it names); `"deny"` denies with its
    /// `message`; anything else leaves it to the person. `permissionDecision:
    /// "allow"` (`PreToolUse`'s answer) grants nothing here.
    fn apply(&mut self, mut reply: Reply) -> Verdict {
        if let Some(input) = reply.updated_input.take() {
            if !input.is_object() {
                return Err(HookError::failed(
                    "`updatedInput` must be a JSON object of arguments",
                ));
            }
            *self.args_mut() = input;
        }
        if let Some(message) = reply.message.take() {
            self.user_message(MessageLevel::Warning, message);
        }
        if let Some(reason) = reply.end_session.take() {
            self.end_session(reason);
        }
        if reply.grant && reply.block.is_none() && reply.ask.is_none() {
            self.grant();
        }
        Ok(decide(reply))
    }
}

impl ProtocolEvent for Notification {
    const NAME: &'static str = "Notification";

    fn fields(&self) -> Map<String, Value> {
        let mut fields = Map::from_iter([("message".into(), json!(self.message()))]);
        if let Some(title) = self.title() {
            fields.insert("title".into(), json!(title));
        }
        if let Some(kind) = self.notification_type() {
            fields.insert("notification_type".into(), json!(kind));
        }
        fields
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        if let Some(message) = reply.message.take() {
            self.user_message(MessageLevel::Warning, message);
        }
        if let Some(reason) = reply.end_session.take() {
            self.end_session(reason);
        }
        // Nothing to inject into; a block is passed on, and the dispatcher
        // tells the person it could not block.
        Ok(decide(reply))
    }
}

impl ProtocolEvent for PostToolUse {
    const NAME: &'static str = "PostToolUse";

    fn fields(&self) -> Map<String, Value> {
        let mut fields =
            tool_fields(ToolCall::new(self.tool(), self.args()).with_call_id(self.call_id()));
        let response = match self.result() {
            Ok(result) => result.clone(),
            Err(error) => json!({"error": error}),
        };
        fields.insert("tool_response".into(), response);
        fields
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        if let Some(output) = reply.updated_output.take() {
            *self.result_mut() = Ok(output);
        }
        tell_and_inject!(self, reply);
        // The tool already ran: a block's reason is told to the model instead.
        if let Some(reason) = reply.block {
            self.inject(reason);
        }
        Ok(Decision::Continue)
    }
}

impl ProtocolEvent for PostToolUseFailure {
    const NAME: &'static str = "PostToolUseFailure";

    fn fields(&self) -> Map<String, Value> {
        let mut fields =
            tool_fields(ToolCall::new(self.tool(), self.args()).with_call_id(self.call_id()));
        fields.insert("error".into(), json!(self.error().message()));
        fields.insert("is_interrupt".into(), json!(false));
        fields
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        tell_and_inject!(self, reply);
        // The tool already failed: a block's reason is told to the model instead.
        if let Some(reason) = reply.block {
            self.inject(reason);
        }
        Ok(Decision::Continue)
    }
}

impl ProtocolEvent for PostModelResponse {
    const NAME: &'static str = "PostModelResponse";

    fn fields(&self) -> Map<String, Value> {
        Map::from_iter([
            ("response_text".into(), json!(self.text())),
            ("tool_calls".into(), json!(self.tool_calls())),
        ])
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        tell_and_inject!(self, reply);
        Ok(decide(reply))
    }
}

impl ProtocolEvent for SubagentStart {
    const NAME: &'static str = "SubagentStart";

    fn fields(&self) -> Map<String, Value> {
        // The agent being started, under Claude Code's and Codex's name; its
        // parent is the agent starting it, named only when that is itself a
        // sub-agent (as `parent_agent_id` is elsewhere).
        let mut fields = Map::from_iter([
            ("agent_id".into(), json!(self.subagent_id())),
            ("prompt".into(), json!(self.prompt())),
        ]);
        let session = self.session();
        if session.parent_agent_id().is_some() {
            fields.insert("parent_agent_id".into(), json!(session.agent_id()));
        }
        if let Some(agent_type) = self.agent_type() {
            fields.insert("agent_type".into(), json!(agent_type));
        }
        fields
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        tell_and_inject!(self, reply);
        Ok(decide(reply))
    }
}

impl ProtocolEvent for PreCompact {
    const NAME: &'static str = "PreCompact";

    fn fields(&self) -> Map<String, Value> {
        Map::from_iter([
            ("trigger".into(), json!(self.trigger_name())),
            (
                "custom_instructions".into(),
                json!(self.custom_instructions().unwrap_or_default()),
            ),
        ])
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        tell_and_inject!(self, reply);
        // Passed on even where the event cannot block: the dispatcher tells
        // the person (a message naming the hook) and logs it.
        Ok(decide(reply))
    }
}

impl ProtocolEvent for UserPromptSubmit {
    const NAME: &'static str = "UserPromptSubmit";

    fn fields(&self) -> Map<String, Value> {
        Map::from_iter([("prompt".into(), json!(self.prompt()))])
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        text_is_context(&mut reply);
        tell_and_inject!(self, reply);
        Ok(decide(reply))
    }
}

/// `Stop` and `SubagentStop`: the same fields, and a block keeps the agent
/// going (an ask has no meaning there and is dropped).
macro_rules! stopping {
    ($kind:ident) => {
        impl ProtocolEvent for $kind {
            const NAME: &'static str = stringify!($kind);

            fn fields(&self) -> Map<String, Value> {
                let mut fields =
                    Map::from_iter([("stop_hook_active".into(), json!(self.stop_hook_active()))]);
                if let Some(message) = self.last_message() {
                    fields.insert("last_assistant_message".into(), json!(message));
                }
                fields
            }

            fn apply(&mut self, mut reply: Reply) -> Verdict {
                tell_and_inject!(self, reply);
                reply.ask = None;
                Ok(decide(reply))
            }
        }
    };
}

stopping!(Stop);
stopping!(SubagentStop);

impl ProtocolEvent for SessionStart {
    const NAME: &'static str = "SessionStart";

    fn fields(&self) -> Map<String, Value> {
        Map::from_iter([("source".into(), json!(self.source()))])
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        text_is_context(&mut reply);
        tell_and_inject!(self, reply);
        // Passed on even where the event cannot block: the dispatcher tells
        // the person of a block (naming the hook), logs it, and goes on, so
        // the script's answer is not lost.
        Ok(decide(reply))
    }
}

impl ProtocolEvent for SessionEnd {
    const NAME: &'static str = "SessionEnd";

    fn fields(&self) -> Map<String, Value> {
        Map::from_iter([("reason".into(), json!(self.reason()))])
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        if let Some(message) = reply.message.take() {
            self.user_message(MessageLevel::Warning, message);
        }
        if let Some(reason) = reply.end_session.take() {
            self.end_session(reason);
        }
        // Nothing to inject into at the end; a block is still passed on.
        Ok(decide(reply))
    }
}

impl ProtocolEvent for PreModelRequest {
    const NAME: &'static str = "PreModelRequest";

    fn fields(&self) -> Map<String, Value> {
        Map::from_iter([
            ("tools".into(), json!(self.tools().collect::<Vec<_>>())),
            ("params".into(), self.params().clone()),
        ])
    }

    fn apply(&mut self, mut reply: Reply) -> Verdict {
        tell_and_inject!(self, reply);
        // Hiding only: a name that was not offered adds nothing. hooks-mcp
        // asks about prompts and resources in requests of their own, whose
        // `params.mcp_method` says which (`prompts/list`, `resources/read`,
        // ...): each list is hidden from by its own field, so a tool's name
        // hides no prompt of the same name.
        let hidden = match self.params().get("mcp_method").and_then(Value::as_str) {
            Some(method) if method.starts_with("prompts/") => &reply.hidden_prompts,
            Some(method) if method.starts_with("resources/") => &reply.hidden_resources,
            _ => &reply.hidden_tools,
        };
        let hidden: Vec<&str> = hidden.iter().map(String::as_str).collect();
        self.exclude_tools(&hidden);
        // Passed on even where the event cannot block: the dispatcher tells
        // the person of a block (naming the hook), logs it, and goes on, so
        // the script's answer is not lost.
        Ok(decide(reply))
    }
}

fn tool_fields(call: ToolCall<'_>) -> Map<String, Value> {
    let mut fields = Map::from_iter([
        ("tool_name".into(), json!(call.tool())),
        ("tool_input".into(), call.args().clone()),
    ]);
    if let Some(id) = call.call_id() {
        fields.insert("tool_use_id".into(), json!(id));
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_read_as_claude_code_means_them() {
        assert_eq!(parse_output("").unwrap(), Reply::default());
        let plain = parse_output("  remember the style guide ").unwrap();
        assert_eq!(
            (plain.text.as_deref(), plain.context),
            (Some("remember the style guide"), None),
            "plain text is text, context only where Claude Code reads it so"
        );
        let output = parse_output(
            r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"rows": 0}}}"#,
        )
        .unwrap();
        assert_eq!(output.updated_output, Some(json!({"rows": 0})));
        // Scripts written for Claude Code before 2.1.121 replace an MCP
        // tool's output in the field it read then: ignoring it would hand the
        // model what the script took out.
        let legacy = parse_output(
            r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": [{"type": "text", "text": "[redacted]"}]}}"#,
        )
        .unwrap();
        assert_eq!(
            legacy.updated_output,
            Some(json!([{"type": "text", "text": "[redacted]"}]))
        );
        let same = parse_output(
            r#"{"hookSpecificOutput": {"updatedMCPToolOutput": "x", "updatedToolOutput": "x"}}"#,
        )
        .unwrap();
        assert_eq!(same.updated_output, Some(json!("x")));
        // Two different replacements: which would the host have used? An error
        // (the hook fails, and its failure policy decides), not a guess.
        let error = parse_output(
            r#"{"hookSpecificOutput": {"updatedMCPToolOutput": "x", "updatedToolOutput": "y"}}"#,
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("updatedMCPToolOutput"),
            "{error}"
        );
        let deny = parse_output(r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}"#).unwrap();
        assert_eq!(deny.block.as_deref(), Some("no"));
        let ask = parse_output(r#"{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}"#).unwrap();
        assert_eq!(ask.ask.as_deref(), Some("sure?"));
        let block = parse_output(r#"{"decision": "block", "reason": "tests first"}"#).unwrap();
        assert_eq!(block.block.as_deref(), Some("tests first"));
        let stop = parse_output(r#"{"continue": false, "stopReason": "quota"}"#).unwrap();
        assert_eq!(stop.block.as_deref(), Some("quota"));
        assert_eq!(stop.end_session.as_deref(), Some("quota"));
        // Without `stopReason`, the script's own refusal is both reasons.
        for own in [
            r#"{"continue": false, "reason": "frozen"}"#,
            r#"{"continue": false, "decision": "block", "reason": "frozen"}"#,
            r#"{"continue": false, "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "frozen"}}"#,
        ] {
            let stop = parse_output(own).unwrap();
            assert_eq!(
                (stop.block.as_deref(), stop.end_session.as_deref()),
                (Some("frozen"), Some("frozen")),
                "{own}"
            );
        }
        // With both, the session's end says `stopReason`, the refusal its own.
        let both = parse_output(r#"{"continue": false, "stopReason": "quota", "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "frozen"}}"#).unwrap();
        assert_eq!(
            (both.block.as_deref(), both.end_session.as_deref()),
            (Some("frozen"), Some("quota"))
        );
        let bare = parse_output(r#"{"continue": false}"#).unwrap();
        assert_eq!(bare.block.as_deref(), Some("the hook said not to continue"));
        assert!(!stop.suppress_output);
        let quiet = parse_output(r#"{"suppressOutput": true}"#).unwrap();
        assert!(quiet.suppress_output && quiet.end_session.is_none());
        let rewrite = parse_output(r#"{"hookSpecificOutput": {"updatedInput": {"a": 1}, "additionalContext": "ctx"}, "suppressOutput": true}"#).unwrap();
        assert_eq!(
            (rewrite.updated_input, rewrite.context.as_deref()),
            (Some(json!({"a": 1})), Some("ctx"))
        );
        assert!(
            parse_output("{ not json")
                .unwrap_err()
                .to_string()
                .contains("not valid hook JSON")
        );
        assert!(
            parse_output(r#"{"hookSpecificOutput": {"permissionDecision": "maybe"}}"#)
                .unwrap_err()
                .to_string()
                .contains("unknown `permissionDecision` \"maybe\"")
        );
    }
}

/// Each hook kind runs as a hook by `call_with(ctx, input)`: the input is
/// built here, once, or by [`Runner`](crate::declared::Runner), which may
/// add to it (the kept transcript's path) and shares it with a `condition`.
macro_rules! runs_with_input {
    ($($kind:ty),* $(,)?) => {$(
        impl<C: ProtocolEvent> hooks_core::RuntimeHook<C> for $kind {
            fn call<'a>(&'a self, ctx: &'a mut C) -> hooks_core::Deferred<'a, Verdict> {
                let input = ctx.input();
                self.call_with(ctx, input)
            }
        }
    )*};
}

runs_with_input!(
    crate::agent::AgentHook,
    crate::command::CommandHook,
    crate::declared::Runner,
    crate::mcp_tool::McpToolHook,
    crate::prompt::PromptHook,
);
#[cfg(feature = "http")]
runs_with_input!(crate::http::HttpHook);
