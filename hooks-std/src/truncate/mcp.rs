//! MCP answers, cut as the model reads them, in the shapes hooks-mcp hands
//! to hooks: tool results (`{"content": [blocks..], "structuredContent":
//! ..}`), resource reads (`{"contents": [{uri, text | blob}..]}`) and
//! prompts (`{"messages": [{role, content: block}..]}`).
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

/// Whether `value` has the shape of an MCP answer the model reads, as
/// hooks-mcp hands them to hooks: a tool result (a `content` array of
/// blocks), a resource read (`contents`, each with its `uri`), or a prompt
/// (`messages`, each a `role` and a content block).
pub(crate) fn is_result(value: &Value) -> bool {
    shape(value).is_some()
}

enum Shape {
    ToolResult,
    ResourceRead,
    Prompt,
}

fn shape(value: &Value) -> Option<Shape> {
    let all = |key: &str, each: fn(&Value) -> bool| {
        value
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|items| items.iter().all(each))
    };
    if all("content", is_block) {
        Some(Shape::ToolResult)
    } else if all("contents", |item| {
        item.get("uri").is_some_and(Value::is_string)
    }) {
        Some(Shape::ResourceRead)
    } else if all("messages", |message| {
        message.get("role").is_some_and(Value::is_string)
            && message.get("content").is_some_and(is_block)
    }) {
        Some(Shape::Prompt)
    } else {
        None
    }
}

/// An MCP answer (see [`is_result`]) cut to `max_chars` as the model reads
/// it; `None` if it already fits.
pub(crate) fn shrink(value: &Value, max_chars: usize) -> Option<Value> {
    match shape(value)? {
        Shape::ToolResult => shrink_tool_result(value, max_chars),
        Shape::ResourceRead => shrink_list(
            value,
            "contents",
            max_chars,
            |item| {
                // A resource's contents read as an embedded resource block.
                json!({"type": "resource", "resource": item})
            },
            |item, cut| match cut["type"].as_str() {
                Some("resource") => cut["resource"].clone(),
                // The notice in a binary's place: text contents of the same URI.
                _ => json!({"uri": item["uri"], "mimeType": "text/plain", "text": cut["text"]}),
            },
        ),
        Shape::Prompt => shrink_list(
            value,
            "messages",
            max_chars,
            |message| message["content"].clone(),
            |message, cut| {
                let mut message = message.clone();
                message["content"] = cut;
                message
            },
        ),
    }
}

/// The items of `value[key]` cut as content blocks (`block` makes one of an
/// item, `back` puts a cut block back in its item), their texts sharing the
/// limit; `None` if nothing was cut.
fn shrink_list(
    value: &Value,
    key: &str,
    max_chars: usize,
    block: impl Fn(&Value) -> Value,
    back: impl Fn(&Value, Value) -> Value,
) -> Option<Value> {
    let items = value.get(key)?.as_array()?;
    let blocks: Vec<Value> = items.iter().map(&block).collect();
    let text_total: usize = blocks.iter().filter_map(text_of).map(chars).sum();
    let mut changed = false;
    let cut: Vec<Value> = items
        .iter()
        .zip(&blocks)
        .map(
            |(item, block)| match cut_block(block, max_chars, text_total) {
                Some(cut) => {
                    changed = true;
                    back(item, cut)
                }
                None => item.clone(),
            },
        )
        .collect();
    if !changed {
        return None;
    }
    let mut value = value.clone();
    value[key] = Value::Array(cut);
    Some(value)
}

/// A tool result cut: its text blocks share the limit, and its structured
/// content is cut to it apart.
fn shrink_tool_result(value: &Value, max_chars: usize) -> Option<Value> {
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
