//! The gateway's stdio, spoken to raw: every line it prints is a JSON-RPC
//! message (its logs go to stderr), and a line it cannot act on gets a
//! JSON-RPC error rather than silence or a misleading answer. Nothing panics.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};
use support::server_command;

#[test]
fn malformed_client_messages_get_json_rpc_errors_and_stdout_carries_only_protocol() {
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_hooks-mcp"))
        .args(["--config", "/dev/null", "--"])
        .args(server_command("mcp-server-time"))
        .env("HOOKS_MCP_LOG", "debug")
        .env(
            "HOOKS_AUDIT_LOG",
            std::env::temp_dir().join(format!("hooks-mcp-protocol-{}.jsonl", std::process::id())),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = gateway.stdin.take().unwrap();
    let stderr = drain(gateway.stderr.take().unwrap());
    let lines = [
        "this is not json".to_owned(),
        String::new(),
        json!({"id": 7, "method": "ping"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "get_current_time", "arguments": "oops"}})
        .to_string(),
        json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "get_current_time", "arguments": {"timezone": "UTC"}}})
        .to_string(),
    ];
    if let Err(error) = lines.iter().try_for_each(|line| writeln!(stdin, "{line}")) {
        // A closed pipe: the gateway is gone, and its stderr says why.
        let status = gateway.wait().unwrap();
        panic!(
            "the gateway stopped reading ({error}; {status}): {}",
            stderr.join().unwrap()
        );
    }

    // Read until every request has its answer (or time runs out).
    let received = lines_of(gateway.stdout.take().unwrap());
    let mut answers: Vec<Value> = Vec::new();
    while answers.len() < 6 {
        let line = received
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("only these answers came: {answers:#?}"));
        let message: Value = serde_json::from_str(&line).unwrap_or_else(|error| {
            panic!("stdout carried a line that is not JSON ({error}): {line}")
        });
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        answers.push(message);
    }
    drop(stdin);
    let status = gateway.wait().unwrap();
    let stderr = stderr.join().unwrap();
    assert!(
        status.success(),
        "the gateway exits cleanly when the client hangs up: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("DEBUG"), "logs go to stderr: {stderr}");

    let by_id = |id: Value| {
        answers
            .iter()
            .find(|answer| answer["id"] == id)
            .unwrap_or_else(|| panic!("no answer for id {id}: {answers:#?}"))
    };
    assert_eq!(
        by_id(Value::Null)["error"]["code"],
        -32700,
        "not JSON: a parse error"
    );
    assert_eq!(
        by_id(json!(7))["error"]["code"],
        -32600,
        "not JSON-RPC 2.0: an invalid request"
    );
    assert_eq!(by_id(json!(1))["result"]["serverInfo"]["name"], "hooks-mcp");
    assert_eq!(
        by_id(json!(2))["error"]["code"],
        -32602,
        "arguments that are not an object"
    );
    assert_eq!(
        by_id(json!(3))["error"]["code"],
        -32601,
        "an unknown method"
    );
    let time = &by_id(json!(4))["result"];
    assert_ne!(time["isError"], true, "{time}");
    assert!(
        time["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"timezone\": \"UTC\"")
    );
}

/// Each line `stream` prints, as it comes.
fn lines_of(stream: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (sent, received) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            if sent.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    received
}

/// Reads `stream` to its end as it comes, on a thread of its own: debug logs
/// left in the pipe could fill it and stall the gateway.
fn drain(mut stream: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut text = String::new();
        let _ = stream.read_to_string(&mut text);
        text
    })
}
