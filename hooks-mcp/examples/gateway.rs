//! The MCP gateway at work, on any machine, with no network: this program
//! is also its own upstream — run with `--notes-server` it is a small MCP
//! server of notes (read, list, write, delete). The example starts that
//! server as a child process, puts `hooks-mcp` in front of it with the
//! standard hooks, connects an MCP client (rmcp's), and prints what the
//! client sees call by call.
//!
//! ```text
//! cargo run -p hooks-mcp --example gateway
//! ```

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use hooks_core::prelude::*;
use hooks_core::{Hooks, PreModelRequest};
use hooks_mcp::{Gateway, Upstream};
use hooks_std::audit::{Audit, Auditor};
use hooks_std::read_only::{ReadOnly, ReadOnlyGuard};
use hooks_std::truncate::{Truncate, Truncator};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ErrorData as McpError, RoleClient, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};

hooks_core::link!(hooks_std);

/// A note a hook would rather the model did not read verbatim.
const SECRET: &str = "db password: hunter2";

/// Replies never carry the password line, whatever tool returns it.
#[post_tool_use(group = "example")]
fn redact_passwords(ctx: &mut PostToolUse) {
    let Ok(result) = ctx.result() else { return };
    if result.to_string().contains("hunter2") {
        let cleaned = result.to_string().replace("hunter2", "[redacted]");
        if let Ok(value) = serde_json::from_str(&cleaned) {
            *ctx.result_mut() = Ok(value);
        }
    }
}

/// This client is an intern's: deleting is not even offered.
#[pre_model_request(group = "example")]
fn no_deletes_for_interns(ctx: &mut PreModelRequest) {
    if ctx.session().agent_id().contains("intern") {
        ctx.exclude_tools(&["delete_note"]);
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    if std::env::args().any(|arg| arg == "--notes-server") {
        let running = Box::pin(Notes::default().serve(rmcp::transport::stdio())).await?;
        running.waiting().await?;
        return Ok(());
    }
    let scratch = std::env::temp_dir().join(format!("hooks-mcp-example-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let audit_log = scratch.join("audit.jsonl");

    // The upstream: this very program, as an MCP server over stdio.
    let me = std::env::current_exe()?.display().to_string();
    let notes = Upstream::spawn("notes", &[me, "--notes-server".to_owned()]).await?;
    let upstreams = vec![notes];
    let hooks = hooks_mcp::prepare(
        Hooks::builder().groups(["example", "hooks_std", hooks_mcp::GROUP]),
        &upstreams,
    )?
    .state(ReadOnlyGuard::new(ReadOnly {
        enabled: true,
        read_tools: vec!["read_note".into(), "list_notes".into()],
        ..ReadOnly::default()
    })?)
    .state(Truncator::new(Truncate {
        max_chars: 300,
        ..Truncate::default()
    })?)
    .state(Auditor::from_config(Audit {
        path: audit_log.clone(),
        ..Audit::default()
    })?)
    .build()?;
    println!(
        "hooks-mcp in front of a notes server; the hooks it enforces:\n\n{}",
        hooks.describe()
    );

    let client = connect(Gateway::new(hooks, upstreams)?).await?;
    let tools: Vec<String> = client
        .list_all_tools()
        .await?
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    println!(
        "\nthe client (an intern's agent) is offered: {}",
        tools.join(", ")
    );

    for (tool, args) in [
        ("list_notes", serde_json::json!({})),
        ("read_note", serde_json::json!({"name": "ops"})),
        ("read_note", serde_json::json!({"name": "changelog"})),
        (
            "write_note",
            serde_json::json!({"name": "todo", "text": "ship it"}),
        ),
        ("delete_note", serde_json::json!({"name": "ops"})),
    ] {
        let mut params = CallToolRequestParams::new(tool);
        params.arguments = args.as_object().cloned();
        println!("\n  client calls {tool} {args}");
        match client.call_tool(params).await {
            Ok(result) => {
                let text = result
                    .content
                    .first()
                    .and_then(|block| block.as_text())
                    .map_or("", |text| text.text.as_str());
                let label = if result.is_error == Some(true) {
                    "TOOL ERROR"
                } else {
                    "result"
                };
                println!("  {label}: {}", abbreviate(text));
            }
            Err(error) => println!("  protocol error: {error}"),
        }
    }
    client.cancel().await?;

    println!("\naudit log {}:", audit_log.display());
    for line in std::fs::read_to_string(&audit_log)?.lines() {
        let record: Value = serde_json::from_str(line)?;
        println!(
            "  {:<11} {:<8} agent {}{}",
            record["tool"].as_str().unwrap_or("?"),
            record["decision"].as_str().unwrap_or("?"),
            record["agent"].as_str().unwrap_or("?"),
            record["decided_by"]
                .as_str()
                .map(|by| format!(", denied by {by}"))
                .unwrap_or_default()
        );
    }
    let _ = std::fs::remove_dir_all(scratch);
    Ok(())
}

/// Serves the gateway in this process and connects a client named like an intern's agent.
async fn connect(
    gateway: Gateway,
) -> Result<
    RunningService<RoleClient, rmcp::model::ClientConfig>,
    Box<dyn std::error::Error + Send + Sync>,
> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = Box::pin(gateway.serve(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let info = rmcp::model::ClientConfig::new(
        rmcp::model::ClientCapabilities::default(),
        rmcp::model::Implementation::new("intern-agent", "0.1"),
    );
    Ok(info.serve(client_io).await?)
}

fn abbreviate(text: &str) -> String {
    let one_line = text.replace('\n', " | ");
    if one_line.chars().count() > 160 {
        format!(
            "{}… ({} characters)",
            one_line.chars().take(160).collect::<String>(),
            text.chars().count()
        )
    } else {
        one_line
    }
}

/// The upstream: notes in memory.
#[derive(Clone)]
struct Notes(Arc<Mutex<Vec<(String, String)>>>);

impl Default for Notes {
    fn default() -> Self {
        let changelog = (1..=60).fold(String::new(), |mut text, n| {
            let _ = writeln!(text, "v0.{n}: fixed bug number {n}");
            text
        });
        Notes(Arc::new(Mutex::new(vec![
            ("ops".into(), format!("deploy with make release\n{SECRET}")),
            ("changelog".into(), changelog),
        ])))
    }
}

fn schema(fields: &[&str]) -> Arc<Map<String, Value>> {
    let properties: Map<String, Value> = fields
        .iter()
        .map(|field| ((*field).to_owned(), serde_json::json!({"type": "string"})))
        .collect();
    let schema =
        serde_json::json!({"type": "object", "properties": properties, "required": fields});
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

impl ServerHandler for Notes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("list_notes", "Lists the notes", schema(&[])),
            Tool::new("read_note", "Reads a note", schema(&["name"])),
            Tool::new("write_note", "Writes a note", schema(&["name", "text"])),
            Tool::new("delete_note", "Deletes a note", schema(&["name"])),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arg = |key: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|args| args.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let mut notes = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let text = match request.name.as_ref() {
            "list_notes" => notes
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            "read_note" => match notes.iter().find(|(name, _)| *name == arg("name")) {
                Some((_, text)) => text.clone(),
                None => {
                    return Ok(
                        CallToolResult::error(vec![ContentBlock::text("no such note")]).into(),
                    );
                }
            },
            "write_note" => {
                notes.push((arg("name"), arg("text")));
                "written".to_owned()
            }
            "delete_note" => {
                notes.retain(|(name, _)| *name != arg("name"));
                "deleted".to_owned()
            }
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {other}"),
                    None,
                ));
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}
