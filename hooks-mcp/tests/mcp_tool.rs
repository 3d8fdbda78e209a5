//! `mcp_tool` hooks calling tools on the gateway's own upstreams
//! ([`UpstreamCaller`]), with the reference server `mcp-server-time` from
//! the Python package index as the MCP server the hooks ask: as a library
//! (the configuration loaded, its upstreams started and provided, the
//! gateway served to rmcp's client) and through the `hooks-mcp` binary,
//! which provides its upstreams by itself.

mod support;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use hooks_config::McpCaller;
use hooks_core::Hooks;
use hooks_mcp::{Gateway, Upstream, UpstreamCaller};
use serde_json::{Value, json};
use support::{answer, call, connect, drive, server_command, text};

/// A file in this test run's scratch directory.
fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "hooks-mcp-tool-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A configuration whose only upstream is `mcp-server-time`, named `time`,
/// followed by `hooks`; written to a scratch file, whose path is returned.
fn config_file(hooks: &str) -> PathBuf {
    let path = scratch("hooks.toml");
    let command = serde_json::to_string(&server_command("mcp-server-time")).unwrap();
    std::fs::write(
        &path,
        format!(
            "[audit_log]\npath = {audit:?}\n\n[[upstream]]\nname = \"time\"\ncommand = {command}\n{hooks}",
            audit = scratch("audit.jsonl").display().to_string(),
        ),
    )
    .unwrap();
    path
}

/// A guard on `get_current_time` that asks the time server itself about the
/// zone the client asked for; and a hook on `convert_time` that asks it the
/// time in UTC (an answer that is JSON, though not hook JSON).
const HOOKS: &str = r#"
[[hooks]]
event = "pre_tool_use"
name = "zone_guard"
matches = "get_current_time"
mcp_tool = { server = "time", tool = "get_current_time", arguments = { timezone = "${tool_input.timezone}" } }

[[hooks]]
event = "pre_tool_use"
name = "clock_check"
matches = "convert_time"
mcp_tool = { server = "time", tool = "get_current_time", arguments = { timezone = "UTC" } }
"#;

/// Starts the configuration's upstreams, as the binary does.
async fn upstreams_of(config: &hooks_config::Config) -> Vec<Upstream> {
    let mut upstreams = Vec::new();
    for declared in config.upstreams() {
        upstreams.push(
            Upstream::spawn(declared.name.clone(), &declared.command)
                .await
                .unwrap()
                .with_call_timeout(declared.timeout),
        );
    }
    upstreams
}

#[tokio::test(flavor = "multi_thread")]
async fn the_caller_answers_a_tools_text_and_a_tool_error_or_an_unknown_server_is_an_error() {
    let upstreams = vec![
        Upstream::spawn("time", &server_command("mcp-server-time"))
            .await
            .unwrap(),
    ];
    let caller = UpstreamCaller::new(&upstreams);
    assert_eq!(caller.servers(), ["time"]);

    let now = caller
        .call("time", "get_current_time", json!({"timezone": "UTC"}))
        .await
        .unwrap();
    // The server's JSON text block, as it wrote it.
    let now: Value = serde_json::from_str(&now).unwrap();
    assert_eq!(now["timezone"], "UTC");

    // `isError: true` → `Err` with the tool's text.
    let bad = caller
        .call(
            "time",
            "get_current_time",
            json!({"timezone": "Not/A_Zone"}),
        )
        .await
        .unwrap_err();
    assert!(bad.contains("Invalid timezone"), "{bad}");
    assert!(bad.contains("Not/A_Zone"), "{bad}");

    let unknown = caller
        .call("nowhere", "check", json!({}))
        .await
        .unwrap_err();
    assert_eq!(
        unknown,
        "no upstream MCP server `nowhere` is connected (connected: time)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_tool_hooks_ask_an_upstream_and_a_tool_error_fails_the_guard_closed() {
    let config = hooks_config::load(config_file(HOOKS)).unwrap();
    let upstreams = upstreams_of(&config).await;
    let config = UpstreamCaller::new(&upstreams).provide(config);
    let builder = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams).unwrap();
    let hooks = config.apply(builder).unwrap().build().unwrap();
    let client = connect(Gateway::new(hooks, upstreams).unwrap()).await;

    // The time server's answer is JSON but not hook JSON: hooks-config reads
    // it as hook JSON whose fields it does not know (ignored), so it decides
    // nothing and the call goes ahead, with no context added to the result.
    let converted = call(
        &client,
        "convert_time",
        json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
    )
    .await;
    assert_ne!(converted.is_error, Some(true), "{}", text(&converted));
    assert_eq!(converted.content.len(), 1, "{converted:?}");
    let converted: Value = serde_json::from_str(text(&converted)).unwrap();
    assert_eq!(converted["target"]["timezone"], "Asia/Tokyo");

    let now = call(&client, "get_current_time", json!({"timezone": "UTC"})).await;
    assert_ne!(now.is_error, Some(true), "{}", text(&now));
    assert_eq!(now.content.len(), 1, "{now:?}");

    // The guard's own call fails (`isError`): a hook failure, so the guard
    // denies, naming the tool's error; the call never reaches the server.
    let refused = call(
        &client,
        "get_current_time",
        json!({"timezone": "Not/A_Zone"}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true));
    let reason = text(&refused);
    assert!(
        reason.contains("MCP tool `get_current_time` on `time` failed"),
        "{reason}"
    );
    assert!(reason.contains("Invalid timezone"), "{reason}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hook_naming_a_server_that_is_not_an_upstream_is_an_apply_error() {
    let config = hooks_config::load(config_file(
        r#"
[[hooks]]
event = "pre_tool_use"
name = "elsewhere"
mcp_tool = { server = "guard", tool = "check" }
"#,
    ))
    .unwrap();
    let upstreams = upstreams_of(&config).await;
    let config = UpstreamCaller::new(&upstreams).provide(config);
    let builder = hooks_mcp::prepare(Hooks::builder().without_linked(), &upstreams).unwrap();
    let Err(error) = config.apply(builder) else {
        panic!("a hook naming an unknown MCP server was applied");
    };
    let error = error.to_string();
    assert!(error.contains("`guard`"), "{error}");
    assert!(error.contains("elsewhere"), "{error}");
}

#[test]
fn the_binary_provides_its_upstreams_to_mcp_tool_hooks() {
    let config = config_file(HOOKS);
    let transcript = drive(&json!({
        "server": [env!("CARGO_BIN_EXE_hooks-mcp"), "--config", config.display().to_string()],
        "steps": [
            { "call": "get_current_time", "arguments": { "timezone": "UTC" } },
            { "call": "get_current_time", "arguments": { "timezone": "Not/A_Zone" } },
        ],
    }));
    let (failed, now) = answer(&transcript["steps"][0]);
    assert!(!failed, "{now}");
    let now: Value = serde_json::from_str(now).unwrap();
    assert_eq!(now["timezone"], "UTC");

    let (failed, reason) = answer(&transcript["steps"][1]);
    assert!(failed);
    assert!(
        reason.contains("MCP tool `get_current_time` on `time` failed"),
        "{reason}"
    );
    assert!(reason.contains("Invalid timezone"), "{reason}");
}
