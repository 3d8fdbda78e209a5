//! The docs say, in tables and in prose, what each event allows; the event
//! table (`hooks-events`) is what the code does. Each such claim is read here
//! and compared with [`EventKind`], so an event added or changed without its
//! docs fails this test rather than misleading a reader.

use std::collections::BTreeSet;

use hooks_core::{EventKind, OnError};

const LIB: &str = include_str!("../src/lib.rs");
const MACROS: &str = include_str!("../src/macros.rs");
const OUTPUT: &str = include_str!("../src/verdict/output.rs");
const EVENT: &str = include_str!("../src/event.rs");

/// The doc comments of `source` as one line of prose.
fn docs(source: &str) -> String {
    source
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            line.strip_prefix("//!")
                .or_else(|| line.strip_prefix("///"))
        })
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text of `docs` from `start` to the first `end` after it.
fn between<'a>(docs: &'a str, start: &str, end: &str) -> &'a str {
    let from = docs
        .find(start)
        .unwrap_or_else(|| panic!("the docs no longer say {start:?}"));
    let rest = &docs[from..];
    let to = rest
        .find(end)
        .unwrap_or_else(|| panic!("nothing ends {start:?} with {end:?}"));
    &rest[..to + end.len()]
}

/// The events `text` names, by context type (`PreToolUse`) or attribute
/// (`pre_tool_use`).
fn named(text: &str) -> BTreeSet<EventKind> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter_map(|word| {
            EventKind::ALL
                .iter()
                .copied()
                .find(|event| event.context_name() == word || event.as_str() == word)
        })
        .collect()
}

fn events(which: impl Fn(EventKind) -> bool) -> BTreeSet<EventKind> {
    EventKind::ALL
        .iter()
        .copied()
        .filter(|&event| which(event))
        .collect()
}

fn fail_closed() -> BTreeSet<EventKind> {
    events(|event| event.default_on_error() == OnError::Deny)
}

#[test]
fn the_crate_docs_table_has_a_true_row_for_every_event() {
    let rows: Vec<Vec<&str>> = LIB
        .lines()
        .filter_map(|line| line.strip_prefix("//! |"))
        .filter(|row| row.contains("macro@"))
        .map(|row| row.split(" | ").map(str::trim).collect())
        .collect();
    let mut seen = BTreeSet::new();
    for row in &rows {
        let [_, attribute, context, block, _, inject] = row[..] else {
            panic!("a row of the events table without 6 columns: {row:?}");
        };
        let [event] = named(attribute).into_iter().collect::<Vec<_>>()[..] else {
            panic!("a row of the events table names no one event: {row:?}");
        };
        assert!(seen.insert(event), "{event} has two rows");
        assert_eq!(context, format!("[`{}`]", event.context_name()), "{row:?}");
        assert_eq!(
            block.starts_with("yes"),
            event.can_block(),
            "may block: {row:?}"
        );
        let inject = inject.trim_end_matches('|').trim();
        assert_eq!(
            inject.starts_with("yes"),
            event.can_inject(),
            "may inject: {row:?}"
        );
    }
    assert_eq!(seen, events(|_| true), "the table lists every event");
}

#[test]
fn the_crate_docs_name_the_events_that_fail_closed() {
    let docs = docs(LIB);
    let failure = between(&docs, "**Failure**", "fail closed");
    assert_eq!(named(failure), fail_closed(), "{failure}");
}

#[test]
fn the_attribute_table_says_where_on_error_deny_is_possible_and_the_default() {
    let row = MACROS
        .lines()
        .find(|line| line.starts_with("//! | `on_error"))
        .expect("the argument table has an `on_error` row");
    let [_, _, meaning, default] = row.split(" | ").collect::<Vec<_>>()[..] else {
        panic!("the `on_error` row has not 4 columns: {row}");
    };
    assert_eq!(
        named(meaning),
        events(EventKind::can_fail_closed),
        "{meaning}"
    );
    assert_eq!(named(default), fail_closed(), "{default}");
}

#[test]
fn the_return_types_docs_name_the_events_that_may_return_a_decision() {
    let docs = docs(OUTPUT);
    let listed = between(&docs, "on events that may block:", ";");
    assert_eq!(named(listed), events(EventKind::can_block), "{listed}");
    // What the compiler says when a hook returns `Decision` where it may not.
    let note = between(OUTPUT, "only on events that may block:", ")");
    assert_eq!(named(note), events(EventKind::can_block), "{note}");
}

#[test]
fn the_default_failure_policy_names_the_events_that_fail_closed_and_open() {
    let docs = docs(EVENT);
    let closed = between(&docs, "Guards fail closed:", "denies.");
    assert_eq!(named(closed), fail_closed(), "{closed}");
    let open = between(&docs, "denies.", "fail *open*");
    let blocking_but_open = events(|event| event.can_block() && !fail_closed().contains(&event));
    assert_eq!(named(open), blocking_but_open, "{open}");
}
