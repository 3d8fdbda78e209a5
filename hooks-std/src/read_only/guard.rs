//! The compiled policy, and the decision for one call.

use std::fmt;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use hooks_core::prelude::*;
use hooks_core::{ArgRole, NotAllowed, ShellAllowList, Source, ToolCall, ToolFacts};

use super::arguments::{self, TooDeep};
use super::config::{ReadOnly, UnknownTools};
use super::dialect::Dialect;
use super::forms;
use super::functions::AllowedFunctions;
use super::sql::{self, Refusal};
use super::tools::{ToolPatterns, lowercase_call};
use super::words;
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
    write_words: Vec<String>,
    read_words: Vec<String>,
    unknown_tools: UnknownTools,
    sql_keys: Vec<String>,
    /// What a declared shell argument may run; `None`: nothing.
    shell: Option<ShellAllowList>,
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

// The guard runs only in a dispatcher given a `ReadOnlyGuard`.
hooks_core::opt_in!(ReadOnlyGuard);

impl ReadOnlyGuard {
    /// Compiles the configuration; a bad pattern, dialect or function name,
    /// or an empty key, is refused, naming the setting.
    pub fn new(config: ReadOnly) -> Result<Self, ConfigError> {
        if config.metadata_key.is_empty() {
            return Err(ConfigError::new(
                "read-only",
                "`metadata_key` cannot be empty",
            ));
        }
        for (setting, list) in [
            ("write_words", &config.write_words),
            ("read_words", &config.read_words),
            ("sql_keys", &config.sql_keys),
        ] {
            check_words(setting, list)?;
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
            write_words: config.write_words,
            read_words: config.read_words,
            unknown_tools: config.unknown_tools,
            sql_keys: config.sql_keys,
            shell: (!config.shell_commands.is_empty())
                .then(|| ShellAllowList::new(&config.shell_commands)),
            dialect_tools: ToolPatterns::new("dialects", &dialect_patterns)?,
            dialects,
            functions: AllowedFunctions::new(&config.allowed_functions)?,
            metadata_key: config.metadata_key,
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
        match self.write(ctx.tool(), ctx.args(), ctx.facts()) {
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

    /// Whether the call may write, and why. Facts first: SQL the catalog
    /// declares is judged; a tool declared to write is refused, one declared
    /// to only read (by a trusted source) runs. Then guesses, which refuse
    /// before they allow: a writing word in the name; SQL under keys naming
    /// it; a reading word; else `unknown_tools`.
    fn write<'a>(
        &'a self,
        tool: &'a str,
        args: &'a Value,
        facts: Option<&'a ToolFacts>,
    ) -> Option<Write<'a>> {
        lowercase_call(tool, args, |call| {
            let dialects = self.dialects_of(call);
            let declared_sql =
                match facts.map(|facts| self.declared_sql(tool, facts, args, dialects)) {
                    Some(Err(write)) => return Some(write),
                    Some(Ok(found)) => found,
                    None => false,
                };
            if let Some(pattern) = self.write_tools.find(call) {
                return Some(Write::Tool(tool, pattern));
            }
            match facts.map(|facts| self.declared_shell(tool, facts, args)) {
                Some(Some(Ok(()))) => return None,
                Some(Some(Err(write))) => return Some(write),
                _ => {}
            }
            if let Some(facts) = facts {
                if let Some(fact) = facts.destructive().filter(|fact| fact.value) {
                    return Some(Write::Declared(
                        tool,
                        "may destroy what exists",
                        &fact.source,
                    ));
                }
                match facts.read_only() {
                    Some(fact) if !fact.value => {
                        return Some(Write::Declared(tool, "writes", &fact.source));
                    }
                    Some(fact) if fact.source.is_trusted() => return None,
                    _ => {}
                }
            }
            if self.read_tools.find(call).is_some() || declared_sql {
                return None;
            }
            self.guess(tool, args, facts, dialects)
        })
    }

    /// Judges every string under the arguments `facts` declares as SQL:
    /// whether there was any, or why it may write.
    fn declared_sql<'a>(
        &'a self,
        tool: &'a str,
        facts: &'a ToolFacts,
        args: &'a Value,
        dialects: &[Dialect],
    ) -> Result<bool, Write<'a>> {
        let mut found = false;
        for arg in facts.args_with(ArgRole::Sql) {
            let Some(value) = arg.find(args) else {
                continue;
            };
            found = true;
            let judged = arguments::leaves(value, 0, &mut |text| match sql::judge(
                text,
                dialects,
                &self.functions,
            ) {
                Ok(()) => ControlFlow::Continue(()),
                Err(refusal) => ControlFlow::Break(refusal),
            });
            match judged {
                Err(TooDeep) => return Err(Write::TooDeep(tool)),
                Ok(ControlFlow::Break(refusal)) => {
                    return Err(Write::Sql(tool, &arg.path, refusal));
                }
                Ok(ControlFlow::Continue(())) => {}
            }
        }
        Ok(found)
    }

    /// Judges every string under the arguments `facts` declares as shell
    /// commands against `shell_commands`: `None` if there is none to judge
    /// (no such argument, or no allow-list), `Ok` if every one is allowed.
    fn declared_shell<'a>(
        &'a self,
        tool: &'a str,
        facts: &'a ToolFacts,
        args: &'a Value,
    ) -> Option<Result<(), Write<'a>>> {
        let list = self.shell.as_ref()?;
        let mut found = false;
        for arg in facts.args_with(ArgRole::Shell) {
            let Some(value) = arg.find(args) else {
                continue;
            };
            found = true;
            let judged = arguments::leaves(value, 0, &mut |text| match list.allows(text) {
                Ok(()) => ControlFlow::Continue(()),
                Err(refusal) => ControlFlow::Break(refusal),
            });
            match judged {
                Err(TooDeep) => return Some(Err(Write::TooDeep(tool))),
                Ok(ControlFlow::Break(refusal)) => return Some(Err(Write::Shell(tool, refusal))),
                Ok(ControlFlow::Continue(())) => {}
            }
        }
        found.then_some(Ok(()))
    }

    /// The last resort, for a tool nothing declares: its name and the keys
    /// of its arguments. A guess refuses before it allows.
    fn guess<'a>(
        &'a self,
        tool: &'a str,
        args: &'a Value,
        facts: Option<&'a ToolFacts>,
        dialects: &[Dialect],
    ) -> Option<Write<'a>> {
        let name = words::own_name(tool);
        if let Some(word) = words::find(name, &self.write_words) {
            return Some(Write::Word(tool, word));
        }
        // Prose under a key named `query` is a search, unless the tool's
        // dialect is configured: then it speaks SQL, and must parse.
        let prose_allowed = dialects.len() > 1;
        let mut carries_sql = false;
        let judged =
            arguments::under_sql_keys(args, &self.sql_keys, &mut |key, text| match sql::judge(
                text,
                dialects,
                &self.functions,
            ) {
                Ok(()) => {
                    carries_sql = true;
                    ControlFlow::Continue(())
                }
                Err(refusal)
                    if prose_allowed && refusal.is_unread() && !forms::starts_like_sql(text) =>
                {
                    ControlFlow::Continue(())
                }
                Err(refusal) => ControlFlow::Break((key, refusal)),
            });
        match judged {
            Err(TooDeep) => return Some(Write::TooDeep(tool)),
            Ok(ControlFlow::Break((key, refusal))) => return Some(Write::Sql(tool, key, refusal)),
            Ok(ControlFlow::Continue(())) => {}
        }
        if carries_sql || words::find(name, &self.read_words).is_some() {
            return None;
        }
        match self.unknown_tools {
            UnknownTools::Allow => None,
            UnknownTools::Deny => Some(Write::Unknown(
                tool,
                facts
                    .and_then(ToolFacts::read_only)
                    .filter(|fact| fact.value)
                    .map(|fact| &fact.source),
            )),
        }
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
    /// Matches a `write_tools` pattern.
    Tool(&'a str, &'a str),
    /// Declared to write (what it does, and who says so).
    Declared(&'a str, &'static str, &'a Source),
    /// Nothing declares it, and its name has a writing word.
    Word(&'a str, &'a str),
    /// SQL under this key that is not known to only read.
    Sql(&'a str, &'a str, Refusal),
    TooDeep(&'a str),
    /// A declared shell command `shell_commands` does not allow.
    Shell(&'a str, NotAllowed),
    /// Nothing classifies it; a source not trusted may say it only reads.
    Unknown(&'a str, Option<&'a Source>),
}

impl fmt::Display for Write<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Write::Tool(tool, pattern) => {
                write!(
                    f,
                    "`{tool}` is declared to write (`write_tools`: `{pattern}`)"
                )
            }
            Write::Declared(tool, what, source) => write!(f, "`{tool}` {what} ({source})"),
            Write::Word(tool, word) => write!(
                f,
                "nothing declares what `{tool}` does, and its name has the word `{word}`, \
                 so it may write"
            ),
            Write::Sql(tool, key, refusal) => write!(
                f,
                "`{tool}` would run SQL (`{key}`) that is not known to only read: {refusal}"
            ),
            Write::Shell(tool, refusal) => write!(
                f,
                "`{tool}` would run a command not known to only read (`shell_commands`): {refusal}"
            ),
            Write::TooDeep(tool) => write!(
                f,
                "`{tool}`'s arguments nest more than {} levels deep, too deep to search for SQL",
                arguments::MAX_DEPTH
            ),
            Write::Unknown(tool, untrusted) => {
                write!(
                    f,
                    "`{tool}` is not known to only read: nothing declares what it does, and \
                     its name has no reading word"
                )?;
                if let Some(source) = untrusted {
                    write!(
                        f,
                        " ({source} says it only reads; set `trust_annotations = true` on \
                         that upstream to believe it)"
                    )?;
                }
                write!(
                    f,
                    ". If it only reads, declare it: `[tools.{tool}] read_only = true` in the \
                     configuration, or `ToolFacts::new(\"{tool}\").only_reads()` on the builder"
                )
            }
        }
    }
}

/// Word lists must hold words: lowercase letters and digits, none empty.
fn check_words(setting: &str, list: &[String]) -> Result<(), ConfigError> {
    match list.iter().position(|word| {
        word.is_empty()
            || !word
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    }) {
        None => Ok(()),
        Some(at) => Err(ConfigError::new(
            "read-only",
            format!(
                "`{setting}`: entry {} ({:?}) is not a word: write lowercase letters and \
                 digits, matched against the words of names and keys",
                at + 1,
                list[at]
            ),
        )),
    }
}
