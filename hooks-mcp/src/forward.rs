//! What an upstream server asks of the client during a call — a question
//! for the user (elicitation), a completion from the client's model
//! (sampling), the client's roots — and the log messages it sends: passed
//! to the client whose call is in flight on that upstream, instead of being
//! declined (or refused) by the gateway on the user's behalf.
//!
//! An upstream connection is shared by every client session. When calls of
//! more than one session are in flight on it, the gateway cannot tell which
//! client the upstream means, and refuses the request with an error saying
//! so rather than ask the wrong person.

// Sampling, roots and logging are deprecated by SEP-2577, and still what
// 2025-11-25 clients speak: forwarding them is the point.
#![allow(deprecated)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, Implementation, ListRootsResult,
    LoggingMessageNotificationParam,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient, RoleServer};

use crate::pins::watch::ToolWatch;

/// The client sessions with a call in flight on one upstream.
#[derive(Default)]
pub(crate) struct InFlight {
    calls: Mutex<Vec<Call>>,
    next: AtomicU64,
}

struct Call {
    token: u64,
    session: String,
    peer: Peer<RoleServer>,
}

/// A call in flight; it leaves the set when dropped (answered, failed or cancelled).
pub(crate) struct Entered {
    set: Arc<InFlight>,
    token: u64,
}

impl Drop for Entered {
    fn drop(&mut self) {
        self.set.lock().retain(|call| call.token != self.token);
    }
}

impl InFlight {
    /// Notes a call of `session`'s client, until the guard is dropped.
    pub(crate) fn enter(self: &Arc<Self>, session: &str, peer: Peer<RoleServer>) -> Entered {
        let token = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().push(Call {
            token,
            session: session.to_owned(),
            peer,
        });
        Entered {
            set: Arc::clone(self),
            token,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Call>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The client the upstream means: the only session with a call in flight.
    pub(crate) fn client(&self) -> Result<Peer<RoleServer>, McpError> {
        let calls = self.lock();
        let Some(first) = calls.first() else {
            return Err(McpError::invalid_request(
                "no client call is in flight on this connection: there is nobody to ask",
                None,
            ));
        };
        if calls.iter().any(|call| call.session != first.session) {
            return Err(McpError::invalid_request(
                "calls of several clients are in flight on this connection: the gateway cannot \
                 tell which one to ask",
                None,
            ));
        }
        Ok(first.peer.clone())
    }
}

/// The upstream connection's client side: forwards to the calling client
/// (and the upstream's new tool lists to the gateway's pins).
pub(crate) struct Forwarder(pub(crate) Arc<InFlight>, pub(crate) Arc<ToolWatch>);

fn relay_error(what: &str, error: &rmcp::service::ServiceError) -> McpError {
    McpError::internal_error(
        format!("the client could not be asked ({what}): {error}"),
        None,
    )
}

impl ClientHandler for Forwarder {
    fn get_info(&self) -> ClientConfig {
        // What the gateway can pass on; whether the calling client can do it
        // is known only per call, and a client that cannot is an error then.
        let capabilities: ClientCapabilities = serde_json::from_value(serde_json::json!({
            "elicitation": {}, "sampling": {}, "roots": {}
        }))
        .unwrap_or_default();
        ClientConfig::new(
            capabilities,
            Implementation::new("hooks-mcp", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let client = self.0.client()?;
        if client.supported_elicitation_modes().is_empty() {
            return Err(McpError::invalid_request(
                "the client cannot be asked: it does not support elicitation",
                None,
            ));
        }
        client
            .create_elicitation(request)
            .await
            .map_err(|error| relay_error("elicitation", &error))
    }

    #[allow(deprecated)] // sampling: deprecated by SEP-2577, still what clients speak
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let client = self.0.client()?;
        let supports = client
            .peer_info()
            .is_some_and(|info| info.capabilities.sampling.is_some());
        if !supports {
            return Err(McpError::invalid_request(
                "the client cannot be asked: it does not support sampling",
                None,
            ));
        }
        client
            .create_message(params)
            .await
            .map_err(|error| relay_error("sampling", &error))
    }

    #[allow(deprecated)] // roots: deprecated by SEP-2577, still what clients speak
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        let client = self.0.client()?;
        if client
            .peer_info()
            .is_none_or(|info| info.capabilities.roots.is_none())
        {
            return Ok(ListRootsResult::default());
        }
        client
            .list_roots()
            .await
            .map_err(|error| relay_error("roots", &error))
    }

    /// A tool may have been redefined: the pins check the new list.
    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        self.1.changed(&context.peer).await;
    }

    #[allow(deprecated)] // logging: deprecated by SEP-2577, still what clients show
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Ok(client) = self.0.client() {
            let _ = client.notify_logging_message(params).await;
        }
    }
}
