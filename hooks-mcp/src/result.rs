//! Tool results as hooks see them, and back: an upstream result is handed
//! to post-tool-use hooks as its MCP JSON (`{"content": [..],
//! "structuredContent": ..}`), so truncation and redaction reach every text
//! block and keep the shape; whatever they leave is read back.

use hooks_core::ToolError;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

/// The result as hooks see it: content and structured content, without the
/// wire-level fields (`isError` is told apart by the event: a failed call
/// goes to `post_tool_use_failure`).
pub(crate) fn to_value(result: &CallToolResult) -> Value {
    let mut value = serde_json::to_value(result).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut value {
        fields.remove("isError");
        fields.remove("resultType");
    }
    value
}

/// A result the hooks left, for the client; a shape they broke is a tool
/// error naming the problem rather than a protocol failure.
pub(crate) fn from_value(value: Value) -> CallToolResult {
    match serde_json::from_value::<CallToolResult>(value) {
        Ok(result) => result,
        Err(error) => error_result(
            &format!("a hook left the tool's result in a shape MCP cannot carry: {error}"),
            None,
        ),
    }
}

/// An upstream tool error as hooks see it: its text, with the whole result
/// as data (structured content survives the failure hooks).
pub(crate) fn to_tool_error(result: &CallToolResult) -> ToolError {
    ToolError::new(error_message(result)).with_data(to_value(result))
}

/// The text blocks of a result, joined by line breaks; `None` without any.
pub(crate) fn text(result: &CallToolResult) -> Option<String> {
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    (!text.is_empty()).then(|| text.join("\n"))
}

/// What an `isError` result says went wrong: its text.
pub(crate) fn error_message(result: &CallToolResult) -> String {
    text(result).unwrap_or_else(|| "the tool reported an error without a message".to_owned())
}

/// The error result the client gets: the message (as the failure hooks
/// left it), and the structured content the tool gave, if any.
pub(crate) fn error_result(message: &str, data: Option<&Value>) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(message.to_owned())]);
    result.structured_content = data.and_then(|data| data.get("structuredContent")).cloned();
    result
}

/// A tool's arguments as MCP carries them: a JSON object (none is `{}`).
pub(crate) fn arguments(value: &Value) -> Result<Map<String, Value>, String> {
    match value {
        Value::Object(fields) => Ok(fields.clone()),
        Value::Null => Ok(Map::new()),
        other => Err(format!(
            "a hook rewrote the arguments into {other}, which is not a JSON object"
        )),
    }
}
