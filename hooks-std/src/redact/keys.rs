//! Which names are secrets' names: a key's words, split as people write
//! them (`db_password`, `DBPassword`, `X-Api-Key`, `jwtSecret`), compared to
//! the sensitive terms word by word.

/// How long a one-word term must be to count at the end of a longer word:
/// `password` in `pgpassword`, `token` in `csrftoken`; not `pwd` in `oldpwd`
/// (a directory) nor `otp` in `nbotp`.
const GLUED: usize = 5;

/// The sensitive terms, each as lowercase words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Terms(Vec<Vec<String>>);

impl Terms {
    pub(crate) fn new<K: AsRef<str>>(terms: impl IntoIterator<Item = K>) -> Self {
        Terms(
            terms
                .into_iter()
                .map(|term| {
                    term.as_ref()
                        .split_whitespace()
                        .map(str::to_lowercase)
                        .collect::<Vec<_>>()
                })
                .filter(|words| !words.is_empty())
                .collect(),
        )
    }

    /// Whether `key` names a secret: some term's words appear in it, in a
    /// row; or a word ends with a one-word term of [`GLUED`] letters or more,
    /// as a program's name glued to it (`PGPASSWORD`, `GITHUBTOKEN`).
    pub(crate) fn sensitive(&self, key: &str) -> bool {
        let words = words(key);
        self.0.iter().any(|term| {
            words
                .windows(term.len())
                .any(|window| window == term.as_slice())
                || matches!(term.as_slice(), [one] if one.len() >= GLUED
                    && words.iter().any(|word| word.ends_with(one.as_str())))
        })
    }
}

/// The lowercase words of a key: split at punctuation, at camelCase humps,
/// and where an acronym ends (`DBPassword` is `db`, `password`; `JWTSecret`
/// is `jwt`, `secret`).
pub(crate) fn words(key: &str) -> Vec<String> {
    let chars: Vec<char> = key.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (at, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let previous = at.checked_sub(1).map(|before| chars[before]);
        let next = chars.get(at + 1).copied();
        let hump =
            c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
        let acronym_end = c.is_uppercase()
            && previous.is_some_and(char::is_uppercase)
            && next.is_some_and(char::is_lowercase);
        if (hump || acronym_end) && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_as_people_write_them() {
        assert_eq!(words("DBPassword"), ["db", "password"]);
        assert_eq!(words("JWTSecret"), ["jwt", "secret"]);
        assert_eq!(words("X-Api-Key"), ["x", "api", "key"]);
        assert_eq!(words("clientSecret2"), ["client", "secret2"]);
        assert_eq!(words("aws_access_key_id"), ["aws", "access", "key", "id"]);
        assert_eq!(words("HTTPSProxy"), ["https", "proxy"]);
    }

    #[test]
    fn long_terms_count_at_the_end_of_a_glued_word() {
        let terms = Terms::new(["password", "token", "pwd", "api key"]);
        for key in [
            "PGPASSWORD",
            "MYSQLPASSWORD",
            "githubToken",
            "csrftoken",
            "pwd",
        ] {
            assert!(terms.sensitive(key), "{key}");
        }
        for key in [
            "OLDPWD",
            "tokenizer",
            "max_tokens",
            "passwords_policy_url",
            "apikeys",
        ] {
            assert!(!terms.sensitive(key), "{key}");
        }
    }
}
