//! The gateway end to end, with real parts nobody here wrote: the official
//! MCP Python SDK's client drives `hooks-mcp`, which stands in front of the
//! reference servers `mcp-server-git` and `mcp-server-time` from the Python package index.
//! Each defence is proved on the real thing: the repository is read with the
//! git CLI afterwards, the audit file is read back.

mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use support::{Repo, answer, audit_records, drive, server_command, test_server};

/// A file in this test run's scratch directory.
fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "hooks-mcp-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The gateway's command line, with `config` written to a file, in front of `upstream`.
/// The standard audit hook is linked in: unless the test names its log, it
/// goes to a scratch file, not the working directory.
fn gateway(config: &str, upstream: &[String]) -> Vec<String> {
    let path = scratch("hooks.toml");
    let mut config = config.to_owned();
    if !config.contains("[audit_log]") {
        let _ = write!(
            config,
            "\n[audit_log]\npath = \"{}\"\n",
            scratch("audit.jsonl").display()
        );
    }
    std::fs::write(&path, config).unwrap();
    let mut command = vec![
        env!("CARGO_BIN_EXE_hooks-mcp").to_owned(),
        "--config".to_owned(),
        path.display().to_string(),
        "--".to_owned(),
    ];
    command.extend(upstream.iter().cloned());
    command
}

#[test]
fn the_read_only_guard_refuses_writes_through_the_gateway_and_the_repository_is_unchanged() {
    let repo = Repo::with_one_commit();
    repo.write("notes.txt", "draft\n");
    let audit = scratch("audit.jsonl");
    let config = format!(
        r#"
[read_only]
enabled = true
read_tools = ["git_status", "git_log", "git_diff*", "git_show", "git_branch"]

[audit_log]
path = "{}"
"#,
        audit.display()
    );
    let path = repo.path_str();
    let transcript = drive(&json!({
        "server": gateway(&config, &repo.server()),
        "client_name": "test-agent",
        "steps": [
            { "call": "git_status", "arguments": { "repo_path": path } },
            { "call": "git_add", "arguments": { "repo_path": path, "files": ["notes.txt"] } },
            { "call": "git_commit", "arguments": { "repo_path": path, "message": "sneaky" } },
            { "call": "git_log", "arguments": { "repo_path": path } },
        ],
    }));
    let steps = transcript["steps"].as_array().unwrap();
    let (failed, status) = answer(&steps[0]);
    assert!(!failed && status.contains("notes.txt"), "{status}");
    for write in &steps[1..3] {
        let (failed, reason) = answer(write);
        assert!(failed, "a write is refused as a tool error: {write}");
        assert!(reason.contains("read-only mode is on"), "{reason}");
    }
    let (failed, log) = answer(&steps[3]);
    assert!(!failed && log.contains("Message: first"), "{log}");

    // The defence, read off the repository: nothing was staged or committed.
    assert_eq!(repo.git(&["log", "--format=%s"]), "first\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "?? notes.txt\n");

    // One audit record per call, with the MCP session and the client's name.
    let records = audit_records(&audit);
    let decisions: Vec<(&str, &str)> = records
        .iter()
        .map(|r| (r["tool"].as_str().unwrap(), r["decision"].as_str().unwrap()))
        .collect();
    assert_eq!(
        decisions,
        [
            ("git_status", "allowed"),
            ("git_add", "denied"),
            ("git_commit", "denied"),
            ("git_log", "allowed"),
        ]
    );
    assert!(
        records.iter().all(|r| r["agent"] == "test-agent"),
        "{records:#?}"
    );
    let session = records[0]["session"].as_str().unwrap();
    assert!(session.starts_with("mcp-"), "{session}");
    assert!(records.iter().all(|r| r["session"] == session));
    assert_eq!(records[1]["decided_by"], "hooks_std::read_only::guard");
}

#[test]
fn a_rewrite_by_a_hook_is_what_reaches_the_server() {
    // A command hook (Claude Code's protocol) pins every time query to Tokyo.
    let hook = r#"import json,sys; json.load(sys.stdin); print(json.dumps({"hookSpecificOutput": {"updatedInput": {"timezone": "Asia/Tokyo"}}}))"#;
    let config = format!(
        r#"
[[hooks]]
event = "pre_tool_use"
name = "tokyo_only"
matches = "get_current_time"
command = ["{}", "-c", '{hook}']
"#,
        support::python().display()
    );
    let transcript = drive(&json!({
        "server": gateway(&config, &server_command("mcp-server-time")),
        "steps": [{ "call": "get_current_time", "arguments": { "timezone": "UTC" } }],
    }));
    let (failed, text) = answer(&transcript["steps"][0]);
    assert!(!failed, "{text}");
    // The server's own answer names the zone it was asked about.
    let now: Value = serde_json::from_str(text).unwrap();
    assert_eq!(now["timezone"], "Asia/Tokyo");
    assert!(
        now["datetime"].as_str().unwrap().ends_with("+09:00"),
        "{now}"
    );
}

#[test]
fn results_are_truncated_before_the_client_sees_them() {
    let repo = Repo::with_one_commit();
    for n in 0..40 {
        repo.git(&[
            "commit",
            "--quiet",
            "--allow-empty",
            "--message",
            &format!("change number {n} of a long history"),
        ]);
    }
    let path = repo.path_str();
    let direct = drive(&json!({
        "server": repo.server(),
        "steps": [{ "call": "git_log", "arguments": { "repo_path": path, "max_count": 40 } }],
    }));
    let (_, full) = answer(&direct["steps"][0]);
    assert!(
        full.chars().count() > 2_000,
        "the log is long to begin with"
    );

    let config = "[truncate]\nmax_chars = 600\n";
    let through = drive(&json!({
        "server": gateway(config, &repo.server()),
        "steps": [{ "call": "git_log", "arguments": { "repo_path": path, "max_count": 40 } }],
    }));
    let (failed, cut) = answer(&through["steps"][0]);
    assert!(!failed);
    assert!(
        cut.chars().count() <= 600,
        "{} characters",
        cut.chars().count()
    );
    assert!(cut.contains("characters cut"), "{cut}");
    assert!(
        cut.starts_with("Commit history:"),
        "the head is kept: {cut}"
    );
}

#[test]
fn an_unknown_tool_is_a_protocol_error_and_a_tool_error_stays_a_tool_error() {
    let audit = scratch("audit.jsonl");
    let config = format!("[audit_log]\npath = \"{}\"\n", audit.display());
    let transcript = drive(&json!({
        "server": gateway(&config, &server_command("mcp-server-time")),
        "steps": [
            { "call": "no_such_tool", "arguments": {} },
            { "call": "get_current_time", "arguments": { "timezone": "Not/A_Zone" } },
            { "list_tools": true },
        ],
    }));
    let steps = transcript["steps"].as_array().unwrap();
    assert_eq!(steps[0]["code"], -32602, "{}", steps[0]);
    assert!(
        steps[0]["protocol_error"]
            .as_str()
            .unwrap()
            .contains("no_such_tool")
    );
    let (failed, message) = answer(&steps[1]);
    assert!(failed && message.contains("Invalid timezone"), "{message}");
    let names: Vec<&str> = steps[2]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    // In the server's own order.
    assert_eq!(names, ["get_current_time", "convert_time"]);

    // A model probing for tools leaves a trail: the unknown name is audited
    // as a denied call, beside the call that ran.
    let records = audit_records(&audit);
    let decisions: Vec<(&str, &str)> = records
        .iter()
        .map(|r| (r["tool"].as_str().unwrap(), r["decision"].as_str().unwrap()))
        .collect();
    assert_eq!(
        decisions,
        [("no_such_tool", "denied"), ("get_current_time", "allowed")],
        "{records:#?}"
    );
    assert_eq!(records[0]["decided_by"], "hooks_mcp::not_offered");
}

/// Commits need a person's yes; the config's `[approval]` store answers
/// clients that cannot be asked, within a short timeout.
fn approval_config() -> String {
    format!(
        "[approval]\ntools = [\"git_commit\"]\ndatabase = \"{}\"\ntimeout = \"2s\"\npoll_interval = \"20ms\"\n",
        scratch("approvals.sqlite3").display()
    )
}

fn commit_steps(repo: &Repo) -> Value {
    let path = repo.path_str();
    json!([
        { "call": "git_add", "arguments": { "repo_path": path, "files": ["notes.txt"] } },
        { "call": "git_commit", "arguments": { "repo_path": path, "message": "approved change" } },
    ])
}

#[test]
fn an_approval_is_asked_of_the_person_through_the_client_and_a_yes_lets_the_commit_through() {
    let repo = Repo::with_one_commit();
    repo.write("notes.txt", "draft\n");
    let transcript = drive(&json!({
        "server": gateway(&approval_config(), &repo.server()),
        "client_name": "reviewer-app",
        "elicitation": { "action": "accept", "content": { "approve": true } },
        "steps": commit_steps(&repo),
    }));
    let steps = transcript["steps"].as_array().unwrap();
    let (failed, text) = answer(&steps[1]);
    assert!(!failed, "{text}");
    // The person was asked once, about the commit, with its arguments.
    let asked = transcript["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let message = asked[0]["message"].as_str().unwrap();
    assert!(
        message.contains("git_commit") && message.contains("approved change"),
        "{message}"
    );
    assert_eq!(asked[0]["schema"]["required"], json!(["approve"]));
    // And the commit is real.
    assert_eq!(
        repo.git(&["log", "--format=%s"]),
        "approved change\nfirst\n"
    );
}

#[test]
fn the_question_put_to_the_person_shows_no_known_secret() {
    let repo = Repo::with_one_commit();
    repo.write("notes.txt", "draft\n");
    let secret = "tok-5f1c0e9a7b2d4e63";
    let secret_file = scratch("secret");
    std::fs::write(&secret_file, secret).unwrap();
    let config = format!(
        "{}\n[redact]\nsecret_files = [\"{}\"]\n",
        approval_config(),
        secret_file.display()
    );
    let path = repo.path_str();
    let transcript = drive(&json!({
        "server": gateway(&config, &repo.server()),
        "elicitation": { "action": "accept", "content": { "approve": true } },
        "steps": [
            { "call": "git_add", "arguments": { "repo_path": path, "files": ["notes.txt"] } },
            { "call": "git_commit", "arguments": { "repo_path": path, "message": format!("rotate {secret}") } },
        ],
    }));
    let asked = transcript["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let message = asked[0]["message"].as_str().unwrap();
    assert!(message.contains("git_commit"), "{message}");
    assert!(
        !message.contains(secret),
        "the secret reached the client: {message}"
    );
    assert!(
        message.contains("rotate "),
        "the rest of the arguments are shown: {message}"
    );
}

#[test]
fn a_person_declining_through_the_client_stops_the_commit() {
    let repo = Repo::with_one_commit();
    repo.write("notes.txt", "draft\n");
    let transcript = drive(&json!({
        "server": gateway(&approval_config(), &repo.server()),
        "elicitation": { "action": "decline" },
        "steps": commit_steps(&repo),
    }));
    let (failed, reason) = answer(&transcript["steps"][1]);
    assert!(failed && reason.contains("declined"), "{reason}");
    assert_eq!(repo.git(&["log", "--format=%s"]), "first\n");
}

#[test]
fn a_client_that_cannot_be_asked_falls_back_to_the_approval_store() {
    let repo = Repo::with_one_commit();
    repo.write("notes.txt", "draft\n");
    // No elicitation: the request goes to the store, where nobody answers in 2 s.
    let transcript = drive(&json!({
        "server": gateway(&approval_config(), &repo.server()),
        "steps": commit_steps(&repo),
    }));
    let (failed, reason) = answer(&transcript["steps"][1]);
    assert!(failed, "{reason}");
    assert!(reason.contains("no answer"), "{reason}");
    assert!(transcript["elicitations"].as_array().unwrap().is_empty());
    assert_eq!(repo.git(&["log", "--format=%s"]), "first\n");
}

/// An upstream's own question for the user (elicitation during a call)
/// reaches the client through the gateway, rather than the gateway
/// declining it on the user's behalf.
#[test]
fn an_upstream_question_for_the_user_is_passed_to_the_client() {
    let server = test_server("asking_server.py");
    let transcript = drive(&json!({
        "server": gateway("", &server),
        "elicitation": { "action": "accept", "content": { "sure": true } },
        "steps": [{ "call": "drop_cache", "arguments": { "name": "sessions" } }],
    }));
    let (failed, text) = answer(&transcript["steps"][0]);
    assert!(!failed, "{text}");
    assert_eq!(
        text, "dropped sessions",
        "the user's answer reached the server"
    );
    let asked = transcript["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["message"], "Really drop the cache sessions?");

    // A client that cannot be asked gets the server's own handling of the refusal.
    let transcript = drive(&json!({
        "server": gateway("", &server),
        "steps": [{ "call": "drop_cache", "arguments": { "name": "sessions" } }],
    }));
    let (_, text) = answer(&transcript["steps"][0]);
    assert_ne!(text, "dropped sessions", "{text}");
}

/// Context a hook adds for the model reaches it: MCP has no other channel
/// than the result, so it comes as a text block after the tool's content.
#[test]
fn context_a_hook_injects_reaches_the_client_with_the_result() {
    let config = r#"
[[hooks]]
event = "pre_tool_use"
name = "time_policy"
matches = "get_current_time"
command = ["sh", "-c", "cat > /dev/null; echo '{\"hookSpecificOutput\": {\"additionalContext\": \"Quote times to the minute.\"}}'"]
"#;
    let transcript = drive(&json!({
        "server": gateway(config, &server_command("mcp-server-time")),
        "steps": [{ "call": "get_current_time", "arguments": { "timezone": "UTC" } }],
    }));
    let step = &transcript["steps"][0];
    assert_eq!(step["is_error"], false, "{step}");
    let content = step["content"].as_array().unwrap();
    assert_eq!(content.len(), 2, "{step}");
    assert!(
        content[0]["text"]
            .as_str()
            .unwrap()
            .contains("\"timezone\": \"UTC\"")
    );
    assert_eq!(content[1]["text"], "Quote times to the minute.");
}

#[test]
fn a_config_file_hook_hides_a_tool_from_the_list_and_from_calls_by_name() {
    let hidden = r#"{"hookSpecificOutput": {"hookEventName": "PreModelRequest", "hiddenTools": ["get_current_time"]}}"#;
    let config = format!(
        "[[hooks]]\nevent = \"pre_model_request\"\nname = \"hide_clock\"\ncommand = [\"printf\", \"%s\", {}]\n",
        serde_json::to_string(hidden).unwrap()
    );
    let transcript = drive(&json!({
        "server": gateway(&config, &server_command("mcp-server-time")),
        "steps": [
            { "list_tools": true },
            { "call": "get_current_time", "arguments": { "timezone": "UTC" } },
        ],
    }));
    let steps = transcript["steps"].as_array().unwrap();
    let names: Vec<&str> = steps[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["convert_time"]);
    let (failed, reason) = answer(&steps[1]);
    assert!(failed && reason.contains("not offered"), "{reason}");
}
