//! Secrets in free text: each rule finds byte spans to replace; the spans of
//! all rules are merged, so one secret matched by two rules is one
//! `[redacted]`.
//!
//! The rules, in the order they run:
//!
//! - private key blocks (`-----BEGIN … PRIVATE KEY-----` to its `END` line,
//!   PGP and OpenSSH included), whole;
//! - the password in a URL's userinfo (`postgres://user:pass@host`), or a
//!   long userinfo that is all token (`https://TOKEN@host`);
//! - the value after a sensitive name and `=` or `:` — `password=x`,
//!   `DB_PASSWORD=x`, `?api_key=x&`, `"token": "x"`, `X-Api-Key: x`,
//!   `Authorization: Token x` (the scheme word kept) — quoted or not;
//! - the word after a sensitive `--flag` (`--password x`), and a mysql-style
//!   `-pPASSWORD` or `sshpass -p PASSWORD`;
//! - the word after `Bearer`, `Basic`, `Token`, `Digest` (an authorization
//!   scheme), anywhere;
//! - words that start with a known credential prefix (`sk-`, `ghp_`, `AKIA`,
//!   `ya29.`, …), at the start of a word or of a URL part;
//! - JSON Web Tokens (`eyJ….….…`).

use std::ops::Range;

use super::keys::Terms;
use super::known::Known;

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
    private_key_blocks(text, &mut spans);
    url_userinfo(text, &mut spans);
    assignments(text, terms, &mut spans);
    flags(text, terms, &mut spans);
    words(text, prefixes, &mut spans);
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

/// `-----BEGIN RSA PRIVATE KEY-----` … `-----END RSA PRIVATE KEY-----`, and
/// PGP's `PRIVATE KEY BLOCK`: the whole block, or to the end of the text
/// when the end is missing (a truncated key is still a key).
fn private_key_blocks(text: &str, spans: &mut Vec<Range<usize>>) {
    let mut from = 0;
    while let Some(found) = text[from..].find("-----BEGIN ") {
        let start = from + found;
        let Some(header_end) = text[start + 11..]
            .find("-----")
            .map(|at| start + 11 + at + 5)
        else {
            break;
        };
        if !text[start..header_end].contains("PRIVATE KEY") {
            from = header_end;
            continue;
        }
        let end = text[header_end..]
            .find("-----END ")
            .and_then(|at| {
                let end_start = header_end + at;
                text[end_start + 9..]
                    .find("-----")
                    .map(|close| end_start + 9 + close + 5)
            })
            .unwrap_or(text.len());
        spans.push(start..end);
        from = end;
    }
}

/// `scheme://user:password@host` — the password; `scheme://TOKEN@host`
/// with a long userinfo and no colon — the whole userinfo.
fn url_userinfo(text: &str, spans: &mut Vec<Range<usize>>) {
    for (at, _) in text.match_indices("://") {
        let start = at + 3;
        let rest = &text[start..];
        let end = rest
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '/' | '?' | '#' | '"' | '\'' | '`' | '<' | '>')
            })
            .unwrap_or(rest.len());
        let authority = &rest[..end];
        let Some(at_sign) = authority.rfind('@') else {
            continue;
        };
        let userinfo = &authority[..at_sign];
        match userinfo.find(':') {
            Some(colon) if colon + 1 < userinfo.len() => {
                spans.push(start + colon + 1..start + at_sign);
            }
            None if userinfo.len() >= 16 => spans.push(start..start + at_sign),
            _ => {}
        }
    }
}

/// Whether a character may be part of a name in `name=value`.
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// `name=value`, `name: value`, `"name": "value"` where the name is
/// sensitive: the value (after an authorization scheme word, if it starts with one).
fn assignments(text: &str, terms: &Terms, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < text.len() {
        let Some(start) = text[at..].find(name_char).map(|found| at + found) else {
            break;
        };
        let end = text[start..]
            .find(|c: char| !name_char(c))
            .map_or(text.len(), |found| start + found);
        at = end.max(start + 1);
        let name = text[start..end].trim_start_matches('-');
        if name.is_empty() || !terms.sensitive(name) {
            continue;
        }
        // Past a closing quote (escaped, in JSON inside a string) and blanks
        // to `=` or `:` (not `::` or `=>`/`==`).
        let mut cursor = end;
        while cursor < bytes.len() && matches!(bytes[cursor], b'"' | b'\'' | b'\\' | b' ' | b'\t') {
            cursor += 1;
        }
        let Some(&separator) = bytes.get(cursor) else {
            continue;
        };
        if !matches!(separator, b'=' | b':')
            || matches!(bytes.get(cursor + 1), Some(b'=' | b':' | b'>'))
        {
            continue;
        }
        if let Some(value) = value_after(text, cursor + 1) {
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

/// `--password x`, `--api-key x`: the next word. `-pSECRET` after a mysql
/// client, and `sshpass -p SECRET`. Words are [`tokens`], so a flag inside
/// quotes or JSON (`"--token x"`) is found like a bare one.
fn flags(text: &str, terms: &Terms, spans: &mut Vec<Range<usize>>) {
    let words: Vec<(usize, &str)> = tokens(text).collect();
    let mysql = words.iter().any(|(_, word)| {
        let program = word.rsplit('/').next().unwrap_or(word);
        matches!(
            program,
            "mysql" | "mysqldump" | "mysqladmin" | "mariadb" | "mariadb-dump"
        )
    });
    for (index, &(start, word)) in words.iter().enumerate() {
        let next = words.get(index + 1);
        if let Some(flag) = word.strip_prefix("--")
            && terms.sensitive(flag)
            && let Some(&(next_start, next_word)) = next
            && !next_word.starts_with('-')
        {
            spans.push(next_start..next_start + next_word.len());
        }
        if mysql
            && let Some(password) = word.strip_prefix("-p")
            && !password.is_empty()
        {
            spans.push(start + 2..start + word.len());
        }
        if word == "-p"
            && words[..index].iter().any(|(_, w)| w.ends_with("sshpass"))
            && let Some(&(next_start, next_word)) = next
        {
            spans.push(next_start..next_start + next_word.len());
        }
    }
}

/// Words of free text with their byte offsets: runs without white space,
/// quotes or the punctuation that separates a name from its value.
fn tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let is_separator = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | '=' | ',' | ';' | '(' | ')' | '<' | '>' | '[' | ']' | '{' | '}'
            )
    };
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = &text[at..];
        let start = at + rest.find(|c: char| !is_separator(c))?;
        let rest = &text[start..];
        let mut end = start + rest.find(is_separator).unwrap_or(rest.len());
        // `Authorization:` keeps its colon out of the next word, but `https://x` stays whole.
        if text[start..end].ends_with(':') {
            end -= 1;
        }
        at = end.max(start + 1).min(text.len());
        Some((start, &text[start..end]))
    })
}

/// Words that are credentials by their look: a known prefix, a JWT, or
/// the word after an authorization scheme.
fn words(text: &str, prefixes: &[String], spans: &mut Vec<Range<usize>>) {
    let mut after_scheme = false;
    for (start, word) in tokens(text) {
        if after_scheme || looks_like_jwt(word) {
            spans.push(start..start + word.len());
        } else {
            spans.extend(prefixed(word, prefixes).map(|span| start + span.start..start + span.end));
        }
        after_scheme = SCHEMES[..2]
            .iter()
            .any(|scheme| word.eq_ignore_ascii_case(scheme));
    }
}

/// Spans of `word` that are credentials by prefix: at the start of the
/// word or of a URL part (after `/`, `:`, `@`, `?`, `&`, `#`), up to the
/// next such character.
fn prefixed<'w>(word: &'w str, prefixes: &'w [String]) -> impl Iterator<Item = Range<usize>> + 'w {
    let is_boundary = |c: char| matches!(c, '/' | ':' | '@' | '?' | '&' | '#');
    let starts = std::iter::once(0).chain(word.match_indices(is_boundary).map(|(at, _)| at + 1));
    starts.filter_map(move |start| {
        let rest = &word[start..];
        let end = start + rest.find(is_boundary).unwrap_or(rest.len());
        let part = &word[start..end];
        prefixes
            .iter()
            .any(|prefix| {
                part.starts_with(prefix.as_str()) && part.len() >= prefix.len() + MIN_SECRET_LEN
            })
            .then_some(start..end)
    })
}

fn looks_like_jwt(word: &str) -> bool {
    word.starts_with("eyJ") && word.matches('.').count() == 2 && word.len() > 20
}
