//! Ordinary reads the parser has no grammar for, put in a form it has, and
//! what text looks like before any parser reads it.
//!
//! - `TABLE t` (PostgreSQL, MySQL) is `SELECT * FROM t`;
//! - `PRAGMA table_info(t)` (SQLite) names its table unquoted, where the
//!   parser takes only a string: `PRAGMA table_info('t')`.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

/// `tokens`, with each statement in one of the forms above rewritten.
pub(crate) fn standard(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out = Vec::with_capacity(tokens.len() + 4);
    let mut at_start = true;
    let mut pragma = Pragma::No;
    for token in tokens {
        if matches!(token.token, Token::Whitespace(_)) {
            out.push(token);
            continue;
        }
        let span = token.span;
        match &token.token {
            Token::Word(word) if at_start && word.keyword == Keyword::TABLE => {
                for replacement in [
                    Token::make_keyword("SELECT"),
                    Token::Whitespace(Whitespace::Space),
                    Token::Mul,
                    Token::Whitespace(Whitespace::Space),
                    Token::make_keyword("FROM"),
                ] {
                    out.push(TokenWithSpan::new(replacement, span));
                }
                at_start = false;
                continue;
            }
            Token::Word(word) if at_start && word.keyword == Keyword::PRAGMA => {
                pragma = Pragma::Name;
            }
            Token::LParen if pragma == Pragma::Name => pragma = Pragma::Argument,
            Token::Word(word) if pragma == Pragma::Argument && word.quote_style.is_none() => {
                let value = Token::SingleQuotedString(word.value.clone());
                out.push(TokenWithSpan::new(value, span));
                pragma = Pragma::No;
                at_start = false;
                continue;
            }
            Token::Word(_) | Token::Period if pragma == Pragma::Name => {}
            _ => pragma = Pragma::No,
        }
        at_start = matches!(token.token, Token::SemiColon);
        out.push(token);
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pragma {
    No,
    /// After `PRAGMA`, in its (maybe qualified) name.
    Name,
    /// After `PRAGMA name(`.
    Argument,
}

/// Words a statement starts with in some database. Text that starts with
/// none of them and that no dialect can parse is no SQL any database runs:
/// a search (`how to delete a git branch`) in an argument named `query`.
const STATEMENT_STARTS: &[&str] = &[
    "abort",
    "alter",
    "analyse",
    "analyze",
    "attach",
    "backup",
    "begin",
    "bulk",
    "cache",
    "call",
    "checkpoint",
    "close",
    "cluster",
    "comment",
    "commit",
    "copy",
    "create",
    "deallocate",
    "declare",
    "delete",
    "desc",
    "describe",
    "detach",
    "discard",
    "do",
    "drop",
    "end",
    "exec",
    "execute",
    "explain",
    "export",
    "fetch",
    "flush",
    "from",
    "grant",
    "handler",
    "import",
    "insert",
    "install",
    "kill",
    "list",
    "listen",
    "load",
    "lock",
    "merge",
    "move",
    "msck",
    "notify",
    "open",
    "optimize",
    "pragma",
    "prepare",
    "purge",
    "reassign",
    "refresh",
    "reindex",
    "release",
    "rename",
    "repair",
    "replace",
    "reset",
    "restore",
    "revoke",
    "rollback",
    "savepoint",
    "security",
    "select",
    "set",
    "show",
    "shutdown",
    "start",
    "summarize",
    "table",
    "truncate",
    "uncache",
    "unlisten",
    "unload",
    "unlock",
    "update",
    "upsert",
    "use",
    "vacuum",
    "values",
    "waitfor",
    "with",
];

/// Whether `text`'s first word (after white space, comments and opening
/// parentheses) starts a statement in some database.
pub(crate) fn starts_like_sql(text: &str) -> bool {
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '(' || c == ';');
        if let Some(comment) = trimmed.strip_prefix("--") {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(comment) = trimmed.strip_prefix("/*") {
            rest = comment.split_once("*/").map_or("", |(_, after)| after);
        } else if let Some(comment) = trimmed.strip_prefix('#') {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else {
            rest = trimmed;
            break;
        }
    }
    let word: &str = rest
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or("");
    // One word alone may be a stored procedure a T-SQL batch runs by its
    // bare name (`sp_who`): only prose of several words is no SQL.
    rest.is_empty()
        || STATEMENT_STARTS
            .iter()
            .any(|start| start.eq_ignore_ascii_case(word))
        || !rest.starts_with(|c: char| c.is_alphabetic())
        || !rest.trim_end().contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use sqlparser::dialect::GenericDialect;
    use sqlparser::tokenizer::Tokenizer;

    use super::*;

    fn standard_text(sql: &str) -> String {
        let tokens = Tokenizer::new(&GenericDialect, sql)
            .tokenize_with_location()
            .unwrap();
        standard(tokens)
            .iter()
            .map(|t| t.token.to_string())
            .collect()
    }

    #[test]
    fn table_and_pragma_take_forms_the_parser_reads() {
        assert_eq!(standard_text("TABLE t"), "SELECT * FROM t");
        assert_eq!(
            standard_text("table s.t; /* c */ TABLE u"),
            "SELECT * FROM s.t; /* c */ SELECT * FROM u"
        );
        assert_eq!(
            standard_text("SELECT table_x FROM t"),
            "SELECT table_x FROM t"
        );
        assert_eq!(
            standard_text("PRAGMA table_info(t)"),
            "PRAGMA table_info('t')"
        );
        assert_eq!(
            standard_text("PRAGMA main.index_list(t)"),
            "PRAGMA main.index_list('t')"
        );
        assert_eq!(
            standard_text("PRAGMA user_version = 7"),
            "PRAGMA user_version = 7"
        );
        assert_eq!(standard_text("SELECT f(t)"), "SELECT f(t)");
    }

    #[test]
    fn prose_does_not_start_like_sql() {
        for prose in [
            "how to delete a git branch",
            "What's new in Rust?",
            "rust async book",
        ] {
            assert!(!starts_like_sql(prose), "{prose}");
        }
        for sql in [
            "SELECT 1",
            "  -- c\n  delete from t",
            "/* x */ (select 1)",
            "# c\nDROP TABLE t",
            "Explain how rebase works",
            "",
            "'quoted'",
            "@x",
            "sp_who",
        ] {
            assert!(starts_like_sql(sql), "{sql}");
        }
    }
}
