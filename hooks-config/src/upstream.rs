//! `[[upstream]]`: MCP servers a gateway (`hooks-mcp`) puts the hooks in
//! front of. hooks-config only reads and checks them; the gateway starts or
//! reaches them. Each gives exactly one of `command` (a child process spoken
//! to over stdio) and `url` (a server already running, over Streamable HTTP).
//!
//! ```toml
//! [[upstream]]
//! name = "git"                                   # namespace: its tools are `git__git_status`, ...
//! command = ["uvx", "mcp-server-git", "--repository", "."]
//! timeout = "30s"                                # per call; default 60s
//! trust_annotations = true                       # believe its `readOnlyHint`s (default false)
//!
//! [[upstream]]
//! name = "search"
//! url = "http://127.0.0.1:8000/mcp"
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
    command: Option<Vec<String>>,
    url: Option<String>,
    timeout: Option<String>,
    #[serde(default)]
    trust_annotations: bool,
}

/// An MCP server declared in the file, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Upstream {
    /// Its name: the namespace of its tools when there are several.
    pub name: String,
    /// The program and its arguments; empty for a server reached at [`url`](Self::url).
    pub command: Vec<String>,
    /// The server's Streamable HTTP endpoint (`http://` or `https://`), when
    /// it is reached over the network rather than started.
    pub url: Option<String>,
    /// How long a call may take.
    pub timeout: Duration,
    /// Whether the server's tool annotations (`readOnlyHint`, ...) may open
    /// a door: a guard allowing a tool the server says only reads. Untrusted
    /// (the default), they can only make a guard refuse.
    pub trust_annotations: bool,
    /// The file it was declared in.
    pub file: Arc<str>,
    /// The line of its `[[upstream]]`.
    pub line: u32,
}

/// Checks each entry: a name fit for a namespace (letters, digits, `-`,
/// `_`; unique), a command or an http(s) URL (one of the two), a timeout
/// above zero.
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
        match (&entry.command, &entry.url) {
            (Some(_), Some(_)) => {
                fail(
                    "give `command` (a server to start) or `url` (a server to reach), not both"
                        .to_owned(),
                );
                ok = false;
            }
            (None, None) => {
                fail(
                    "no server: give `command = [\"program\", \"arg\", ...]` (started, spoken to over stdio) \
                     or `url = \"http://host:port/mcp\"` (reached over Streamable HTTP)"
                        .to_owned(),
                );
                ok = false;
            }
            (Some(command), None) if command.first().is_none_or(String::is_empty) => {
                fail(
                    "`command` names no program: write `command = [\"program\", \"arg\", ...]`"
                        .to_owned(),
                );
                ok = false;
            }
            (None, Some(url)) if !is_http_url(url) => {
                fail(format!(
                    "`url = \"{url}\"` is not an http:// or https:// address with a host \
                     (write e.g. \"http://127.0.0.1:8000/mcp\")"
                ));
                ok = false;
            }
            _ => {}
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
                command: entry.command.unwrap_or_default(),
                url: entry.url,
                timeout,
                trust_annotations: entry.trust_annotations,
                file: Arc::clone(file),
                line,
            });
        }
    }
    upstreams
}

/// `http://host...` or `https://host...`: the schemes Streamable HTTP runs
/// on, and a host to reach (the gateway finds out the rest when it connects).
fn is_http_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    rest.is_some_and(|rest| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host = authority.rsplit('@').next().unwrap_or_default();
        !host.is_empty() && !host.starts_with(':') && !host.chars().any(char::is_whitespace)
    })
}
