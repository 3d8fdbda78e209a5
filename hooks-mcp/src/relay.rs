//! One client request passed to an upstream on the client's behalf, with
//! what belongs to it besides the answer: the upstream's progress
//! notifications reach the client under the client's own `progressToken`,
//! a client's `notifications/cancelled` cancels the upstream request, and
//! what the upstream asks meanwhile (elicitation, sampling, roots) goes to
//! this client ([`forward`](crate::forward)).
//!
//! rmcp gives every request it sends a progress token of its own (the
//! client's cannot be sent on: two clients may pick the same one), so the
//! upstream's token is mapped back to the client's while the request is in
//! flight.

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ErrorCode, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RequestContext, ServiceError};
use rmcp::{ErrorData as McpError, RoleClient, RoleServer};

use crate::upstream::Upstream;

/// Why a relayed request has no answer.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The upstream answered with a JSON-RPC error: passed on as it is.
    Upstream(McpError),
    /// The client cancelled the request (and the upstream was told).
    Cancelled,
    /// No answer: the connection broke, or the timeout passed.
    Unanswered(String),
}

impl Failure {
    /// The failure as the client's answer to its own request.
    pub(crate) fn into_mcp(self) -> McpError {
        match self {
            Failure::Upstream(error) => error,
            Failure::Cancelled => McpError::new(
                ErrorCode::INTERNAL_ERROR,
                "the request was cancelled by the client",
                None,
            ),
            Failure::Unanswered(message) => McpError::internal_error(message, None),
        }
    }

    /// The failure as a message for the model (a tool error).
    pub(crate) fn message(&self, upstream: &str) -> String {
        match self {
            Failure::Upstream(error) => format!(
                "the upstream MCP server `{upstream}` refused the request: {}",
                error.message
            ),
            Failure::Cancelled => "the request was cancelled by the client".to_owned(),
            Failure::Unanswered(message) => message.clone(),
        }
    }
}

/// Sends `request` to `upstream` for the client of `context` (whose session
/// is `session`), within the upstream's call timeout.
pub(crate) async fn send(
    upstream: &Upstream,
    request: ClientRequest,
    context: &RequestContext<RoleServer>,
    session: &str,
) -> Result<ServerResult, Failure> {
    let peer = upstream.peer().map_err(Failure::Unanswered)?;
    // What the upstream asks during the request goes to this client.
    let _calling = upstream.calling(session, context.peer.clone());
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .map_err(|error| unanswered(upstream, &error))?;
    let _progress = context.meta.get_progress_token().map(|token| {
        upstream.in_flight().route_progress(
            handle.progress_token.clone(),
            context.peer.clone(),
            token,
        )
    });
    // Until it is answered, dropping the request (a timeout, the client
    // gone) tells the upstream to stop.
    let mut pending = Pending {
        peer: peer.clone(),
        id: Some(handle.id.clone()),
    };
    let timeout = upstream.timeout();
    let answer = tokio::select! {
        answer = tokio::time::timeout(timeout, handle.await_response()) => answer,
        () = context.ct.cancelled() => {
            pending.cancel("cancelled by the client").await;
            return Err(Failure::Cancelled);
        }
    };
    match answer {
        Ok(Ok(result)) => {
            pending.id = None;
            Ok(result)
        }
        Ok(Err(ServiceError::McpError(error))) => {
            pending.id = None;
            Err(Failure::Upstream(error))
        }
        Ok(Err(error)) => Err(unanswered(upstream, &error)),
        Err(_elapsed) => {
            pending.cancel("timed out at the gateway").await;
            Err(Failure::Unanswered(format!(
                "the upstream MCP server `{}` did not answer within {} s",
                upstream.name(),
                timeout.as_secs()
            )))
        }
    }
}

fn unanswered(upstream: &Upstream, error: &ServiceError) -> Failure {
    Failure::Unanswered(format!(
        "the upstream MCP server `{}` failed to answer: {error}",
        upstream.name()
    ))
}

/// A request the upstream has not answered; cancelled upstream if dropped so.
struct Pending {
    peer: Peer<RoleClient>,
    id: Option<rmcp::model::RequestId>,
}

impl Pending {
    async fn cancel(&mut self, reason: &str) {
        if let Some(id) = self.id.take() {
            let _ = self
                .peer
                .notify_cancelled(cancelled(id, reason.to_owned()))
                .await;
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(id) = self.id.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let peer = self.peer.clone();
            runtime.spawn(async move {
                let _ = peer
                    .notify_cancelled(cancelled(id, "abandoned by the gateway".to_owned()))
                    .await;
            });
        }
    }
}

fn cancelled(id: rmcp::model::RequestId, reason: String) -> CancelledNotificationParam {
    CancelledNotificationParam::new(Some(id), Some(reason))
}

/// A `tools/call` of `tool` with `args` on `upstream`, for the client of
/// `context`; a failure is a message for the model.
pub(crate) async fn call_tool(
    upstream: &Upstream,
    tool: &str,
    args: serde_json::Map<String, serde_json::Value>,
    context: &RequestContext<RoleServer>,
    session: &str,
) -> Result<CallToolResult, String> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = Some(args);
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    match send(upstream, request, context, session).await {
        Ok(ServerResult::CallToolResult(result)) => Ok(result),
        // A result with no content at all.
        Ok(ServerResult::EmptyResult(_)) => Ok(CallToolResult::default()),
        Ok(_) => Err(format!(
            "the upstream MCP server `{}` answered `tools/call` with another kind of result",
            upstream.name()
        )),
        Err(Failure::Upstream(error)) => Err(format!(
            "the upstream MCP server `{}` failed to answer: Mcp error: {error}",
            upstream.name()
        )),
        Err(failure) => Err(failure.message(upstream.name())),
    }
}
