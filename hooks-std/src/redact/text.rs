//! Secrets in free text: each rule finds byte spans to replace; the spans of
//! all rules are merged, so one secret matched by two rules is one
//! `[redacted]`.
//!
//! The rules, in the order they run:
//!
//! - known secrets, by value and encoded ([`known`](super::known));
//! - private key blocks, PEM and `PuTTY`, whole ([`blocks`](super::blocks));
//! - URLs' passwords and webhook paths ([`urls`](super::urls));
//! - the value after a sensitive name and `=` or `:` — `password=x`,
//!   `PGPASSWORD=x`, `?api_key=x&`, `"token": "x"`, `X-Api-Key: x`,
//!   `Authorization: Token x` (the scheme word kept), `AccountKey=x;`,
//!   `sig=x&` — quoted or not; after `Cookie:` or `Set-Cookie:`, the rest of
//!   the header (every cookie in it);
//! - the value after a sensitive `--flag` (`--password x`) and what
//!   programs read passwords from on their command lines
//!   ([`commands`](super::commands)), over the text split as a shell would
//!   and as bare tokens (a command quoted inside JSON text);
//! - the word after `Bearer`, `Basic`, `Token`, `Digest` (an authorization
//!   scheme), anywhere;
//! - words that start with a known credential prefix (`sk-`, `ghp_`, `AKIA`,
//!   `ya29.`, …), at the start of a word or of a URL part;
//! - JSON Web Tokens (`eyJ….….…`).

use std::ops::Range;

use super::keys::{self, Terms};
use super::known::Known;
use super::{blocks, commands, shell, urls};

/// The authorization schemes whose next word is the credential.
const SCHEMES: [&str; 6] = ["bearer", "basic", "token", "digest", "negotiate", "apikey"];

/// A credential after a prefix is at least this long; shorter words are left alone.
const MIN_SECRET_LEN: usize = 8;

/// The spans of `text` that hold secrets, sorted and merged.
pub(crate) fn secrets(
    text: &str,
    terms: &Terms,
    prefixes: &[String],
    known: &Known,
) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    known.find(text, &mut spans);
    blocks::private_key_blocks(text, &mut spans);
    blocks::putty_keys(text, &mut spans);
    urls::userinfo(text, &mut spans);
    urls::webhooks(text, &mut spans);
    assignments(text, terms, &mut spans);
    // Commands as a shell splits them, and as bare tokens: a command line
    // quoted inside JSON text (`{"cmd":"mysql -pX"}`) is one shell word.
    let tokens: Vec<(usize, &str)> = tokens(text).collect();
    let shell_words = shell::words(text);
    let netrc = commands::is_netrc(&shell_words);
    for words in [shell_words, token_words(text, &tokens)] {
        spans.extend(
            commands::secrets(&words, terms, netrc)
                .into_iter()
                .map(|(at, range)| {
                    words[at].at.start + range.start..words[at].at.start + range.end
                }),
        );
    }
    prefixed_words(&tokens, prefixes, &mut spans);
    merge(spans)
}

/// `text` with each span replaced by `replacement`.
pub(crate) fn replace(text: &str, spans: &[Range<usize>], replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for span in spans {
        out.push_str(&text[copied..span.start]);
        out.push_str(replacement);
        copied = span.end;
    }
    out.push_str(&text[copied..]);
    out
}

pub(crate) fn merge(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.retain(|span| span.start < span.end);
    spans.sort_by_key(|span| (span.start, std::cmp::Reverse(span.end)));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    merged
}

/// Whether a byte may be part of a name in `name=value`: a letter, a
/// digit, `_-.`, or any byte of a non-ASCII character (so a name ends at an
/// ASCII byte, on a character boundary; its words are split properly later).
fn name_byte(byte: u8) -> bool {
    !byte.is_ascii() || byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.')
}

/// `name=value`, `name: value`, `"name": "value"` where the name is
/// sensitive: the value (after an authorization scheme word, if it starts with one).
fn assignments(text: &str, terms: &Terms, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < text.len() {
        let Some(start) = bytes[at..]
            .iter()
            .position(|&byte| name_byte(byte))
            .map(|found| at + found)
        else {
            break;
        };
        let end = bytes[start..]
            .iter()
            .position(|&byte| !name_byte(byte))
            .map_or(text.len(), |found| start + found);
        at = end.max(start + 1);
        let name = text[start..end].trim_start_matches('-');
        // Past a closing quote (escaped, in JSON inside a string) and blanks
        // to `=` or `:` (not `::` or `=>`/`==`); the name is judged only
        // then, most words being followed by neither.
        let mut cursor = end;
        while cursor < bytes.len() && matches!(bytes[cursor], b'"' | b'\'' | b'\\' | b' ' | b'\t') {
            cursor += 1;
        }
        let Some(&separator) = bytes.get(cursor) else {
            continue;
        };
        if !matches!(separator, b'=' | b':')
            || matches!(bytes.get(cursor + 1), Some(b'=' | b':' | b'>'))
            || name.is_empty()
            || !terms.sensitive(name)
        {
            continue;
        }
        if let Some(mut value) = value_after(text, cursor + 1) {
            // A cookie header holds every cookie to its end: `a=1; sid=x`.
            if keys::words(name).iter().any(|word| word == "cookie") {
                value.end = text[value.start..]
                    .find(['\n', '\r', '"', '\'', '`'])
                    .map_or(text.len(), |end| value.start + end);
            }
            spans.push(value);
        }
    }
}

/// The value starting at `from` (past blanks and an opening quote): up to
/// the matching quote, or to the next blank or delimiter. After a scheme
/// word (`Bearer`), the word that follows.
fn value_after(text: &str, from: usize) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let mut start = from;
    while start < bytes.len() && matches!(bytes[start], b' ' | b'\t') {
        start += 1;
    }
    // An escaped quote (`\"x\"`, JSON inside a string, at any depth:
    // `\\\"x\\\"`) opens a value too.
    let backslashes = bytes[start..].iter().take_while(|&&b| b == b'\\').count();
    let escaped = backslashes > 0 && matches!(bytes.get(start + backslashes), Some(b'"' | b'\''));
    if escaped {
        start += backslashes;
    }
    let quote = match bytes.get(start) {
        Some(&quote @ (b'"' | b'\'' | b'`')) => {
            start += 1;
            Some(quote as char)
        }
        _ => None,
    };
    let rest = &text[start..];
    let length = match quote {
        // Up to the closing quote, without the backslashes escaping it.
        Some(quote) if escaped => rest
            .find(quote)
            .map_or(rest.len(), |end| rest[..end].trim_end_matches('\\').len()),
        Some(quote) => rest.find(quote).unwrap_or(rest.len()),
        None => rest
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(
                        c,
                        '&' | ';' | ',' | ')' | '}' | ']' | '"' | '\'' | '`' | '<' | '>'
                    )
            })
            .unwrap_or(rest.len()),
    };
    let value = start..start + length;
    if value.is_empty() {
        return None;
    }
    let word = &text[value.clone()];
    let scheme_len = word.find(char::is_whitespace).unwrap_or(word.len());
    if SCHEMES
        .iter()
        .any(|scheme| word[..scheme_len].eq_ignore_ascii_case(scheme))
    {
        // `Authorization: Bearer x`: keep the scheme, hide what follows it.
        if scheme_len < word.len() {
            return Some(value.start + scheme_len + 1..value.end);
        }
        return next_word(text, value.end);
    }
    Some(value)
}

/// The whitespace-separated word after `from`.
fn next_word(text: &str, from: usize) -> Option<Range<usize>> {
    let rest = &text[from..];
    let start = from + rest.find(|c: char| !c.is_whitespace())?;
    let rest = &text[start..];
    let end = start
        + rest
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`'))
            .unwrap_or(rest.len());
    (start < end).then_some(start..end)
}

/// Words of free text with their byte offsets: runs without white space,
/// quotes or the punctuation that separates a name from its value.
fn tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    // Bytes, not chars: every separator but Unicode's blanks is ASCII, and
    // this runs over every string redacted.
    let bytes = text.as_bytes();
    let separator_at = move |at: usize| -> bool {
        match bytes[at] {
            byte if byte.is_ascii() => {
                byte.is_ascii_whitespace()
                    || matches!(
                        byte,
                        b'"' | b'\''
                            | b'`'
                            | b'='
                            | b','
                            | b';'
                            | b'('
                            | b')'
                            | b'<'
                            | b'>'
                            | b'['
                            | b']'
                            | b'{'
                            | b'}'
                            | b'\x0b'
                    )
            }
            // A character's first byte: a Unicode blank separates too.
            byte if byte >= 0xc0 => text[at..].chars().next().is_some_and(char::is_whitespace),
            _ => false,
        }
    };
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() && separator_at(at) {
            at += text[at..].chars().next().map_or(1, char::len_utf8);
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() && !separator_at(at) {
            at += 1;
        }
        let mut end = at;
        // `Authorization:` keeps its colon out of the next word, but `https://x` stays whole.
        if bytes[end - 1] == b':' {
            end -= 1;
        }
        Some((start, &text[start..end]))
    })
}

/// [`tokens`] as a command's words: a new command after `;`, a line break,
/// `&&`, `||` or `|`.
fn token_words<'t>(text: &'t str, tokens: &[(usize, &'t str)]) -> Vec<shell::Word<'t>> {
    let mut words: Vec<shell::Word<'t>> = Vec::new();
    let mut previous_end = 0;
    for &(start, token) in tokens {
        let gap = &text[previous_end.min(start)..start];
        let starts_command = words.is_empty()
            || gap.contains([';', '\n'])
            || words
                .last()
                .is_some_and(|last| matches!(last.text, "&&" | "||" | "|" | "&"));
        previous_end = start + token.len();
        words.push(shell::Word {
            text: token,
            at: start..start + token.len(),
            starts_command,
        });
    }
    words
}

/// Words that are credentials by their look: a known prefix, a JWT, or
/// the word after an authorization scheme.
fn prefixed_words(tokens: &[(usize, &str)], prefixes: &[String], spans: &mut Vec<Range<usize>>) {
    // Most words are too short for any prefix, or start with no prefix's
    // first byte: both are told before any prefix is compared.
    let shortest = prefixes.iter().map(String::len).min().unwrap_or(0) + MIN_SECRET_LEN;
    let mut first = [false; 256];
    for prefix in prefixes {
        if let Some(&byte) = prefix.as_bytes().first() {
            first[usize::from(byte)] = true;
        }
    }
    let mut after_scheme = false;
    for &(start, word) in tokens {
        if after_scheme || looks_like_jwt(word) {
            spans.push(start..start + word.len());
        } else if word.len() >= shortest {
            spans.extend(
                prefixed(word, prefixes, shortest, &first)
                    .map(|span| start + span.start..start + span.end),
            );
        }
        after_scheme = SCHEMES[..2]
            .iter()
            .any(|scheme| word.eq_ignore_ascii_case(scheme));
    }
}

/// Spans of `word` that are credentials by prefix: at the start of the
/// word or of a URL part (after `/`, `:`, `@`, `?`, `&`, `#`), up to the
/// next such character.
fn prefixed<'w>(
    word: &'w str,
    prefixes: &'w [String],
    shortest: usize,
    first: &'w [bool; 256],
) -> impl Iterator<Item = Range<usize>> + 'w {
    let is_boundary = |c: char| matches!(c, '/' | ':' | '@' | '?' | '&' | '#');
    let starts = std::iter::once(0).chain(word.match_indices(is_boundary).map(|(at, _)| at + 1));
    starts.filter_map(move |start| {
        let rest = &word[start..];
        let end = start + rest.find(is_boundary).unwrap_or(rest.len());
        let part = &word[start..end];
        if part.len() < shortest || !first[usize::from(part.as_bytes()[0])] {
            return None;
        }
        prefixes
            .iter()
            .any(|prefix| {
                part.len() >= prefix.len() + MIN_SECRET_LEN && part.starts_with(prefix.as_str())
            })
            .then_some(start..end)
    })
}

fn looks_like_jwt(word: &str) -> bool {
    word.starts_with("eyJ") && word.matches('.').count() == 2 && word.len() > 20
}
