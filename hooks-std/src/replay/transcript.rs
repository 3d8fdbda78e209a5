//! Claude Code transcripts: an `assistant` line's `tool_use` blocks are the
//! calls the model made. The transcript does not say reliably which of them
//! hooks blocked, so each counts as allowed (it ran).

use hooks_core::Value;
use serde_json::Map;

use super::call::{RecordedCall, kind_of, text};
use super::source::LineError;

/// The calls in one `assistant` line, and a problem for each block that is
/// a `tool_use` but cannot be read; the good blocks are kept.
pub(super) fn assistant(
    line: usize,
    fields: &Map<String, Value>,
    calls: &mut Vec<RecordedCall>,
    errors: &mut Vec<LineError>,
) {
    let mut problem = |message: String| errors.push(LineError { line, message });
    let session = match text(fields, &["sessionId"]) {
        Ok(session) => session,
        Err(message) => return problem(message),
    };
    let content = match fields.get("message") {
        Some(Value::Object(message)) => message.get("content"),
        Some(other) => {
            return problem(format!(
                "an `assistant` line's `message` must be an object, not {}",
                kind_of(other)
            ));
        }
        None => None,
    };
    let blocks = match content {
        Some(Value::Array(blocks)) => blocks,
        // Plain text: the model called no tool.
        Some(Value::String(_)) => return,
        Some(other) => {
            return problem(format!(
                "an `assistant` message's `content` must be a list of blocks or text, not {}",
                kind_of(other)
            ));
        }
        None => return problem("an `assistant` line without `message.content`".to_owned()),
    };
    for (index, block) in blocks.iter().enumerate() {
        let Some(block) = block.as_object() else {
            continue;
        };
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let number = index + 1;
        let read = text(block, &["name"]).and_then(|name| {
            let name = name
                .filter(|name| !name.is_empty())
                .ok_or_else(|| "no `name`".to_owned())?;
            Ok((name, text(block, &["id"])?))
        });
        match read {
            Ok((tool, call_id)) => calls.push(RecordedCall::ran(
                line,
                session.clone(),
                tool,
                call_id,
                block
                    .get("input")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new())),
            )),
            Err(message) => problem(format!("`tool_use` block {number}: {message}")),
        }
    }
}
