//! Cutting text and JSON to a size, on character boundaries, saying what was cut.

use std::io;

use serde_json::Value;
use unicode_segmentation::GraphemeCursor;

/// Cuts `text` to at most `max_chars` characters, keeping the first two
/// thirds and the last third of what fits around a marker saying how much
/// was cut. `None` if it already fits.
///
/// Cuts fall between grapheme clusters, never inside one: an emoji family
/// (`👨‍👩‍👧` is five characters), a flag (two regional indicators), a letter
/// and its combining accents are kept whole or dropped whole, so the text
/// the model reads shows nothing the original did not.
pub(crate) fn cut_text(text: &str, max_chars: usize) -> Option<String> {
    // A character takes at least a byte: most results fit without counting.
    if text.len() <= max_chars {
        return None;
    }
    let total = text.chars().count();
    if total <= max_chars {
        return None;
    }
    let marker = |cut: usize| format!("\n[... {cut} of {total} characters cut ...]\n");
    // The marker for `total` is at least as long as the real one.
    let keep = max_chars.saturating_sub(marker(total).chars().count());
    let head = keep * 2 / 3;
    let tail = keep - head;
    let head_end = text
        .char_indices()
        .nth(head)
        .map_or(text.len(), |(at, _)| at);
    let tail_start = if tail == 0 {
        text.len()
    } else {
        text.char_indices()
            .rev()
            .nth(tail - 1)
            .map_or(0, |(at, _)| at)
    };
    // Back to the cluster boundary at or before the head's end, on to the
    // one at or after the tail's start: fewer characters, never more.
    let head_end = boundary(text, head_end, Direction::Back);
    let tail_start = boundary(text, tail_start, Direction::On).max(head_end);
    let kept = text[..head_end].chars().count() + text[tail_start..].chars().count();
    let mut cut = String::with_capacity(head_end + (text.len() - tail_start) + 64);
    cut.push_str(&text[..head_end]);
    cut.push_str(&marker(total - kept));
    cut.push_str(&text[tail_start..]);
    Some(cut)
}

enum Direction {
    Back,
    On,
}

/// The grapheme cluster boundary nearest `at` in `direction` (`at` itself if
/// it is one).
fn boundary(text: &str, at: usize, direction: Direction) -> usize {
    let mut cursor = GraphemeCursor::new(at, text.len(), true);
    // The whole text is one chunk, so the cursor never asks for context.
    if cursor.is_boundary(text, 0).unwrap_or(true) {
        return at;
    }
    let found = match direction {
        Direction::Back => cursor.prev_boundary(text, 0),
        Direction::On => cursor.next_boundary(text, 0),
    };
    match (found, direction) {
        (Ok(Some(at)), _) => at,
        (_, Direction::Back) => 0,
        (_, Direction::On) => text.len(),
    }
}

/// How many characters `value` takes as compact JSON; allocates nothing.
pub(crate) fn json_chars(value: &Value) -> usize {
    let mut counter = CharCounter(0);
    serde_json::to_writer(&mut counter, value).expect("writing to a counter cannot fail");
    counter.0
}

struct CharCounter(usize);

impl io::Write for CharCounter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        // Count the bytes that start a UTF-8 character.
        self.0 += bytes.iter().filter(|&&byte| byte & 0xC0 != 0x80).count();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `value` cut to at most `max_chars` — a string's characters, anything
/// else's compact JSON — still valid JSON of the same shape where possible:
/// long strings keep head and tail, long arrays keep their first and last
/// items around a marker item. When even that does not fit, the value's JSON
/// text, cut, as a string. `None` if it already fits.
pub(crate) fn shrink(value: &Value, max_chars: usize) -> Option<Value> {
    if let Value::String(text) = value {
        return cut_text(text, max_chars).map(Value::String);
    }
    if json_chars(value) <= max_chars {
        return None;
    }
    // Start wide (an array item takes at least two characters) and narrow
    // by a quarter at a time: the first shape that fits uses most of the
    // limit, rather than the fraction a halving step would leave.
    let mut string_cap = max_chars / 2;
    let mut items_cap = (max_chars / 8).max(64);
    loop {
        let candidate = capped(value, string_cap, items_cap);
        if json_chars(&candidate) <= max_chars {
            return Some(candidate);
        }
        if string_cap <= MIN_STRING_CAP && items_cap <= 2 {
            break;
        }
        string_cap = (string_cap * 3 / 4).max(MIN_STRING_CAP);
        items_cap = (items_cap * 3 / 4).max(2);
    }
    let text = serde_json::to_string(value).expect("a JSON value serializes");
    Some(Value::String(cut_text(&text, max_chars).unwrap_or(text)))
}

/// Below this a cut string is mostly marker.
const MIN_STRING_CAP: usize = 100;

fn capped(value: &Value, string_cap: usize, items_cap: usize) -> Value {
    match value {
        Value::String(text) => {
            Value::String(cut_text(text, string_cap).unwrap_or_else(|| text.clone()))
        }
        Value::Array(items) if items.len() > items_cap => {
            let head = items_cap.div_ceil(2);
            let tail = items_cap - head;
            let mut kept: Vec<Value> = items[..head]
                .iter()
                .map(|item| capped(item, string_cap, items_cap))
                .collect();
            kept.push(Value::String(format!(
                "[... {} of {} items cut ...]",
                items.len() - items_cap,
                items.len()
            )));
            kept.extend(
                items[items.len() - tail..]
                    .iter()
                    .map(|item| capped(item, string_cap, items_cap)),
            );
            Value::Array(kept)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| capped(item, string_cap, items_cap))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), capped(item, string_cap, items_cap)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_keeps_head_and_tail_and_says_how_much_was_cut() {
        let text: String = (0..10_000u32)
            .map(|i| char::from_u32(u32::from('a') + i % 26).unwrap())
            .collect();
        let cut = cut_text(&text, 300).unwrap();
        assert!(cut.chars().count() <= 300, "{}", cut.chars().count());
        assert!(cut.starts_with("abcdef"));
        assert!(cut.contains("of 10000 characters cut ...]"));
        assert!(text.ends_with(cut.rsplit('\n').next().unwrap()));
        assert_eq!(cut_text("short", 300), None);
    }

    #[test]
    fn multibyte_text_is_cut_between_characters() {
        let text = "é→😀".repeat(1_000);
        let cut = cut_text(&text, 200).unwrap();
        assert!(cut.chars().count() <= 200);
        assert!(cut.starts_with("é→😀"));
        assert!(cut.ends_with("😀"));
    }

    #[test]
    fn json_keeps_its_shape() {
        let rows: Vec<Value> = (0..5_000)
            .map(|i| json!({"id": i, "name": format!("row {i}")}))
            .collect();
        let value = json!({"rows": rows, "query": "SELECT *", "note": "x".repeat(50_000)});
        let shrunk = shrink(&value, 2_000).unwrap();
        assert!(json_chars(&shrunk) <= 2_000, "{}", json_chars(&shrunk));
        assert_eq!(shrunk["query"], "SELECT *");
        assert_eq!(shrunk["rows"][0], json!({"id": 0, "name": "row 0"}));
        let rows = shrunk["rows"].as_array().unwrap();
        assert_eq!(rows.last().unwrap()["id"], 4_999);
        assert!(
            rows.iter()
                .any(|row| row.as_str().is_some_and(|s| s.contains("items cut")))
        );
        assert!(
            shrunk["note"]
                .as_str()
                .unwrap()
                .contains("of 50000 characters cut")
        );
    }

    #[test]
    fn json_too_wide_to_keep_becomes_cut_text() {
        let wide: serde_json::Map<String, Value> =
            (0..2_000).map(|i| (format!("key_{i}"), json!(i))).collect();
        let shrunk = shrink(&Value::Object(wide), 500).unwrap();
        let text = shrunk.as_str().unwrap();
        assert!(text.chars().count() <= 500);
        assert!(text.starts_with("{\"key_0\":0"));
    }
}
