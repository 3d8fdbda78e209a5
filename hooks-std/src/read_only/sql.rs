//! Telling read-only SQL from SQL that writes, without a database.
//!
//! A statement is read-only only if it starts with a reading keyword
//! (`SELECT`, `WITH`, `SHOW`, `EXPLAIN`, ...) and no word in it is a writing
//! keyword (`INSERT`, `UPDATE`, `DELETE`, `INTO`, `CREATE`, ...) or a known
//! side-effecting function (`nextval`, `pg_terminate_backend`, ...). Words
//! inside string literals, quoted identifiers and comments are skipped — but
//! only where every common dialect agrees they are inert, because a quoting
//! rule one dialect has and another lacks is how a second statement hides:
//!
//! - a backslash never escapes a quote (in PostgreSQL `'a\'` is a whole string);
//! - `--` starts a comment only before white space (MySQL's rule; `1--1` is arithmetic there);
//! - `#`, `/*! ... */` (MySQL runs it), `$$ ... $$` and `[ ... ]` are read as code.
//!
//! What it cannot read (an unterminated string, no statement at all) counts as
//! a write. It is a guard, not a sandbox: give the agent a read-only database role too.

/// Keywords a read-only statement may start with.
const READING_STARTS: [&str; 8] = [
    "SELECT", "WITH", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "VALUES", "TABLE",
];

/// Words that make any statement a write.
const WRITING_WORDS: [&str; 40] = [
    "INSERT",
    "UPDATE",
    "DELETE",
    "MERGE",
    "UPSERT",
    "REPLACE",
    "INTO",
    "DROP",
    "ALTER",
    "CREATE",
    "TRUNCATE",
    "RENAME",
    "GRANT",
    "REVOKE",
    "COPY",
    "CALL",
    "EXEC",
    "EXECUTE",
    "DO",
    "LOCK",
    "VACUUM",
    "REINDEX",
    "CLUSTER",
    "ATTACH",
    "DETACH",
    "COMMENT",
    "REFRESH",
    "IMPORT",
    "LOAD",
    "SET",
    "RESET",
    "DISCARD",
    "NOTIFY",
    "PREPARE",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "PRAGMA",
    "OUTFILE",
];

/// Functions with side effects that a `SELECT` can call.
const WRITING_FUNCTIONS: [&str; 12] = [
    "NEXTVAL",
    "SETVAL",
    "PG_TERMINATE_BACKEND",
    "PG_CANCEL_BACKEND",
    "PG_RELOAD_CONF",
    "SET_CONFIG",
    "LO_IMPORT",
    "LO_EXPORT",
    "LO_UNLINK",
    "DBLINK_EXEC",
    "PG_ADVISORY_LOCK",
    "PG_SLEEP",
];

/// Why SQL is not read-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Write<'a> {
    /// It contains this writing keyword or function.
    Word(&'a str),
    /// A statement starts with this keyword, which is not a reading one.
    Starts(&'a str),
    /// There is no statement.
    Empty,
    /// A string, quoted identifier or comment is never closed.
    Unterminated,
}

/// `Ok` if every statement in `sql` only reads; otherwise why not.
pub(crate) fn check(sql: &str) -> Result<(), Write<'_>> {
    let mut tokens = Tokens { sql, at: 0 };
    let mut statements = 0;
    let mut at_statement_start = true;
    while let Some(token) = tokens.next() {
        let word = match token {
            Token::Word(word) => word,
            Token::Separator => {
                at_statement_start = true;
                continue;
            }
            // `(SELECT ...)`: the parenthesis does not start the statement.
            Token::Open => continue,
            Token::Other => {
                at_statement_start = false;
                continue;
            }
            Token::Unterminated => return Err(Write::Unterminated),
        };
        if at_statement_start {
            statements += 1;
            at_statement_start = false;
            if !READING_STARTS
                .iter()
                .any(|start| start.eq_ignore_ascii_case(word))
            {
                return Err(Write::Starts(word));
            }
        }
        if WRITING_WORDS
            .iter()
            .any(|writing| writing.eq_ignore_ascii_case(word))
            || WRITING_FUNCTIONS
                .iter()
                .any(|function| function.eq_ignore_ascii_case(word))
        {
            return Err(Write::Word(word));
        }
    }
    if statements == 0 {
        Err(Write::Empty)
    } else {
        Ok(())
    }
}

enum Token<'a> {
    Word(&'a str),
    Separator,
    Open,
    Other,
    Unterminated,
}

/// The tokens of SQL that matter here; allocates nothing.
struct Tokens<'a> {
    sql: &'a str,
    at: usize,
}

impl<'a> Tokens<'a> {
    fn next(&mut self) -> Option<Token<'a>> {
        let bytes = self.sql.as_bytes();
        loop {
            let &byte = bytes.get(self.at)?;
            let rest = &bytes[self.at..];
            match byte {
                b if b.is_ascii_whitespace() => self.at += 1,
                b';' => {
                    self.at += 1;
                    return Some(Token::Separator);
                }
                b'(' => {
                    self.at += 1;
                    return Some(Token::Open);
                }
                b'-' if rest.starts_with(b"--")
                    && rest.get(2).is_none_or(u8::is_ascii_whitespace) =>
                {
                    self.skip_past(b"\n");
                }
                b'/' if rest.starts_with(b"/*") && !rest.starts_with(b"/*!") => {
                    self.at += 2;
                    if !self.skip_past(b"*/") {
                        return Some(Token::Unterminated);
                    }
                }
                b'\'' | b'"' | b'`' => {
                    self.at += 1;
                    if !self.skip_quoted(byte) {
                        return Some(Token::Unterminated);
                    }
                    return Some(Token::Other);
                }
                b if b.is_ascii_alphabetic() || b == b'_' => {
                    let start = self.at;
                    while bytes
                        .get(self.at)
                        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
                    {
                        self.at += 1;
                    }
                    return Some(Token::Word(&self.sql[start..self.at]));
                }
                _ => {
                    // A digit, an operator, or a byte of a non-ASCII character.
                    self.at += 1;
                    return Some(Token::Other);
                }
            }
        }
    }

    /// Moves past the next `end`, or to the end of input; whether `end` was found.
    fn skip_past(&mut self, end: &[u8]) -> bool {
        let rest = &self.sql.as_bytes()[self.at..];
        match rest.windows(end.len()).position(|window| window == end) {
            Some(offset) => {
                self.at += offset + end.len();
                true
            }
            None => {
                self.at = self.sql.len();
                false
            }
        }
    }

    /// Moves past a run closed by `quote`, where only a doubled quote escapes.
    fn skip_quoted(&mut self, quote: u8) -> bool {
        let bytes = self.sql.as_bytes();
        while let Some(&byte) = bytes.get(self.at) {
            self.at += 1;
            if byte == quote {
                if bytes.get(self.at) == Some(&quote) {
                    self.at += 1;
                } else {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::{Write, check};

    #[test]
    fn plain_reads_are_read_only() {
        for sql in [
            "SELECT * FROM orders",
            "  select id from users where name = 'x' limit 5;",
            "WITH recent AS (SELECT * FROM orders) SELECT count(*) FROM recent",
            "(SELECT 1) UNION (SELECT 2)",
            "EXPLAIN SELECT 1",
            "EXPLAIN ANALYZE SELECT 1",
            "SHOW tables",
            "DESCRIBE orders",
            "VALUES (1), (2)",
            "SELECT 1; SELECT 2;",
            "SELECT update_time, deleted_at, created_by FROM t",
            "SELECT 'DROP TABLE x; DELETE' AS note",
            "SELECT \"delete\", `insert` FROM t -- UPDATE in a comment\n",
            "SELECT 1 /* INSERT INTO x */",
            "SELECT 'it''s' FROM t",
            "SELECT 1--1",
            "SELECT naïve FROM café",
        ] {
            assert_eq!(check(sql), Ok(()), "{sql}");
        }
    }

    #[test]
    fn writes_are_caught_wherever_they_hide() {
        for (sql, why) in [
            ("UPDATE orders SET x = 1", Write::Starts("UPDATE")),
            ("delete from orders", Write::Starts("delete")),
            ("SELECT 1; DROP TABLE orders", Write::Starts("DROP")),
            ("SELECT * INTO backup FROM orders", Write::Word("INTO")),
            (
                "WITH gone AS (DELETE FROM orders RETURNING *) SELECT * FROM gone",
                Write::Word("DELETE"),
            ),
            ("SELECT * FROM orders FOR UPDATE", Write::Word("UPDATE")),
            ("SELECT nextval('order_ids')", Write::Word("nextval")),
            (
                "SELECT pg_terminate_backend(42)",
                Write::Word("pg_terminate_backend"),
            ),
            ("EXPLAIN ANALYZE DELETE FROM orders", Write::Word("DELETE")),
            ("PRAGMA journal_mode = WAL", Write::Starts("PRAGMA")),
            ("BEGIN; SELECT 1; COMMIT", Write::Starts("BEGIN")),
            // Dialect gaps: each is inert somewhere and runs somewhere else.
            ("SELECT 'a\\'; DROP TABLE t; --'", Write::Starts("DROP")),
            ("SELECT 1 --1; DROP TABLE t", Write::Starts("DROP")),
            ("SELECT 1 # x; DROP TABLE t", Write::Starts("DROP")),
            ("SELECT 1 /*! ; DROP TABLE t */", Write::Starts("DROP")),
            ("SELECT $$ ; DELETE FROM t; $$", Write::Starts("DELETE")),
            ("SELECT [x]; DROP TABLE t; --]", Write::Starts("DROP")),
        ] {
            assert_eq!(check(sql), Err(why), "{sql}");
        }
    }

    #[test]
    fn what_cannot_be_read_counts_as_a_write() {
        assert_eq!(check(""), Err(Write::Empty));
        assert_eq!(check("  ;  -- nothing\n"), Err(Write::Empty));
        assert_eq!(check("SELECT 'open"), Err(Write::Unterminated));
        assert_eq!(check("SELECT 1 /* open"), Err(Write::Unterminated));
        assert_eq!(check("SELECT \"open"), Err(Write::Unterminated));
    }
}
