//! `[tools.NAME]`: what the operator declares about a tool — its effects,
//! in the vocabulary of MCP's tool annotations, and what its arguments hold
//! — for guards to decide from (the dispatcher's tool catalog). A
//! declaration here outranks what the tool says of itself (an MCP server's
//! annotations).
//!
//! ```toml
//! [tools.run_report]
//! read_only = true                  # false: it writes
//! idempotent = true
//! open_world = false
//! args = { sql = "sql", "/options/output" = "path" }   # key or JSON Pointer = role
//!
//! [tools.purge_cache]
//! read_only = false
//! destructive = true
//!
//! [tools.refund]                    # its input's JSON Schema (the Cedar guard types
//! schema = { type = "object", properties = { amount = { type = "integer" } } }  # `context.args` by it)
//! ```
//!
//! Roles: `sql`, `shell`, `path`, `url`, `secret`.

use std::collections::BTreeMap;
use std::sync::Arc;

use hooks_core::{ArgRole, Source, ToolFacts};
use serde::Deserialize;
use toml::Spanned;

use crate::Problems;
use crate::toml_file::line_of;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolEntry {
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
    #[serde(default)]
    args: BTreeMap<String, String>,
    /// The input's JSON Schema, as a TOML table.
    schema: Option<toml::Value>,
}

/// Checks each `[tools.NAME]` table: a name, something declared, effects
/// that agree, known roles. Every problem names the file, the line and the tool.
pub(crate) fn check(
    file: &Arc<str>,
    text: &str,
    tables: BTreeMap<String, Spanned<ToolEntry>>,
    problems: &mut Problems,
) -> Vec<ToolFacts> {
    let mut declared = Vec::new();
    for (name, entry) in tables {
        let line = line_of(text, entry.span().start);
        let entry = entry.into_inner();
        let mut fail = |message: String| {
            problems.push(file, line, None, format!("`[tools.{name}]`: {message}"));
        };
        if name.is_empty() {
            fail("a tool needs a name".to_owned());
            continue;
        }
        let nothing = entry.read_only.is_none()
            && entry.destructive.is_none()
            && entry.idempotent.is_none()
            && entry.open_world.is_none()
            && entry.args.is_empty()
            && entry.schema.is_none();
        if nothing {
            fail(
                "declares nothing: give `read_only`, `destructive`, `idempotent`, \
                 `open_world`, `args` or `schema`"
                    .to_owned(),
            );
            continue;
        }
        if entry.read_only == Some(true) && entry.destructive == Some(true) {
            fail("`read_only = true` and `destructive = true` contradict each other".to_owned());
            continue;
        }
        let mut facts = ToolFacts::new(name.as_str()).from(Source::Config {
            file: Arc::clone(file),
            line,
        });
        if let Some(read_only) = entry.read_only {
            facts = facts.with_read_only(read_only);
        }
        if let Some(destructive) = entry.destructive {
            facts = facts.with_destructive(destructive);
        }
        if let Some(idempotent) = entry.idempotent {
            facts = facts.with_idempotent(idempotent);
        }
        if let Some(open_world) = entry.open_world {
            facts = facts.with_open_world(open_world);
        }
        let mut ok = true;
        if let Some(schema) = entry.schema {
            match serde_json::to_value(&schema) {
                Ok(schema @ serde_json::Value::Object(_)) => facts = facts.schema(schema),
                _ => {
                    fail("`schema` is a JSON Schema: a table, as `{ type = \"object\", properties = { .. } }`".to_owned());
                    ok = false;
                }
            }
        }
        for (path, role) in entry.args {
            match role.parse::<ArgRole>() {
                Ok(role) if !path.is_empty() => facts = facts.arg(path, role),
                Ok(_) => {
                    fail("`args` has an empty key: name the argument".to_owned());
                    ok = false;
                }
                Err(error) => {
                    fail(format!("`args.{path}`: {error}"));
                    ok = false;
                }
            }
        }
        if ok {
            declared.push(facts);
        }
    }
    declared
}
