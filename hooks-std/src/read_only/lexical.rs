//! Text the parser reads one way and some database another way.
//!
//! The parser splits text into words, strings and comments by one dialect's
//! rules. Where databases disagree on those rules — where a comment ends,
//! whether comments nest, whether a backslash escapes a quote, what counts as
//! white space — a statement can hide inside what the parser took for a
//! comment or a string. Such text is refused whatever the dialect, so a
//! wrongly configured dialect (or a server setting such as PostgreSQL's
//! `standard_conforming_strings`) cannot open that door.

use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Whitespace};

use super::dialect::Dialect;
use super::sql::Why;

/// More words and symbols than this is refused: the parser builds one tree
/// level per operator of `a + b + c ...`, and walking or dropping a tree
/// deeper than the stack can hold would abort the agent.
pub(crate) const MAX_TOKENS: usize = 10_000;

/// Longer text is refused before it is read at all.
pub(crate) const MAX_BYTES: usize = 1 << 20;

/// Refuses characters that databases read differently (or that hide text).
pub(crate) fn check_characters(sql: &str) -> Result<(), Why> {
    if sql.len() > MAX_BYTES {
        return Err(Why::TooLong);
    }
    let mut line = 1;
    let mut column = 0;
    for c in sql.chars() {
        column += 1;
        if c == '\n' {
            line += 1;
            column = 0;
        } else if is_ambiguous(c) {
            return Err(Why::Character {
                character: c,
                line,
                column,
            });
        }
    }
    Ok(())
}

fn is_ambiguous(c: char) -> bool {
    match c {
        '\t' | '\n' | '\r' => false,
        // NUL ends the text for C clients; vertical tab and form feed end
        // comments in some databases; U+0085 is a line break to some.
        c if c.is_control() => true,
        // A word separator to the parser, a letter to PostgreSQL and SQLite.
        c if c.is_whitespace() && !c.is_ascii() => true,
        // Invisible: zero-width, direction and joiner marks, fillers, tags.
        '\u{00AD}'
        | '\u{034F}'
        | '\u{061C}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{17B4}'
        | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}'
        | '\u{3164}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}'
        | '\u{FFA0}'
        | '\u{FFF0}'..='\u{FFFB}'
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}' => true,
        _ => false,
    }
}

/// Refuses symbols outside ASCII anywhere but inside quotes and comments
/// (letters such as `é` are letters everywhere): databases disagree on
/// which of them may be part of a name (MySQL reads `1；` as one name,
/// PostgreSQL as `1` and then a name), so text judged in several dialects
/// at once could split into other statements where it runs.
pub(crate) fn check_unquoted_ascii(tokens: &[TokenWithSpan]) -> Result<(), Why> {
    let symbol = |c: char| !c.is_ascii() && !c.is_alphanumeric();
    for token in tokens {
        let unquoted = match &token.token {
            Token::Word(word) => word.quote_style.is_none() && word.value.contains(symbol),
            Token::Number(number, _) => number.contains(symbol),
            Token::Char(c) => symbol(*c),
            Token::Placeholder(name) => name.contains(symbol),
            _ => false,
        };
        if unquoted {
            return Err(Why::UnquotedNonAscii {
                at: token.span.start,
            });
        }
    }
    Ok(())
}

/// Refuses comments and quoted text whose end databases disagree on, and too many tokens.
pub(crate) fn check_tokens(
    sql: &str,
    tokens: &[TokenWithSpan],
    dialect: Dialect,
) -> Result<(), Why> {
    // Comments count: each is looked up below.
    let words = tokens
        .iter()
        .filter(|token| {
            !matches!(
                token.token,
                Token::Whitespace(Whitespace::Space | Whitespace::Newline | Whitespace::Tab)
            )
        })
        .count();
    if words > MAX_TOKENS {
        return Err(Why::TooLong);
    }
    let mut cursor = Cursor::new(sql);
    // Where comments start, and the text inside strings, names and comments.
    let mut comment_starts = Vec::new();
    let mut inert = Vec::new();
    for token in tokens {
        let at = token.span.start;
        // Tokens the parser made from a MySQL `/*! ... */` hint have
        // locations inside the hint, behind the cursor.
        let (from, to) = cursor.range(token.span).ok_or(Why::Unlocated { at })?;
        let raw = &sql[from..to];
        match &token.token {
            Token::Whitespace(Whitespace::SingleLineComment { comment, prefix }) => {
                if prefix != "--" {
                    return Err(Why::HashComment { at });
                }
                // PostgreSQL ends `--` comments at \r, SQLite and MySQL do
                // not: only the \r of a \r\n line end is read alike.
                let comment = comment.strip_suffix('\r').unwrap_or(comment);
                if comment.contains(['\r', '\u{b}', '\u{c}']) {
                    return Err(Why::CommentLineBreak { at });
                }
                comment_starts.push(from);
                inert.push((from, to));
            }
            Token::Whitespace(Whitespace::MultiLineComment(comment)) => {
                // `/*/*/` closes at once where comments do not nest, and
                // opens a second level where they do.
                if raw.get(1..).is_some_and(|rest| rest.contains("/*")) {
                    return Err(Why::NestedComment { at });
                }
                // MySQL runs `/*! ... */`, MariaDB `/*M! ... */`.
                if comment.starts_with('!') || comment.starts_with("M!") {
                    return Err(Why::ExecutableComment { at });
                }
                comment_starts.push(from);
                inert.push((from, to));
            }
            // `$x$` is a parameter to SQLite, a name to MySQL, and opens a
            // string in PostgreSQL.
            Token::Placeholder(name) if opens_dollar_quote(name) => {
                return Err(Why::DollarQuote { at });
            }
            Token::Word(word) if word.quote_style.is_none() && opens_dollar_quote(&word.value) => {
                return Err(Why::DollarQuote { at });
            }
            Token::DollarQuotedString(quoted) => {
                // The parser reads `$$...$$` in dialects whose databases do
                // not; PostgreSQL reads `$1$` as a parameter and a dollar.
                if !dialect.has_dollar_quotes()
                    || quoted.tag.as_deref().is_some_and(|tag| !is_dollar_tag(tag))
                {
                    return Err(Why::DollarQuote { at });
                }
                inert.push((from, to));
            }
            token_kind if is_quoted(token_kind) => {
                // `'a\'` ends at the second quote in PostgreSQL and SQLite,
                // not in MySQL; `E'a\''` the other way round.
                if ["\\'", "\\\"", "\\`"].iter().any(|pair| raw.contains(pair)) {
                    return Err(Why::Backslash { at });
                }
                // `[a]]b]` is one name to SQL Server, `[a]` and more to SQLite.
                if raw.starts_with('[') && raw.contains("]]") {
                    return Err(Why::Brackets { at });
                }
                inert.push((from, to));
            }
            _ => {}
        }
    }
    // PostgreSQL starts a comment at `--` or `/*` even inside a run of
    // operator characters (`#--`, `@-- `), where the parser may read an operator.
    // Both lists are in text order.
    for (index, _) in sql.match_indices("--").chain(sql.match_indices("/*")) {
        let starts_comment = comment_starts.binary_search(&index).is_ok();
        let before = inert.partition_point(|&(from, _)| from < index);
        let inside = before > 0 && index + 2 <= inert[before - 1].1;
        if !starts_comment && !inside {
            return Err(Why::HiddenComment {
                at: location(sql, index),
            });
        }
    }
    Ok(())
}

/// The line and column (in characters) of a byte offset.
fn location(sql: &str, index: usize) -> Location {
    let before = &sql[..index];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |text| text.chars().count())
        + 1;
    Location::new(line as u64, column as u64)
}

fn opens_dollar_quote(text: &str) -> bool {
    text.strip_prefix('$')
        .is_some_and(|rest| rest.contains('$'))
}

/// PostgreSQL's rule for the tag of `$tag$`: a letter or `_`, then digits too.
fn is_dollar_tag(tag: &str) -> bool {
    let mut chars = tag.chars();
    chars
        .next()
        .is_some_and(|first| first.is_alphabetic() || first == '_' || !first.is_ascii())
        && chars.all(|c| c.is_alphanumeric() || c == '_' || !c.is_ascii())
}

/// Strings and quoted names, whose end depends on escaping rules.
fn is_quoted(token: &Token) -> bool {
    match token {
        Token::Word(word) => word.quote_style.is_some(),
        Token::SingleQuotedString(_)
        | Token::DoubleQuotedString(_)
        | Token::TripleSingleQuotedString(_)
        | Token::TripleDoubleQuotedString(_)
        | Token::SingleQuotedByteStringLiteral(_)
        | Token::DoubleQuotedByteStringLiteral(_)
        | Token::TripleSingleQuotedByteStringLiteral(_)
        | Token::TripleDoubleQuotedByteStringLiteral(_)
        | Token::SingleQuotedRawStringLiteral(_)
        | Token::DoubleQuotedRawStringLiteral(_)
        | Token::TripleSingleQuotedRawStringLiteral(_)
        | Token::TripleDoubleQuotedRawStringLiteral(_)
        | Token::NationalStringLiteral(_)
        | Token::QuoteDelimitedStringLiteral(_)
        | Token::NationalQuoteDelimitedStringLiteral(_)
        | Token::EscapedStringLiteral(_)
        | Token::UnicodeStringLiteral(_)
        | Token::HexStringLiteral(_) => true,
        // `$$...$$` has no escapes, in the one database that has it.
        _ => false,
    }
}

/// Finds the text of tokens from their locations, moving forward only.
struct Cursor<'a> {
    text: &'a str,
    byte: usize,
    line: u64,
    column: u64,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor {
            text,
            byte: 0,
            line: 1,
            column: 1,
        }
    }

    /// The bytes a token spans; `None` if it starts behind the cursor.
    fn range(&mut self, span: Span) -> Option<(usize, usize)> {
        if (span.start.line, span.start.column) < (self.line, self.column) {
            return None;
        }
        let from = self.seek(span.start)?;
        let to = self.seek(span.end)?;
        (from <= to).then_some((from, to))
    }

    fn seek(&mut self, to: Location) -> Option<usize> {
        while (self.line, self.column) < (to.line, to.column) {
            let c = self.text.get(self.byte..)?.chars().next()?;
            self.byte += c.len_utf8();
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
        Some(self.byte)
    }
}
