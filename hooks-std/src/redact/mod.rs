//! Redacting secrets before anything is written: audit records, approval
//! prompts and stored requests, denial reasons, hook errors; and, for the
//! secrets the program knows, tool results and errors before the model
//! reads them.
//!
//! Four rules, the last three configurable:
//!
//! - **known secrets**: values the program says are secret
//!   ([`with_secret_env`](Redactor::with_secret_env),
//!   [`with_secret_file`](Redactor::with_secret_file),
//!   [`with_secret`](Redactor::with_secret)) are found by value wherever
//!   they are — in any string, inside longer words, in object keys — and
//!   so are their base64 (standard and URL-safe, at any alignment: `Basic
//!   base64(user:secret)`), hex and percent encodings. A secret shorter than
//!   [`MIN_KNOWN_SECRET_LEN`] bytes is refused: it would turn up by chance
//!   in ordinary text;
//! - **keys**: an object member whose key contains a sensitive term as whole
//!   words is replaced — `password`, `db_password`, `DBPassword`, `apiKey`,
//!   `X-Api-Key`, `JWTSecret`, `pwd`, `access_token`, `Authorization` — but
//!   `max_tokens` is not (`tokens` is not `token`);
//! - **prefixes**: a word starting with a known credential prefix (`sk-`,
//!   `ghp_`, `AKIA`, `ya29.`, `xoxb-`, …) is replaced, in any string and key;
//! - **text**: in any string, the value after a sensitive name (`password=x`,
//!   `?api_key=x`, `X-Api-Key: x`, `"token": "x"`), after a sensitive flag
//!   (`--password x`, mysql's `-pPW`), after an authorization scheme
//!   (`Bearer x`, `Authorization: Token x`), a URL's password
//!   (`postgres://user:pass@host`), a JSON Web Token, a private key block
//!   (PEM, OpenSSH, PGP); and a string that holds JSON is walked as JSON.
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

mod blocks;
mod commands;
mod keys;
mod known;
mod pairs;
mod scrub;
mod shell;
mod text;
mod urls;

use std::path::Path;

use serde_json::{Map, Value};

use keys::Terms;
use known::Known;
pub use known::{MIN_KNOWN_SECRET_LEN, SecretError};

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// The sensitive key terms used unless configured otherwise.
pub const DEFAULT_KEYS: [&str; 23] = [
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "secret",
    "token",
    "api key",
    "apikey",
    "auth",
    "authorization",
    "auth token",
    "cookie",
    "credential",
    "credentials",
    "private key",
    "access key",
    "session key",
    "signature",
    // An Azure shared access signature's `sig=`.
    "sig",
    // Azure storage connection strings' `AccountKey=`.
    "account key",
    "otp",
    "dsn",
];

/// The credential prefixes used unless configured otherwise, from these
/// vendors: `OpenAI` and Anthropic (`sk-`), Stripe, GitHub, GitLab, Slack,
/// AWS, Google (API keys and `OAuth` access tokens), Hugging Face, npm,
/// `PyPI`, `SendGrid`, `DigitalOcean`, Shopify, `HashiCorp` Vault, Atlassian,
/// Databricks, Square.
pub const DEFAULT_PREFIXES: [&str; 38] = [
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "rk_test_",
    "whsec_",
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
    "xoxr-",
    "xoxs-",
    "xapp-",
    "AKIA",
    "ASIA",
    "AIza",
    "ya29.",
    "1//0",
    "hf_",
    "npm_",
    "pypi-",
    "SG.",
    "dop_v1_",
    "doo_v1_",
    "shpat_",
    "shpss_",
    "hvs.",
    "hvb.",
    "ATATT",
    "dapi",
    "sq0atp-",
    "sq0csp-",
];

/// Replaces secrets in JSON values and text.
///
/// Cloning it is cheap for its known secrets (they are shared), and its
/// `Debug` says how many it knows, never what they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redactor {
    keys: Terms,
    prefixes: Vec<String>,
    known: Known,
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new(DEFAULT_KEYS, DEFAULT_PREFIXES)
    }
}

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
            keys: Terms::new(keys),
            prefixes: prefixes
                .into_iter()
                .map(Into::into)
                .filter(|p: &String| !p.is_empty())
                .collect(),
            known: Known::default(),
        }
    }

    /// The same redactor, also knowing `value` is a secret (surrounding
    /// white space trimmed). Refused if it is shorter than
    /// [`MIN_KNOWN_SECRET_LEN`] bytes.
    ///
    /// ```
    /// use hooks_std::redact::Redactor;
    ///
    /// let redactor = Redactor::default().with_secret("correct-horse-battery")?;
    /// // By value, with nothing around it that looks like a secret, and
    /// // encoded: `user:correct-horse-battery` in base64.
    /// assert_eq!(
    ///     redactor.redacted("the code is correct-horse-battery; dXNlcjpjb3JyZWN0LWhvcnNlLWJhdHRlcnk= too"),
    ///     "the code is [redacted]; [redacted] too",
    /// );
    /// assert!(Redactor::default().with_secret("short").is_err());
    /// # Ok::<(), hooks_std::redact::SecretError>(())
    /// ```
    pub fn with_secret(self, value: impl Into<Vec<u8>>) -> Result<Self, SecretError> {
        let value = known::checked(&value.into(), "the value given")?;
        Ok(self.knowing(value))
    }

    /// The same redactor, also knowing the value of the environment variable
    /// `name` is a secret: read now, refused if unset or too short (the
    /// error names the variable, never its value).
    ///
    /// ```
    /// use hooks_std::redact::Redactor;
    ///
    /// let error = Redactor::default().with_secret_env("SURELY_NOT_SET_ANYWHERE").unwrap_err();
    /// assert!(error.to_string().contains("`SURELY_NOT_SET_ANYWHERE` is not set"));
    /// ```
    pub fn with_secret_env(self, name: &str) -> Result<Self, SecretError> {
        Ok(self.knowing(known::from_env(name)?))
    }

    /// The same redactor, also knowing the content of the file at `path` is
    /// a secret (white space around it trimmed; it may be binary, found then
    /// by its encodings): read now, refused if unreadable or too short.
    pub fn with_secret_file(self, path: impl AsRef<Path>) -> Result<Self, SecretError> {
        Ok(self.knowing(known::from_file(path.as_ref())?))
    }

    fn knowing(mut self, value: Vec<u8>) -> Self {
        self.known = self.known.with(value);
        self
    }

    /// How many secrets it knows by value.
    pub fn known_secrets(&self) -> usize {
        self.known.len()
    }

    /// Its known secrets, for the rules that apply only those.
    pub(crate) fn known(&self) -> &Known {
        &self.known
    }

    /// `value` with every secret replaced by [`REDACTED`]: members with a
    /// sensitive key, secrets in strings, and strings that hold JSON, walked
    /// as JSON.
    pub fn redact(&self, value: &Value) -> Value {
        match value {
            Value::Object(members) => {
                let pair = pairs::names_a_secret(members, &self.keys);
                let mut redacted = Map::new();
                for (key, member) in members {
                    let member = if self.sensitive_key(key) || (pair && pairs::holds_the_value(key))
                    {
                        Value::String(REDACTED.to_owned())
                    } else {
                        self.redact(member)
                    };
                    // A token can be a key too (`{"ghp_…": "repo"}`).
                    let key = self.redact_text(key).unwrap_or_else(|| key.clone());
                    redacted.insert(unique(&redacted, key), member);
                }
                Value::Object(redacted)
            }
            Value::Array(items) => {
                // An argv array first: what follows `--password` is hidden
                // before each element is redacted on its own.
                let argv = pairs::argv(items, &self.keys, REDACTED);
                let items = argv.as_deref().unwrap_or(items);
                Value::Array(items.iter().map(|item| self.redact(item)).collect())
            }
            Value::String(text) => Value::String(self.redact_string(text)),
            other => other.clone(),
        }
    }

    /// A string: JSON inside it walked as JSON, any other text scanned.
    fn redact_string(&self, text: &str) -> String {
        let trimmed = text.trim_start();
        if (trimmed.starts_with('{') || trimmed.starts_with('['))
            && let Ok(inner) = serde_json::from_str::<Value>(text)
        {
            let redacted = self.redact(&inner);
            if redacted != inner {
                return redacted.to_string();
            }
            return text.to_owned();
        }
        self.redact_text(text).unwrap_or_else(|| text.to_owned())
    }

    /// Whether a member with this key is a secret, whatever its value.
    pub fn sensitive_key(&self, key: &str) -> bool {
        self.keys.sensitive(key)
    }

    /// `text` with every secret replaced; `None` if there was none. See the
    /// module docs for what counts.
    pub fn redact_text(&self, text: &str) -> Option<String> {
        let walked = self.embedded_json(text);
        let current = walked.as_deref().unwrap_or(text);
        let spans = text::secrets(current, &self.keys, &self.prefixes, &self.known);
        if spans.is_empty() {
            return walked;
        }
        Some(text::replace(current, &spans, REDACTED))
    }

    /// `text` with each JSON object or array in it (a prompt or a reason
    /// quoting a call's arguments: `Run this? {"env": [...]}`) redacted as
    /// JSON, so the rules only JSON's shape shows (argv arrays, name/value
    /// pairs, sensitive keys) apply there too; `None` if none changed.
    ///
    /// A start that does not parse costs at most `serde_json`'s nesting
    /// limit (128 levels) of reading before the next one is tried.
    fn embedded_json(&self, text: &str) -> Option<String> {
        let mut out = String::new();
        let mut copied = 0;
        let mut at = 0;
        while let Some(found) = text[at..].find(['{', '[']) {
            let start = at + found;
            let mut values =
                serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
            match values.next() {
                Some(Ok(value)) if value.is_object() || value.is_array() => {
                    let end = start + values.byte_offset();
                    let redacted = self.redact(&value);
                    if redacted != value {
                        out.push_str(&text[copied..start]);
                        out.push_str(&redacted.to_string());
                        copied = end;
                    }
                    at = end;
                }
                _ => at = start + 1,
            }
        }
        (copied > 0).then(|| {
            out.push_str(&text[copied..]);
            out
        })
    }

    /// `text`, redacted if it holds a secret.
    pub fn redacted(&self, text: &str) -> String {
        self.redact_text(text).unwrap_or_else(|| text.to_owned())
    }
}

/// The dispatcher's redactor, for hooks-core's own words (hook errors,
/// denial reasons, approval prompts): `.redactor(Redactor::default())`.
impl hooks_core::Redact for Redactor {
    fn redact_text(&self, text: &str) -> Option<String> {
        Redactor::redact_text(self, text)
    }
}

// The dispatcher's redactor, read by the audit log and the result scrubber:
// the one given to `HooksBuilder::redactor`, else this default (the shape
// rules, no known secrets).
hooks_core::default_state!(Redactor);
// The result scrubbers, whose policy it is, run only in a dispatcher given
// one (`.redactor(..)`, `[redact]`); the audit hooks, which only use it,
// get the default when none is given.
hooks_core::opt_in!(Redactor);

/// `key`, or, if `members` has it already (two keys redacted alike), `key`
/// with a number: no member is lost to another.
pub(crate) fn unique(members: &Map<String, Value>, key: String) -> String {
    if !members.contains_key(&key) {
        return key;
    }
    // At most `members.len()` numbers are taken.
    (2..=members.len() + 2)
        .map(|n| format!("{key}#{n}"))
        .find(|candidate| !members.contains_key(candidate))
        .expect("one of len + 1 numbers is free")
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
            "DBPassword",
            "JWTSecret",
            "pwd",
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
        for (text, expected) in [
            (
                "export OPENAI_API_KEY=sk-proj1234567890abcd && run",
                "export OPENAI_API_KEY=[redacted] && run",
            ),
            (
                "git push https://ghp_abcdefghijklmnop@github.com/x",
                "git push https://[redacted]@github.com/x",
            ),
            (
                "GET /v1?key=AIzaSyA1234567890&q=1",
                "GET /v1?key=[redacted]&q=1",
            ),
            (
                "Authorization: Basic dXNlcjpwYXNz",
                "Authorization: Basic [redacted]",
            ),
            (
                "Authorization: Token abc123",
                "Authorization: Token [redacted]",
            ),
            ("X-Api-Key: abc123xyz", "X-Api-Key: [redacted]"),
            ("AKIAIOSFODNN7EXAMPLE is the key", "[redacted] is the key"),
            (
                "psql postgres://app:hunter2@db:5432/x",
                "psql postgres://app:[redacted]@db:5432/x",
            ),
            (
                "curl 'https://x/y?api_key=k3y&page=2'",
                "curl 'https://x/y?api_key=[redacted]&page=2'",
            ),
            (
                "login --password hunter2 --user bob",
                "login --password [redacted] --user bob",
            ),
            ("login --password=hunter2", "login --password=[redacted]"),
            (
                "mysql -uroot -phunter2 shop",
                "mysql -uroot -p[redacted] shop",
            ),
            (
                r#"curl -d '{"password":"hunter2"}'"#,
                r#"curl -d '{"password":"[redacted]"}'"#,
            ),
            ("token ya29.a0AfH6SMBxyzxyzxyz", "token [redacted]"),
            (
                "key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY----- ok",
                "key: [redacted] ok",
            ),
        ] {
            assert_eq!(
                redactor.redact_text(text).as_deref(),
                Some(expected),
                "{text}"
            );
        }
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
        assert_eq!(redactor.redact_text("mkdir -p build && ls"), None);
        assert_eq!(
            redactor.redact_text("max_tokens=512 and token budget"),
            None
        );
        assert_eq!(redactor.redact_text(""), None);
    }

    #[test]
    fn a_token_or_a_known_secret_used_as_a_key_is_redacted_and_no_member_is_lost() {
        let redactor = Redactor::default().with_secret("Zq8-known-value").unwrap();
        let redacted = redactor.redact(&json!({
            "ghp_abcdefghijklmnopqrstuvwx": "org/repo",
            "id_Zq8-known-value": 1,
            "[redacted]": "a key already so written",
            "repo": "x",
        }));
        let text = redacted.to_string();
        assert!(!text.contains("ghp_abcdefgh"), "{text}");
        assert!(!text.contains("Zq8-known-value"), "{text}");
        assert_eq!(redacted.as_object().unwrap().len(), 4, "{text}");
        assert_eq!(redacted["repo"], "x");
        assert_eq!(redacted["id_[redacted]"], 1);
    }

    #[test]
    fn nested_values_and_json_in_strings_are_walked() {
        let redactor = Redactor::new(["session id"], ["tok_"]);
        assert_eq!(
            redactor.redact(&json!([{"sessionId": "abc"}, {"note": "use tok_1234567890 now"}, 3])),
            json!([{"sessionId": "[redacted]"}, {"note": "use [redacted] now"}, 3])
        );
        let redactor = Redactor::default();
        let redacted =
            redactor.redact(&json!({"body": "{\"user\":\"bob\",\"password\":\"hunter2\"}"}));
        // The embedded JSON is written back as serde_json orders keys (sorted,
        // or as written when a crate in the build turns on `preserve_order`):
        // compared as JSON, not as text.
        let body: Value = serde_json::from_str(redacted["body"].as_str().unwrap()).unwrap();
        assert_eq!(body, json!({"password": "[redacted]", "user": "bob"}));
    }
}
