//! Event variables: `${tool_input.file_path}` in a command's arguments, an
//! HTTP hook's payload or an MCP tool's arguments, filled in from the event as
//! the hook would see it ([`ProtocolEvent::input`](crate::protocol::ProtocolEvent::input)).
//!
//! One syntax, `${path}`: dot-separated keys, a number indexing an array
//! (`${tool_input.edits.0.old_string}`). `$$` is a literal `$`; a `$` before
//! a letter or `_` is refused (it looks like a shell variable, and no shell
//! reads it), any other `$` is itself. A path the event does not have fails
//! the call, naming the variable; a string is put in as it is, anything else
//! as its JSON text.

use std::fmt;

use hooks_core::{HookError, Value};
use serde_json::Map;

/// A string with variables in it, checked when the file is loaded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    Variable(Variable),
}

/// A `${path}`, split into its keys.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Variable {
    keys: Vec<String>,
}

impl Template {
    /// Reads `text`; the error says what is wrong and how to write it.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            literal.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some(after) = after.strip_prefix('$') {
                literal.push('$');
                rest = after;
            } else if let Some(inside) = after.strip_prefix('{') {
                let end = inside.find('}').ok_or_else(|| {
                    format!("`${{` without its `}}` in \"{text}\" (write `$$` for a literal `$`)")
                })?;
                let variable = Variable::parse(&inside[..end])
                    .map_err(|error| format!("in \"{text}\": {error}"))?;
                if !literal.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut literal)));
                }
                parts.push(Part::Variable(variable));
                rest = &inside[end + 1..];
            } else if after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                return Err(format!(
                    "`${name}` in \"{text}\" is not a variable here, and no shell expands it: \
                     write `${{{}}}` for the event's value, or `$${name}` for the text",
                    name.replacen("tool_input_", "tool_input.", 1)
                ));
            } else {
                literal.push('$');
                rest = after;
            }
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        Ok(Template { parts })
    }

    /// Whether the text has a variable in it.
    pub(crate) fn has_variables(&self) -> bool {
        self.parts
            .iter()
            .any(|part| matches!(part, Part::Variable(_)))
    }

    /// The one variable, if the text is exactly one variable.
    fn only_variable(&self) -> Option<&Variable> {
        match self.parts.as_slice() {
            [Part::Variable(variable)] => Some(variable),
            _ => None,
        }
    }

    /// The text with the event's values in it.
    pub(crate) fn render(&self, event: &Value) -> Result<String, HookError> {
        self.fill(event).map(|(text, _)| text)
    }

    /// The text with the event's values in it, as one argument of
    /// `program`: refused if a value (not text of the hook's own) begins it
    /// with `-` or `+`, which the program would read as an option
    /// (`sort --output=/etc/x`, `vim +cmd`). No `--` is honoured as an end of
    /// options: not every program stops at it (`find -- -delete` deletes).
    pub(crate) fn render_argument(
        &self,
        event: &Value,
        program: &str,
    ) -> Result<String, HookError> {
        let (text, leader) = self.fill(event)?;
        match (leader, text.chars().next()) {
            (Some(variable), Some(sign @ ('-' | '+'))) => Err(HookError::failed(format!(
                "the value of `{variable}` starts with `{sign}`, and `{program}` would read it as \
                 an option: refused (a value may start an argument only after text of the \
                 hook's own, e.g. `--file={variable}`)"
            ))),
            _ => Ok(text),
        }
    }

    /// The text filled in, and the variable whose value begins it, if one does.
    fn fill(&self, event: &Value) -> Result<(String, Option<&Variable>), HookError> {
        let mut text = String::new();
        let mut leader = None;
        for part in &self.parts {
            let empty = text.is_empty();
            match part {
                Part::Text(literal) => text.push_str(literal),
                Part::Variable(variable) => {
                    match variable.lookup(event)? {
                        Value::String(value) => text.push_str(value),
                        other => text.push_str(&other.to_string()),
                    }
                    if empty && !text.is_empty() {
                        leader = Some(variable);
                    }
                }
            }
        }
        Ok((text, leader))
    }
}

impl Variable {
    fn parse(path: &str) -> Result<Self, String> {
        let keys: Vec<String> = path.split('.').map(str::to_owned).collect();
        let valid = |key: &String| {
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        if keys.iter().all(valid) {
            Ok(Variable { keys })
        } else {
            Err(format!(
                "`${{{path}}}` is not a variable: write dot-separated keys of the event, \
                 e.g. `${{tool_input.file_path}}`"
            ))
        }
    }

    /// The event's value at this path; its absence fails the call.
    fn lookup<'e>(&self, event: &'e Value) -> Result<&'e Value, HookError> {
        let mut value = event;
        for key in &self.keys {
            let next = match value {
                Value::Object(fields) => fields.get(key),
                Value::Array(items) => key.parse::<usize>().ok().and_then(|at| items.get(at)),
                _ => None,
            };
            value = next.ok_or_else(|| {
                HookError::failed(format!("the event has no `{self}` for its variable"))
            })?;
        }
        Ok(value)
    }
}

impl fmt::Display for Variable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${{{}}}", self.keys.join("."))
    }
}

/// A JSON value whose strings may hold variables: an HTTP payload, an MCP
/// tool's arguments. Only string leaves are filled in, and the result is
/// serialised as JSON, so a value can never become structure. A string that
/// is exactly one variable becomes the value itself, of whatever JSON type;
/// keys are taken as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JsonTemplate {
    Fixed(Value),
    Text(Template),
    Array(Vec<JsonTemplate>),
    Object(Vec<(String, JsonTemplate)>),
}

impl JsonTemplate {
    /// Reads `value`; the error names the first bad string.
    pub(crate) fn parse(value: Value) -> Result<Self, String> {
        Ok(match value {
            Value::String(text) => {
                let template = Template::parse(&text)?;
                if template.has_variables() {
                    JsonTemplate::Text(template)
                } else {
                    JsonTemplate::Fixed(Value::String(text))
                }
            }
            Value::Array(items) => JsonTemplate::Array(
                items
                    .into_iter()
                    .map(JsonTemplate::parse)
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(fields) => JsonTemplate::Object(
                fields
                    .into_iter()
                    .map(|(key, value)| Ok((key, JsonTemplate::parse(value)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => JsonTemplate::Fixed(other),
        })
    }

    /// The value with the event's values in it.
    pub(crate) fn render(&self, event: &Value) -> Result<Value, HookError> {
        Ok(match self {
            JsonTemplate::Fixed(value) => value.clone(),
            JsonTemplate::Text(template) => match template.only_variable() {
                Some(variable) => variable.lookup(event)?.clone(),
                None => Value::String(template.render(event)?),
            },
            JsonTemplate::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| item.render(event))
                    .collect::<Result<_, _>>()?,
            ),
            JsonTemplate::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(key, value)| Ok((key.clone(), value.render(event)?)))
                    .collect::<Result<Map<_, _>, HookError>>()?,
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use hooks_core::json;

    use super::{JsonTemplate, Template};

    fn render(text: &str, event: &hooks_core::Value) -> String {
        Template::parse(text).unwrap().render(event).unwrap()
    }

    #[test]
    fn variables_escapes_and_stray_dollars() {
        let event = json!({"tool_name": "Write", "tool_input": {"file_path": "a b;$(x)", "n": 3, "edits": [{"s": "first"}]}});
        assert_eq!(render("${tool_input.file_path}", &event), "a b;$(x)");
        assert_eq!(render("--n=${tool_input.n}", &event), "--n=3");
        assert_eq!(render("${tool_input.edits.0.s}", &event), "first");
        // An object is its JSON text (compared as JSON: key order depends on
        // serde_json's `preserve_order`, which a workspace build turns on).
        let whole: hooks_core::Value =
            serde_json::from_str(&render("${tool_input}", &event)).unwrap();
        assert_eq!(whole, event["tool_input"]);
        assert_eq!(
            render("$${tool_name} costs $5 $", &event),
            "${tool_name} costs $5 $"
        );
        let missing = Template::parse("${tool_input.nope}")
            .unwrap()
            .render(&event)
            .unwrap_err();
        assert!(missing.to_string().contains("no `${tool_input.nope}`"));
    }

    #[test]
    fn mistakes_are_refused_with_the_fix() {
        let bare = Template::parse("$tool_input_file_path").unwrap_err();
        assert!(bare.contains("write `${tool_input.file_path}`"), "{bare}");
        assert!(
            Template::parse("${tool_name")
                .unwrap_err()
                .contains("without its `}`")
        );
        assert!(
            Template::parse("${}")
                .unwrap_err()
                .contains("is not a variable")
        );
        assert!(Template::parse("${a..b}").is_err());
        assert!(Template::parse("${a b}").is_err());
    }

    #[test]
    fn json_templates_fill_leaves_only() {
        let event =
            json!({"tool_input": {"file_path": "x\", \"admin\": true, \"y\": \"}", "n": [1]}});
        let template = JsonTemplate::parse(json!({
            "file": "${tool_input.file_path}",
            "n": "${tool_input.n}",
            "said": "path=${tool_input.file_path}",
            "${tool_input.n}": 1,
        }))
        .unwrap();
        let body = template.render(&event).unwrap();
        assert_eq!(body["file"], json!("x\", \"admin\": true, \"y\": \"}"));
        assert_eq!(body["n"], json!([1]));
        assert_eq!(body["said"], json!("path=x\", \"admin\": true, \"y\": \"}"));
        assert_eq!(body.get("admin"), None);
        assert_eq!(body["${tool_input.n}"], json!(1), "keys are not filled in");
    }
}
