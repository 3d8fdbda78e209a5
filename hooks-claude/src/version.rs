//! Which version of the host the binary answers, and since which version a
//! host reads each field the binary sends.
//!
//! Hosts add fields to their protocol and ignore what they do not know, so
//! a field an older host does not read is lost without a word: a replaced
//! output an older Claude Code does not apply reaches the model as it was.
//! Told the version (`--host-version`), the binary sends only what that
//! version reads, and refuses what it could not say to it.

use std::fmt;
use std::str::FromStr;

/// The first Claude Code version reading each field that not every version
/// reads (the rest: every version with hooks). The README's compatibility
/// table lists them, with their sources.
pub(crate) mod claude {
    use super::HostVersion;

    /// `PreToolUse` `permissionDecision` (`ask` above all): changelog 1.0.59,
    /// "Exposed `PermissionDecision` to hooks (including "ask")".
    pub(crate) const ASK: HostVersion = HostVersion::new(1, 0, 59);
    /// `PreToolUse` `updatedInput` with `ask` (and so any rewrite, see
    /// [`ALLOW_KEEPS_DENY_RULES`]): changelog 2.1.0, "Fixed `PreToolUse`
    /// hooks to allow `updatedInput` when returning `ask`". `updatedInput`
    /// itself came in 2.0.10, with `allow` only.
    pub(crate) const REWRITE: HostVersion = HostVersion::new(2, 1, 0);
    /// `permissionDecision: "allow"` no longer skips the person's deny
    /// rules: changelog 2.1.77, "Fixed `PreToolUse` hooks returning "allow"
    /// bypassing deny permission rules". Before, a rewrite is sent with `ask`.
    pub(crate) const ALLOW_KEEPS_DENY_RULES: HostVersion = HostVersion::new(2, 1, 77);
    /// `PostToolUse` `updatedToolOutput` for every tool; before, only MCP
    /// tools' output could be replaced, with `updatedMCPToolOutput`
    /// (changelog 2.1.121, quoted in anthropics/claude-code#54161).
    pub(crate) const TOOL_OUTPUT_ALL: HostVersion = HostVersion::new(2, 1, 121);
    /// A `PermissionRequest` grant's `updatedInput` is checked against the
    /// person's `permissions.deny` rules: changelog 2.1.110, "Fixed
    /// `PermissionRequest` hooks returning `updatedInput` not being
    /// re-checked against `permissions.deny` rules". Before, a granted
    /// rewrite ran whatever those rules forbid.
    pub(crate) const GRANTED_INPUT_CHECKED: HostVersion = HostVersion::new(2, 1, 110);
}

/// From this Claude Code version on, a settings file naming a hook event it
/// does not know still loads (changelog 2.1.101: "an unrecognized hook event
/// name in `settings.json` no longer causes the entire file to be ignored");
/// before, one unknown event turned every hook of the file off.
pub(crate) const UNKNOWN_EVENTS_TOLERATED: HostVersion = HostVersion::new(2, 1, 101);

/// The first Claude Code version sending `event`, from its changelog; where
/// no line dates an event, the first version a report shows it in (a later
/// bound only leaves the event out of more settings). `None`: not known.
pub(crate) fn claude_event_since(event: &str) -> Option<HostVersion> {
    let (major, minor, patch) = match event {
        // "Released hooks."
        "PreToolUse" | "PostToolUse" | "Stop" => (1, 0, 38),
        "SubagentStop" => (1, 0, 41),
        "PreCompact" => (1, 0, 48),
        "UserPromptSubmit" => (1, 0, 54),
        "SessionStart" => (1, 0, 62),
        "SessionEnd" => (1, 0, 85),
        // No line adds it; 2.0.37 adds matchers for it.
        "Notification" => (2, 0, 37),
        "SubagentStart" => (2, 0, 43),
        "PermissionRequest" => (2, 0, 45),
        // No line adds it; anthropics/claude-code#27886 uses it on 2.1.50.
        "PostToolUseFailure" => (2, 1, 50),
        _ => return None,
    };
    Some(HostVersion::new(major, minor, patch))
}

/// The first Codex release reading each field that not every release reads.
/// Codex throws out the whole answer of a hook that says what it does not
/// take, so these are the releases a public report first shows taking the
/// field: a later bound than the true one only refuses more.
pub(crate) mod codex {
    use super::HostVersion;

    /// `PreToolUse` `updatedInput` with `allow` (0.130.0 answered
    /// "unsupported updatedInput"; 0.144.0 is the first release a report
    /// shows applying it, openai/codex#18491).
    pub(crate) const REWRITE: HostVersion = HostVersion::new(0, 144, 0);
    /// `PreToolUse` `additionalContext` (0.124.0 answered "unsupported
    /// additionalContext", openai/codex#19385): bound as [`REWRITE`].
    pub(crate) const PRE_TOOL_CONTEXT: HostVersion = HostVersion::new(0, 144, 0);
}

/// Whether a host of `version` reads a field first read by `since`: a host
/// whose version is not known is taken to read every field.
pub(crate) fn reads(version: Option<HostVersion>, since: HostVersion) -> bool {
    version.is_none_or(|version| version >= since)
}

/// A host's version, as `claude --version` prints it (`2.1.121 (Claude Code)`)
/// or bare (`2.1.121`).
///
/// ```
/// use hooks_claude::HostVersion;
///
/// let version: HostVersion = "2.1.121 (Claude Code)".parse().unwrap();
/// assert_eq!(version, HostVersion::new(2, 1, 121));
/// assert!(version > "2.0.10".parse().unwrap());
/// assert!("2.1".parse::<HostVersion>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostVersion {
    major: u32,
    minor: u32,
    patch: u32,
}

impl HostVersion {
    /// `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        HostVersion {
            major,
            minor,
            patch,
        }
    }
}

impl fmt::Display for HostVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl FromStr for HostVersion {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || {
            format!(
                "`{text}` is not a version: expected three numbers, like `2.1.121` \
                 (as `claude --version` or `codex --version` prints it)"
            )
        };
        // `claude --version` prints `2.1.121 (Claude Code)`, `codex --version`
        // `codex-cli 0.52.0`: the word that starts with a digit.
        let word = text
            .split_whitespace()
            .find(|word| word.starts_with(|c: char| c.is_ascii_digit()))
            .ok_or_else(bad)?;
        // A pre-release (`2.1.121-beta.1`) reads what its release reads.
        let numbers = word.split(['-', '+']).next().unwrap_or(word);
        let mut parts = numbers.split('.').map(|part| {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            part.parse::<u32>().ok()
        });
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(Some(major)), Some(Some(minor)), Some(Some(patch)), None) => {
                Ok(HostVersion::new(major, minor, patch))
            }
            _ => Err(bad()),
        }
    }
}
