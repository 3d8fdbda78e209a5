//! What rig's tool definitions tell the dispatcher's tool catalog: each
//! tool's input schema, and the arguments the schema itself says are URLs
//! (`"format": "uri"`). rig declares no effects: whether a tool only reads
//! is the operator's to declare (`ToolFacts::only_reads`, `[tools.NAME]`).

use hooks_core::{ArgRole, Source, ToolFacts};
use rig_core::completion::ToolDefinition;
use serde_json::Value;

/// The facts of rig tool definitions ([`Source::Rig`]), for
/// [`HooksBuilder::tools`](hooks_core::HooksBuilder::tools).
///
/// ```
/// use hooks_core::{ArgRole, Hooks};
/// use rig_core::completion::ToolDefinition;
/// use rig_core::message::ToolName;
///
/// let fetch = ToolDefinition {
///     name: ToolName::new("fetch_page").unwrap(),
///     description: "Fetches a page".into(),
///     parameters: serde_json::json!({
///         "type": "object",
///         "properties": {"url": {"type": "string", "format": "uri"}},
///     }),
/// };
/// let hooks = Hooks::builder()
///     .without_linked()
///     .tools(hooks_rig::tool_facts([&fetch]))
///     .build()
///     .unwrap();
/// let facts = hooks.catalog().get("fetch_page").unwrap();
/// assert!(facts.input_schema().is_some());
/// assert_eq!(facts.args_with(ArgRole::Url).next().unwrap().path, "url");
/// assert!(facts.read_only().is_none(), "rig says nothing of effects");
/// ```
pub fn tool_facts<'a>(definitions: impl IntoIterator<Item = &'a ToolDefinition>) -> Vec<ToolFacts> {
    definitions
        .into_iter()
        .map(|definition| {
            let mut facts = ToolFacts::new(definition.name.as_str())
                .from(Source::Rig)
                .schema(definition.parameters.clone());
            for url in uri_properties(&definition.parameters) {
                facts = facts.arg(url, ArgRole::Url);
            }
            facts
        })
        .collect()
}

/// The top-level properties a JSON Schema says hold URIs.
fn uri_properties(schema: &Value) -> Vec<String> {
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, property)| {
            matches!(
                property["format"].as_str(),
                Some("uri" | "url" | "iri" | "uri-reference" | "iri-reference")
            )
        })
        .map(|(name, _)| name.clone())
        .collect()
}
