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
//! While it is on, each call is judged in this order (tool names and patterns
//! compared in lowercase):
//!
//! 1. a tool matching [`ReadOnly::write_tools`] (`*write*`, `*delete*`,
//!    `*update*`, `Bash`, ...) is denied, whatever it carries;
//! 2. a call carrying SQL — any argument named in [`ReadOnly::sql_args`]
//!    (`query`, `sql`, `statement`), whatever the tool is called — runs only if
//!    every such argument is text that only reads. Tools whose arguments are
//!    never SQL ([`ReadOnly::sql_free_tools`]: `WebSearch`, `Grep`, ...) skip
//!    this step: their `query` is a search;
//! 3. a tool matching [`ReadOnly::read_tools`] (`*read*`, `*get*`, `*list*`,
//!    `*search*`, `Grep`, `WebFetch`, ...) runs;
//! 4. any other tool follows [`ReadOnly::unknown_tools`]: denied by default.
//!
//! # What counts as SQL that only reads
//!
//! SQL is parsed with [`sqlparser`], in the dialect [`ReadOnly::dialects`]
//! gives the tool, or — when none is given — in each common dialect
//! (generic, postgres, mysql, sqlite, mssql), which must all parse it and
//! agree. Text passes only if:
//!
//! - it holds one or more statements, each a query (`SELECT`, `VALUES`,
//!   `WITH ... SELECT`), `EXPLAIN` of one (with `ANALYZE` too: the query is
//!   what runs), `SHOW ...` or `DESCRIBE`. Any other statement — or one the
//!   parser does not know — is a write; several statements pass only if
//!   every one reads;
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
//!   only in dialects that have them;
//! - it has at most 10,000 words and symbols, and 1 MiB.
//!
//! Text that cannot be parsed counts as a write, and so does a SQL argument
//! that is not a string.
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
//! // Tools without SQL: by name.
//! let mut write = PreToolUse::new(&frozen, "mcp__fs__write_file", json!({"path": "a"}));
//! assert!(hooks.dispatch(&mut write).await.is_denied());
//! let mut grep = PreToolUse::new(&frozen, "Grep", json!({"pattern": "TODO"}));
//! assert!(hooks.dispatch(&mut grep).await.is_continue());
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

mod config;
mod dialect;
mod functions;
mod guard;
mod lexical;
mod sql;
mod tools;
mod tree;

pub use config::{ReadOnly, ToolDialect, UnknownTools};
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
            sql_args: vec!["query".into(), String::new()],
            ..ReadOnly::default()
        });
        assert!(error.contains("`sql_args`: entry 2 is empty"), "{error}");
        let error = refused(ReadOnly {
            metadata_key: String::new(),
            ..ReadOnly::default()
        });
        assert!(error.contains("`metadata_key` cannot be empty"), "{error}");
    }
}
