//! Judging SQL text: does it only read?
//!
//! Text passes only if, in every dialect it is judged in, it is made of
//! characters and tokens all databases read alike ([`lexical`](super::lexical)),
//! the parser accepts it, it holds at least one statement, and every node of
//! every statement is known to only read ([`tree`](super::tree)). Anything
//! else — text the parser cannot read included — counts as a write.

use std::fmt::{self, Write as _};

use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Tokenizer};

use super::dialect::Dialect;
use super::functions::AllowedFunctions;
use super::{forms, lexical, tree};

/// Why SQL text does not count as read-only, and in which dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// `None` when no dialect was involved (characters, for instance).
    pub(crate) dialect: Option<Dialect>,
    pub(crate) why: Why,
}

impl Refusal {
    /// Whether no dialect could read the text at all.
    pub(crate) fn is_unread(&self) -> bool {
        matches!(self.why, Why::Unparsable(_))
    }
}

/// What makes SQL text a write (or impossible to check).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Why {
    Empty,
    TooLong,
    Character {
        character: char,
        line: u64,
        column: u64,
    },
    Unparsable(String),
    HashComment {
        at: Location,
    },
    CommentLineBreak {
        at: Location,
    },
    NestedComment {
        at: Location,
    },
    ExecutableComment {
        at: Location,
    },
    Backslash {
        at: Location,
    },
    DollarQuote {
        at: Location,
    },
    Brackets {
        at: Location,
    },
    HiddenComment {
        at: Location,
    },
    UnquotedNonAscii {
        at: Location,
    },
    Unlocated {
        at: Location,
    },
    Statement(String),
    ReservedName(String),
    SelectInto,
    Locks,
    Function(String),
    QuotedFunction,
    Construct(&'static str),
}

/// `Ok` if `sql` only reads in `dialects`.
///
/// One dialect (configured for the tool) must parse the text. Several (none
/// configured) judge it together: each reads it by its own rules, and any
/// refusal refuses; a dialect whose parser cannot read it is left out, as its
/// database's grammar lacks what the text says (MySQL has no `interval '7
/// days'`), but at least one must read it. Characters and tokens databases
/// read differently are refused in every dialect either way.
pub(crate) fn judge(
    sql: &str,
    dialects: &[Dialect],
    functions: &AllowedFunctions,
) -> Result<(), Refusal> {
    lexical::check_characters(sql).map_err(|why| Refusal { dialect: None, why })?;
    // Parsing, walking and dropping a tree recurse once per level: give them
    // room whatever stack the caller runs on (`lexical::MAX_TOKENS` bounds the depth).
    stacker::maybe_grow(1536 * 1024, 8 * 1024 * 1024, || {
        let mut unread = None;
        let mut read = false;
        for &dialect in dialects {
            match judge_in(sql, dialect, dialects, functions) {
                Ok(()) => read = true,
                Err(Judged::Unread(why)) if dialects.len() > 1 => {
                    unread.get_or_insert(Refusal {
                        dialect: Some(dialect),
                        why,
                    });
                }
                Err(Judged::Unread(why) | Judged::Refused(why)) => {
                    return Err(Refusal {
                        dialect: Some(dialect),
                        why,
                    });
                }
            }
        }
        match unread {
            Some(refusal) if !read => Err(refusal),
            _ => Ok(()),
        }
    })
}

/// Why one dialect did not pass the text.
enum Judged {
    /// Its tokenizer or parser could not read it.
    Unread(Why),
    /// It read it, and found something that is not known to only read.
    Refused(Why),
}

fn judge_in(
    sql: &str,
    dialect: Dialect,
    scope: &[Dialect],
    functions: &AllowedFunctions,
) -> Result<(), Judged> {
    let rules = dialect.rules();
    let tokens = Tokenizer::new(rules, sql)
        .tokenize_with_location()
        .map_err(|error| {
            Judged::Unread(Why::Unparsable(parse_problem(
                &error.message,
                Some(error.location),
            )))
        })?;
    lexical::check_tokens(sql, &tokens, dialect).map_err(Judged::Refused)?;
    if scope.len() > 1 {
        lexical::check_unquoted_ascii(&tokens).map_err(Judged::Refused)?;
    }
    let statements = Parser::new(rules)
        .with_tokens_with_locations(forms::standard(tokens))
        .parse_statements()
        .map_err(|error| Judged::Unread(Why::Unparsable(parser_problem(&error))))?;
    if statements.is_empty() {
        return Err(Judged::Refused(Why::Empty));
    }
    tree::check(&statements, dialect, scope, functions).map_err(Judged::Refused)
}

fn parser_problem(error: &ParserError) -> String {
    match error {
        ParserError::RecursionLimitExceeded => "it nests too deeply".to_owned(),
        ParserError::TokenizerError(message) | ParserError::ParserError(message) => {
            parse_problem(message, None)
        }
    }
}

/// The parser's complaint without the text it quotes (which may be a
/// secret): what it expected, and where.
fn parse_problem(message: &str, location: Option<Location>) -> String {
    let (message, at) = match message.rfind(" at Line: ") {
        Some(index) => (&message[..index], Some(&message[index + 1..])),
        None => (message, None),
    };
    let expected = message
        .strip_prefix("Expected: ")
        .map(|rest| rest.split(", found:").next().unwrap_or(rest));
    let mut problem = match expected {
        Some(expected) => format!("expected {expected}"),
        None if message.starts_with("Unterminated") => message.to_ascii_lowercase(),
        None => "it is not valid SQL".to_owned(),
    };
    match (location, at) {
        (Some(location), _) => {
            let _ = write!(
                problem,
                ", at line {}, column {}",
                location.line, location.column
            );
        }
        (None, Some(at)) => {
            let _ = write!(problem, ", {}", at.to_ascii_lowercase().replace(':', ""));
        }
        (None, None) => {}
    }
    problem
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.why, f)?;
        if let Some(dialect) = self.dialect {
            write!(f, " (read as {dialect} SQL)")?;
        }
        Ok(())
    }
}

impl fmt::Display for Why {
    #[allow(clippy::too_many_lines)] // one arm per refusal, each its own sentence
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |f: &mut fmt::Formatter<'_>, at: &Location| {
            write!(f, " (line {}, column {})", at.line, at.column)
        };
        match self {
            Why::Empty => f.write_str("it holds no statement"),
            Why::TooLong => write!(
                f,
                "it has more than {} words and symbols (or {} bytes), too many to check",
                lexical::MAX_TOKENS,
                lexical::MAX_BYTES
            ),
            Why::Character {
                character,
                line,
                column,
            } => write!(
                f,
                "it contains U+{:04X} at line {line}, column {column}: control, invisible and \
                 non-ASCII space characters are read differently by different databases",
                u32::from(*character)
            ),
            Why::Unparsable(problem) => write!(
                f,
                "it cannot be parsed ({problem}), and SQL that cannot be checked counts as a write"
            ),
            Why::HashComment { at: location } => {
                f.write_str("it has a `#` or `//` comment, which is code outside MySQL")?;
                at(f, location)
            }
            Why::CommentLineBreak { at: location } => {
                f.write_str(
                    "a `--` comment holds a carriage return, vertical tab or form feed, \
                     which ends it in some databases and not in others",
                )?;
                at(f, location)
            }
            Why::UnquotedNonAscii { at: location } => {
                f.write_str(
                    "it has a symbol outside ASCII outside quotes: databases disagree on \
                     which such symbols belong to a name (quote the name, or configure the \
                     tool's dialect)",
                )?;
                at(f, location)
            }
            Why::NestedComment { at: location } => {
                f.write_str(
                    "a `/* */` comment holds `/*`: some databases nest comments and others do not",
                )?;
                at(f, location)
            }
            Why::ExecutableComment { at: location } => {
                f.write_str("a `/*! */` comment is run as SQL by MySQL and MariaDB")?;
                at(f, location)
            }
            Why::Backslash { at: location } => {
                f.write_str(
                    "a quoted string or name has a backslash before a quote: databases disagree \
                     on where it ends (double a quote to escape it)",
                )?;
                at(f, location)
            }
            Why::DollarQuote { at: location } => {
                f.write_str(
                    "`$name$` quotes a string in PostgreSQL and is a name or a parameter \
                     elsewhere: it is read only where the dialect is known to quote with it",
                )?;
                at(f, location)
            }
            Why::Brackets { at: location } => {
                f.write_str(
                    "a `[name]` holds `]]`, the end of the name to SQLite and a `]` to SQL Server",
                )?;
                at(f, location)
            }
            Why::HiddenComment { at: location } => {
                f.write_str(
                    "`--` or `/*` follows an operator: PostgreSQL starts a comment there, \
                     other readers an operator (put a space before it)",
                )?;
                at(f, location)
            }
            Why::Unlocated { at: location } => {
                f.write_str("a `/*! */` hint or a token could not be placed in the text")?;
                at(f, location)
            }
            Why::Statement(kind) => write!(
                f,
                "it runs a `{kind}` statement; only queries, EXPLAIN of a query, SHOW, \
                 DESCRIBE and reporting PRAGMAs read"
            ),
            Why::ReservedName(word) => write!(
                f,
                "it uses `{word}` as a column, a word PostgreSQL reserves (`SELECT INTO t` \
                 creates a table there): quote the name if it is one"
            ),
            Why::SelectInto => f.write_str("`SELECT ... INTO` stores its rows"),
            Why::Locks => f.write_str("`FOR UPDATE` / `FOR SHARE` locks rows"),
            Why::Function(name) => {
                let shown: String = name.chars().take(64).collect();
                write!(
                    f,
                    "it calls `{shown}`, which is not on the list of read-only functions \
                     (`allowed_functions` adds one)"
                )
            }
            Why::QuotedFunction => f.write_str(
                "it calls a function by a quoted name, which no list of read-only functions matches",
            ),
            Why::Construct(what) => write!(f, "it uses {what}, not known to only read"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{Dialect, Why, judge};
    use crate::read_only::functions::AllowedFunctions;

    /// Text, where it is judged, and what its refusal must be.
    type Case = (&'static str, &'static [Dialect], fn(&Why) -> bool);

    fn why(sql: &str, dialects: &[Dialect]) -> Option<Why> {
        let functions = AllowedFunctions::new(&BTreeMap::new()).unwrap();
        judge(sql, dialects, &functions)
            .err()
            .map(|refusal| refusal.why)
    }

    #[test]
    fn each_rule_names_what_it_refused() {
        let postgres = &[Dialect::Postgres];
        let every = &Dialect::COMMON;
        let cases: [Case; 16] = [
            ("", every, |w| *w == Why::Empty),
            ("  ; -- nothing\n", postgres, |w| *w == Why::Empty),
            ("SELECT 1\u{200b}", every, |w| {
                matches!(
                    w,
                    Why::Character {
                        character: '\u{200b}',
                        ..
                    }
                )
            }),
            (
                "SELECT 'open",
                every,
                |w| matches!(w, Why::Unparsable(p) if p.starts_with("unterminated")),
            ),
            ("SELECT 1 -- a\rb", every, |w| {
                matches!(w, Why::CommentLineBreak { .. })
            }),
            ("SELECT 1 /* /* */ */", postgres, |w| {
                matches!(w, Why::NestedComment { .. })
            }),
            ("SELECT 1 /*! x */", postgres, |w| {
                matches!(w, Why::ExecutableComment { .. })
            }),
            ("SELECT 2 #-- x\n 3", postgres, |w| {
                matches!(w, Why::HiddenComment { .. })
            }),
            ("SELECT E'a\\'b'", postgres, |w| {
                matches!(w, Why::Backslash { .. })
            }),
            ("SELECT $1$x$1$", postgres, |w| {
                matches!(w, Why::DollarQuote { .. })
            }),
            ("SELECT 1; DROP TABLE t", every, |w| {
                *w == Why::Statement("DROP TABLE".into())
            }),
            ("SELECT INTO t FROM x", postgres, |w| {
                *w == Why::ReservedName("INTO".into())
            }),
            ("SELECT * INTO t FROM x", postgres, |w| {
                *w == Why::SelectInto
            }),
            ("SELECT * FROM t FOR SHARE", every, |w| *w == Why::Locks),
            ("SELECT NextVal('s')", every, |w| {
                *w == Why::Function("nextval".into())
            }),
            ("SELECT \"lower\"(x)", postgres, |w| {
                *w == Why::QuotedFunction
            }),
        ];
        for (sql, dialects, expected) in cases {
            let refused = why(sql, dialects);
            assert!(
                refused.as_ref().is_some_and(expected),
                "{sql:?}: {refused:?}"
            );
        }
    }

    #[test]
    fn reads_that_look_like_writes_pass() {
        for sql in [
            "SELECT 'DROP TABLE x; DELETE' AS note",
            "SELECT \"delete\" FROM t -- UPDATE in a comment\n",
            "SELECT 1 /* INSERT INTO x */",
            "SELECT 'it''s' FROM t",
            "SELECT update_time, deleted_at FROM t",
            "SELECT id -- key\r\nFROM t",
            "SELECT 1; SELECT 2;",
            "SELECT naïve FROM café",
        ] {
            assert_eq!(why(sql, &Dialect::COMMON), None, "{sql}");
        }
        assert_eq!(why("SELECT $$it's$$", &[Dialect::Postgres]), None);
        assert_eq!(why("SELECT 2 * -- times\n 3", &[Dialect::Postgres]), None);
    }
}
