//! Secrets that only the shape of JSON gives away:
//!
//! - an argv array, whose secret is the element after a sensitive flag
//!   (`["mysql", "--password", "x"]`), read as a command's words
//!   ([`commands`](super::commands));
//! - a name/value pair whose name names a secret: `{"name": "DB_PASSWORD",
//!   "value": "x"}` (Kubernetes, ECS), `{"env_name": …, "env_value": …}`,
//!   `{"Name": "/prod/db/password", "Value": …}` (AWS parameters),
//!   `{"key": "X-Api-Key", "value": …}` (header lists).

use std::ops::Range;

use serde_json::{Map, Value};

use super::keys::{Terms, words};
use super::shell::Word;
use super::{commands, text};

/// The last word of a key holding a pair's name.
const NAME_KEYS: [&str; 7] = [
    "name",
    "key",
    "header",
    "variable",
    "var",
    "param",
    "parameter",
];
/// The last word of a key holding a pair's value.
const VALUE_KEYS: [&str; 5] = ["value", "val", "values", "content", "data"];

/// Whether `members` are a name/value pair whose name names a secret.
pub(crate) fn names_a_secret(members: &Map<String, Value>, terms: &Terms) -> bool {
    members.len() <= 8
        && members.iter().any(|(key, member)| {
            last_word_in(key, &NAME_KEYS)
                && member.as_str().is_some_and(|name| terms.sensitive(name))
        })
        && members.keys().any(|key| holds_the_value(key))
}

/// Whether a pair's member under `key` holds its value.
pub(crate) fn holds_the_value(key: &str) -> bool {
    last_word_in(key, &VALUE_KEYS)
}

fn last_word_in(key: &str, set: &[&str]) -> bool {
    words(key)
        .last()
        .is_some_and(|last| set.contains(&last.as_str()))
}

/// `items` with the secrets an argv array gives away replaced; `None` if
/// there are none (or it is no array of strings).
pub(crate) fn argv(items: &[Value], terms: &Terms, replacement: &str) -> Option<Vec<Value>> {
    if items.len() < 2 || !items.iter().any(Value::is_string) {
        return None;
    }
    let words: Vec<Word<'_>> = items
        .iter()
        .enumerate()
        .map(|(index, item)| Word::element(item.as_str().unwrap_or(""), index == 0))
        .collect();
    let netrc = commands::is_netrc(&words);
    let mut hidden: Vec<(usize, Range<usize>)> = commands::secrets(&words, terms, netrc);
    if hidden.is_empty() {
        return None;
    }
    hidden.sort_by_key(|(at, range)| (*at, range.start));
    let mut items = items.to_vec();
    for (at, item) in items.iter_mut().enumerate() {
        let spans: Vec<Range<usize>> = hidden
            .iter()
            .filter(|(index, _)| *index == at)
            .map(|(_, range)| range.clone())
            .collect();
        if let (false, Value::String(element)) = (spans.is_empty(), &*item) {
            *item = Value::String(text::replace(element, &text::merge(spans), replacement));
        }
    }
    Some(items)
}
