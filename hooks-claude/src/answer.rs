//! What the binary answers, in the host's protocol: exit 2 with the reason
//! on stderr to block; JSON on stdout for rewrites, asks, context and
//! messages for the person; nothing at all when the hooks had nothing to say.

use std::fmt::Write as _;

use hooks_core::{Denial, DenialCause, Outcome, Value, json};
use serde_json::Map;

use crate::host::{Host, RewriteDecision};
use crate::version::{self, HostVersion, claude, codex};

/// The exit code that blocks, in both tools' protocols.
pub const BLOCK: u8 = 2;

/// The binary's answer to one event: what it exits with and prints.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    code: u8,
    stdout: String,
    stderr: String,
}

impl Answer {
    /// No objection and nothing to add: exit 0, no output.
    pub fn nothing() -> Self {
        Answer::default()
    }

    /// Blocks with `reason` (exit 2, the reason on stderr): the call, the
    /// prompt, or the stop, as the event means it.
    pub fn block(reason: impl Into<String>) -> Self {
        let mut stderr = reason.into();
        if !stderr.ends_with('\n') {
            stderr.push('\n');
        }
        Answer {
            code: BLOCK,
            stdout: String::new(),
            stderr,
        }
    }

    /// Exit 0 with this JSON on stdout.
    pub(crate) fn json(value: &Value) -> Self {
        Self::json_text(format!("{value}\n"))
    }

    /// Exit 0 with this text on stdout.
    pub(crate) fn json_text(stdout: String) -> Self {
        Answer {
            code: 0,
            stdout,
            stderr: String::new(),
        }
    }

    /// Adds a line for the person on stderr, whatever the exit code (on exit
    /// 0 the hosts put it in their debug log).
    pub(crate) fn warn(mut self, line: &str) -> Self {
        self.stderr.push_str(line);
        if !self.stderr.ends_with('\n') {
            self.stderr.push('\n');
        }
        self
    }

    /// The exit code: 0, or [`BLOCK`].
    pub fn code(&self) -> u8 {
        self.code
    }

    /// What goes to stdout: the protocol JSON, or nothing.
    pub fn stdout(&self) -> &str {
        &self.stdout
    }

    /// What goes to stderr: the reason of a block.
    pub fn stderr(&self) -> &str {
        &self.stderr
    }

    /// The JSON on stdout, if any.
    pub fn json_value(&self) -> Option<Value> {
        serde_json::from_str(&self.stdout).ok()
    }
}

/// A denial as the reason the host shows: the hook's reason, naming the
/// hook when the reason does not already.
pub(crate) fn reason(denial: &Denial) -> String {
    let hook = denial.hook().to_string();
    let reason = denial.reason();
    if reason.contains(&hook) {
        reason.to_owned()
    } else {
        format!("{reason} (hook `{hook}`)")
    }
}

/// A refusal: exit 2 with the reason — or JSON saying it, when a hook also
/// ended the session (`continue: false` overrides everything, and exit 2
/// would drop the JSON), or when other hooks left messages for the person
/// and `host` reads a block from JSON on this event (exit 2 would drop them).
///
/// `context` is what hooks added for the model before the block: the reason
/// is all the model reads of a block, on either host and in either form, so
/// the context goes after it.
pub(crate) fn refuse(
    host: Host,
    event: &'static str,
    outcome: &Outcome,
    denial: &Denial,
    context: &str,
) -> Answer {
    let mut why = reason(denial);
    if !context.is_empty() {
        why.push_str("\n\nThe hooks also said: ");
        why.push_str(context);
    }
    if let Some(end) = outcome.end_session()
        && !host.ends_sessions_on(event)
    {
        // Sent anyway, the host would throw out the whole answer, the
        // refusal with it, and let the call through.
        let _ = write!(
            why,
            "\n\nThe hooks also ended the session ({}), which {} cannot do from {event}.",
            end.reason,
            host.title()
        );
        return Answer::block(why);
    }
    let messages = !outcome.messages().is_empty() && host.reads_json_blocks(event);
    if outcome.end_session().is_none() && !messages {
        return Answer::block(why);
    }
    let reply = Reply::new(event, outcome);
    if event == "PreToolUse" {
        reply
            .specific("permissionDecision", json!("deny"))
            .specific("permissionDecisionReason", json!(why))
    } else {
        reply
            .top("decision", json!("block"))
            .top("reason", json!(why))
    }
    .answer()
}

/// Builds the JSON answer of one event.
pub(crate) struct Reply {
    event: &'static str,
    top: Map<String, Value>,
    specific: Map<String, Value>,
}

impl Reply {
    /// An empty reply to `event`, with the messages hooks left for the person.
    pub(crate) fn new(event: &'static str, outcome: &Outcome) -> Self {
        let mut top = Map::new();
        let messages: Vec<&str> = outcome
            .messages()
            .iter()
            .map(|message| message.text.as_str())
            .collect();
        if !messages.is_empty() {
            top.insert("systemMessage".into(), json!(messages.join("\n")));
        }
        if let Some(end) = outcome.end_session() {
            top.insert("continue".into(), json!(false));
            top.insert("stopReason".into(), json!(end.reason));
        }
        Reply {
            event,
            top,
            specific: Map::new(),
        }
    }

    /// Context for the model (`additionalContext`), if hooks injected any.
    pub(crate) fn context(mut self, text: &str) -> Self {
        if !text.is_empty() {
            self.specific
                .insert("additionalContext".into(), json!(text));
        }
        self
    }

    pub(crate) fn specific(mut self, key: &str, value: Value) -> Self {
        self.specific.insert(key.into(), value);
        self
    }

    pub(crate) fn top(mut self, key: &str, value: Value) -> Self {
        self.top.insert(key.into(), value);
        self
    }

    /// The answer: nothing when there is nothing to say.
    pub(crate) fn answer(mut self) -> Answer {
        if !self.specific.is_empty() {
            self.specific
                .insert("hookEventName".into(), json!(self.event));
            self.top
                .insert("hookSpecificOutput".into(), Value::Object(self.specific));
        }
        if self.top.is_empty() {
            Answer::nothing()
        } else {
            Answer::json(&Value::Object(self.top))
        }
    }
}

/// A pre-tool-use outcome: block, ask, rewrite, or let through.
pub(crate) struct PreToolAnswer<'a> {
    pub(crate) host: Host,
    pub(crate) rewrites: RewriteDecision,
    pub(crate) outcome: &'a Outcome,
    /// The prompt, when a hook asked and the host is to ask its user.
    pub(crate) asked: Option<String>,
    /// The final arguments, when hooks changed them.
    pub(crate) rewritten: Option<&'a Value>,
    pub(crate) context: &'a str,
    /// The hooks that rewrote the call, for a reason naming them.
    pub(crate) rewriters: &'a str,
    /// The host's version, if told.
    pub(crate) version: Option<HostVersion>,
}

impl PreToolAnswer<'_> {
    pub(crate) fn answer(self) -> Answer {
        let context =
            if self.host == Host::Codex && !version::reads(self.version, codex::PRE_TOOL_CONTEXT) {
                // That release throws out the whole answer with it.
                ""
            } else {
                self.context
            };
        let reply = Reply::new("PreToolUse", self.outcome).context(context);
        if let Some(denial) = self.outcome.denial() {
            return match (&self.asked, denial.cause()) {
                (Some(prompt), DenialCause::NotApproved(_)) if self.host.can_ask() => {
                    if !version::reads(self.version, claude::ASK) {
                        // An `ask` it cannot read lets the call run unasked.
                        return Answer::block(format!(
                            "a hook asks a person before this call ({prompt}), and {} cannot \
                             ask from a hook ({} and later can); refused",
                            self.host_named(),
                            claude::ASK
                        ));
                    }
                    if self.rewritten.is_some() && !version::reads(self.version, claude::REWRITE) {
                        return self.cannot_rewrite(claude::REWRITE);
                    }
                    let reply = reply
                        .specific("permissionDecision", json!("ask"))
                        .specific("permissionDecisionReason", json!(prompt));
                    match self.rewritten {
                        Some(args) => reply.specific("updatedInput", args.clone()),
                        None => reply,
                    }
                    .answer()
                }
                _ => refuse(self.host, "PreToolUse", self.outcome, denial, context),
            };
        }
        let Some(args) = self.rewritten else {
            return reply.answer();
        };
        let decision = match self.host {
            Host::Claude => {
                let allow = self.rewrites == RewriteDecision::Allow
                    && version::reads(self.version, claude::ALLOW_KEEPS_DENY_RULES);
                if !version::reads(self.version, claude::REWRITE) {
                    return self.cannot_rewrite(claude::REWRITE);
                }
                if allow { "allow" } else { "ask" }
            }
            Host::Codex => {
                if !version::reads(self.version, codex::REWRITE) {
                    return self.cannot_rewrite(codex::REWRITE);
                }
                "allow"
            }
        };
        reply
            .specific("permissionDecision", json!(decision))
            .specific(
                "permissionDecisionReason",
                json!("the call was rewritten by its hooks"),
            )
            .specific("updatedInput", args.clone())
            .answer()
    }

    /// The host, with its version when told (`Claude Code 2.0.9`).
    fn host_named(&self) -> String {
        match self.version {
            Some(version) => format!("{} {version}", self.host.title()),
            None => self.host.title().to_owned(),
        }
    }

    /// A rewrite the host would ignore, running the call as it was.
    fn cannot_rewrite(&self, since: HostVersion) -> Answer {
        Answer::block(format!(
            "the hooks rewrote this call (hooks: {}), and {} cannot take a rewritten call \
             ({since} and later can); refused so it does not run as it was",
            self.rewriters,
            self.host_named()
        ))
    }
}
