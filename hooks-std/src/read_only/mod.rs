//! **read-only**: while read-only mode is on, tools that write are denied.
//!
//! The guard's policy is a [`ReadOnlyGuard`], state of the dispatcher that runs
//! it. Read-only mode is on when any of these says so — and *unknown* counts as on:
//!
//! - code: [`ReadOnlyGuard::set_enabled`], a switch of that dispatcher;
//! - configuration: [`ReadOnly::enabled`];
//! - the session: metadata `read_only` (the key is [`ReadOnly::metadata_key`])
//!   is `true`; a value that is not a boolean (`"yes"`, `null`) turns it on too.
//!
//! A tool is a write if it matches [`ReadOnly::write_tools`] (by default
//! `write*`, `*_write`, `delete*`, `update*`, `create*`, `Bash`, `Edit`, ...),
//! unless [`ReadOnly::read_tools`] names it. Tools matching
//! [`ReadOnly::sql_tools`] (`sql_*`) are judged by their SQL instead: read-only
//! statements (`SELECT`, `SHOW`, `EXPLAIN`, ...) pass, anything else — or no
//! SQL argument at all — is a write.
//!
//! ```
//! use hooks_core::prelude::*;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let hooks = Hooks::builder().only(["hooks_std::read_only::guard"]).build().unwrap();
//! let frozen = Session::new("s").with_metadata("read_only", true);
//!
//! let mut select = PreToolUse::new(&frozen, "sql_query", json!({"query": "SELECT * FROM orders"}));
//! assert!(hooks.dispatch(&mut select).await.is_continue());
//!
//! let mut update = PreToolUse::new(&frozen, "sql_query", json!({"query": "UPDATE orders SET paid = true"}));
//! let outcome = hooks.dispatch(&mut update).await;
//! assert!(outcome.denial().unwrap().reason().starts_with("read-only mode is on"));
//!
//! // This dispatcher's switch: every session, from now on.
//! use hooks_std::read_only::ReadOnlyGuard;
//! hooks.state::<ReadOnlyGuard>().unwrap().set_enabled(true);
//! let mut write = PreToolUse::new(&Session::new("t"), "write_file", json!({"path": "a"}));
//! assert!(hooks.dispatch(&mut write).await.is_denied());
//! # }
//! ```
//!
//! The check allocates nothing unless it denies.

mod sql;

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use hooks_core::prelude::*;
use hooks_core::{Matcher, ToolCall};
use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, matchers};

/// Configuration of the read-only guard (the `[read_only]` table of a config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadOnly {
    /// Read-only mode for every session, from configuration.
    pub enabled: bool,
    /// The session metadata key that turns read-only mode on for a session.
    pub metadata_key: String,
    /// Patterns of tools that write.
    pub write_tools: Vec<String>,
    /// Patterns of tools that never count as writes, whatever `write_tools` says.
    pub read_tools: Vec<String>,
    /// Patterns of tools judged by their SQL.
    pub sql_tools: Vec<String>,
    /// The arguments that may hold a SQL tool's statement, looked for in order.
    pub sql_args: Vec<String>,
}

impl Default for ReadOnly {
    fn default() -> Self {
        let strings = |items: &[&str]| items.iter().map(|&item| item.to_owned()).collect();
        ReadOnly {
            enabled: false,
            metadata_key: "read_only".to_owned(),
            write_tools: strings(&[
                "write*",
                "*_write",
                "delete*",
                "*_delete",
                "update*",
                "*_update",
                "create*",
                "*_create",
                "insert*",
                "*_insert",
                "remove*",
                "*_remove",
                "drop*",
                "move*",
                "rename*",
                "upload*",
                "send*",
                "deploy*",
                "Bash",
                "Write",
                "Edit",
                "MultiEdit",
                "NotebookEdit",
            ]),
            read_tools: Vec::new(),
            sql_tools: strings(&["sql_*"]),
            sql_args: strings(&["query", "sql", "statement"]),
        }
    }
}

/// The read-only guard's policy, compiled: the state the `read_only::guard`
/// hook reads. Give one to the builder (`.state(ReadOnlyGuard::new(config)?)`);
/// a dispatcher without one gets [`ReadOnlyGuard::default`].
pub struct ReadOnlyGuard {
    switch: AtomicBool,
    enabled: bool,
    metadata_key: String,
    write_tools: Vec<Matcher>,
    read_tools: Vec<Matcher>,
    sql_tools: Vec<Matcher>,
    sql_args: Vec<String>,
}

impl Default for ReadOnlyGuard {
    /// [`ReadOnly::default`]: off unless the session says so; the default write patterns.
    fn default() -> Self {
        Self::new(ReadOnly::default()).expect("the default patterns parse")
    }
}

hooks_core::default_state!(ReadOnlyGuard, ReadOnlyGuard::defaults);

impl ReadOnlyGuard {
    fn defaults() -> Result<Self, ConfigError> {
        Self::new(ReadOnly::default())
    }

    /// Compiles the configuration; a bad pattern or an empty key is refused.
    pub fn new(config: ReadOnly) -> Result<Self, ConfigError> {
        if config.metadata_key.is_empty() {
            return Err(ConfigError::new(
                "read-only",
                "`metadata_key` cannot be empty",
            ));
        }
        Ok(ReadOnlyGuard {
            switch: AtomicBool::new(false),
            enabled: config.enabled,
            write_tools: matchers("read-only", "write_tools", &config.write_tools)?,
            read_tools: matchers("read-only", "read_tools", &config.read_tools)?,
            sql_tools: matchers("read-only", "sql_tools", &config.sql_tools)?,
            metadata_key: config.metadata_key,
            sql_args: config.sql_args,
        })
    }

    /// Turns read-only mode on or off for every session this guard checks,
    /// whatever the configuration says (on wins over configuration and metadata).
    pub fn set_enabled(&self, on: bool) {
        self.switch.store(on, Ordering::SeqCst);
    }

    /// Denies the call if read-only mode is on and the call writes.
    pub fn check(&self, ctx: &PreToolUse) -> Decision {
        let Some(mode) = self.mode(ctx.session()) else {
            return Decision::Continue;
        };
        match self.write(ToolCall::new(ctx.tool(), ctx.args())) {
            None => Decision::Continue,
            Some(write) => Decision::deny(format!(
                "read-only mode is on ({mode}): {write}. Only reading tools and read-only SQL \
                 (SELECT, SHOW, EXPLAIN) work until an administrator lifts read-only mode"
            )),
        }
    }

    /// Why read-only mode is on for this session, if it is.
    fn mode<'a>(&'a self, session: &'a Session) -> Option<Mode<'a>> {
        if self.switch.load(Ordering::SeqCst) {
            return Some(Mode::Switch);
        }
        if self.enabled {
            return Some(Mode::Config);
        }
        match session.metadata_value(&self.metadata_key) {
            None | Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some(Mode::Metadata(&self.metadata_key)),
            Some(other) => Some(Mode::Unknown(&self.metadata_key, other)),
        }
    }

    /// Whether the call writes, and what makes it one.
    fn write<'a>(&'a self, call: ToolCall<'a>) -> Option<Write<'a>> {
        let any = |matchers: &[Matcher]| matchers.iter().any(|matcher| matcher.matches(call));
        if any(&self.read_tools) {
            return None;
        }
        if any(&self.sql_tools) {
            let statement = self
                .sql_args
                .iter()
                .find_map(|key| call.args().get(key).and_then(Value::as_str));
            return match statement {
                None => Some(Write::NoSql(call.tool(), &self.sql_args)),
                Some(statement) => sql::check(statement)
                    .err()
                    .map(|why| Write::Sql(call.tool(), why)),
            };
        }
        self.write_tools
            .iter()
            .find(|matcher| matcher.matches(call))
            .map(|matcher| Write::Tool(call.tool(), matcher))
    }
}

enum Mode<'a> {
    Switch,
    Config,
    Metadata(&'a str),
    Unknown(&'a str, &'a Value),
}

impl fmt::Display for Mode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mode::Switch => f.write_str("switched on by the application"),
            Mode::Config => f.write_str("set in configuration"),
            Mode::Metadata(key) => write!(f, "session metadata `{key}` is true"),
            Mode::Unknown(key, value) => write!(
                f,
                "session metadata `{key}` is {value}, not true or false, so read-only is assumed"
            ),
        }
    }
}

enum Write<'a> {
    Tool(&'a str, &'a Matcher),
    Sql(&'a str, sql::Write<'a>),
    NoSql(&'a str, &'a [String]),
}

impl fmt::Display for Write<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Write::Tool(tool, matcher) => write!(f, "`{tool}` writes (it matches `{matcher}`)"),
            Write::Sql(tool, sql::Write::Word(word)) => {
                write!(f, "`{tool}` would run SQL that writes (`{word}`)")
            }
            Write::Sql(tool, sql::Write::Starts(word)) => {
                write!(
                    f,
                    "`{tool}` would run a `{word}` statement, which is not read-only"
                )
            }
            Write::Sql(tool, sql::Write::Empty) => write!(f, "`{tool}` has an empty statement"),
            Write::Sql(tool, sql::Write::Unterminated) => write!(
                f,
                "`{tool}` has SQL with an unclosed string or comment, which cannot be checked"
            ),
            Write::NoSql(tool, keys) => write!(
                f,
                "`{tool}` has no SQL to check (looked for {})",
                keys.iter()
                    .map(|key| format!("`{key}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Denies writes while read-only mode is on.
#[pre_tool_use(group = "hooks_std", priority = -1000)]
fn guard(ctx: &mut PreToolUse, guard: &ReadOnlyGuard) -> Decision {
    guard.check(ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_compile() {
        assert!(ReadOnlyGuard::new(ReadOnly::default()).is_ok());
    }

    #[test]
    fn bad_configuration_is_refused_with_the_setting_named() {
        let config = ReadOnly {
            write_tools: vec!["^write".into()],
            ..ReadOnly::default()
        };
        let error = ReadOnlyGuard::new(config).err().unwrap().to_string();
        assert!(
            error.starts_with("read-only configuration: `write_tools`: bad pattern \"^write\""),
            "{error}"
        );
        let config = ReadOnly {
            metadata_key: String::new(),
            ..ReadOnly::default()
        };
        assert!(ReadOnlyGuard::new(config).is_err());
    }
}
