//! The client's side of stdio, guarded: a transport that checks every line
//! the client sends before the MCP service sees it. A line that is not a
//! message the service can act on gets a JSON-RPC error — rather than being
//! dropped (a line that is not JSON) or answered wrongly (a `tools/call`
//! whose arguments are not an object would be "method not found").
//!
//! One writer owns stdout, a whole message at a time under a lock, so the
//! service's messages and these errors never interleave mid-line. No task
//! or pipe sits between the streams and the service: a message costs no
//! hand-off it did not cost before.

use std::future::Future;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequest, ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, JsonRpcRequest,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Deserialize as _;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt, BufReader,
};
use tokio::sync::Mutex;

/// The longest line read from the client (4 MiB): past it, the connection
/// ends rather than the gateway buffering without bound.
pub(crate) const MAX_LINE: usize = 4 << 20;

/// Newline-delimited JSON-RPC over `input` and `output`, checked.
pub(crate) struct Guarded<R, W> {
    input: BufReader<R>,
    output: Arc<Mutex<W>>,
    line: Vec<u8>,
}

impl<R, W> Guarded<R, W> {
    pub(crate) fn new(input: R, output: W) -> Self
    where
        R: AsyncRead,
    {
        Guarded {
            input: BufReader::new(input),
            output: Arc::new(Mutex::new(output)),
            line: Vec::new(),
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(output: &Mutex<W>, line: &[u8]) -> std::io::Result<()> {
    let mut output = output.lock().await;
    output.write_all(line).await?;
    output.flush().await
}

impl<R, W> Transport<RoleServer> for Guarded<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let output = Arc::clone(&self.output);
        async move {
            let mut line = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            line.push(b'\n');
            write_line(&output, &line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.line.clear();
            let read = (&mut self.input)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.line)
                .await;
            match read {
                Ok(0) | Err(_) => return None,
                Ok(n) if n > MAX_LINE => {
                    let reply =
                        error_line(&Value::Null, -32600, "message too long: the limit is 4 MiB");
                    let _ = write_line(&self.output, &reply).await;
                    return None;
                }
                Ok(_) => {}
            }
            match check(&self.line) {
                Ok(message) => return Some(message),
                Err(Some(reply)) => {
                    if write_line(&self.output, &reply).await.is_err() {
                        return None;
                    }
                }
                Err(None) => {}
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        let output = Arc::clone(&self.output);
        async move { output.lock().await.shutdown().await }
    }
}

/// The message, for a line the service can act on; otherwise the error to
/// answer with (`None` for a blank line, or a malformed notification, which
/// gets no answer under JSON-RPC).
fn check(line: &[u8]) -> Result<ClientJsonRpcMessage, Option<Vec<u8>>> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Err(None);
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(error) => {
            return Err(Some(error_line(
                &Value::Null,
                -32700,
                &format!("parse error: {error}"),
            )));
        }
    };
    let id = value.get("id").cloned();
    let is_message = value.get("jsonrpc") == Some(&json!("2.0"))
        && (value.get("method").is_some_and(Value::is_string)
            || value.get("result").is_some()
            || value.get("error").is_some());
    if !is_message {
        return Err(Some(error_line(
            id.as_ref().unwrap_or(&Value::Null),
            -32600,
            "invalid request: expected a JSON-RPC 2.0 message (`\"jsonrpc\": \"2.0\"` and a `method`)",
        )));
    }
    let method = value
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match decode(value) {
        // A method the service knows, whose parameters did not fit its type,
        // is read as a custom request and would be refused as unknown.
        Ok(JsonRpcMessage::Request(JsonRpcRequest {
            request: ClientRequest::CustomRequest(custom),
            id,
            ..
        })) if is_known(&custom.method) => {
            let id = serde_json::to_value(&id).unwrap_or(Value::Null);
            Err(Some(error_line(
                &id,
                -32602,
                &format!("invalid params for `{}`", custom.method),
            )))
        }
        Ok(message) => Ok(message),
        Err(error) => match id {
            Some(id) => Err(Some(error_line(
                &id,
                if is_known(&method) { -32602 } else { -32600 },
                &format!("invalid message: {error}"),
            ))),
            None => Err(None),
        },
    }
}

/// rmcp's reading of a client message, with a `tools/call` request — most
/// of what a session sends — read as the one type it can be. rmcp's request
/// type is an untagged enum: a message is tried against each request type in
/// turn, and every failed try builds an error message (about 28,000
/// instructions of a call's 280,000 in the gateway, measured with callgrind).
/// No type before `CallToolRequest` accepts the method `tools/call`, so
/// where the direct reading succeeds the enum would have read the same; where
/// it fails, the enum decides, as before.
fn decode(value: Value) -> Result<ClientJsonRpcMessage, serde_json::Error> {
    let is_call = value.get("method").and_then(Value::as_str) == Some("tools/call")
        && value.get("id").is_some()
        && value.get("result").is_none()
        && value.get("error").is_none();
    if is_call && let Ok(call) = JsonRpcRequest::<CallToolRequest>::deserialize(&value) {
        return Ok(JsonRpcMessage::Request(JsonRpcRequest {
            jsonrpc: call.jsonrpc,
            id: call.id,
            request: ClientRequest::CallToolRequest(call.request),
        }));
    }
    serde_json::from_value(value)
}

/// The methods whose parameters the service checks by type.
fn is_known(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "tools/list"
            | "tools/call"
            | "prompts/list"
            | "prompts/get"
            | "resources/list"
            | "resources/read"
            | "resources/templates/list"
            | "completion/complete"
            | "logging/setLevel"
    )
}

fn error_line(id: &Value, code: i64, message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What rmcp alone makes of `line`, and what `decode` makes of it, as
    /// comparable text (the message's JSON and its debug form, which shows
    /// the request type chosen and the extensions).
    fn both(line: &Value) -> (String, String) {
        let show = |message: Result<ClientJsonRpcMessage, serde_json::Error>| match message {
            Ok(message) => format!(
                "{} {message:?}",
                serde_json::to_string(&message).unwrap_or_default()
            ),
            Err(error) => format!("error: {error}"),
        };
        (
            show(serde_json::from_value(line.clone())),
            show(decode(line.clone())),
        )
    }

    #[test]
    fn a_tools_call_reads_as_rmcp_reads_it() {
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "get_current_time", "arguments": {"timezone": "UTC"}}}),
            json!({"jsonrpc": "2.0", "id": "a-7", "method": "tools/call",
                   "params": {"name": "t", "arguments": {"deep": [1, {"x": null}]},
                              "_meta": {"progressToken": 9, "other": "kept"}}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "t"}, "extra": true}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "t", "task": {"ttl": 1000}}}),
            // Not a call rmcp reads as one: whatever it makes of them, so
            // does `decode`.
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                   "params": {"name": "t", "arguments": [1, 2]}}),
            json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call"}),
            json!({"jsonrpc": "2.0", "id": null, "method": "tools/call", "params": {"name": "t"}}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t"},
                   "result": {}}),
            json!({"jsonrpc": "1.0", "id": 8, "method": "tools/call", "params": {"name": "t"}}),
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "t"}}),
            json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
        ];
        for line in &lines {
            let (rmcp, ours) = both(line);
            assert_eq!(ours, rmcp, "{line}");
        }
        // The direct reading is taken for a well-formed call.
        let (_, first) = both(&lines[0]);
        assert!(first.contains("CallToolRequest"), "{first}");
    }
}
