//! JSON read strictly: an object with the same key twice is an error, not
//! "the last one wins". A hook printing `{"decision": "approve", "decision":
//! "block"}`, or a `settings.json` declaring `"PreToolUse"` twice, means two
//! things; which one another reader would take is anyone's guess, and the
//! losing half must not vanish silently.
//!
//! The hook binary reads the host's event with it too: `{"tool_name":
//! "Bash", …, "tool_name": "Read"}` is refused, not read as whichever name a
//! guard happens to see.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The byte-order mark some editors and shells (PowerShell) put first.
const BOM: char = '\u{feff}';

/// `text` without a leading UTF-8 byte-order mark.
pub(crate) fn without_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// Parses `text` as one JSON value, refusing duplicate keys: the error says
/// which key, where (as a JSON Pointer, `/tool_input/command`), and its line
/// and column.
///
/// ```
/// let error = hooks_config::strict_json::parse(r#"{"a": {"b": 1, "b": 2}}"#).unwrap_err();
/// assert!(error.to_string().starts_with("duplicate key `b` at /a/b"));
/// ```
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    read(&mut serde_json::Deserializer::from_str(text))
}

/// [`parse`], from bytes (which must be UTF-8, as JSON is).
pub fn parse_slice(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    read(&mut serde_json::Deserializer::from_slice(bytes))
}

fn read<'de, R: serde_json::de::Read<'de>>(
    deserializer: &mut serde_json::Deserializer<R>,
) -> Result<Value, serde_json::Error> {
    let path = RefCell::new(Vec::new());
    let value = Strict { path: &path }.deserialize(&mut *deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// Parses `text` strictly, then reads it as `T` (from the text again, so
/// that a type error, too, says where it is).
pub(crate) fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    parse(text)?;
    serde_json::from_str(text)
}

/// A [`Value`] that refuses duplicate keys at any depth; `path` is where it
/// is in the document (the keys and indices leading to it), for the error.
#[derive(Clone, Copy)]
struct Strict<'p> {
    path: &'p RefCell<Vec<Step>>,
}

/// One step down into a document.
enum Step {
    Key(String),
    Index(usize),
}

/// `path`, then `last`, as a JSON Pointer (RFC 6901: `~` and `/` escaped).
fn pointer(path: &[Step], last: &str) -> String {
    let mut pointer = String::new();
    let keys = path.iter().map(|step| match step {
        Step::Key(key) => std::borrow::Cow::Borrowed(key.as_str()),
        Step::Index(index) => std::borrow::Cow::Owned(index.to_string()),
    });
    for key in keys.chain(std::iter::once(last.into())) {
        pointer.push('/');
        pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
    }
    pointer
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            self.path.borrow_mut().push(Step::Index(items.len()));
            let item = seq.next_element_seed(self)?;
            self.path.borrow_mut().pop();
            match item {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key `{key}` at {}: an object may name each key once",
                    pointer(&self.path.borrow(), &key)
                )));
            }
            // The key is kept in the path while its value is read, and
            // taken back (not copied) for the object.
            self.path.borrow_mut().push(Step::Key(key));
            let value = map.next_value_seed(self)?;
            let popped = self.path.borrow_mut().pop();
            match popped {
                Some(Step::Key(key)) => object.insert(key, value),
                _ => return Err(de::Error::custom("the JSON reader lost its place")),
            };
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_at_any_depth_with_their_place() {
        for text in [
            r#"{"decision": "approve", "decision": "block"}"#,
            r#"{"hookSpecificOutput": {"updatedInput": {"command": "ls", "command": "rm -rf /"}}}"#,
            "[1, {\"a\": 1,\n \"a\": 2}]",
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.starts_with("duplicate key `"), "{error}");
            assert!(error.contains("line"), "{error}");
        }
        for (text, says) in [
            (r#"{"a": 1, "a": 2}"#, "duplicate key `a` at /a:"),
            (
                r#"{"x": [0, {"y": {"a/b~": 1, "a/b~": 2}}]}"#,
                "duplicate key `a/b~` at /x/1/y/a~1b~0:",
            ),
            (
                r#"{"x": [{"a": 1}, {"b": 1}], "y": {"c": 1, "c": 1}}"#,
                "duplicate key `c` at /y/c:",
            ),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.starts_with(says), "{error}");
            assert_eq!(parse_slice(text.as_bytes()).unwrap_err().to_string(), error);
        }
        assert_eq!(
            parse(r#"{"a": {"b": [1, 2.5, null, true]}, "c": "d"}"#).unwrap(),
            serde_json::json!({"a": {"b": [1, 2.5, null, true]}, "c": "d"})
        );
        assert!(parse("{} trailing").is_err());
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        assert_eq!(without_bom("\u{feff}{}"), "{}");
        assert_eq!(without_bom("{}"), "{}");
    }
}
