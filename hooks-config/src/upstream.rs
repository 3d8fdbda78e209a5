//! `[[upstream]]`: MCP servers a gateway (`hooks-mcp`) puts the hooks in
//! front of. hooks-config only reads and checks them; the gateway starts them.
//!
//! ```toml
//! [[upstream]]
//! name = "git"                                   # namespace: its tools are `git__git_status`, ...
//! command = ["uvx", "mcp-server-git", "--repository", "."]
//! timeout = "30s"                                # per call; default 60s
//! ```

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::Problems;
use crate::toml_file::line_of;

/// How long a call may take upstream unless the entry says.
pub const DEFAULT_UPSTREAM_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpstreamEntry {
    name: String,
    command: Vec<String>,
    timeout: Option<String>,
}

/// An MCP server declared in the file, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Upstream {
    /// Its name: the namespace of its tools when there are several.
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// How long a call may take.
    pub timeout: Duration,
    /// The file it was declared in.
    pub file: Arc<str>,
    /// The line of its `[[upstream]]`.
    pub line: u32,
}

/// Checks each entry: a name fit for a namespace (letters, digits, `-`,
/// `_`; unique), a command, a timeout above zero.
pub(crate) fn check(
    file: &Arc<str>,
    text: &str,
    entries: Vec<Spanned<UpstreamEntry>>,
    problems: &mut Problems,
) -> Vec<Upstream> {
    let mut upstreams: Vec<Upstream> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for entry in entries {
        let line = line_of(text, entry.span().start);
        let entry = entry.into_inner();
        let mut fail = |message: String| {
            problems.push(
                file,
                line,
                None,
                format!("`[[upstream]]` `{}`: {message}", entry.name),
            );
        };
        let mut ok = true;
        if entry.name.is_empty()
            || !entry
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            fail(
                "a name is letters, digits, `-` and `_` (it prefixes the server's tools)"
                    .to_owned(),
            );
            ok = false;
        } else if names.contains(&entry.name) {
            fail("the name is used by an earlier `[[upstream]]`".to_owned());
            ok = false;
        }
        names.push(entry.name.clone());
        if entry.command.first().is_none_or(String::is_empty) {
            fail(
                "`command` names no program: write `command = [\"program\", \"arg\", ...]`"
                    .to_owned(),
            );
            ok = false;
        }
        let timeout = match entry.timeout.as_deref().map(humantime::parse_duration) {
            None => DEFAULT_UPSTREAM_TIMEOUT,
            Some(Ok(timeout)) if !timeout.is_zero() => timeout,
            Some(Ok(_)) => {
                fail("`timeout` is zero: every call would fail (write e.g. \"30s\")".to_owned());
                ok = false;
                DEFAULT_UPSTREAM_TIMEOUT
            }
            Some(Err(error)) => {
                fail(format!("bad `timeout`: {error} (write e.g. \"30s\")"));
                ok = false;
                DEFAULT_UPSTREAM_TIMEOUT
            }
        };
        if ok {
            upstreams.push(Upstream {
                name: entry.name,
                command: entry.command,
                timeout,
                file: Arc::clone(file),
                line,
            });
        }
    }
    upstreams
}
