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
        self.sensitive_parts(&[key])
    }

    /// [`sensitive`](Self::sensitive) for the words of `parts` in a row
    /// (`["api", "key"]` is `api key`).
    ///
    /// Every word of every string is looked at, so an ASCII name of up to
    /// [`STACK_WORDS`] words is split on the stack and compared ignoring
    /// case, allocating nothing; any other takes [`words`].
    pub(crate) fn sensitive_parts(&self, parts: &[&str]) -> bool {
        if parts.iter().all(|part| part.is_ascii()) {
            let mut found: [&[u8]; STACK_WORDS] = [&[]; STACK_WORDS];
            let mut count = 0;
            for word in parts.iter().flat_map(|part| ascii_words(part.as_bytes())) {
                if count == STACK_WORDS {
                    return self.sensitive_words(&owned_words(parts));
                }
                found[count] = word;
                count += 1;
            }
            return self.any_term(
                &found[..count],
                |word, term| word.eq_ignore_ascii_case(term.as_bytes()),
                |word, term| {
                    word.len() >= term.len()
                        && word[word.len() - term.len()..].eq_ignore_ascii_case(term.as_bytes())
                },
            );
        }
        self.sensitive_words(&owned_words(parts))
    }

    fn sensitive_words(&self, words: &[String]) -> bool {
        self.any_term(
            words,
            |word, term| word == term,
            |word, term| word.ends_with(term),
        )
    }

    fn any_term<W>(
        &self,
        words: &[W],
        same: impl Fn(&W, &str) -> bool,
        ends_with: impl Fn(&W, &str) -> bool,
    ) -> bool {
        self.0.iter().any(|term| {
            words
                .windows(term.len())
                .any(|window| window.iter().zip(term).all(|(word, term)| same(word, term)))
                || matches!(term.as_slice(), [one] if one.len() >= GLUED
                && words.iter().any(|word| ends_with(word, one)))
        })
    }
}

/// How many words of an ASCII name are split on the stack.
const STACK_WORDS: usize = 16;

fn owned_words(parts: &[&str]) -> Vec<String> {
    parts.iter().flat_map(|part| words(part)).collect()
}

/// The words of an ASCII name as [`words`] splits them, case kept.
fn ascii_words(key: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < key.len() && !key[at].is_ascii_alphanumeric() {
            at += 1;
        }
        if at == key.len() {
            return None;
        }
        let start = at;
        at += 1;
        while at < key.len() && key[at].is_ascii_alphanumeric() {
            let (previous, c, next) = (key[at - 1], key[at], key.get(at + 1).copied());
            let hump = c.is_ascii_uppercase()
                && (previous.is_ascii_lowercase() || previous.is_ascii_digit());
            let acronym_end = c.is_ascii_uppercase()
                && previous.is_ascii_uppercase()
                && next.is_some_and(|next| next.is_ascii_lowercase());
            if hump || acronym_end {
                break;
            }
            at += 1;
        }
        Some(&key[start..at])
    })
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
    fn the_stack_split_is_the_same_split() {
        for key in [
            "DBPassword",
            "JWTSecret",
            "X-Api-Key",
            "clientSecret2",
            "aws_access_key_id",
            "HTTPSProxy",
            "a1B2c3",
            "--password=",
            "ABC",
            "",
        ] {
            let split: Vec<String> = ascii_words(key.as_bytes())
                .map(|word| String::from_utf8(word.to_ascii_lowercase()).unwrap())
                .collect();
            assert_eq!(split, words(key), "{key}");
        }
        let terms = Terms::new(["api key", "password"]);
        assert!(terms.sensitive_parts(&["invalid api", "key"]));
        assert!(
            terms.sensitive("\u{212a}ey_PASSWORD"),
            "non-ASCII takes the full path"
        );
        let long = "a_".repeat(40) + "password";
        assert!(terms.sensitive(&long), "more words than the stack holds");
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
