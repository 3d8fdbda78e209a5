//! A scripted model and fake tools: the session runs the same way every
//! time, with no network.

use std::fmt::Write as _;

use hooks_core::{Value, json};

/// What the scripted model does on one turn.
pub(crate) enum Turn {
    Call { tool: &'static str, args: Value },
    Say(&'static str),
}

fn call(tool: &'static str, args: Value) -> Turn {
    Turn::Call { tool, args }
}

/// The main agent's turns, in order.
pub(crate) fn turns() -> Vec<Turn> {
    vec![
        call("read_file", json!({"path": "./config/.env"})),
        call("read_file", json!({"path": "logs/app.log"})),
        call("sql_query", json!({"query": "DROP TABLE orders"})),
        call("sql_query", json!({"query": "DELETE FROM orders"})),
        call(
            "sql_query",
            json!({"query": "UPDATE orders SET archived = true WHERE id = 42"}),
        ),
        call("Bash", json!({"command": "rm -rf /workspace/tmp"})),
        call(
            "search",
            json!({"q": "refund policy", "api_key": "sk-live-51Hx9refund"}),
        ),
        call("search", json!({"q": "refund policy 2026"})),
        call("search", json!({"q": "refund policy eu"})),
        call("payments_refund", json!({"order": 42, "amount_usd": 250})),
        Turn::Say("Done: order 42 archived on db-7.internal."),
        Turn::Say("Done: order 42 archived and its $250 refund issued."),
    ]
}

/// What the read-only reporting sub-agent tries.
pub(crate) fn reporter_turns() -> Vec<Turn> {
    vec![
        call(
            "sql_query",
            json!({"query": "SELECT count(*) FROM orders WHERE archived"}),
        ),
        call(
            "write_file",
            json!({"path": "reports/refunds.md", "content": "# Refunds"}),
        ),
        call(
            "sql_query",
            json!({"query": "UPDATE orders SET reported = true"}),
        ),
    ]
}

/// The tools the agent offers.
/// What the agent's tools do, for guards to decide from (the tool catalog):
/// the read-only guard refuses `write_file` because it is declared to
/// destroy, not because of its name, and judges `sql_query`'s declared SQL.
pub(crate) fn tool_facts() -> Vec<hooks_core::ToolFacts> {
    use hooks_core::{ArgRole, ToolFacts};
    vec![
        ToolFacts::new("read_file")
            .only_reads()
            .arg("path", ArgRole::Path),
        ToolFacts::new("write_file")
            .destroys()
            .arg("path", ArgRole::Path),
        ToolFacts::new("sql_query").arg("query", ArgRole::Sql),
        ToolFacts::new("search").only_reads().with_open_world(true),
        ToolFacts::new("Bash")
            .destroys()
            .arg("command", ArgRole::Shell),
        ToolFacts::new("payments_refund")
            .writes()
            .with_open_world(true),
    ]
}

pub(crate) const TOOLS: [&str; 6] = [
    "read_file",
    "write_file",
    "sql_query",
    "search",
    "Bash",
    "payments_refund",
];

/// A long log file: more than the truncation limit.
fn log_lines(count: usize) -> String {
    let mut log = String::new();
    for n in 1..=count {
        let _ = writeln!(
            log,
            "2026-11-21T09:{:02}:{:02}Z INFO order service heartbeat #{n}",
            n / 60,
            n % 60
        );
    }
    log
}

/// Runs a tool for real (here: pretends to).
#[allow(clippy::unused_async)] // the signature real tools have
pub(crate) async fn run_tool(tool: &str, args: &Value) -> Result<Value, String> {
    let path = args["path"].as_str().unwrap_or_default();
    match tool {
        "read_file" if path.to_ascii_lowercase().ends_with(".log") => Ok(json!(log_lines(400))),
        "read_file" => Ok(json!(format!(
            "# {path}\nDATABASE_URL=postgres://db/orders\nAPI_KEY=sk-live-51Hx9\nREGION=eu-west-1"
        ))),
        "write_file" => Ok(json!({"written": path})),
        "sql_query" => Ok(json!({"rows_affected": 1})),
        "search" => Ok(json!({"hits": 3})),
        "Bash" => Ok(json!({"exit_code": 0})),
        "payments_refund" => Ok(json!({"refund_id": "re_1042", "status": "succeeded"})),
        other => Err(format!("no such tool: {other}")),
    }
}
