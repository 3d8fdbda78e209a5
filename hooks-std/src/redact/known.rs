//! Secrets the program knows: values it was told (environment variables,
//! files, literals) are found wherever they are, by value rather than by
//! shape, and so are their encodings:
//!
//! - the value itself, in any ASCII case, also inside a longer word, and as
//!   JSON escapes it (a quote or a newline in a secret read from a file);
//! - base64, standard and URL-safe, padded or not, at each of the three
//!   byte alignments the value can have inside a longer encoded text
//!   (`Basic base64(user:secret)`): the characters only the secret's bits
//!   determine are looked for, and the whole base64 word around them is
//!   replaced, so no partial character is left to give bits away;
//! - hex, lower, upper or mixed case (the whole hex word is replaced);
//! - percent-encoding, however much of it is encoded and in which case
//!   (`%2F` or `%2f`, `/` left alone or not), up to three times over, and
//!   form encoding's `+` for a space.
//!
//! One Aho-Corasick automaton holds every pattern of every secret, so the
//! cost of a scan grows with the text, not with the number of secrets.
//!
//! A secret shorter than [`MIN_KNOWN_SECRET_LEN`] bytes is refused: it would turn up by
//! chance in ordinary text (and its base64 inside any long base64 word), so
//! no redaction of it could be told from noise, and none is promised.

use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use serde_json::Value;

use super::REDACTED;
use super::text::{merge, replace};

/// The shortest secret that can be known, in bytes.
pub const MIN_KNOWN_SECRET_LEN: usize = 8;

/// How many layers of percent-encoding are taken off.
const PERCENT_ROUNDS: usize = 3;

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// A known secret could not be read, or is too short to be redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretError {
    message: String,
}

impl SecretError {
    fn new(message: impl Into<String>) -> Self {
        SecretError {
            message: message.into(),
        }
    }
}

impl fmt::Display for SecretError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SecretError {}

/// The value of the environment variable `name`, as a secret.
pub(crate) fn from_env(name: &str) -> Result<Vec<u8>, SecretError> {
    let value = std::env::var_os(name).ok_or_else(|| {
        SecretError::new(format!(
            "the environment variable `{name}` is not set: set it, or stop naming it as a secret"
        ))
    })?;
    checked(&value.into_encoded_bytes(), &format!("`{name}`"))
}

/// The content of the file at `path`, without the white space around it.
pub(crate) fn from_file(path: &Path) -> Result<Vec<u8>, SecretError> {
    let content = std::fs::read(path).map_err(|error| {
        SecretError::new(format!(
            "cannot read the secret file `{}`: {error}",
            path.display()
        ))
    })?;
    checked(&content, &format!("the file `{}`", path.display()))
}

/// `value`, trimmed, if it is long enough to redact. Errors never quote it.
pub(crate) fn checked(value: &[u8], from: &str) -> Result<Vec<u8>, SecretError> {
    let trimmed = value.trim_ascii();
    if trimmed.len() < MIN_KNOWN_SECRET_LEN {
        return Err(SecretError::new(format!(
            "the secret in {from} is {} bytes long; one shorter than {MIN_KNOWN_SECRET_LEN} bytes turns up by \
             chance in ordinary text, so it cannot be redacted reliably and is refused: use a \
             longer secret, or stop naming it as one",
            trimmed.len()
        )));
    }
    Ok(trimmed.to_vec())
}

/// The known secrets, compiled; empty (and free) when there are none.
#[derive(Clone, Default)]
pub(crate) struct Known(Option<Arc<Compiled>>);

struct Compiled {
    values: Vec<Vec<u8>>,
    automaton: AhoCorasick,
    /// What each pattern is, by pattern id.
    kinds: Vec<Kind>,
}

/// How a pattern encodes its secret, which says how far a match is widened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The value as it is (or JSON-escaped, or with `+` for spaces).
    Plain,
    /// Base64: widened to the whole base64 word.
    Base64,
    /// Hex: widened to the whole hex word.
    Hex,
}

impl Known {
    /// These secrets and `value`.
    pub(crate) fn with(&self, value: Vec<u8>) -> Known {
        let mut values = self
            .0
            .as_ref()
            .map(|compiled| compiled.values.clone())
            .unwrap_or_default();
        if !values.contains(&value) {
            values.push(value);
        }
        Known(Some(Arc::new(Compiled::new(values))))
    }

    pub(crate) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |compiled| compiled.values.len())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Adds the spans of `text` holding a known secret, in any encoding.
    pub(crate) fn find(&self, text: &str, spans: &mut Vec<Range<usize>>) {
        if let Some(compiled) = &self.0 {
            compiled.find(text, spans);
        }
    }

    /// `text` with every known secret replaced; `None` if it holds none
    /// (then nothing was allocated, unless it held a percent escape).
    pub(crate) fn redact_text(&self, text: &str) -> Option<String> {
        let mut spans = Vec::new();
        self.find(text, &mut spans);
        (!spans.is_empty()).then(|| replace(text, &merge(spans), REDACTED))
    }

    /// Whether a string or a key anywhere in `value` holds a known secret.
    pub(crate) fn is_in(&self, value: &Value) -> bool {
        let holds = |text: &str| {
            let mut spans = Vec::new();
            self.find(text, &mut spans);
            !spans.is_empty()
        };
        match value {
            Value::String(text) => holds(text),
            Value::Array(items) => items.iter().any(|item| self.is_in(item)),
            Value::Object(members) => members
                .iter()
                .any(|(key, member)| holds(key) || self.is_in(member)),
            _ => false,
        }
    }

    /// Replaces every known secret in `value`'s strings and keys.
    pub(crate) fn scrub(&self, value: &mut Value) {
        match value {
            Value::String(text) => {
                if let Some(clean) = self.redact_text(text) {
                    *text = clean;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.scrub(item)),
            Value::Object(members) => {
                let old = std::mem::take(members);
                for (key, mut member) in old {
                    self.scrub(&mut member);
                    let key = self.redact_text(&key).unwrap_or(key);
                    let key = super::unique(members, key);
                    members.insert(key, member);
                }
            }
            _ => {}
        }
    }
}

impl Compiled {
    fn new(values: Vec<Vec<u8>>) -> Compiled {
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut kinds = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for value in &values {
            for (pattern, kind) in encodings(value) {
                if seen.insert(pattern.clone()) {
                    patterns.push(pattern);
                    kinds.push(kind);
                }
            }
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&patterns)
            .expect("a few thousand short literal patterns always build");
        Compiled {
            values,
            automaton,
            kinds,
        }
    }

    fn find(&self, text: &str, spans: &mut Vec<Range<usize>>) {
        let bytes = text.as_bytes();
        for found in self.automaton.find_overlapping_iter(bytes) {
            let span = match self.kinds[found.pattern().as_usize()] {
                Kind::Plain => found.range(),
                Kind::Base64 => widened(bytes, found.range(), is_base64),
                Kind::Hex => widened(bytes, found.range(), |b| b.is_ascii_hexdigit()),
            };
            spans.push(on_chars(text, span));
        }
        if memchr_percent(bytes) {
            self.find_percent_encoded(text, spans);
        }
    }

    /// Takes off up to [`PERCENT_ROUNDS`] layers of percent-encoding and
    /// looks again, mapping what is found back to the encoded text.
    fn find_percent_encoded(&self, text: &str, spans: &mut Vec<Range<usize>>) {
        let mut decoded = text.as_bytes().to_vec();
        // Where each decoded byte starts and ends in `text`.
        let mut origin: Vec<Range<usize>> = (0..decoded.len()).map(|at| at..at + 1).collect();
        for _ in 0..PERCENT_ROUNDS {
            let Some((next, next_origin)) = percent_decoded(&decoded, &origin) else {
                break;
            };
            (decoded, origin) = (next, next_origin);
            for found in self.automaton.find_overlapping_iter(&decoded) {
                let range = found.range();
                let span = origin[range.start].start..origin[range.end - 1].end;
                spans.push(on_chars(text, span));
            }
        }
    }
}

/// Every form of `value` to look for, with its kind.
fn encodings(value: &[u8]) -> Vec<(Vec<u8>, Kind)> {
    let mut forms = vec![(value.to_vec(), Kind::Plain)];
    if let Ok(text) = std::str::from_utf8(value) {
        let json = serde_json::to_string(text).expect("a string serializes");
        let escaped = &json[1..json.len() - 1];
        if escaped != text {
            forms.push((escaped.as_bytes().to_vec(), Kind::Plain));
        }
        if text.contains(' ') {
            forms.push((text.replace(' ', "+").into_bytes(), Kind::Plain));
        }
    }
    for alphabet in [BASE64, BASE64_URL] {
        for offset in 0..3 {
            forms.push((base64_core(value, offset, alphabet), Kind::Base64));
        }
    }
    forms.push((hex(value), Kind::Hex));
    forms
}

/// The base64 characters that only `value`'s bits determine when it starts
/// `offset` bytes into a 3-byte group of a longer encoded text.
fn base64_core(value: &[u8], offset: usize, alphabet: &[u8; 64]) -> Vec<u8> {
    let mut input = vec![0; offset];
    input.extend_from_slice(value);
    let encoded = base64(&input, alphabet);
    let first = (8 * offset).div_ceil(6);
    let last = 8 * input.len() / 6;
    encoded[first..last].to_vec()
}

/// Unpadded base64, the last partial character included.
fn base64(input: &[u8], alphabet: &[u8; 64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let group = chunk.iter().enumerate().fold(0u32, |group, (at, &byte)| {
            group | (u32::from(byte) << (16 - 8 * at))
        });
        for index in 0..=chunk.len() {
            out.push(alphabet[(group >> (18 - 6 * index)) as usize & 63]);
        }
    }
    out
}

fn hex(value: &[u8]) -> Vec<u8> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    value
        .iter()
        .flat_map(|&byte| {
            [
                DIGITS[usize::from(byte >> 4)],
                DIGITS[usize::from(byte & 15)],
            ]
        })
        .collect()
}

fn is_base64(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'-' | b'_')
}

/// `span` grown over the bytes around it that `part_of` says belong to the
/// same encoded word (and base64's `=` padding after it).
fn widened(bytes: &[u8], span: Range<usize>, part_of: impl Fn(u8) -> bool) -> Range<usize> {
    let start = bytes[..span.start]
        .iter()
        .rposition(|&byte| !part_of(byte))
        .map_or(0, |at| at + 1);
    let mut end = bytes[span.end..]
        .iter()
        .position(|&byte| !part_of(byte))
        .map_or(bytes.len(), |at| span.end + at);
    while end < bytes.len() && bytes[end] == b'=' {
        end += 1;
    }
    start..end
}

/// `span` grown to whole characters: a secret that is not UTF-8 (a key
/// file's bytes) can match part of one.
fn on_chars(text: &str, span: Range<usize>) -> Range<usize> {
    let mut start = span.start;
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// Whether `bytes` holds a `%` followed by two hex digits.
fn memchr_percent(bytes: &[u8]) -> bool {
    bytes
        .windows(3)
        .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
}

/// One layer of percent-decoding, with where each byte came from; `None`
/// when there was nothing to decode.
fn percent_decoded(bytes: &[u8], origin: &[Range<usize>]) -> Option<(Vec<u8>, Vec<Range<usize>>)> {
    if !memchr_percent(bytes) {
        return None;
    }
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut from = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let escape = bytes.get(at..at + 3).and_then(|w| {
            (w[0] == b'%')
                .then(|| Some(hex_value(w[1])? << 4 | hex_value(w[2])?))
                .flatten()
        });
        match escape {
            Some(byte) => {
                decoded.push(byte);
                from.push(origin[at].start..origin[at + 2].end);
                at += 3;
            }
            None => {
                decoded.push(bytes[at]);
                from.push(origin[at].clone());
                at += 1;
            }
        }
    }
    Some((decoded, from))
}

fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

/// Never the values: how many there are.
impl fmt::Debug for Known {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Known({} secrets)", self.len())
    }
}

impl PartialEq for Known {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a.values == b.values,
            _ => false,
        }
    }
}

impl Eq for Known {}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "Tr0ub4dor&3-horse";

    fn known() -> Known {
        Known::default().with(SECRET.as_bytes().to_vec())
    }

    fn redacted(known: &Known, text: &str) -> String {
        let mut spans = Vec::new();
        known.find(text, &mut spans);
        spans.sort_by_key(|span| span.start);
        let mut out = String::new();
        let mut copied = 0;
        for span in spans {
            if span.start >= copied {
                out.push_str(&text[copied..span.start]);
                out.push('#');
            }
            copied = copied.max(span.end);
        }
        out.push_str(&text[copied..]);
        out
    }

    /// A standard base64 encoder, written apart from the one under test.
    fn reference_base64(input: &[u8], url: bool, pad: bool) -> String {
        let alphabet = if url { BASE64_URL } else { BASE64 };
        let mut out = String::new();
        for chunk in input.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            let chars = [18, 12, 6, 0].map(|shift| alphabet[((n >> shift) & 63) as usize] as char);
            out.extend(&chars[..=chunk.len()]);
            if pad {
                out.extend(std::iter::repeat_n('=', 3 - chunk.len()));
            }
        }
        out
    }

    #[test]
    fn the_value_is_found_anywhere_in_any_case() {
        let known = known();
        assert_eq!(redacted(&known, &format!("pw={SECRET};")), "pw=#;");
        assert_eq!(redacted(&known, &format!("x{SECRET}y")), "x#y");
        assert_eq!(
            redacted(&known, &SECRET.to_ascii_uppercase()),
            "#",
            "case changed"
        );
        assert_eq!(redacted(&known, "Tr0ub4dor&3-hors"), "Tr0ub4dor&3-hors");
    }

    #[test]
    fn base64_is_found_at_every_alignment_in_both_alphabets() {
        let known = known();
        for prefix in ["", "u:", "us:", "use:", "user:"] {
            for suffix in ["", "!", "!!", "!!!"] {
                let plain = format!("{prefix}{SECRET}{suffix}");
                for url in [false, true] {
                    for pad in [false, true] {
                        let encoded = reference_base64(plain.as_bytes(), url, pad);
                        let text = format!("Authorization: Basic {encoded} ok");
                        assert_eq!(
                            redacted(&known, &text),
                            "Authorization: Basic # ok",
                            "{plain:?} url={url} pad={pad}: {encoded}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn hex_and_percent_encodings_are_found() {
        let known = known();
        let lower = hex(SECRET.as_bytes());
        let lower = std::str::from_utf8(&lower).unwrap();
        assert_eq!(redacted(&known, &format!("0x{lower} ")), "0x# ");
        assert_eq!(
            redacted(&known, &format!("ab{}", lower.to_uppercase())),
            "#"
        );
        // Each way URLs get encoded: some characters or all, either case, twice.
        for text in [
            "https://x/?p=Tr0ub4dor%263-horse&q=1",
            "https://x/?p=Tr0ub4dor%263%2Dhorse&q=1",
            "https://x/?p=%54%72%30%75%62%34%64%6f%72%26%33%2d%68%6f%72%73%65&q=1",
            "https://x/?p=Tr0ub4dor%2526%33-horse&q=1",
        ] {
            let out = redacted(&known, text);
            assert!(out.starts_with("https://x/?p=#"), "{text} -> {out}");
            assert!(out.ends_with("&q=1"), "{text} -> {out}");
        }
    }

    #[test]
    fn json_escapes_and_form_spaces_are_found() {
        let known = Known::default().with(b"line one\n\"two\"".to_vec());
        assert_eq!(
            redacted(&known, r#"{"k":"line one\n\"two\""}"#),
            r##"{"k":"#"}"##
        );
        assert_eq!(redacted(&known, "q=line+one%0A%22two%22&x"), "q=#&x");
    }

    #[test]
    fn binary_secrets_are_found_encoded_and_spans_stay_on_characters() {
        let key = [0xde, 0xad, 0xbe, 0xef, 0x00, 0xff, 0x10, 0x80, 0x9c];
        let known = Known::default().with(key.to_vec());
        let encoded = reference_base64(&key, false, true);
        assert_eq!(redacted(&known, &format!("key {encoded}")), "key #");
        // Decoded, the key sits between two characters left as they were.
        let text = "é%de%ad%be%ef%00%ff%10%80%9cé";
        assert_eq!(redacted(&known, text), "é#é");
        // A secret starting with a continuation byte matches inside `é`:
        // the whole character goes, never half of it.
        let known = Known::default().with(b"\xa9ABCDEFGH".to_vec());
        assert_eq!(redacted(&known, "xéABCDEFGHy"), "x#y");
    }

    #[test]
    fn short_and_missing_secrets_are_refused_without_quoting_them() {
        let error = checked(b" abc1234 \n", "`PW`").unwrap_err();
        assert!(
            error.to_string().contains("`PW` is 7 bytes long"),
            "{error}"
        );
        assert!(!error.to_string().contains("abc1234"));
        assert_eq!(checked(b"\tabcd1234\n", "x").unwrap(), b"abcd1234");
        let error = from_env("HOOKS_STD_SURELY_UNSET_VARIABLE").unwrap_err();
        assert!(error.to_string().contains("is not set"), "{error}");
        let error = from_file(Path::new("/nonexistent/secret")).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("cannot read the secret file `/nonexistent/secret`")
        );
    }

    #[test]
    fn debug_never_shows_a_value() {
        assert_eq!(format!("{:?}", known()), "Known(1 secrets)");
    }
}
