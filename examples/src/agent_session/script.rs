//! A scripted model and fake tools: the session runs the same way every
//! time, with no network.

use hooks_core::{Value, json};

/// What the scripted model does on one turn.
pub(crate) enum Turn {
    Call { tool: &'static str, args: Value },
    Say(&'static str),
}

/// The model's turns, in order.
pub(crate) fn turns() -> Vec<Turn> {
    vec![
        Turn::Call {
            tool: "read_file",
            args: json!({"path": "./config/.env"}),
        },
        Turn::Call {
            tool: "sql_query",
            args: json!({"query": "DROP TABLE orders"}),
        },
        Turn::Call {
            tool: "sql_query",
            args: json!({"query": "DELETE FROM orders"}),
        },
        Turn::Call {
            tool: "sql_query",
            args: json!({"query": "UPDATE orders SET archived = true WHERE id = 42"}),
        },
        Turn::Call {
            tool: "Bash",
            args: json!({"command": "rm -rf /workspace/tmp"}),
        },
        Turn::Call {
            tool: "payments_refund",
            args: json!({"order": 42, "amount_usd": 250}),
        },
        Turn::Say("Done: order 42 archived."),
        Turn::Say("Done: order 42 archived and its $250 refund issued."),
    ]
}

/// The tools the agent offers.
pub(crate) const TOOLS: [&str; 4] = ["read_file", "sql_query", "Bash", "payments_refund"];

/// Runs a tool for real (here: pretends to).
#[allow(clippy::unused_async)] // the signature real tools have
pub(crate) async fn run_tool(tool: &str, args: &Value) -> Result<Value, String> {
    match tool {
        "read_file" => Ok(json!(format!(
            "# {}\nDATABASE_URL=postgres://db/orders\nAPI_KEY=sk-live-51Hx9\nREGION=eu-west-1",
            args["path"].as_str().unwrap_or_default()
        ))),
        "sql_query" => Ok(json!({"rows_affected": 1})),
        "Bash" => Ok(json!({"exit_code": 0})),
        "payments_refund" => Ok(json!({"refund_id": "re_1042", "status": "succeeded"})),
        other => Err(format!("no such tool: {other}")),
    }
}
