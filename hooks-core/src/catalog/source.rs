//! Where a fact about a tool came from, and how far it may be trusted.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

/// Where a fact about a tool came from.
///
/// Every fact in the [`ToolCatalog`](crate::ToolCatalog) keeps its source, so
/// a guard can say why it decided, and so that what the operator declares
/// (code, configuration) outranks what a tool says of itself (an MCP server's
/// annotations, a rig definition).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Source {
    /// Declared in code, on the builder ([`HooksBuilder::tools`](crate::HooksBuilder::tools)).
    Code,
    /// Declared in a configuration file, at this line (`[tools.NAME]`).
    Config {
        /// The file.
        file: Arc<str>,
        /// The line of the declaration.
        line: u32,
    },
    /// The host's own tools, as its documentation describes them (Claude
    /// Code's `Read`, `Write`, `Bash`, ...).
    Host {
        /// The host (`claude-code`, `codex`).
        host: Arc<str>,
    },
    /// What an MCP server says of its tool in `tools/list` (annotations,
    /// input schema). Annotations are hints: only a server the operator
    /// trusts is believed when they would open a door.
    Mcp {
        /// The upstream server's name.
        server: Arc<str>,
        /// Whether the operator said to trust this server's annotations.
        trusted: bool,
    },
    /// A rig `ToolDefinition` (its parameters' schema).
    Rig,
}

impl Source {
    /// Whether a fact from here may open a door (let a guard allow what it
    /// would otherwise refuse). Facts from anywhere may close one.
    pub fn is_trusted(&self) -> bool {
        !matches!(self, Source::Mcp { trusted: false, .. })
    }

    /// Declarations by the operator outrank the host's, which outrank what a
    /// tool says of itself.
    pub(crate) fn rank(&self) -> u8 {
        match self {
            Source::Code | Source::Config { .. } => 2,
            Source::Host { .. } => 1,
            Source::Mcp { .. } | Source::Rig => 0,
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Code => f.write_str("declared in code"),
            Source::Config { file, line } => write!(f, "declared in {file}:{line}"),
            Source::Host { host } => write!(f, "{host}'s built-in tools"),
            Source::Mcp {
                server,
                trusted: true,
            } => write!(f, "MCP server `{server}` (annotations trusted)"),
            Source::Mcp {
                server,
                trusted: false,
            } => write!(f, "MCP server `{server}` (annotations not trusted)"),
            Source::Rig => f.write_str("the rig tool definition"),
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

impl<T> Fact<T> {
    /// `value`, from `source`.
    pub fn new(value: T, source: Source) -> Self {
        Fact { value, source }
    }
}
