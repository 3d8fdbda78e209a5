//! Secrets given to programs on their command line, found in a command's
//! [`Word`]s — from text split as a shell would, or an argv array's
//! elements (`["mysql", "--password", "x"]`): the value after a sensitive
//! flag, and the flags particular programs read passwords from.
//!
//! - `--password x`, `--api-key=x`, `-token x` (any sensitive name; not
//!   `--password-stdin`, `--password-file`, which name where it is);
//! - mysql's `-pPW`; `sshpass -p PW`; `docker|podman|… login -p PW`;
//! - curl's `-u user:PW` (`--user`, `-U`, `--proxy-user`) and `-b`/`--cookie`
//!   with cookie data (not a cookie file);
//! - openssl's `-passin|-passout|-pass pass:PW` and `-k PW`;
//! - `… config [set] NAME VALUE` with a sensitive NAME (`aws configure set
//!   aws_session_token x`, `npm config set //r/:_authToken x`, `git config
//!   user.password x`);
//! - `.netrc` lines: `machine h login u password PW` (and `account`);
//! - a sensitive word and then a word that looks like a credential (letters
//!   and digits, eight or more): `invalid api key Qx7pL2vN9sKw`.

use std::ops::Range;

use super::keys::{Terms, words as name_words};
use super::shell::Word;

/// Programs whose own flags carry passwords, by the name they are run as.
const MYSQL: [&str; 5] = [
    "mysql",
    "mysqldump",
    "mysqladmin",
    "mariadb",
    "mariadb-dump",
];
const REGISTRY_CLIENTS: [&str; 7] = [
    "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras",
];

/// The last word of a flag that says where a secret is, not what it is.
const NOT_THE_VALUE: [&str; 7] = ["stdin", "file", "path", "env", "prompt", "dir", "cmd"];

/// Spans to hide: which word, and which part of its text. `netrc`: whether
/// the text reads as `.netrc` entries ([`is_netrc`], judged on shell words).
pub(crate) fn secrets(
    words: &[Word<'_>],
    terms: &Terms,
    netrc: bool,
) -> Vec<(usize, Range<usize>)> {
    let mut found = Vec::new();
    let mut program: Vec<&str> = Vec::new();
    let mut login = false;
    for (index, word) in words.iter().enumerate() {
        if word.starts_command {
            program.clear();
            login = false;
        }
        let name = match word.text.bytes().rposition(|byte| byte == b'/') {
            Some(slash) => &word.text[slash + 1..],
            None => word.text,
        };
        if MYSQL.contains(&name)
            || REGISTRY_CLIENTS.contains(&name)
            || matches!(name, "curl" | "sshpass" | "openssl")
        {
            program.push(name);
        }
        login |= word.text == "login";
        let next = words
            .get(index + 1)
            .filter(|next| !next.starts_command)
            .map(|_| index + 1);
        let mut hide = |at: usize, range: Range<usize>| {
            if !range.is_empty() {
                found.push((at, range));
            }
        };
        let whole = |at: usize| 0..words[at].text.len();
        let ran = |names: &[&str]| program.iter().any(|seen| names.contains(seen));
        let text = word.text;

        // `--password x`, `--password=x`, `-token x`.
        match sensitive_flag(text, terms) {
            Flag::Glued(value) => hide(index, value),
            Flag::Alone => {
                if let Some(next) = next.filter(|&next| !words[next].text.starts_with('-')) {
                    hide(next, whole(next));
                }
            }
            Flag::No => {}
        }
        if ran(&MYSQL) && text.len() > 2 && text.starts_with("-p") && !text.starts_with("--") {
            hide(index, 2..text.len());
        }
        if ran(&["sshpass"]) || (ran(&REGISTRY_CLIENTS) && login) {
            if text == "-p" {
                if let Some(next) = next {
                    hide(next, whole(next));
                }
            } else if text.len() > 2 && text.starts_with("-p") && !text.starts_with("--") {
                hide(index, 2..text.len());
            }
        }
        if ran(&["curl"]) {
            curl(words, index, next, &mut hide);
        }
        if ran(&["openssl"]) {
            match (text, next) {
                ("-passin" | "-passout" | "-pass", Some(next)) => {
                    if let Some(password) = words[next].text.strip_prefix("pass:") {
                        let start = words[next].text.len() - password.len();
                        hide(next, start..words[next].text.len());
                    }
                }
                ("-k", Some(next)) => hide(next, whole(next)),
                _ => {}
            }
        }
        if matches!(text, "config" | "configure") {
            config_value(words, index, terms, &mut hide);
        }
        if netrc
            && matches!(text, "password" | "passwd" | "account")
            && let Some(next) = next
        {
            hide(next, whole(next));
        }
        // `invalid api key Qx7pL2vN9sKw`: a credential-looking word after a
        // sensitive one (or two: `api key`). The next word is looked at
        // first: few words look like credentials.
        if let Some(next) = next
            && let Some(credential) = credential_like(words[next].text)
            && (terms.sensitive(text.trim_matches(|c: char| !c.is_alphanumeric()))
                || index.checked_sub(1).is_some_and(|before| {
                    !word.starts_command && terms.sensitive_parts(&[words[before].text, text])
                }))
        {
            hide(next, credential);
        }
    }
    found
}

/// Whether the words read as `.netrc` entries: `machine HOST login USER`
/// or `default login USER`, then `password`.
pub(crate) fn is_netrc(words: &[Word<'_>]) -> bool {
    let host = |word: &Word<'_>| {
        word.text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-_".contains(&b))
    };
    let text = |at: usize| words.get(at).map(|word| word.text);
    (0..words.len()).any(|at| {
        let entry = match text(at) {
            Some("machine") => (words.get(at + 1).is_some_and(host)
                && text(at + 2) == Some("login"))
            .then_some(at + 4),
            Some("default") => (text(at + 1) == Some("login")).then_some(at + 3),
            _ => None,
        };
        entry.is_some_and(|password| {
            matches!(text(password), Some("password" | "passwd" | "account"))
        })
    })
}

/// Whether a word is a flag naming a secret (`--password`, `--api-key`, `-token`).
enum Flag {
    No,
    /// Its value is the next word.
    Alone,
    /// Its value is glued to it by `=`, here.
    Glued(Range<usize>),
}

fn sensitive_flag(text: &str, terms: &Terms) -> Flag {
    let Some(name) = text.strip_prefix("--").or_else(|| {
        text.strip_prefix('-')
            .filter(|name| name.len() >= 3 && !name.starts_with('-'))
    }) else {
        return Flag::No;
    };
    let (flag, value) = match name.split_once('=') {
        Some((flag, value)) => (flag, Some(text.len() - value.len()..text.len())),
        None => (name, None),
    };
    if !terms.sensitive(flag) {
        return Flag::No;
    }
    let last = name_words(flag).pop().unwrap_or_default();
    match value {
        _ if NOT_THE_VALUE.contains(&last.as_str()) => Flag::No,
        Some(value) => Flag::Glued(value),
        None => Flag::Alone,
    }
}

/// curl's `-u user:PW` (and its spellings) and `-b` with cookie data.
fn curl(
    words: &[Word<'_>],
    index: usize,
    next: Option<usize>,
    hide: &mut impl FnMut(usize, Range<usize>),
) {
    let text = words[index].text;
    let after_colon = |value: &str, offset: usize| {
        value
            .find(':')
            .map(|colon| offset + colon + 1..offset + value.len())
    };
    let user = match (text, next) {
        ("-u" | "--user" | "-U" | "--proxy-user", Some(next)) => {
            after_colon(words[next].text, 0).map(|range| (next, range))
        }
        _ => ["-u", "-U", "--user=", "--proxy-user="]
            .iter()
            .find_map(|flag| text.strip_prefix(flag).filter(|rest| !rest.is_empty()))
            .and_then(|value| after_colon(value, text.len() - value.len()))
            .map(|range| (index, range)),
    };
    if let Some((at, range)) = user {
        hide(at, range);
    }
    // A cookie file is a name; cookie data has `=`.
    let cookie = match (text, next) {
        ("-b" | "--cookie", Some(next)) => Some((next, 0)),
        _ if text.starts_with("--cookie=") => Some((index, "--cookie=".len())),
        _ if text.starts_with("-b") && text.len() > 2 => Some((index, 2)),
        _ => None,
    };
    if let Some((at, from)) = cookie
        && words[at].text[from..].contains('=')
    {
        hide(at, from..words[at].text.len());
    }
}

/// `config [set] [--flags] NAME VALUE` with a sensitive `NAME`: the value.
fn config_value(
    words: &[Word<'_>],
    index: usize,
    terms: &Terms,
    hide: &mut impl FnMut(usize, Range<usize>),
) {
    let mut at = index + 1;
    while words.get(at).is_some_and(|word| {
        !word.starts_command && (word.text == "set" || word.text.starts_with('-'))
    }) {
        at += 1;
    }
    if let (Some(name), Some(value)) = (words.get(at), words.get(at + 1))
        && !name.starts_command
        && !value.starts_command
        && terms.sensitive(name.text)
    {
        hide(at + 1, 0..value.text.len());
    }
}

/// The part of `word` that looks like a credential — eight or more
/// characters of letters, digits and `_-./+=~`, with at least one letter
/// and one digit — without punctuation closing a sentence after it.
fn credential_like(word: &str) -> Option<Range<usize>> {
    if word.len() < 8 {
        return None;
    }
    let trimmed = word.trim_end_matches(['.', ',', ';', ')', ']', '}', '!', '?', '\'', '"']);
    let token = trimmed.trim_start_matches(['(', '[', '{', '\'', '"']);
    let start = trimmed.len() - token.len();
    let ok = token.len() >= 8
        && token.bytes().any(|b| b.is_ascii_digit())
        && token.bytes().any(|b| b.is_ascii_alphabetic())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./+=~".contains(&b));
    ok.then_some(start..trimmed.len())
}
