//! The read-only guard's configuration, as code and as the `[read_only]` table.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Configuration of the read-only guard (the `[read_only]` table of a config file).
///
/// Every field has a default; tool patterns use the `matches = "..."`
/// grammar (`x`, `x*`, `*x`, `*x*`, `a|b`, `Bash(rm *)`) and are matched
/// without regard to the case of tool names.
///
/// ```toml
/// [read_only]
/// enabled = false
/// unknown_tools = "deny"                  # or "allow"
/// sql_args = ["query", "sql", "statement"]
/// sql_free_tools = ["WebSearch", "mcp__brave__*"]   # their `query` is a search
///
/// [[read_only.dialects]]                  # the first entry matching a tool wins
/// tools = "mcp__postgres__*"
/// dialect = "postgres"
///
/// [read_only.allowed_functions]           # beyond the built-in read-only lists
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
    /// Patterns of tools that write. A tool matching one is denied whatever
    /// else it matches or carries. Default: `*write*`, `*edit*`, `*delete*`,
    /// `*create*`, `*update*`, `*insert*`, `*remove*`, `*drop*`, `*move*`,
    /// `*rename*`, `*upload*`, `*send*`, `*deploy*`, ... and `Bash`.
    pub write_tools: Vec<String>,
    /// Patterns of tools known to only read. Default: `*read*`, `*get*`,
    /// `*list*`, `*search*`, `Grep`, `Glob`, `LS`, `WebFetch`, `WebSearch`, ...
    pub read_tools: Vec<String>,
    /// What happens to a tool that is neither in `write_tools` nor in
    /// `read_tools` and carries no SQL. Default: [`UnknownTools::Deny`].
    pub unknown_tools: UnknownTools,
    /// Arguments holding SQL, whatever the tool is called: every one present
    /// must be a string that only reads. Default: `query`, `sql`, `statement`.
    pub sql_args: Vec<String>,
    /// Patterns of tools whose arguments are never SQL (a `query` there is a
    /// search), judged by name alone. Default: `Grep`, `Glob`, `Read`, `LS`,
    /// `WebFetch`, `WebSearch`.
    pub sql_free_tools: Vec<String>,
    /// The SQL dialect of tools, by pattern; the first match wins. A tool with
    /// none is judged in every common dialect (generic, postgres, mysql,
    /// sqlite, mssql), which must all agree. Default: none.
    pub dialects: Vec<ToolDialect>,
    /// Functions to trust beyond the built-in read-only lists, by dialect
    /// name, or `"*"` for every dialect. Default: none.
    pub allowed_functions: BTreeMap<String, Vec<String>>,
}

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
            write_tools: strings(&[
                "*write*",
                "*edit*",
                "*delete*",
                "*create*",
                "*update*",
                "*upsert*",
                "*insert*",
                "*replace*",
                "*remove*",
                "*drop*",
                "*truncate*",
                "*alter*",
                "*move*",
                "*rename*",
                "*upload*",
                "*send*",
                "*deploy*",
                "*publish*",
                "*commit*",
                "*push*",
                "*merge*",
                "*patch*",
                "*kill*",
                "*shell*",
                "*terminal*",
                "Bash",
                "Write",
                "Edit",
                "MultiEdit",
                "NotebookEdit",
                "str_replace_based_edit_tool",
            ]),
            read_tools: strings(&[
                "*read*",
                "*get*",
                "*list*",
                "*search*",
                "*find*",
                "*describe*",
                "*lookup*",
                "Read",
                "Grep",
                "Glob",
                "LS",
                "WebFetch",
                "WebSearch",
            ]),
            unknown_tools: UnknownTools::Deny,
            sql_args: strings(&["query", "sql", "statement"]),
            sql_free_tools: strings(&["Grep", "Glob", "Read", "LS", "WebFetch", "WebSearch"]),
            dialects: Vec::new(),
            allowed_functions: BTreeMap::new(),
        }
    }
}
