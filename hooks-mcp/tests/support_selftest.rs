//! The harness against the real reference servers, with no gateway between:
//! what `mcp-server-time` and `mcp-server-git` answer the official Python SDK's
//! client directly. This is the baseline the gateway's tests change, such as a
//! write tool that works here and that a read-only guard must refuse.

mod support;

use serde_json::{Value, json};
use support::{Repo, drive, server_command};

fn tool_names(step: &Value) -> Vec<&str> {
    step["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("not a tool listing: {step}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

/// The text of a successful call's single text block.
fn text(step: &Value) -> &str {
    assert_eq!(step["is_error"], false, "the call failed: {step}");
    let content = step["content"].as_array().unwrap();
    assert_eq!(content.len(), 1, "one content block: {step}");
    assert_eq!(content[0]["type"], "text");
    content[0]["text"].as_str().unwrap()
}

fn time_server(steps: &Value) -> Value {
    drive(&json!({ "server": server_command("mcp-server-time"), "steps": steps }))
}

fn git_server(repo: &Repo, steps: &Value) -> Value {
    let server = repo.server();
    drive(&json!({ "server": server, "steps": steps }))
}

#[test]
fn the_time_server_lists_its_tools_and_tells_the_time() {
    let transcript = time_server(&json!([
        { "list_tools": true },
        { "call": "get_current_time", "arguments": { "timezone": "UTC" } },
    ]));
    assert_eq!(transcript["server_info"]["name"], "mcp-time");
    // The SDK offers the newest revision the initialize handshake still has.
    assert_eq!(transcript["protocol_version"], "2025-11-25");
    assert!(transcript["elicitations"].as_array().unwrap().is_empty());

    let steps = transcript["steps"].as_array().unwrap();
    assert_eq!(tool_names(&steps[0]), ["get_current_time", "convert_time"]);
    let schema = &steps[0]["tools"][0]["inputSchema"];
    assert_eq!(schema["required"], json!(["timezone"]));

    // The answer is pretty-printed JSON in a text block, repeated as structured content.
    let now: Value = serde_json::from_str(text(&steps[1])).unwrap();
    assert_eq!(now["timezone"], "UTC");
    assert_eq!(now["is_dst"], false);
    assert!(now["day_of_week"].is_string(), "{now}");
    let datetime = now["datetime"].as_str().unwrap();
    assert!(
        datetime.len() == 25 && datetime.as_bytes()[10] == b'T' && datetime.ends_with("+00:00"),
        "an RFC 3339 time in UTC, to the second: {datetime}"
    );
    assert_eq!(steps[1]["structured"], now);
}

#[test]
fn an_unknown_tool_is_a_protocol_error_and_a_failing_tool_is_an_error_result() {
    let transcript = time_server(&json!([
        { "call": "no_such_tool", "arguments": {} },
        { "call": "get_current_time", "arguments": { "timezone": "Not/A_Zone" } },
    ]));
    let steps = transcript["steps"].as_array().unwrap();
    // A JSON-RPC error (invalid params), not a result with `isError`.
    assert_eq!(
        steps[0],
        json!({ "protocol_error": "Unknown tool: no_such_tool", "code": -32602 })
    );
    assert_eq!(steps[1]["is_error"], true, "{}", steps[1]);
    let message = steps[1]["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("Invalid timezone"), "{message}");
}

#[test]
fn the_git_server_reads_and_writes_a_repository() {
    let repo = Repo::with_one_commit();
    let first = repo.git(&["rev-parse", "HEAD"]);
    repo.write("notes.txt", "new\n");
    let path = repo.path_str();

    let transcript = git_server(
        &repo,
        &json!([
            { "list_tools": true },
            { "call": "git_status", "arguments": { "repo_path": path } },
            { "call": "git_log", "arguments": { "repo_path": path } },
            { "call": "git_add", "arguments": { "repo_path": path, "files": ["notes.txt"] } },
            { "call": "git_commit", "arguments": { "repo_path": path, "message": "second" } },
        ]),
    );
    assert_eq!(transcript["server_info"]["name"], "mcp-git");
    let steps = transcript["steps"].as_array().unwrap();
    assert_eq!(
        tool_names(&steps[0]),
        [
            "git_status",
            "git_diff_unstaged",
            "git_diff_staged",
            "git_diff",
            "git_commit",
            "git_add",
            "git_reset",
            "git_log",
            "git_create_branch",
            "git_checkout",
            "git_show",
            "git_branch",
        ]
    );

    let status = text(&steps[1]);
    assert!(
        status.starts_with("Repository status:\nOn branch main") && status.contains("notes.txt"),
        "{status}"
    );
    let log = text(&steps[2]);
    assert!(
        log.starts_with("Commit history:\n")
            && log.contains(&format!("Commit: {}", first.trim()))
            && log.contains("Message: first"),
        "{log}"
    );
    assert_eq!(text(&steps[3]), "Files staged successfully");

    // The write really happened: this is what a read-only guard must stop.
    let head = repo.git(&["rev-parse", "HEAD"]);
    assert_eq!(
        text(&steps[4]),
        format!("Changes committed successfully with hash {}", head.trim())
    );
    assert_eq!(repo.git(&["log", "--format=%s"]), "second\nfirst\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn the_git_server_refuses_a_path_outside_its_repository() {
    let repo = Repo::with_one_commit();
    let other = Repo::with_one_commit();
    let transcript = git_server(
        &repo,
        &json!([{ "call": "git_log", "arguments": { "repo_path": other.path_str() } }]),
    );
    let step = &transcript["steps"][0];
    assert_eq!(step["is_error"], true, "{step}");
    let message = step["content"][0]["text"].as_str().unwrap();
    assert!(
        message.contains("is outside the allowed repository"),
        "{message}"
    );
}
