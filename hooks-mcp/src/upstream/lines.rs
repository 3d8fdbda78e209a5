//! rmcp's transport to an upstream over stdio: the lines the relay
//! ([`line_limit`](super::line_limit)) passes on, read as rmcp reads them,
//! and messages written as rmcp writes them, one whole line at a time.
//!
//! One difference, for speed: the answer to a `tools/call` the gateway sent
//! is read as a `CallToolResult` directly. rmcp reads every answer as an
//! untagged enum of all result types, trying them in turn — 16 failed tries,
//! each building an error message, before `CallToolResult` (about 43,000
//! instructions of a call's 280,000 in the gateway, measured with
//! callgrind). The direct reading is only for an answer whose id is that of
//! a `tools/call` in flight, where rmcp's caller takes nothing else; any
//! other message, and an answer the direct reading refuses, goes rmcp's way.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{
    CallToolResult, ClientRequest, JsonRpcMessage, JsonRpcRequest, JsonRpcResponse,
    JsonRpcVersion2_0, RequestId, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{JsonRpcMessageCodec, JsonRpcMessageCodecError};
use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Mutex, mpsc};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;

/// More calls in flight than this without an answer (an upstream that does
/// not answer, calls abandoned): the ids are forgotten, and their answers, if
/// they come, are read rmcp's way — slower, the same.
const MAX_CALLS_IN_FLIGHT: usize = 4096;

/// The transport: lines in, messages out to `output`.
pub(crate) struct Lines<W> {
    incoming: mpsc::Receiver<Vec<u8>>,
    output: Arc<Mutex<Option<W>>>,
    /// The ids of the `tools/call` requests sent and not yet answered.
    calls: HashSet<RequestId>,
}

impl<W> Lines<W> {
    pub(crate) fn new(incoming: mpsc::Receiver<Vec<u8>>, output: W) -> Self {
        Lines {
            incoming,
            output: Arc::new(Mutex::new(Some(output))),
            calls: HashSet::new(),
        }
    }

    /// The message on `line` (its newline included), if it is one rmcp
    /// would pass on; an error rmcp would answer with "Invalid request".
    fn read(&mut self, line: &[u8]) -> Result<Option<RxJsonRpcMessage<RoleClient>>, ()> {
        if !self.calls.is_empty()
            && let Some(answer) = self.call_answer(line)
        {
            return Ok(Some(answer));
        }
        let read = rmcp_read(line);
        // A call answered otherwise (an error, a result read rmcp's way) is
        // no longer in flight.
        if !self.calls.is_empty() {
            let answered = match &read {
                Ok(Some(JsonRpcMessage::Response(response))) => Some(&response.id),
                Ok(Some(JsonRpcMessage::Error(error))) => error.id.as_ref(),
                _ => None,
            };
            if let Some(id) = answered {
                self.calls.remove(id);
            }
        }
        read
    }

    /// The answer to a `tools/call` in flight, read directly.
    fn call_answer(&mut self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleClient>> {
        /// An answer's fields; `method` and `error` are only there to tell a
        /// message that has them (not an answer, for rmcp) from one that does not.
        #[derive(Deserialize)]
        struct CallAnswer {
            jsonrpc: JsonRpcVersion2_0,
            id: RequestId,
            result: CallToolResult,
            method: Option<IgnoredAny>,
            error: Option<IgnoredAny>,
        }
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let answer: CallAnswer = serde_json::from_slice(line).ok()?;
        if answer.method.is_some() || answer.error.is_some() || !self.calls.remove(&answer.id) {
            return None;
        }
        Some(JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: answer.jsonrpc,
            id: answer.id,
            result: ServerResult::CallToolResult(answer.result),
        }))
    }

    /// Notes the id of a `tools/call` about to be sent.
    fn note(&mut self, message: &TxJsonRpcMessage<RoleClient>) {
        if let JsonRpcMessage::Request(JsonRpcRequest {
            id,
            request: ClientRequest::CallToolRequest(_),
            ..
        }) = message
        {
            if self.calls.len() >= MAX_CALLS_IN_FLIGHT {
                self.calls.clear();
            }
            self.calls.insert(id.clone());
        }
    }
}

/// `line` read by rmcp's own decoder (its compatibility rules included:
/// a byte order mark, a carriage return, other protocols' notifications).
fn rmcp_read(line: &[u8]) -> Result<Option<RxJsonRpcMessage<RoleClient>>, ()> {
    let mut buffer = BytesMut::from(line);
    match JsonRpcMessageCodec::<RxJsonRpcMessage<RoleClient>>::default().decode(&mut buffer) {
        Ok(message) => Ok(message),
        Err(JsonRpcMessageCodecError::Serde(error))
            if matches!(
                error.classify(),
                serde_json::error::Category::Data | serde_json::error::Category::Io
            ) =>
        {
            tracing::debug!("protocol error on a message from the upstream: {error}");
            Err(())
        }
        // Not JSON: there is no id to answer (as rmcp, and every MCP SDK).
        Err(error) => {
            tracing::debug!("ignoring an unparsable message from the upstream: {error}");
            Ok(None)
        }
    }
}

async fn write<W: AsyncWrite + Unpin>(
    output: &Mutex<Option<W>>,
    message: &TxJsonRpcMessage<RoleClient>,
) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut output = output.lock().await;
    let Some(output) = output.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "Transport is closed",
        ));
    };
    output.write_all(&line).await?;
    output.flush().await
}

impl<W> Transport<RoleClient> for Lines<W>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.note(&item);
        let output = Arc::clone(&self.output);
        async move { write(&output, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            // Cancel-safe, as rmcp's loop needs: a line is either still in
            // the channel or read and handled without waiting.
            let line = self.incoming.recv().await?;
            match self.read(&line) {
                Ok(Some(message)) => return Some(message),
                Ok(None) => {}
                Err(()) => {
                    // As rmcp: well-formed JSON that is no message is
                    // answered, without an id. Written by a task of its own,
                    // so that this stays cancel-safe; a whole line at a time.
                    let output = Arc::clone(&self.output);
                    tokio::spawn(async move {
                        let error = TxJsonRpcMessage::<RoleClient>::error(
                            rmcp::model::ErrorData::invalid_request("Invalid request", None),
                            None,
                        );
                        let _ = write(&output, &error).await;
                    });
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // The upstream's stdin closes when the writer is dropped.
        drop(self.output.lock().await.take());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{CallToolRequestParams, Request};
    use serde_json::{Value, json};

    fn lines() -> Lines<Vec<u8>> {
        Lines::new(mpsc::channel(1).1, Vec::new())
    }

    fn call(id: i64) -> TxJsonRpcMessage<RoleClient> {
        JsonRpcMessage::Request(JsonRpcRequest::new(
            RequestId::Number(id),
            ClientRequest::CallToolRequest(Request::new(CallToolRequestParams::new("t"))),
        ))
    }

    /// A message as comparable text: its JSON and its debug form (which
    /// shows the result type chosen).
    fn show(read: Result<Option<RxJsonRpcMessage<RoleClient>>, ()>) -> String {
        match read {
            Ok(Some(message)) => format!(
                "{} {message:?}",
                serde_json::to_string(&message).unwrap_or_default()
            ),
            Ok(None) => "skipped".to_owned(),
            Err(()) => "invalid request".to_owned(),
        }
    }

    fn line(value: &Value) -> Vec<u8> {
        let mut line = serde_json::to_vec(value).unwrap();
        line.push(b'\n');
        line
    }

    #[test]
    fn an_answer_to_a_call_in_flight_reads_as_rmcp_reads_it() {
        let answers = [
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "x"}]}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": true,
                   "structuredContent": {"a": [1, null]}, "_meta": {"k": "v"}}}),
            json!({"result": {"content": [{"type": "text", "text": "last"}]}, "jsonrpc": "2.0", "id": 1}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
            // Not answers rmcp takes as a `CallToolResult`: whatever it
            // makes of them, so does the transport.
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": "not a list"}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "x", "result": {"content": []}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}, "error": {"code": 1, "message": "m"}}),
            json!({"jsonrpc": "1.0", "id": 1, "result": {"content": []}}),
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "failed"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "d"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/other", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": 5}),
        ];
        for answer in &answers {
            let mut transport = lines();
            transport.note(&call(1));
            let ours = show(transport.read(&line(answer)));
            let rmcp = show(rmcp_read(&line(answer)));
            assert_eq!(ours, rmcp, "{answer}");
        }
        for raw in [
            &b"not json\n"[..],
            b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\r\n",
        ] {
            let mut transport = lines();
            transport.note(&call(1));
            assert_eq!(show(transport.read(raw)), show(rmcp_read(raw)));
        }
    }

    #[test]
    fn only_an_answer_to_a_call_in_flight_is_read_directly() {
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}});
        let mut transport = lines();
        transport.note(&call(1));
        transport.note(&call(2));
        assert!(transport.call_answer(&line(&answer)).is_some());
        // Answered: a second answer with that id goes rmcp's way.
        assert!(transport.call_answer(&line(&answer)).is_none());
        let other = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": []}});
        assert!(transport.call_answer(&line(&other)).is_none());
        assert_eq!(transport.calls.len(), 1);
        // A call answered with an error is no longer in flight either.
        let failed = json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "m"}});
        assert!(
            transport
                .read(&line(&failed))
                .is_ok_and(|message| message.is_some())
        );
        assert!(transport.calls.is_empty());
    }

    #[tokio::test]
    async fn messages_are_written_one_line_each_and_not_after_close() {
        let mut transport = lines();
        transport.send(call(7)).await.unwrap();
        let written = transport.output.lock().await.clone().unwrap();
        let text = String::from_utf8(written).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{text}");
        let sent: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(sent["method"], "tools/call");
        assert_eq!(sent["id"], 7);
        transport.close().await.unwrap();
        assert!(transport.send(call(8)).await.is_err());
    }
}
