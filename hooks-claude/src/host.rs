//! The two tools that call the binary, and what each can be told.

use std::fmt;
use std::str::FromStr;

/// The tool calling the binary: its protocols are nearly the same, and
/// where they differ, the binary answers what each one honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Host {
    /// Claude Code: `ask` shows its permission dialog; a rewrite is sent
    /// with `ask` (or `allow`, when told: [`RewriteDecision`]).
    #[default]
    Claude,
    /// Codex: no `ask` (Codex fails a hook that answers it, and lets the call
    /// through), so a call needing a person is asked through the approval
    /// store or refused; a rewrite must come with `allow`.
    Codex,
}

impl Host {
    /// Its name on the command line (`claude`, `codex`).
    pub fn as_str(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
        }
    }

    /// Its name for people.
    pub fn title(self) -> &'static str {
        match self {
            Host::Claude => "Claude Code",
            Host::Codex => "Codex",
        }
    }

    /// Whether it can ask its user to confirm a tool call (`permissionDecision: "ask"`).
    pub fn can_ask(self) -> bool {
        matches!(self, Host::Claude)
    }

    /// Whether it reads a block from a JSON answer, beside `systemMessage`
    /// (`permissionDecision: "deny"` on `PreToolUse`, `decision: "block"` on
    /// `PostToolUse`, `UserPromptSubmit`, `Stop` and `SubagentStop`), so a
    /// block need not be a bare exit 2 that drops what the other hooks said.
    pub fn reads_json_blocks(self, event: &str) -> bool {
        matches!(self, Host::Claude)
            && matches!(
                event,
                "PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "Stop" | "SubagentStop"
            )
    }

    /// Whether it takes `continue: false` (end the session) in its answer
    /// to `event`. Codex refuses the whole answer of a `PreToolUse` or
    /// `PermissionRequest` hook that says it ("unsupported continue:false",
    /// `codex-rs/hooks/src/engine/output_parser.rs`), and goes on as if the
    /// hook had said nothing.
    pub fn ends_sessions_on(self, event: &str) -> bool {
        match self {
            Host::Claude => true,
            Host::Codex => !matches!(event, "PreToolUse" | "PermissionRequest"),
        }
    }

    /// The events it documents that have a counterpart here: the ones the
    /// printed settings install the binary for.
    pub fn events(self) -> &'static [&'static str] {
        match self {
            Host::Claude => &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PermissionRequest",
                "PostToolUse",
                "PostToolUseFailure",
                "Notification",
                "SubagentStart",
                "SubagentStop",
                "PreCompact",
                "Stop",
                "SessionEnd",
            ],
            Host::Codex => &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PermissionRequest",
                "PostToolUse",
                "SubagentStart",
                "SubagentStop",
                "PreCompact",
                "Stop",
                "SessionEnd",
            ],
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Host {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "claude" | "claude-code" => Ok(Host::Claude),
            "codex" => Ok(Host::Codex),
            other => Err(format!(
                "unknown host `{other}` (expected `claude` or `codex`)"
            )),
        }
    }
}

/// What a rewritten tool call is sent with, on Claude Code: its protocol
/// applies `updatedInput` only with `allow` (skip the permission prompt) or
/// `ask` (show the rewritten call to the user).
///
/// The default is `ask`: a rewrite must not turn a call the user would have
/// been asked about into one that runs unasked. `allow` is for rewrites
/// that only ever narrow a call (a `LIMIT` added); Claude Code's deny and
/// ask rules still apply after it. Codex takes a rewrite only with `allow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RewriteDecision {
    /// Show the rewritten call to the user (`permissionDecision: "ask"`).
    #[default]
    Ask,
    /// Let the rewritten call run without the permission prompt.
    Allow,
}

impl FromStr for RewriteDecision {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "ask" => Ok(RewriteDecision::Ask),
            "allow" => Ok(RewriteDecision::Allow),
            other => Err(format!(
                "unknown rewrite decision `{other}` (expected `ask` or `allow`)"
            )),
        }
    }
}
