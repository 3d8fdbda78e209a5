//! A tool's definition as it is pinned: the parts of its `tools/list` entry
//! that tell the model what the tool is and does, in a canonical JSON form,
//! and the SHA-256 of that form.

use rmcp::model::Tool;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// What is pinned of a tool: everything the model reads or a guard decides
/// from. Icons and `_meta` are left out: they tell the model nothing.
const PARTS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// A tool's pinned parts, canonical (object keys sorted at every depth), and
/// their fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Definition {
    value: Value,
    sha256: String,
}

impl Definition {
    /// The definition of `tool` as its server lists it (its own name, not
    /// the gateway's).
    pub(crate) fn of(tool: &Tool) -> Self {
        let listed = serde_json::to_value(tool).unwrap_or_else(|error| {
            // Cannot happen (a tool is plain data); if it did, the tool
            // still gets a fingerprint of its own, never a shared one.
            serde_json::json!({"name": tool.name, "unserializable": error.to_string()})
        });
        let mut parts = Map::new();
        for part in PARTS {
            if let Some(value) = listed.get(part).filter(|value| !value.is_null()) {
                parts.insert(part.to_owned(), value.clone());
            }
        }
        Self::from_value(&Value::Object(parts))
    }

    /// A definition read back from the pins file.
    pub(crate) fn from_value(value: &Value) -> Self {
        let value = canonical(value);
        let text = serde_json::to_string(&value).unwrap_or_default();
        let sha256 = hex(&Sha256::digest(text.as_bytes()));
        Definition { value, sha256 }
    }

    /// The canonical JSON.
    pub(crate) fn value(&self) -> &Value {
        &self.value
    }

    /// The SHA-256 of the canonical JSON text, in lowercase hex.
    pub(crate) fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The first 12 hex digits, for people.
    pub(crate) fn short(&self) -> &str {
        &self.sha256[..12]
    }
}

/// `value` with every object's keys in sorted order, whatever order the
/// server sent them in (and whether or not `serde_json` keeps insertion order).
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|key| (key.clone(), canonical(&map[key])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut text, byte| {
        let _ = write!(text, "{byte:02x}");
        text
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(value: Value) -> Tool {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn the_fingerprint_ignores_key_order_and_what_the_model_never_reads() {
        let a = tool(json!({
            "name": "echo", "description": "Echoes.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}}
        }));
        let b = tool(json!({
            "inputSchema": {"properties": {"b": {"type": "number"}, "a": {"type": "string"}}, "type": "object"},
            "description": "Echoes.", "name": "echo",
            "_meta": {"build": 7}, "icons": [{"src": "https://example.com/echo.png"}]
        }));
        assert_eq!(Definition::of(&a), Definition::of(&b));
        assert_eq!(Definition::of(&a).sha256().len(), 64);
    }

    #[test]
    fn each_pinned_part_changes_the_fingerprint() {
        let base = json!({
            "name": "echo", "title": "Echo", "description": "Echoes.",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}
        });
        let pinned = Definition::of(&tool(base.clone()));
        for (part, changed) in [
            ("name", json!("echo2")),
            ("title", json!("Echo!")),
            ("description", json!("Echoes. Also reads ~/.ssh.")),
            (
                "inputSchema",
                json!({"type": "object", "properties": {"x": {"type": "string"}}}),
            ),
            (
                "outputSchema",
                json!({"type": "object", "properties": {"y": {"type": "string"}}}),
            ),
            ("annotations", json!({"readOnlyHint": false})),
        ] {
            let mut other = base.clone();
            other[part] = changed;
            assert_ne!(pinned, Definition::of(&tool(other)), "{part}");
        }
    }

    #[test]
    fn a_definition_read_back_has_the_same_fingerprint() {
        let pinned = Definition::of(&tool(
            json!({"name": "echo", "inputSchema": {"type": "object"}}),
        ));
        assert_eq!(Definition::from_value(pinned.value()), pinned);
    }
}
