//! Writing one argument through the context: a rewrite recorded by
//! construction, with no walk of the arguments before and after the hook.

use std::fmt;

use serde_json::{Map, Value};

use super::trail::Trail;

/// Why [`PreToolUse::set_arg`](crate::PreToolUse::set_arg) could not set an
/// argument: the call's arguments are not a JSON object (a tool's arguments
/// are an object in every host; these came from somewhere else).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgsNotObject {
    key: String,
    found: &'static str,
}

impl ArgsNotObject {
    /// The key that could not be set.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl fmt::Display for ArgsNotObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot set the argument `{}`: the arguments are {}, not an object",
            self.key, self.found
        )
    }
}

impl std::error::Error for ArgsNotObject {}

/// Sets `key` of `args` (the context's `field`) to `value` for the running
/// hook: a rewrite under its name if the value changed, and the field's
/// remembered print forgotten (the next hook to borrow it takes a new one).
/// `null` arguments become an object first.
pub(crate) fn set_key(
    trail: &mut Trail,
    field: &'static str,
    args: &mut Value,
    key: &str,
    value: Value,
) -> Result<(), ArgsNotObject> {
    if args.is_null() {
        *args = Value::Object(Map::new());
    }
    let Value::Object(map) = args else {
        return Err(ArgsNotObject {
            key: key.to_owned(),
            found: kind(args),
        });
    };
    match map.get_mut(key) {
        Some(old) if *old == value => return Ok(()),
        Some(old) => *old = value,
        None => {
            map.insert(key.to_owned(), value);
        }
    }
    trail.changed(field);
    Ok(())
}

/// What a JSON value is, for an error message.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
