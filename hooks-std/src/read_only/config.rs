//! The read-only guard's configuration, as code and as the `[read_only]` table.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Configuration of the read-only guard (the `[read_only]` table of a config file).
///
/// Every field has a default. What the guard believes first is what is
/// declared about a tool (the dispatcher's [`ToolCatalog`](hooks_core::ToolCatalog)),
/// then `write_tools` and `read_tools`; the words of a tool's name and the
/// argument keys are the last resort, and may only ever refuse what a
/// declaration would allow. Tool patterns use the `matches = "..."` grammar
/// (`x`, `x*`, `*x`, `a|b`, `Bash(rm *)`), without regard to the case of names.
///
/// ```toml
/// [read_only]
/// enabled = false
/// unknown_tools = "deny"                      # or "allow"
/// read_tools = ["git_branch"]                 # declared: only reads
/// write_tools = ["publish_*"]                 # declared: writes
/// read_words = ["read", "get", "list"]        # replaces the default words
/// sql_keys = ["sql", "query", "statement"]    # argument keys holding SQL, as words
/// shell_commands = ["git status*", "ls*"]     # what a shell tool may run
///
/// [[read_only.dialects]]                      # the first entry matching a tool wins
/// tools = "mcp__postgres__*"
/// dialect = "postgres"
///
/// [read_only.allowed_functions]               # beyond the built-in read-only lists
/// postgres = ["similarity"]
/// "*" = ["reports.monthly_total"]
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadOnly {
    /// Read-only mode for every session, from configuration. Default: off.
    pub enabled: bool,
    /// The session metadata key that turns read-only mode on for a session.
    /// Default: `read_only`.
    pub metadata_key: String,
    /// Patterns of tools declared to write: denied whatever else is known or
    /// carried. Default: none.
    pub write_tools: Vec<String>,
    /// Patterns of tools declared to only read: they run without their
    /// arguments being judged (SQL arguments declared in the catalog still
    /// are). Default: none.
    pub read_tools: Vec<String>,
    /// Words that, in the name of a tool nothing declares, mean it writes
    /// (`git_add`, `WriteFile`). Default: `write`, `edit`, `delete`,
    /// `create`, `update`, `add`, `reset`, `checkout`, `commit`, `push`,
    /// `send`, `deploy`, `bash`, `shell`, ... ([`DEFAULT_WRITE_WORDS`]).
    pub write_words: Vec<String>,
    /// Words that, in the name of a tool nothing declares and no write word
    /// names, mean it only reads (`git_status`, `directory_tree`). Default:
    /// `read`, `get`, `list`, `search`, `find`, `show`, `status`, `log`,
    /// `diff`, `tree`, ... ([`DEFAULT_READ_WORDS`]).
    pub read_words: Vec<String>,
    /// What happens to a tool that nothing classifies. Default:
    /// [`UnknownTools::Deny`], with a message saying how to declare it.
    pub unknown_tools: UnknownTools,
    /// Words that mark an argument key as holding SQL, at any depth and in
    /// arrays (`query`, `Query`, `sql_query`, `params.queries[1]`): every
    /// string under such a key that is SQL must only read. Text no dialect
    /// can read and that starts like prose (`how to delete a branch`) is
    /// taken for a search, not SQL. Default: `sql`, `query`, `queries`,
    /// `statement`, `statements`, `stmt`.
    pub sql_keys: Vec<String>,
    /// Commands a shell tool may run while read-only mode is on, as
    /// allow-list globs (`git status*`, `ls*`): a call whose shell argument
    /// is declared ([`ArgRole::Shell`](hooks_core::ArgRole): Claude Code's and
    /// Codex's `Bash`, `[tools.NAME] args = { cmd = "shell" }`) runs only if
    /// every command bash would run is known before it runs and matches one
    /// ([`ShellAllowList`](hooks_core::ShellAllowList): no run-time parts
    /// beyond a `*`, no redirection to a file, no wrapper the glob does not
    /// spell). Default: none, so shell tools are refused. A glob allows what
    /// its program can do: `git log*` allows `git log --output=FILE`.
    pub shell_commands: Vec<String>,
    /// The SQL dialect of tools, by pattern; the first match wins. A tool with
    /// none is judged in every common dialect (generic, postgres, mysql,
    /// sqlite, mssql) at once. Default: none.
    pub dialects: Vec<ToolDialect>,
    /// Functions to trust beyond the built-in read-only lists, by dialect
    /// name, or `"*"` for every dialect. Default: none.
    pub allowed_functions: BTreeMap<String, Vec<String>>,
}

/// The words of [`ReadOnly::write_words`] unless configured otherwise.
///
/// Words for running something (`run`, `exec`, `execute`) are not among
/// them: what such a tool does is what it runs. `run_query` with SQL that
/// only reads passes; `run_script`, with no SQL and no reading word, is
/// unknown, and refused.
pub const DEFAULT_WRITE_WORDS: &[&str] = &[
    "add",
    "alter",
    "append",
    "apply",
    "approve",
    "archive",
    "assign",
    "ban",
    "bash",
    "block",
    "cancel",
    "charge",
    "checkout",
    "chmod",
    "chown",
    "clear",
    "clone",
    "close",
    "commit",
    "create",
    "del",
    "delete",
    "deploy",
    "destroy",
    "disable",
    "drop",
    "edit",
    "enable",
    "erase",
    "forget",
    "fork",
    "grant",
    "import",
    "init",
    "insert",
    "install",
    "invite",
    "kill",
    "merge",
    "mkdir",
    "modify",
    "move",
    "mv",
    "patch",
    "pay",
    "post",
    "publish",
    "pull",
    "purge",
    "push",
    "put",
    "rebase",
    "refund",
    "remove",
    "rename",
    "replace",
    "reply",
    "reset",
    "restart",
    "revert",
    "revoke",
    "rm",
    "save",
    "schedule",
    "send",
    "set",
    "shell",
    "spawn",
    "stop",
    "store",
    "submit",
    "switch",
    "sync",
    "terminal",
    "terminate",
    "touch",
    "transfer",
    "trigger",
    "truncate",
    "uninstall",
    "unlink",
    "update",
    "upload",
    "upsert",
    "wipe",
    "write",
];

/// The words of [`ReadOnly::read_words`] unless configured otherwise.
pub const DEFAULT_READ_WORDS: &[&str] = &[
    "browse", "cat", "count", "describe", "diff", "exists", "fetch", "find", "get", "glob", "grep",
    "info", "inspect", "list", "log", "lookup", "ls", "peek", "preview", "read", "search", "show",
    "stat", "status", "tree", "view",
];

/// The words of [`ReadOnly::sql_keys`] unless configured otherwise.
pub const DEFAULT_SQL_KEYS: &[&str] =
    &["sql", "query", "queries", "statement", "statements", "stmt"];

/// The SQL dialect of the tools matching a pattern.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolDialect {
    /// A tool pattern, e.g. `mcp__postgres__*`.
    pub tools: String,
    /// One of `generic`, `ansi`, `postgres`, `mysql`, `sqlite`, `mssql`,
    /// `duckdb`, `bigquery`, `snowflake`, `redshift`.
    pub dialect: String,
}

impl ToolDialect {
    /// Tools matching `tools` speak `dialect`.
    pub fn new(tools: impl Into<String>, dialect: impl Into<String>) -> Self {
        ToolDialect {
            tools: tools.into(),
            dialect: dialect.into(),
        }
    }
}

/// What the guard does with a tool it knows nothing about, in read-only mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownTools {
    /// Deny it: only what is known to read runs (fail closed).
    #[default]
    Deny,
    /// Let it run: only what is known to write is denied.
    Allow,
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|&item| item.to_owned()).collect()
}

impl Default for ReadOnly {
    fn default() -> Self {
        ReadOnly {
            enabled: false,
            metadata_key: "read_only".to_owned(),
            write_tools: Vec::new(),
            read_tools: Vec::new(),
            write_words: strings(DEFAULT_WRITE_WORDS),
            read_words: strings(DEFAULT_READ_WORDS),
            unknown_tools: UnknownTools::Deny,
            sql_keys: strings(DEFAULT_SQL_KEYS),
            shell_commands: Vec::new(),
            dialects: Vec::new(),
            allowed_functions: BTreeMap::new(),
        }
    }
}
