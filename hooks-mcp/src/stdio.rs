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
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, JsonRpcRequest};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
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
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
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
