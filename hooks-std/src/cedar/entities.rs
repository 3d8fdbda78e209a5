//! The entity store a decision reads: the entities file (users, groups,
//! tenants, their parents and attributes) and one `Tool` entity per tool
//! in the catalog, its attributes the catalog's facts.

use cedar_policy::{Entities, Schema};
use hooks_core::{Source, ToolCatalog, ToolFacts};
use serde_json::{Map, Value, json};

use super::files::Files;
use crate::config::ConfigError;

/// The entity type of tools (the resource of every call).
pub(crate) const TOOL: &str = "Tool";

/// The store: the file's entities, with the catalog's tools merged in.
pub(crate) fn store(
    files: &Files,
    catalog: &ToolCatalog,
    schema: Option<&Schema>,
) -> Result<Entities, ConfigError> {
    let (path, mut list) = match &files.entities {
        Some((path, Value::Array(list))) => (Some(path), list.clone()),
        _ => (None, Vec::new()),
    };
    let name = || {
        path.map_or_else(
            || "the tool catalog".to_owned(),
            |path| path.display().to_string(),
        )
    };
    for tool in catalog.iter() {
        let facts = attributes(tool);
        let found = list.iter_mut().find(|entity| {
            entity.pointer("/uid/type") == Some(&json!(TOOL))
                && entity.pointer("/uid/id") == Some(&json!(tool.name()))
        });
        match found {
            Some(entity) => {
                let Some(object) = entity.as_object_mut() else {
                    continue;
                };
                let attrs = object
                    .entry("attrs")
                    .or_insert_with(|| Value::Object(Map::new()));
                let Some(attrs) = attrs.as_object_mut() else {
                    return Err(ConfigError::new(
                        "cedar",
                        format!(
                            "{}: the `attrs` of Tool::{:?} is not an object",
                            name(),
                            tool.name()
                        ),
                    ));
                };
                for (key, value) in facts {
                    if attrs.contains_key(&key) {
                        return Err(ConfigError::new(
                            "cedar",
                            format!(
                                "{}: Tool::{:?} sets `{key}`, which the tool catalog gives: leave it out of the entities file (declare it as the tool's fact instead)",
                                name(),
                                tool.name()
                            ),
                        ));
                    }
                    attrs.insert(key, value);
                }
            }
            None => list.push(json!({
                "uid": {"type": TOOL, "id": tool.name()},
                "attrs": Value::Object(facts),
                "parents": [],
            })),
        }
    }
    Entities::from_json_value(Value::Array(list), schema)
        .map_err(|error| ConfigError::new("cedar", format!("{}: bad entities: {error}", name())))
}

/// A tool's facts as attributes: each effect only as the catalog *trusts*
/// it (an MCP server's own annotations, unless trusted, are no attribute:
/// a policy could otherwise let a server open its own door), and where it
/// was declared.
pub(crate) fn attributes(tool: &ToolFacts) -> Map<String, Value> {
    let mut attrs = Map::new();
    let mut origin: Option<&Source> = None;
    for (key, fact) in [
        ("read_only", tool.read_only()),
        ("destructive", tool.destructive()),
        ("idempotent", tool.idempotent()),
        ("open_world", tool.open_world()),
    ] {
        if let Some(fact) = fact {
            origin.get_or_insert(&fact.source);
            if fact.source.is_trusted() {
                attrs.insert(key.to_owned(), Value::Bool(fact.value));
            }
        }
    }
    if let Some(schema) = tool.input_schema() {
        origin.get_or_insert(&schema.source);
    }
    if let Some(origin) = origin {
        let (kind, server) = match origin {
            Source::Code => ("code", None),
            Source::Config { .. } => ("config", None),
            Source::Host { host } => ("host", Some(host.to_string())),
            Source::Mcp { server, .. } => ("mcp", Some(server.to_string())),
            Source::Rig => ("rig", None),
            _ => ("other", None),
        };
        attrs.insert("origin".to_owned(), Value::String(kind.to_owned()));
        if let Some(server) = server {
            attrs.insert("server".to_owned(), Value::String(server));
        }
    }
    attrs
}
