//! JSON read strictly: an object with the same key twice is an error, not
//! "the last one wins". A hook printing `{"decision": "approve", "decision":
//! "block"}`, or a `settings.json` declaring `"PreToolUse"` twice, means two
//! things; which one another reader would take is anyone's guess, and the
//! losing half must not vanish silently.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The byte-order mark some editors and shells (PowerShell) put first.
const BOM: char = '\u{feff}';

/// `text` without a leading UTF-8 byte-order mark.
pub(crate) fn without_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// Parses `text` as one JSON value, refusing duplicate keys (the error says
/// which key, with its line and column).
pub(crate) fn parse(text: &str) -> Result<Value, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Strict.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// Parses `text` strictly, then reads it as `T` (from the text again, so
/// that a type error, too, says where it is).
pub(crate) fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    parse(text)?;
    serde_json::from_str(text)
}

/// A [`Value`] that refuses duplicate keys at any depth.
struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
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
        while let Some(item) = seq.next_element_seed(Strict)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key `{key}`: an object may name each key once"
                )));
            }
            let value = map.next_value_seed(Strict)?;
            object.insert(key, value);
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
