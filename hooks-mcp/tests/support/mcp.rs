//! What the gateway's tests share besides the Python side: reading the
//! scripted client's transcript and the audit log, serving a gateway in
//! this process to rmcp's client, and the test servers of `tests/servers`.

use std::path::{Path, PathBuf};

use hooks_mcp::Gateway;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

use super::python;

/// The text of a transcript step's first text block, and whether the call was an error.
pub(crate) fn answer(step: &Value) -> (bool, &str) {
    let text = step["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {step}"));
    (step["is_error"] == true, text)
}

/// Every record of a JSON Lines audit log (none if there is no file yet).
pub(crate) fn audit_records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Serves `gateway` in this process and connects rmcp's client to it.
pub(crate) async fn connect(gateway: Gateway) -> RunningService<RoleClient, ()> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = Box::pin(gateway.serve(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io)
        .await
        .expect("the gateway completes the handshake")
}

/// Calls `tool` through `client`; a protocol error fails the test.
pub(crate) async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    args: Value,
) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = args.as_object().cloned();
    client
        .call_tool(params)
        .await
        .expect("a tool result, not a protocol error")
}

/// The text of a result's first block.
pub(crate) fn text(result: &CallToolResult) -> &str {
    result.content[0]
        .as_text()
        .map(|text| text.text.as_str())
        .expect("a text block")
}

/// The command line of one of `tests/servers`' stdio servers, on the venv's Python.
pub(crate) fn test_server(script: &str) -> Vec<String> {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers")
        .join(script);
    vec![
        python::python().display().to_string(),
        path.display().to_string(),
    ]
}
