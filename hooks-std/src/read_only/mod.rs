//! **read-only**: while read-only mode is on, calls that may write are denied.
//!
//! The guard's policy is a [`ReadOnlyGuard`], state of the dispatcher that runs
//! it, compiled from a [`ReadOnly`] configuration. Read-only mode is on when
//! any of these says so — and *unknown* counts as on:
//!
//! - code: [`ReadOnlyGuard::set_enabled`], a switch of that dispatcher;
//! - configuration: [`ReadOnly::enabled`];
//! - the session: metadata `read_only` (the key is [`ReadOnly::metadata_key`])
//!   is `true`; a value that is not a boolean (`"yes"`, `null`) turns it on too.
//!
//! While it is on, each call is judged from what is *known* about the tool —
//! the dispatcher's [`ToolCatalog`](hooks_core::ToolCatalog), filled from
//! where the tool is defined (an MCP server's annotations, a rig definition,
//! Claude Code's own tools, `.tools(..)`, `[tools.NAME]`) — and only then
//! from guesses, which may refuse what a fact would allow but never allow
//! what a fact refuses:
//!
//! 1. every argument the catalog declares as SQL ([`ArgRole::Sql`](hooks_core::ArgRole))
//!    is judged, every string in it, strictly;
//! 2. a tool matching [`ReadOnly::write_tools`] is denied; a tool with a
//!    declared shell argument ([`ArgRole::Shell`](hooks_core::ArgRole), as
//!    Claude Code's `Bash`) runs if [`ReadOnly::shell_commands`] allows every
//!    command bash would run in it, and is denied if not; a tool declared
//!    destructive, or declared to write (by any source), is denied;
//! 3. a tool declared to only read — by a trusted source: not the
//!    annotations of an MCP server nobody said to trust — runs without its
//!    other arguments being judged, and so does one matching
//!    [`ReadOnly::read_tools`], or one whose declared SQL only reads;
//! 4. for a tool nothing declares: a writing word in its name
//!    ([`ReadOnly::write_words`]: `git_add`, `WriteFile`; words are whole, so
//!    `reply_to_thread` holds no `read`, and the namespace before the last
//!    `__` is left out, so `repo-reader__git_add` is `git_add`) denies;
//!    then every string under an argument key that names SQL
//!    ([`ReadOnly::sql_keys`]: `query`, `Query`, `sql_query`,
//!    `params.query`, `queries[1]`, at any depth) must be SQL that only
//!    reads, or prose (text no dialect reads that starts with no
//!    statement word: a search); then SQL that only reads, or a reading
//!    word in the name ([`ReadOnly::read_words`]: `git_status`,
//!    `directory_tree`), lets it run;
//! 5. anything else follows [`ReadOnly::unknown_tools`]: denied by default,
//!    with a message saying how to declare the tool.
//!
//! # What counts as SQL that only reads
//!
//! SQL is parsed with [`sqlparser`], in the dialect [`ReadOnly::dialects`]
//! gives the tool, or — when none is given — in each common dialect
//! (generic, postgres, mysql, sqlite, mssql) at once: every dialect whose
//! parser reads it must agree that it only reads, and at least one must
//! read it (a database whose grammar lacks a construct, like MySQL's lack
//! of `interval '7 days'`, refuses the text); a function passes if one of
//! those databases lists it. Text passes only if:
//!
//! - it holds one or more statements, each a query (`SELECT`, `VALUES`,
//!   `WITH ... SELECT`, `TABLE t`), `EXPLAIN` of one (with `ANALYZE` too: the
//!   query is what runs), `SHOW ...`, `DESCRIBE`, or a SQLite/DuckDB `PRAGMA`
//!   that only reports (`table_info(t)`, `index_list(t)`, `table_list`, ...,
//!   never with `=`). Any other statement — or one the parser does not know —
//!   is a write; several statements pass only if every one reads;
//! - no part of any statement writes or locks: no data-modifying CTE
//!   (`WITH x AS (DELETE ...)`), no `SELECT ... INTO` (nor `SELECT INTO t`,
//!   which the parser would read as a column named `INTO`: a word PostgreSQL
//!   reserves is never accepted as a bare column), no `FOR UPDATE` /
//!   `FOR SHARE`, no `:=`, no `seq.nextval`;
//! - every function it calls, anywhere (subqueries, CTEs, joins, `FROM`,
//!   window specifications, `ORDER BY`, `LIMIT`, `VALUES`, ...), is on the
//!   dialect's list of read-only functions or in
//!   [`ReadOnly::allowed_functions`]. `nextval`, `dblink`, `lo_import`,
//!   `pg_read_file`, `set_config`, `load_extension`, ... are on no list; a
//!   function called by a quoted name (`"lower"`, `U&"..."`) never matches;
//!   a table named by a string (`FROM 'x.csv'`, a file to some databases) is refused;
//! - it holds nothing databases read differently, so a statement cannot hide
//!   in what one of them takes for a comment or a string: no control,
//!   invisible or non-ASCII space characters; no `--` comment holding a lone
//!   carriage return; no nested `/* */` comment; no `/*! */`, `#` or `//`
//!   comment; no `--` or `/*` glued to an operator (`#--` is an operator and
//!   a comment to PostgreSQL); no backslash before a quote inside quotes
//!   (double the quote instead); no `]]` inside `[brackets]`; `$$` strings
//!   only in dialects that have them; with no dialect configured, no symbol
//!   outside ASCII outside quotes (`1；` is a name to MySQL);
//! - it has at most 10,000 words and symbols, and 1 MiB.
//!
//! Text that cannot be parsed counts as a write — unless it sits under a key
//! only guessed to hold SQL and reads as prose. Values that are not strings
//! (numbers, `null`) hold no SQL; every string inside an array or object
//! under a SQL key is judged.
//!
//! ```
//! use hooks_core::prelude::*;
//! use hooks_std::read_only::{ReadOnly, ReadOnlyGuard, ToolDialect};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let guard = ReadOnlyGuard::new(ReadOnly {
//!     dialects: vec![ToolDialect::new("mcp__postgres__*", "postgres")],
//!     ..ReadOnly::default()
//! })?;
//! let hooks = Hooks::builder()
//!     .only(["hooks_std::read_only::guard"])
//!     .state(guard)
//!     .build()?;
//! let frozen = Session::new("s").with_metadata("read_only", true);
//! let query = |sql: &str| PreToolUse::new(&frozen, "mcp__postgres__query", json!({"sql": sql}));
//!
//! let mut select = query("SELECT date_trunc('day', paid_at), count(*) FROM orders GROUP BY 1");
//! assert!(hooks.dispatch(&mut select).await.is_continue());
//!
//! let mut hidden = query("SELECT E'x\\''; DELETE FROM orders; --'");
//! let outcome = hooks.dispatch(&mut hidden).await;
//! assert!(outcome.denial().unwrap().reason().contains("backslash before a quote"));
//!
//! let mut remote = query("SELECT * FROM dblink('db', 'DELETE FROM orders') AS t(n int)");
//! let outcome = hooks.dispatch(&mut remote).await;
//! assert!(outcome.denial().unwrap().reason().contains("it calls `dblink`"));
//!
//! // Tools nothing declares: by the words of their names.
//! let mut write = PreToolUse::new(&frozen, "mcp__fs__write_file", json!({"path": "a"}));
//! assert!(hooks.dispatch(&mut write).await.is_denied());
//! let mut grep = PreToolUse::new(&frozen, "Grep", json!({"pattern": "TODO"}));
//! assert!(hooks.dispatch(&mut grep).await.is_continue());
//! let mut reply = PreToolUse::new(&frozen, "reply_to_thread", json!({}));
//! assert!(hooks.dispatch(&mut reply).await.is_denied()); // `thread` is no `read`
//!
//! // This dispatcher's switch: every session, from now on.
//! hooks.state::<ReadOnlyGuard>().unwrap().set_enabled(true);
//! let mut delete = PreToolUse::new(&Session::new("t"), "DeleteUser", json!({}));
//! assert!(hooks.dispatch(&mut delete).await.is_denied());
//! # Ok(())
//! # }
//! ```
//!
//! The guard judges text, not the database: it cannot see what a view, a
//! trigger, a user-defined operator or cast, or a listed function's overload
//! does there, nor the server's settings. A wrongly configured dialect is a
//! hole: text is read by that dialect's rules. Give the agent a read-only
//! database role as well.
//!
//! Judging a call without SQL allocates nothing unless it denies; parsing SQL allocates.

mod arguments;
mod config;
mod dialect;
mod forms;
mod functions;
mod guard;
mod lexical;
mod sql;
mod tools;
mod tree;
mod words;

pub use config::{
    DEFAULT_READ_WORDS, DEFAULT_SQL_KEYS, DEFAULT_WRITE_WORDS, ReadOnly, ToolDialect, UnknownTools,
};
pub use guard::ReadOnlyGuard;

use hooks_core::prelude::*;

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
        let refused = |config: ReadOnly| ReadOnlyGuard::new(config).err().unwrap().to_string();
        let error = refused(ReadOnly {
            write_tools: vec!["^write".into()],
            ..ReadOnly::default()
        });
        assert!(
            error.starts_with("read-only configuration: `write_tools`: bad pattern \"^write\""),
            "{error}"
        );
        let error = refused(ReadOnly {
            dialects: vec![ToolDialect::new("sql_*", "oracle")],
            ..ReadOnly::default()
        });
        assert!(
            error.starts_with(
                "read-only configuration: `dialects`: unknown dialect \"oracle\" for `sql_*`"
            ),
            "{error}"
        );
        let error = refused(ReadOnly {
            dialects: vec![ToolDialect::new("sql_(", "postgres")],
            ..ReadOnly::default()
        });
        assert!(
            error.contains("`dialects`: bad pattern \"sql_(\""),
            "{error}"
        );
        let error = refused(ReadOnly {
            sql_keys: vec!["query".into(), String::new()],
            ..ReadOnly::default()
        });
        assert!(
            error.contains("`sql_keys`: entry 2 (\"\") is not a word"),
            "{error}"
        );
        let error = refused(ReadOnly {
            read_words: vec!["Status".into()],
            ..ReadOnly::default()
        });
        assert!(
            error.contains("`read_words`: entry 1 (\"Status\") is not a word: write lowercase"),
            "{error}"
        );
        let error = refused(ReadOnly {
            metadata_key: String::new(),
            ..ReadOnly::default()
        });
        assert!(error.contains("`metadata_key` cannot be empty"), "{error}");
    }
}
