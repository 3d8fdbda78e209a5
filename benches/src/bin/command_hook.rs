//! The command hook of the subprocess benchmark, speaking the Claude Code
//! protocol: the event as JSON on stdin, the decision as JSON on stdout.
//! It runs the same check as the in-process guards.

use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut input = String::new();
    if std::io::stdin().read_to_string(&mut input).is_err() {
        return ExitCode::from(1);
    }
    let Ok(event) = serde_json::from_str::<serde_json::Value>(&input) else {
        return ExitCode::from(1);
    };
    let keyword = std::env::args().nth(1).unwrap_or_else(|| "DROP".to_owned());
    let query = event["tool_input"]["query"].as_str().unwrap_or_default();
    let output = if hooks_benches::bodies::starts_with_keyword(query, &keyword) {
        serde_json::json!({"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": format!("{keyword} is not allowed")}})
    } else {
        serde_json::json!({"hookSpecificOutput": {"permissionDecision": "allow"}})
    };
    println!("{output}");
    ExitCode::SUCCESS
}
