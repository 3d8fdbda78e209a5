//! The compiled policy, and the decision for one call.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use hooks_core::ToolCall;
use hooks_core::prelude::*;

use super::config::{ReadOnly, UnknownTools};
use super::dialect::Dialect;
use super::functions::AllowedFunctions;
use super::sql::{self, Refusal};
use super::tools::{ToolPatterns, lowercase_call};
use crate::config::ConfigError;

/// The read-only guard's policy, compiled: the state the `read_only::guard`
/// hook reads. Give one to the builder (`.state(ReadOnlyGuard::new(config)?)`);
/// a dispatcher without one gets [`ReadOnlyGuard::default`].
pub struct ReadOnlyGuard {
    switch: AtomicBool,
    enabled: bool,
    metadata_key: String,
    write_tools: ToolPatterns,
    read_tools: ToolPatterns,
    unknown_tools: UnknownTools,
    sql_args: Vec<String>,
    sql_free_tools: ToolPatterns,
    dialect_tools: ToolPatterns,
    /// One entry per `dialect_tools` pattern, in order.
    dialects: Vec<[Dialect; 1]>,
    functions: AllowedFunctions,
}

impl Default for ReadOnlyGuard {
    /// [`ReadOnly::default`]: off unless the session says so; the default patterns.
    fn default() -> Self {
        Self::new(ReadOnly::default()).expect("the default configuration compiles")
    }
}

hooks_core::default_state!(ReadOnlyGuard, ReadOnlyGuard::defaults);

impl ReadOnlyGuard {
    fn defaults() -> Result<Self, ConfigError> {
        Self::new(ReadOnly::default())
    }

    /// Compiles the configuration; a bad pattern, dialect or function name,
    /// or an empty key, is refused, naming the setting.
    pub fn new(config: ReadOnly) -> Result<Self, ConfigError> {
        if config.metadata_key.is_empty() {
            return Err(ConfigError::new(
                "read-only",
                "`metadata_key` cannot be empty",
            ));
        }
        if let Some(empty) = config.sql_args.iter().position(String::is_empty) {
            return Err(ConfigError::new(
                "read-only",
                format!("`sql_args`: entry {} is empty", empty + 1),
            ));
        }
        let dialect_patterns: Vec<String> = config
            .dialects
            .iter()
            .map(|entry| entry.tools.clone())
            .collect();
        let dialects = config
            .dialects
            .iter()
            .map(|entry| {
                Dialect::named(&entry.dialect)
                    .map(|dialect| [dialect])
                    .ok_or_else(|| {
                        ConfigError::new(
                            "read-only",
                            format!(
                                "`dialects`: unknown dialect \"{}\" for `{}` (known: {})",
                                entry.dialect,
                                entry.tools,
                                Dialect::names()
                            ),
                        )
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(ReadOnlyGuard {
            switch: AtomicBool::new(false),
            enabled: config.enabled,
            write_tools: ToolPatterns::new("write_tools", &config.write_tools)?,
            read_tools: ToolPatterns::new("read_tools", &config.read_tools)?,
            unknown_tools: config.unknown_tools,
            sql_free_tools: ToolPatterns::new("sql_free_tools", &config.sql_free_tools)?,
            dialect_tools: ToolPatterns::new("dialects", &dialect_patterns)?,
            dialects,
            functions: AllowedFunctions::new(&config.allowed_functions)?,
            metadata_key: config.metadata_key,
            sql_args: config.sql_args,
        })
    }

    /// Turns read-only mode on or off for every session this guard checks,
    /// whatever the configuration says (on wins over configuration and metadata).
    pub fn set_enabled(&self, on: bool) {
        self.switch.store(on, Ordering::SeqCst);
    }

    /// Denies the call if read-only mode is on and the call may write.
    pub fn check(&self, ctx: &PreToolUse) -> Decision {
        let Some(mode) = self.mode(ctx.session()) else {
            return Decision::Continue;
        };
        match self.write(ctx.tool(), ctx.args()) {
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

    /// Whether the call may write, and why: a write pattern wins; then every
    /// SQL argument is judged (unless the tool is SQL-free); then a read
    /// pattern; then `unknown_tools`.
    fn write<'a>(&'a self, tool: &'a str, args: &'a Value) -> Option<Write<'a>> {
        lowercase_call(tool, args, |call| {
            if let Some(pattern) = self.write_tools.find(call) {
                return Some(Write::Tool(tool, pattern));
            }
            let mut carries_sql = false;
            let sql_args = match self.sql_free_tools.find(call) {
                Some(_) => &[][..],
                None => &self.sql_args[..],
            };
            for key in sql_args {
                let Some(value) = args.get(key) else {
                    continue;
                };
                carries_sql = true;
                let Some(text) = value.as_str() else {
                    return Some(Write::NotText(tool, key));
                };
                if let Err(refusal) = sql::judge(text, self.dialects_of(call), &self.functions) {
                    return Some(Write::Sql(tool, key, refusal));
                }
            }
            if carries_sql || self.read_tools.find(call).is_some() {
                return None;
            }
            match self.unknown_tools {
                UnknownTools::Allow => None,
                UnknownTools::Deny => Some(Write::Unknown(tool)),
            }
        })
    }

    /// The configured dialect of the tool, or every common one.
    fn dialects_of(&self, call: ToolCall<'_>) -> &[Dialect] {
        match self.dialect_tools.position(call) {
            Some(index) => &self.dialects[index],
            None => &Dialect::COMMON,
        }
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
    Tool(&'a str, &'a str),
    NotText(&'a str, &'a str),
    Sql(&'a str, &'a str, Refusal),
    Unknown(&'a str),
}

impl fmt::Display for Write<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Write::Tool(tool, pattern) => write!(f, "`{tool}` writes (it matches `{pattern}`)"),
            Write::NotText(tool, key) => write!(
                f,
                "`{tool}` has a `{key}` argument that is not text, so its SQL cannot be checked"
            ),
            Write::Sql(tool, key, refusal) => write!(
                f,
                "`{tool}` would run SQL (`{key}`) that is not known to only read: {refusal}"
            ),
            Write::Unknown(tool) => write!(
                f,
                "`{tool}` is not known to only read (it matches neither the read nor the write \
                 patterns and carries no SQL, and unknown tools are denied)"
            ),
        }
    }
}
