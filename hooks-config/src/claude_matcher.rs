//! Claude Code's matchers, as Claude Code reads them: empty or `*` matches
//! everything; a matcher of only letters, digits, `_` and `|` is a list of
//! exact names (`Edit|Write`); anything else is a regular expression
//! searched for in the name, unanchored (`mcp__.*__write.*`; write
//! `^Bash$` to pin it). Tool events match the tool's name; `SessionStart`
//! the source (`startup|resume|clear|compact`), `PreCompact` the trigger
//! (`manual|auto`), `SessionEnd` the reason, `SubagentStart` the agent type,
//! `Notification` the notification type (`permission_prompt|idle_prompt`).
//!
//! Exact tool names become the dispatcher's own pattern, so `describe()`
//! shows them; everything else is a [`Gate`] the hook checks before it
//! runs, answering `Continue` without running anything when it does not match.

use hooks_core::{
    Decision, Deferred, EventKind, Hook, Notification, PermissionRequest, PostModelResponse,
    PostToolUse, PostToolUseFailure, PreCompact, PreModelRequest, PreToolUse, RuntimeHook,
    SessionEnd, SessionStart, Stop, SubagentStart, SubagentStop, UserPromptSubmit, Verdict,
};
use regex::Regex;

use crate::protocol::ProtocolEvent;

/// What a group's matcher asks for.
pub(crate) enum Matching {
    /// Every event.
    All,
    /// Exact tool names, as the dispatcher's pattern (`Edit|Write`).
    Pattern(String),
    /// Checked by the hook before it runs.
    Gate(Gate),
}

/// Why a matcher cannot be used.
pub(crate) enum Unusable {
    /// Not a valid regular expression.
    Invalid(String),
    /// The event has nothing to match it against here.
    NoSubject(String),
}

/// A matcher the hook checks itself, against its event's [`Subject`].
#[derive(Debug, Clone)]
pub(crate) enum Gate {
    Names(Vec<String>),
    Regex(Regex),
}

impl Gate {
    fn admits(&self, subject: Option<&str>) -> bool {
        let Some(subject) = subject else {
            return false;
        };
        match self {
            Gate::Names(names) => names.iter().any(|name| name == subject),
            Gate::Regex(regex) => regex.is_match(subject),
        }
    }
}

/// Reads `matcher` as Claude Code does for `event`.
pub(crate) fn parse(event: EventKind, matcher: &str) -> Result<Matching, Unusable> {
    if matcher.is_empty() || matcher == "*" {
        return Ok(Matching::All);
    }
    let Some(subject) = subject_of(event) else {
        return Err(Unusable::NoSubject(format!(
            "hooks have nothing here to match \"{matcher}\" against (matchers are for tool \
             events, SessionStart, PreCompact, SessionEnd, SubagentStart and Notification)"
        )));
    };
    let literal = matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|');
    if literal {
        let names: Vec<String> = matcher
            .split('|')
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect();
        if event.has_tool() && hooks_core::Matcher::parse(&names.join("|")).is_ok() {
            return Ok(Matching::Pattern(names.join("|")));
        }
        return Ok(Matching::Gate(Gate::Names(names)));
    }
    Regex::new(matcher)
        .map(|regex| Matching::Gate(Gate::Regex(regex)))
        .map_err(|error| {
            Unusable::Invalid(format!(
                "is not a valid regular expression for the {subject}: {}",
                // The regex crate's message spans lines; one line reads better in a list.
                error.to_string().replace('\n', " ")
            ))
        })
}

/// What a matcher is checked against on `event`, in the protocol's words.
fn subject_of(event: EventKind) -> Option<&'static str> {
    match event {
        EventKind::PreToolUse
        | EventKind::PermissionRequest
        | EventKind::PostToolUse
        | EventKind::PostToolUseFailure => Some("tool name"),
        EventKind::Notification => Some("notification type"),
        EventKind::SessionStart => Some("session's source"),
        EventKind::PreCompact => Some("compaction's trigger"),
        EventKind::SessionEnd => Some("session's end reason"),
        EventKind::SubagentStart => Some("agent type"),
        _ => None,
    }
}

/// The value of an event a matcher is checked against.
pub(crate) trait Subject {
    /// The tool's name, the source, the trigger, ...; `None` where there is none.
    fn subject(&self) -> Option<&str>;
}

macro_rules! subject {
    ($($kind:ident => |$ctx:ident| $value:expr),* $(,)?) => {
        $(impl Subject for $kind {
            fn subject(&self) -> Option<&str> {
                let $ctx = self;
                $value
            }
        })*
    };
}

subject! {
    PreToolUse => |ctx| Some(ctx.tool()),
    PermissionRequest => |ctx| Some(ctx.tool()),
    PostToolUse => |ctx| Some(ctx.tool()),
    Notification => |ctx| ctx.notification_type(),
    PostToolUseFailure => |ctx| Some(ctx.tool()),
    SessionStart => |ctx| Some(ctx.source()),
    SessionEnd => |ctx| Some(ctx.reason()),
    SubagentStart => |ctx| ctx.agent_type(),
    PreCompact => |ctx| Some(ctx.trigger_name()),
    UserPromptSubmit => |_ctx| None,
    PreModelRequest => |_ctx| None,
    PostModelResponse => |_ctx| None,
    Stop => |_ctx| None,
    SubagentStop => |_ctx| None,
}

/// A runtime hook that runs only when its gate admits the event.
struct Gated<H> {
    gate: Gate,
    inner: H,
}

impl<C: ProtocolEvent + Subject, H: RuntimeHook<C>> RuntimeHook<C> for Gated<H> {
    fn call<'a>(&'a self, ctx: &'a mut C) -> Deferred<'a, Verdict> {
        if self.gate.admits(ctx.subject()) {
            self.inner.call(ctx)
        } else {
            Deferred::Ready(Ok(Decision::Continue))
        }
    }
}

/// `runner` as a hook named `name`, behind `gate` if there is one.
pub(crate) fn hook<C, H>(name: String, gate: Option<&Gate>, runner: H) -> Hook<C>
where
    C: ProtocolEvent + Subject,
    H: RuntimeHook<C>,
{
    match gate {
        Some(gate) => Hook::from_runtime(
            name,
            Gated {
                gate: gate.clone(),
                inner: runner,
            },
        ),
        None => Hook::from_runtime(name, runner),
    }
}

#[cfg(test)]
mod tests {
    use hooks_core::EventKind;

    use super::{Matching, Unusable, parse};

    fn admits(event: EventKind, matcher: &str, subject: &str) -> bool {
        match parse(event, matcher) {
            Ok(Matching::All) => true,
            Ok(Matching::Pattern(pattern)) => pattern.split('|').any(|name| name == subject),
            Ok(Matching::Gate(gate)) => gate.admits(Some(subject)),
            Err(Unusable::Invalid(error) | Unusable::NoSubject(error)) => panic!("{error}"),
        }
    }

    #[test]
    fn matchers_read_as_claude_code_reads_them() {
        let tool = EventKind::PreToolUse;
        assert!(matches!(parse(tool, ""), Ok(Matching::All)));
        assert!(matches!(parse(tool, "*"), Ok(Matching::All)));
        assert!(matches!(parse(tool, "Edit|Write"), Ok(Matching::Pattern(p)) if p == "Edit|Write"));
        assert!(admits(tool, "Edit|Write", "Write"));
        assert!(
            !admits(tool, "Edit|Write", "NotebookEdit"),
            "names match exactly"
        );
        assert!(admits(tool, "mcp__.*__write.*", "mcp__github__write_file"));
        assert!(!admits(tool, "mcp__.*__write.*", "mcp__github__read_file"));
        assert!(admits(tool, "Notebook(Edit)?", "NotebookEdit"));
        assert!(
            admits(tool, "^Bash", "BashOutput"),
            "a regex is searched for, unanchored"
        );
        assert!(!admits(tool, "^Bash$", "BashOutput"));
        let start = EventKind::SessionStart;
        assert!(admits(start, "startup|resume", "resume"));
        assert!(!admits(start, "startup|resume", "compact"));
        assert!(admits(EventKind::PreCompact, "auto", "auto"));
        assert!(matches!(
            parse(tool, "mcp__(unclosed"),
            Err(Unusable::Invalid(_))
        ));
        assert!(matches!(
            parse(EventKind::Stop, "x"),
            Err(Unusable::NoSubject(_))
        ));
    }
}
