//! The Cedar schema, generated: the tool catalog's tools and their argument
//! schemas, the entity types of the entities file (their attributes read
//! off the file), the actions and the context. Policies are validated
//! against it, so a policy naming a tool, argument, attribute or action
//! that does not exist is an error with its file and line.

use std::collections::{BTreeMap, BTreeSet};

use cedar_policy::{Schema, ValidationMode, Validator};
use hooks_core::ToolCatalog;
use serde_json::{Map, Value, json};

use super::entities::{self, TOOL};
use super::files::{Files, located};
use crate::config::ConfigError;

/// The entity type of a session with a user.
pub(crate) const USER: &str = "User";
/// The entity type of a session without one: the agent.
pub(crate) const AGENT: &str = "Agent";
/// Groups, and tenants: what principals and tools are members of.
const GROUP: &str = "Group";
const TENANT: &str = "Tenant";
/// The action of a tool call.
pub(crate) const CALL_TOOL: &str = "call_tool";
/// The action of a gateway's resource read.
pub(crate) const READ_RESOURCE: &str = "read_resource";
/// The action of a gateway's prompt get.
pub(crate) const GET_PROMPT: &str = "get_prompt";

/// The schema for these files and this catalog.
// One JSON document, built top to bottom: easier read whole than split.
#[allow(clippy::too_many_lines)]
pub(crate) fn generate(files: &Files, catalog: &ToolCatalog) -> Result<Schema, ConfigError> {
    let mut types: BTreeMap<String, Kind> = BTreeMap::new();
    for name in [USER, AGENT, GROUP, TENANT, TOOL] {
        types.entry(name.to_owned()).or_default();
    }
    for principal in [USER, AGENT, TOOL, GROUP] {
        let kind = types.entry(principal.to_owned()).or_default();
        kind.parents.insert(GROUP.to_owned());
        kind.parents.insert(TENANT.to_owned());
    }
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    let file_entities = match &files.entities {
        Some((_, Value::Array(list))) => list.as_slice(),
        _ => &[],
    };
    // The catalog's facts become the tools' attributes: seen as entities too.
    let tool_entities: Vec<Value> = catalog
        .iter()
        .map(|tool| {
            let mut attrs = entities::attributes(tool);
            if let Some(file) = file_entities.iter().find(|entity| {
                entity.pointer("/uid/type") == Some(&json!(TOOL))
                    && entity.pointer("/uid/id") == Some(&json!(tool.name()))
            }) && let Some(Value::Object(more)) = file.get("attrs")
            {
                attrs.extend(more.clone());
            }
            json!({"uid": {"type": TOOL, "id": tool.name()}, "attrs": attrs})
        })
        .collect();
    let from_file = file_entities.iter().filter(|entity| {
        entity.pointer("/uid/type") != Some(&json!(TOOL))
            || !catalog
                .iter()
                .any(|tool| entity.pointer("/uid/id") == Some(&json!(tool.name())))
    });
    for entity in from_file.chain(&tool_entities) {
        let Some(Value::String(ty)) = entity.pointer("/uid/type") else {
            continue;
        };
        *count.entry(ty.clone()).or_default() += 1;
        let kind = types.entry(ty.clone()).or_default();
        if let Some(Value::Array(parents)) = entity.get("parents") {
            for parent in parents {
                if let Some(Value::String(parent)) = parent.get("type") {
                    kind.parents.insert(parent.clone());
                }
            }
        }
        if let Some(Value::Object(attrs)) = entity.get("attrs") {
            for (key, value) in attrs {
                let ty = infer(value);
                let seen = kind.attrs.entry(key.clone()).or_insert((0, ty.clone()));
                seen.0 += 1;
                if seen.1 != ty {
                    // Two entities disagree: no type, so no policy may read it.
                    seen.1 = None;
                }
            }
        }
    }
    // Parents named but never listed are types too.
    let parents: BTreeSet<String> = types
        .values()
        .flat_map(|kind| kind.parents.clone())
        .collect();
    for parent in parents {
        types.entry(parent).or_default();
    }
    let mut entity_types = Map::new();
    for (name, kind) in &types {
        let total = count.get(name).copied().unwrap_or(0);
        let mut attributes = Map::new();
        if name == TOOL {
            // Declared whether or not this catalog's tools have them, so one
            // policy set serves dispatchers with different tools.
            for (key, ty) in [
                ("read_only", "Boolean"),
                ("destructive", "Boolean"),
                ("idempotent", "Boolean"),
                ("open_world", "Boolean"),
                ("origin", "String"),
                ("server", "String"),
            ] {
                attributes.insert(key.to_owned(), json!({"type": ty, "required": false}));
            }
        }
        for (key, (seen, ty)) in &kind.attrs {
            if let Some(mut ty) = ty.clone() {
                ty["required"] = Value::Bool(*seen == total && !is_tool_fact(name, key));
                attributes.insert(key.clone(), ty);
            }
        }
        entity_types.insert(
            name.clone(),
            json!({
                "memberOfTypes": kind.parents.iter().filter(|p| types.contains_key(*p)).collect::<Vec<_>>(),
                "shape": {"type": "Record", "attributes": attributes},
            }),
        );
    }
    let context = |args: Value| {
        json!({
            "type": "Record",
            "attributes": {
                "args": args,
                "session": session_type(),
            }
        })
    };
    let applies = |args: Value| {
        json!({
            "appliesTo": {
                "principalTypes": [USER, AGENT],
                "resourceTypes": [TOOL],
                "context": context(args),
            }
        })
    };
    let schema = json!({
        "": {
            "entityTypes": entity_types,
            "actions": {
                CALL_TOOL: applies(arguments(catalog)),
                READ_RESOURCE: applies(json!({"type": "Record", "attributes": {
                    "uri": {"type": "String", "required": false}
                }})),
                GET_PROMPT: applies(prompt_arguments(catalog)),
            }
        }
    });
    Schema::from_json_value(schema)
        .map_err(|error| ConfigError::new("cedar", format!("the generated schema: {error}")))
}

/// An entity type as the file shows it.
#[derive(Default)]
struct Kind {
    parents: BTreeSet<String>,
    /// Each attribute: on how many entities, and its type (`None`: they disagree).
    attrs: BTreeMap<String, (usize, Option<Value>)>,
}

/// Effects a tool may or may not have declared: never required.
fn is_tool_fact(ty: &str, key: &str) -> bool {
    ty == TOOL
        && matches!(
            key,
            "read_only" | "destructive" | "idempotent" | "open_world" | "origin" | "server"
        )
}

/// The schema type of an attribute value in an entities file.
fn infer(value: &Value) -> Option<Value> {
    Some(match value {
        Value::String(_) => json!({"type": "String"}),
        Value::Bool(_) => json!({"type": "Boolean"}),
        Value::Number(n) if n.is_i64() => json!({"type": "Long"}),
        Value::Array(items) => json!({"type": "Set", "element": infer(items.first()?)?}),
        Value::Object(object) => {
            if let Some(Value::Object(uid)) = object.get("__entity") {
                json!({"type": "Entity", "name": uid.get("type")?})
            } else {
                let mut attributes = Map::new();
                for (key, value) in object {
                    let mut ty = infer(value)?;
                    ty["required"] = Value::Bool(true);
                    attributes.insert(key.clone(), ty);
                }
                json!({"type": "Record", "attributes": attributes})
            }
        }
        _ => return None,
    })
}

fn session_type() -> Value {
    let string = |required: bool| json!({"type": "String", "required": required});
    json!({
        "type": "Record",
        "attributes": {
            "id": string(true),
            "agent": string(true),
            "user": string(false),
            "tenant": string(false),
            "client": string(false),
            "metadata": {"type": "Record", "attributes": {}},
        }
    })
}

/// `context.args` of a tool call: every argument any tool's input schema
/// declares, each optional (a policy checks `has` first). An argument two
/// tools type differently gets no type, so no policy may read it.
fn arguments(catalog: &ToolCatalog) -> Value {
    // A tool without an input schema (a host's own: Claude Code's `Read`)
    // may still declare what its top-level arguments hold: strings.
    let declared: Vec<Value> = catalog
        .iter()
        .filter(|tool| tool.input_schema().is_none())
        .map(|tool| {
            let properties: Map<String, Value> = tool
                .args()
                .iter()
                .filter(|arg| !arg.path.starts_with('/'))
                .map(|arg| (arg.path.clone(), json!({"type": "string"})))
                .collect();
            json!({"type": "object", "properties": properties})
        })
        .collect();
    record_of(
        catalog
            .iter()
            .filter_map(|tool| tool.input_schema())
            .map(|fact| &fact.value)
            .chain(&declared),
    )
}

/// `context.args` of a prompt get: the prompts' arguments (strings).
fn prompt_arguments(catalog: &ToolCatalog) -> Value {
    record_of(
        catalog
            .iter()
            .filter(|tool| tool.name().starts_with("prompts:get:"))
            .filter_map(|tool| tool.input_schema())
            .map(|fact| &fact.value),
    )
}

fn record_of<'s>(schemas: impl Iterator<Item = &'s Value>) -> Value {
    let mut attributes: BTreeMap<String, Option<Value>> = BTreeMap::new();
    for schema in schemas {
        let Some(Value::Object(properties)) = schema.get("properties") else {
            continue;
        };
        for (name, property) in properties {
            let ty = from_json_schema(property, 0);
            match attributes.get(name) {
                None => {
                    attributes.insert(name.clone(), ty);
                }
                Some(seen) if *seen != ty => {
                    attributes.insert(name.clone(), None);
                }
                Some(_) => {}
            }
        }
    }
    let attributes: Map<String, Value> = attributes
        .into_iter()
        .filter_map(|(name, ty)| {
            let mut ty = ty?;
            ty["required"] = Value::Bool(false);
            Some((name, ty))
        })
        .collect();
    json!({"type": "Record", "attributes": attributes})
}

/// A JSON Schema type as a Cedar type; `None` for what Cedar has no type
/// for (a union, `null`, a type left open). Numbers are whole (Cedar's `Long`).
fn from_json_schema(schema: &Value, depth: usize) -> Option<Value> {
    if depth > 16 {
        return None;
    }
    Some(match schema.get("type")?.as_str()? {
        "string" => json!({"type": "String"}),
        "integer" | "number" => json!({"type": "Long"}),
        "boolean" => json!({"type": "Boolean"}),
        "array" => {
            json!({"type": "Set", "element": from_json_schema(schema.get("items")?, depth + 1)?})
        }
        "object" => {
            let mut attributes = Map::new();
            if let Some(Value::Object(properties)) = schema.get("properties") {
                for (name, property) in properties {
                    if let Some(mut ty) = from_json_schema(property, depth + 1) {
                        ty["required"] = Value::Bool(false);
                        attributes.insert(name.clone(), ty);
                    }
                }
            }
            json!({"type": "Record", "attributes": attributes})
        }
        _ => return None,
    })
}

/// Validates the policies (strictly) and checks every tool they name is
/// in the catalog; every problem is reported, each with its file and line.
pub(crate) fn validate(
    files: &Files,
    schema: &Schema,
    catalog: &ToolCatalog,
) -> Result<(), ConfigError> {
    let mut problems = Vec::new();
    let result = Validator::new(schema.clone()).validate(&files.policies, ValidationMode::Strict);
    for error in result.validation_errors() {
        match files.source_of(error.policy_id()) {
            Some(source) => problems.push(located(
                source,
                error,
                &format!("policy `{}`: {error}", error.policy_id()),
            )),
            None => problems.push(format!("policy `{}`: {error}", error.policy_id())),
        }
    }
    // `context.args has amout` (a typo) types as false: the policy is
    // valid, and never applies. A policy that never applies is a mistake.
    for warning in result.validation_warnings() {
        if let cedar_policy::ValidationWarning::ImpossiblePolicy(_) = warning {
            let message = format!(
                "policy `{}` can never apply: it tests for an argument or attribute the schema does not have, or contradicts itself",
                warning.policy_id()
            );
            match files.source_of(warning.policy_id()) {
                Some(source) => problems.push(located(source, warning, &message)),
                None => problems.push(message),
            }
        }
    }
    for policy in files.policies.policies() {
        for uid in policy.entity_literals() {
            let id = uid.id().unescaped();
            if uid.type_name().to_string() == TOOL && catalog.get(id).is_none() {
                let literal = format!("{TOOL}::{id:?}");
                let at = files.source_of(policy.id()).map(|source| {
                    source.text.find(&literal).map_or_else(
                        || source.path.display().to_string(),
                        |offset| source.at(offset),
                    )
                });
                problems.push(format!(
                    "{}: policy `{}` names the tool `{id}`, which is not in the tool catalog{}",
                    at.unwrap_or_default(),
                    policy.id(),
                    did_you_mean(id, catalog)
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        problems.sort();
        problems.dedup();
        Err(ConfigError::new("cedar", problems.join("\n")))
    }
}

fn did_you_mean(id: &str, catalog: &ToolCatalog) -> String {
    catalog
        .iter()
        .map(hooks_core::ToolFacts::name)
        .map(|name| (distance(&id.to_lowercase(), &name.to_lowercase()), name))
        .filter(|(distance, _)| *distance <= 2)
        .min()
        .map(|(_, name)| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default()
}

/// Edit distance (insertions, deletions, substitutions, swaps of neighbours).
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}
