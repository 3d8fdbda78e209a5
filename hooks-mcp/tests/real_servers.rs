//! The gateway in front of each of the four reference MCP servers, as
//! published: `mcp-server-git` and `mcp-server-time` (Python package index),
//! `@modelcontextprotocol/server-filesystem` and
//! `@modelcontextprotocol/server-memory` (npm). For each, the official Python
//! SDK's client lists the tools through the gateway and calls one read; the
//! server's own state (repository, folder, memory file) is read back after.
//!
//! The listing the gateway serves must be the server's own, annotations and
//! all: it is what a catalog of declared effects is filled from. Its summary
//! (names, titles, annotations, argument names) is pinned in
//! `fixtures/real_servers_tools.json`, so a new server release that changes a
//! tool's declared effects fails here, by name, instead of changing quietly
//! what a guard decides.

mod support;

use serde_json::{Map, Value, json};
use support::{Folder, Memory, Repo, answer, audit_records, drive, server_command};

const FIXTURE: &str = include_str!("fixtures/real_servers_tools.json");

/// The gateway's command line in front of `upstream` (named `name`), with
/// no hooks but the audit log, written to a file of `scratch`.
fn gateway(scratch: &support::Scratch, name: &str, upstream: &[String]) -> Vec<String> {
    let config = scratch.path().join("hooks.toml");
    let audit = scratch.path().join("audit.jsonl");
    let toml = format!(
        "[audit_log]\npath = {}\n",
        Value::from(audit.to_str().unwrap())
    );
    std::fs::write(&config, toml).unwrap();
    let mut command = vec![
        env!("CARGO_BIN_EXE_hooks-mcp").to_owned(),
        "--config".to_owned(),
        config.display().to_string(),
        "--name".to_owned(),
        name.to_owned(),
        "--".to_owned(),
    ];
    command.extend(upstream.iter().cloned());
    command
}

/// What a guard may learn of a tool from its listing: its name and title,
/// its declared effects, and its arguments' names (sorted) and which are required.
fn summary(tool: &Value) -> Value {
    let schema = &tool["inputSchema"];
    let mut properties: Vec<&str> = schema["properties"]
        .as_object()
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default();
    properties.sort_unstable();
    let mut summary = Map::new();
    summary.insert("name".into(), tool["name"].clone());
    if let Some(title) = tool.get("title") {
        summary.insert("title".into(), title.clone());
    }
    summary.insert(
        "annotations".into(),
        tool.get("annotations").cloned().unwrap_or(Value::Null),
    );
    summary.insert("properties".into(), json!(properties));
    summary.insert(
        "required".into(),
        schema.get("required").cloned().unwrap_or(json!([])),
    );
    Value::Object(summary)
}

/// Lists `upstream`'s tools directly and through the gateway, and runs
/// `read` through the gateway; checks that the gateway served the server's
/// own listing, that it matches the fixture's entry `name`, and that the
/// audit log saw the read allowed. Returns the read's answer.
fn smoke(name: &str, upstream: &[String], read: &Value) -> String {
    let direct = drive(&json!({ "server": upstream, "steps": [{ "list_tools": true }] }));
    let scratch = support::Scratch::new("real-servers");
    let through = drive(&json!({
        "server": gateway(&scratch, name, upstream),
        "steps": [{ "list_tools": true }, read],
    }));
    let listed = &through["steps"][0]["tools"];
    assert_eq!(
        listed, &direct["steps"][0]["tools"],
        "the gateway serves {name}'s tools as the server lists them"
    );

    let summaries: Vec<Value> = listed.as_array().unwrap().iter().map(summary).collect();
    let fixture: Value = serde_json::from_str(FIXTURE).unwrap();
    assert_eq!(
        json!(summaries),
        fixture[name],
        "{name}'s tools changed; if the new listing is right, it belongs in fixtures/real_servers_tools.json:\n{}",
        serde_json::to_string_pretty(&summaries).unwrap()
    );

    let (failed, text) = answer(&through["steps"][1]);
    assert!(!failed, "{name}: {read} failed: {text}");
    let records = audit_records(&scratch.path().join("audit.jsonl"));
    let decisions: Vec<(&str, &str)> = records
        .iter()
        .map(|r| (r["tool"].as_str().unwrap(), r["decision"].as_str().unwrap()))
        .collect();
    assert_eq!(decisions, [(read["call"].as_str().unwrap(), "allowed")]);
    text.to_owned()
}

#[test]
fn git_through_the_gateway() {
    let repo = Repo::with_one_commit();
    repo.write("notes.txt", "draft\n");
    let status = smoke(
        "git",
        &repo.server(),
        &json!({ "call": "git_status", "arguments": { "repo_path": repo.path_str() } }),
    );
    assert!(
        status.starts_with("Repository status:\nOn branch main") && status.contains("notes.txt"),
        "{status}"
    );
    assert_eq!(repo.git(&["log", "--format=%s"]), "first\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "?? notes.txt\n");
}

#[test]
fn time_through_the_gateway() {
    // A conversion, not the clock: the answer is known in advance.
    let converted = smoke(
        "time",
        &server_command("mcp-server-time"),
        &json!({ "call": "convert_time", "arguments": {
            "source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo",
        } }),
    );
    let converted: Value = serde_json::from_str(&converted).unwrap();
    assert_eq!(converted["source"]["timezone"], "UTC");
    assert_eq!(converted["target"]["timezone"], "Asia/Tokyo");
    let (source, target) = (
        converted["source"]["datetime"].as_str().unwrap(),
        converted["target"]["datetime"].as_str().unwrap(),
    );
    assert!(source.ends_with("T12:00:00+00:00"), "{source}");
    assert!(target.ends_with("T21:00:00+09:00"), "{target}");
    assert_eq!(converted["time_difference"], "+9.0h");
}

#[test]
fn filesystem_through_the_gateway() {
    let folder = Folder::new();
    folder.write("docs/plan.md", "# Plan\nship it\n");
    let before = folder.listing();
    let path = folder.path().join("docs/plan.md");
    let text = smoke(
        "filesystem",
        &folder.server(),
        &json!({ "call": "read_text_file", "arguments": { "path": path } }),
    );
    assert_eq!(text, "# Plan\nship it\n");
    assert_eq!(folder.listing(), before);
}

#[test]
fn memory_through_the_gateway() {
    let memory = Memory::new();
    let graph = [
        json!({ "type": "entity", "name": "Ada", "entityType": "person",
                "observations": ["wrote the first program"] }),
        json!({ "type": "entity", "name": "Engine", "entityType": "machine", "observations": [] }),
        json!({ "type": "relation", "from": "Ada", "to": "Engine", "relationType": "programmed" }),
    ];
    memory.seed(&graph);
    let text = smoke(
        "memory",
        &memory.server(),
        &json!({ "call": "open_nodes", "arguments": { "names": ["Ada"] } }),
    );
    // The node asked for, and its relations (either end).
    let found: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        found,
        json!({
            "entities": [{ "name": "Ada", "entityType": "person",
                           "observations": ["wrote the first program"] }],
            "relations": [{ "from": "Ada", "to": "Engine", "relationType": "programmed" }],
        }),
    );
    assert_eq!(memory.records(), graph);
}
