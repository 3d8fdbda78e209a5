//! Between rig's wire forms and the JSON values hooks read.

use rig_agent::tool::ToolOutput;
use serde_json::Value;

/// The arguments as hooks see them: the model's JSON, or the text as a
/// string when it is not JSON (a guard still sees what the tool would get).
pub(crate) fn args_value(args: &str) -> Value {
    serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.to_owned()))
}

/// A tool's output as a value: its JSON, its text, or (rich content) the
/// content list.
pub(crate) fn output_value(output: &ToolOutput) -> Value {
    if let Some(value) = output.as_json() {
        return value.clone();
    }
    if let Some(text) = output.as_text() {
        return Value::String(text.to_owned());
    }
    serde_json::to_value(output).unwrap_or(Value::Null)
}

/// A hook's result as what the model reads: a string as text, anything else as JSON.
pub(crate) fn value_output(value: Value) -> ToolOutput {
    match value {
        Value::String(text) => ToolOutput::text(text),
        value => ToolOutput::json(value),
    }
}
