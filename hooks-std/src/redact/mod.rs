//! Redacting secrets from tool arguments before they are written anywhere.
//!
//! Two rules, both configurable:
//!
//! - **keys**: an object member whose key contains a sensitive term as whole
//!   words is replaced — `password`, `db_password`, `apiKey`, `X-Api-Key`,
//!   `access_token`, `Authorization` — but `max_tokens` is not (`tokens` is
//!   not `token`);
//! - **values**: inside any string, a word that looks like a credential is
//!   replaced: the word after `Bearer ` or `Basic `, words starting with a
//!   known key prefix (`sk-`, `ghp_`, `AKIA`, `xoxb-`, ...), JSON Web Tokens;
//!   a string holding a PEM private key is replaced whole.
//!
//! ```
//! use hooks_core::json;
//! use hooks_std::redact::Redactor;
//!
//! let redactor = Redactor::default();
//! let args = json!({
//!     "url": "https://api.example.com",
//!     "headers": {"Authorization": "Bearer abc.def", "X-Request-Id": "42"},
//!     "command": "curl -H 'Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.sig' https://x",
//!     "db_password": "hunter2",
//!     "max_tokens": 512,
//! });
//! assert_eq!(
//!     redactor.redact(&args),
//!     json!({
//!         "url": "https://api.example.com",
//!         "headers": {"Authorization": "[redacted]", "X-Request-Id": "42"},
//!         "command": "curl -H 'Authorization: Bearer [redacted]' https://x",
//!         "db_password": "[redacted]",
//!         "max_tokens": 512,
//!     })
//! );
//! ```

use serde_json::{Map, Value};

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// The sensitive key terms used unless configured otherwise.
pub const DEFAULT_KEYS: [&str; 15] = [
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "api key",
    "apikey",
    "authorization",
    "auth token",
    "cookie",
    "credential",
    "credentials",
    "private key",
    "access key",
    "session key",
];

/// The credential prefixes used unless configured otherwise.
pub const DEFAULT_PREFIXES: [&str; 22] = [
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "rk_test_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxs-",
    "AKIA",
    "ASIA",
    "AIza",
    "hf_",
    "npm_",
    "pypi-",
];

/// Replaces secrets in JSON values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redactor {
    /// Each term as lowercase words.
    keys: Vec<Vec<String>>,
    prefixes: Vec<String>,
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new(DEFAULT_KEYS, DEFAULT_PREFIXES)
    }
}

/// A credential after a prefix is at least this long; shorter words are left alone.
const MIN_SECRET_LEN: usize = 8;

impl Redactor {
    /// A redactor for these key terms (words separated by spaces, e.g. `"api key"`)
    /// and value prefixes.
    pub fn new<K, P>(
        keys: impl IntoIterator<Item = K>,
        prefixes: impl IntoIterator<Item = P>,
    ) -> Self
    where
        K: AsRef<str>,
        P: Into<String>,
    {
        Redactor {
            keys: keys
                .into_iter()
                .map(|term| {
                    term.as_ref()
                        .split_whitespace()
                        .map(str::to_lowercase)
                        .collect::<Vec<_>>()
                })
                .filter(|words| !words.is_empty())
                .collect(),
            prefixes: prefixes
                .into_iter()
                .map(Into::into)
                .filter(|p: &String| !p.is_empty())
                .collect(),
        }
    }

    /// `value` with every secret replaced by [`REDACTED`].
    pub fn redact(&self, value: &Value) -> Value {
        match value {
            Value::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(key, member)| {
                        let member = if self.sensitive_key(key) {
                            Value::String(REDACTED.to_owned())
                        } else {
                            self.redact(member)
                        };
                        (key.clone(), member)
                    })
                    .collect::<Map<_, _>>(),
            ),
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| self.redact(item)).collect())
            }
            Value::String(text) => {
                Value::String(self.redact_text(text).unwrap_or_else(|| text.clone()))
            }
            other => other.clone(),
        }
    }

    /// Whether a member with this key is a secret, whatever its value.
    pub fn sensitive_key(&self, key: &str) -> bool {
        let words = words(key);
        self.keys.iter().any(|term| {
            words
                .windows(term.len())
                .any(|window| window == term.as_slice())
        })
    }

    /// `text` with credential-looking words replaced; `None` if there were none.
    pub fn redact_text(&self, text: &str) -> Option<String> {
        if text.contains("PRIVATE KEY-----") {
            return Some(REDACTED.to_owned());
        }
        let mut spans = Vec::new();
        let mut after_scheme = false;
        for (start, word) in tokens(text) {
            if after_scheme || looks_like_jwt(word) {
                spans.push(start..start + word.len());
            } else {
                spans.extend(
                    self.prefixed_secrets(word)
                        .map(|span| start + span.start..start + span.end),
                );
            }
            after_scheme =
                word.eq_ignore_ascii_case("bearer") || word.eq_ignore_ascii_case("basic");
        }
        if spans.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for span in spans {
            out.push_str(&text[copied..span.start]);
            out.push_str(REDACTED);
            copied = span.end;
        }
        out.push_str(&text[copied..]);
        Some(out)
    }

    /// Spans of `word` that are credentials by prefix: at the start of the
    /// word or of a URL part (after `/`, `:`, `@`, `?`, `&`, `#`), up to the
    /// next such character.
    fn prefixed_secrets<'w>(
        &'w self,
        word: &'w str,
    ) -> impl Iterator<Item = std::ops::Range<usize>> + 'w {
        let is_boundary = |c: char| matches!(c, '/' | ':' | '@' | '?' | '&' | '#');
        let starts =
            std::iter::once(0).chain(word.match_indices(is_boundary).map(|(at, _)| at + 1));
        starts.filter_map(move |start| {
            let rest = &word[start..];
            let end = start + rest.find(is_boundary).unwrap_or(rest.len());
            let part = &word[start..end];
            self.prefixes
                .iter()
                .any(|prefix| {
                    part.starts_with(prefix.as_str()) && part.len() >= prefix.len() + MIN_SECRET_LEN
                })
                .then_some(start..end)
        })
    }
}

/// The lowercase words of a key: split at punctuation and at camelCase humps.
fn words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            previous_lower = false;
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Words of free text with their byte offsets: runs without white space,
/// quotes or the punctuation that separates a header name from its value.
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

fn looks_like_jwt(word: &str) -> bool {
    word.starts_with("eyJ") && word.matches('.').count() == 2 && word.len() > 20
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_match_whole_words_in_any_case_style() {
        let redactor = Redactor::default();
        for key in [
            "password",
            "DB_PASSWORD",
            "apiKey",
            "api_key",
            "X-Api-Key",
            "access_token",
            "Authorization",
            "clientSecret",
            "private-key",
            "Cookie",
            "aws_access_key_id",
        ] {
            assert!(redactor.sensitive_key(key), "{key}");
        }
        for key in [
            "max_tokens",
            "tokenizer",
            "keyboard",
            "author",
            "path",
            "monkey",
        ] {
            assert!(!redactor.sensitive_key(key), "{key}");
        }
    }

    #[test]
    fn credentials_in_text_are_replaced_in_place() {
        let redactor = Redactor::default();
        assert_eq!(
            redactor
                .redact_text("export OPENAI_API_KEY=sk-proj1234567890abcd && run")
                .as_deref(),
            Some("export OPENAI_API_KEY=[redacted] && run")
        );
        assert_eq!(
            redactor
                .redact_text("git push https://ghp_abcdefghijklmnop@github.com/x")
                .as_deref(),
            Some("git push https://[redacted]@github.com/x")
        );
        assert_eq!(
            redactor
                .redact_text("GET /v1?key=AIzaSyA1234567890&q=1")
                .as_deref(),
            Some("GET /v1?key=[redacted]&q=1")
        );
        assert_eq!(
            redactor
                .redact_text("Authorization: Basic dXNlcjpwYXNz")
                .as_deref(),
            Some("Authorization: Basic [redacted]")
        );
        assert_eq!(
            redactor
                .redact_text("AKIAIOSFODNN7EXAMPLE is the key")
                .as_deref(),
            Some("[redacted] is the key")
        );
        assert_eq!(
            redactor
                .redact_text("-----BEGIN RSA PRIVATE KEY-----\nMII...")
                .as_deref(),
            Some(REDACTED)
        );
        assert_eq!(
            redactor.redact_text("nothing to see, sk- is too short"),
            None
        );
        assert_eq!(redactor.redact_text(""), None);
    }

    #[test]
    fn nested_values_are_walked() {
        let redactor = Redactor::new(["session id"], ["tok_"]);
        assert_eq!(
            redactor.redact(&json!([{"sessionId": "abc"}, {"note": "use tok_1234567890 now"}, 3])),
            json!([{"sessionId": "[redacted]"}, {"note": "use [redacted] now"}, 3])
        );
    }
}
