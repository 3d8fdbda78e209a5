//! MCP tool results, cut as the model reads them: `{"content": [blocks..],
//! "structuredContent": ..}`, the shape hooks-mcp hands to hooks.
//!
//! The limit is what the model receives, so it applies to each way of
//! reading the result on its own: the text blocks share it (a tool that also
//! returns its text as structured content does not halve it), and the
//! structured content is cut to it apart. Binary content (an image's or an
//! audio clip's base64, a resource's blob) is never cut inside — a cut
//! image is no image — but replaced whole by a notice when it is over the
//! limit.

use serde_json::{Map, Value, json};

use super::text::{cut_text, shrink as shrink_json};

/// Whether `value` has an MCP tool result's shape: a `content` array of
/// blocks, each an object with a string `type`.
pub(crate) fn is_result(value: &Value) -> bool {
    value
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| blocks.iter().all(is_block))
}

/// An MCP tool result (see [`is_result`]) cut to `max_chars` as the model
/// reads it; `None` if it already fits.
pub(crate) fn shrink(value: &Value, max_chars: usize) -> Option<Value> {
    let fields = value.as_object()?;
    let blocks = fields.get("content")?.as_array()?;
    let mut changed = false;
    let text_total: usize = blocks.iter().filter_map(text_of).map(chars).sum();
    let content: Vec<Value> = blocks
        .iter()
        .map(|block| {
            let cut = cut_block(block, max_chars, text_total);
            changed |= cut.is_some();
            cut.unwrap_or_else(|| block.clone())
        })
        .collect();
    let structured = fields
        .get("structuredContent")
        .and_then(|structured| shrink_json(structured, max_chars));
    changed |= structured.is_some();
    if !changed {
        return None;
    }
    let mut cut: Map<String, Value> = fields.clone();
    cut.insert("content".to_owned(), Value::Array(content));
    if let Some(structured) = structured {
        cut.insert("structuredContent".to_owned(), structured);
    }
    Some(Value::Object(cut))
}

/// A content block: an object with a string `type`.
fn is_block(block: &Value) -> bool {
    block.get("type").is_some_and(Value::is_string)
}

/// The text a block gives the model: a text block's, or an embedded text
/// resource's.
fn text_of(block: &Value) -> Option<&str> {
    match block["type"].as_str()? {
        "text" => block.get("text")?.as_str(),
        "resource" => block.get("resource")?.get("text")?.as_str(),
        _ => None,
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// `block` cut to its part of the limit, or `None` if it stays as it is.
fn cut_block(block: &Value, max_chars: usize, text_total: usize) -> Option<Value> {
    if let Some(text) = text_of(block) {
        if text_total <= max_chars {
            return None;
        }
        // Each text block gets the share of the limit its length is of all
        // the text, so every block keeps its head and tail.
        let share = max_chars * chars(text) / text_total;
        let cut = cut_text(text, share)?;
        let mut block = block.clone();
        match block["type"].as_str() {
            Some("text") => block["text"] = Value::String(cut),
            _ => block["resource"]["text"] = Value::String(cut),
        }
        return Some(block);
    }
    let (kind, data) = binary_of(block)?;
    if data.len() <= max_chars {
        return None;
    }
    let bytes = data.len() / 4 * 3 - data.bytes().rev().take_while(|&b| b == b'=').count();
    Some(json!({
        "type": "text",
        "text": format!(
            "[{kind} of {bytes} bytes removed: over this tool's result limit of {max_chars} characters]"
        ),
    }))
}

/// What a binary block holds (its MIME type, or its kind) and its base64 data.
fn binary_of(block: &Value) -> Option<(String, &str)> {
    let (holder, data) = match block["type"].as_str()? {
        "image" | "audio" => (block, block.get("data")?.as_str()?),
        "resource" => {
            let resource = block.get("resource")?;
            (resource, resource.get("blob")?.as_str()?)
        }
        _ => return None,
    };
    let kind = holder.get("mimeType").and_then(Value::as_str).map_or_else(
        || block["type"].as_str().unwrap_or("binary").to_owned(),
        str::to_owned,
    );
    Some((kind, data))
}
