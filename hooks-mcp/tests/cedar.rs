//! Cedar policies through the gateway, in front of the reference server
//! `mcp-server-time` (from the Python package index), driven by the
//! official MCP Python SDK's client: a tool no policy permits is not
//! listed and not callable, a call a policy's condition refuses is denied
//! naming why (and audited with the policies that decided), and a policy
//! naming a tool the server does not have stops the gateway at start,
//! naming its file and line.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;
use support::{answer, audit_records, drive, server_command};

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hooks-mcp-cedar-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A gateway's command line in front of mcp-server-time, with `policy` as
/// its policy set; and its audit log.
fn gateway(dir: &Path, policy: &str) -> (Vec<String>, PathBuf) {
    std::fs::write(dir.join("time.cedar"), policy).unwrap();
    let audit = dir.join("audit.jsonl");
    let config = dir.join("hooks.toml");
    std::fs::write(
        &config,
        format!(
            "[cedar]\npolicies = \"{}\"\n\n[audit_log]\npath = \"{}\"\n",
            dir.join("time.cedar").display(),
            audit.display()
        ),
    )
    .unwrap();
    let mut command = vec![
        env!("CARGO_BIN_EXE_hooks-mcp").to_owned(),
        "--config".to_owned(),
        config.display().to_string(),
        "--".to_owned(),
    ];
    command.extend(server_command("mcp-server-time"));
    (command, audit)
}

const POLICY: &str = r#"// This client may ask the time in UTC, and nothing else.
@id("utc-only")
permit (
    principal == Agent::"test-agent",
    action == Action::"call_tool",
    resource == Tool::"get_current_time"
)
when { context.args has timezone && context.args.timezone == "UTC" };
"#;

#[test]
fn the_gateway_lists_and_runs_only_what_the_policies_permit() {
    let dir = scratch("permit");
    let (server, audit) = gateway(&dir, POLICY);
    let transcript = drive(&json!({
        "server": server,
        "client_name": "test-agent",
        "steps": [
            { "list_tools": true },
            { "call": "get_current_time", "arguments": { "timezone": "UTC" } },
            { "call": "get_current_time", "arguments": { "timezone": "Europe/Paris" } },
            { "call": "convert_time", "arguments": {
                "source_timezone": "UTC", "time": "12:00", "target_timezone": "UTC" } },
        ],
    }));
    let steps = transcript["steps"].as_array().unwrap();
    let names: Vec<&str> = steps[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_current_time"]);
    let (failed, text) = answer(&steps[1]);
    assert!(!failed, "{text}");
    let (failed, reason) = answer(&steps[2]);
    assert!(failed, "{reason}");
    assert!(
        reason.contains("no Cedar policy permits Agent::\"test-agent\" to call `get_current_time`"),
        "{reason}"
    );
    let (failed, reason) = answer(&steps[3]);
    assert!(failed && reason.contains("not offered"), "{reason}");

    // The audit record of the denial names what decided, for programs.
    let records = audit_records(&audit);
    let paris = records
        .iter()
        .find(|record| record["args"]["timezone"] == "Europe/Paris")
        .expect("the denied call is audited");
    assert_eq!(paris["decision"], "denied");
    assert_eq!(paris["decided_by"], "hooks_std::cedar::guard");
    assert_eq!(paris["cause"]["kind"], "policy_denied");
    assert_eq!(paris["cause"]["data"]["policies"], json!([]));
}

#[test]
fn a_policy_naming_a_tool_the_server_lacks_stops_the_gateway_naming_its_line() {
    let dir = scratch("unknown-tool");
    let (command, _) = gateway(
        &dir,
        &POLICY.replace("Tool::\"get_current_time\"", "Tool::\"get_curent_time\""),
    );
    let output = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    let file = dir.join("time.cedar").display().to_string();
    assert!(stderr.contains(&format!("{file}:6:")), "{stderr}");
    assert!(
        stderr.contains("names the tool `get_curent_time`, which is not in the tool catalog (did you mean `get_current_time`?)"),
        "{stderr}"
    );
}
