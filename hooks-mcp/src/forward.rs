//! What an upstream server asks of the client during a call — a question
//! for the user (elicitation), a completion from the client's model
//! (sampling), the client's roots — and the log messages and progress it
//! sends: passed to the client whose call is in flight on that upstream,
//! instead of being declined (or refused) by the gateway on the user's behalf.
//!
//! An upstream connection is shared by every client session. When calls of
//! more than one session are in flight on it, the gateway cannot tell which
//! client the upstream means, and refuses the request with an error saying
//! so rather than ask the wrong person.
//!
//! Outside a call, an upstream may still ask for the client's roots (as
//! `server-filesystem` does when it starts, and on
//! `notifications/roots/list_changed`): with exactly one client connected
//! (always so over stdio) that client answers; with several (HTTP sessions
//! sharing the upstream) the request is refused with an error saying so,
//! and the upstream keeps the roots it had. Its resource notifications go
//! to the clients they concern: `notifications/resources/updated` to the
//! clients subscribed to that URI, `notifications/resources/list_changed`
//! to every client.

// Sampling, roots and logging are deprecated by SEP-2577, and still what
// 2025-11-25 clients speak: forwarding them is the point.
#![allow(deprecated)]

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, Implementation, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient, RoleServer};

use crate::pins::watch::ToolWatch;

/// The client sessions with a call in flight on one upstream.
#[derive(Default)]
pub(crate) struct InFlight {
    /// By token: a call leaves in O(log n) however many are in flight.
    calls: Mutex<BTreeMap<u64, Call>>,
    next: AtomicU64,
    /// The upstream's progress token of each request in flight → the client
    /// that sent it, and the client's own token.
    progress: Mutex<Progress>,
    /// Every client connected to the gateway, once the gateway is made.
    clients: OnceLock<Arc<Clients>>,
}

/// How many answered requests keep their progress routes. A notification
/// the upstream sent before its answer may be handled after the answer was
/// (rmcp handles each notification in a task of its own): it still finds
/// its client unless this many requests were answered in between. The
/// upstream's tokens are never reused, so a kept route never misroutes.
const RETIRED_ROUTES: usize = 256;

/// The progress routes of one upstream: those in flight, and the last
/// [`RETIRED_ROUTES`] answered.
#[derive(Default)]
struct Progress {
    routes: HashMap<ProgressToken, (Peer<RoleServer>, ProgressToken)>,
    retired: VecDeque<ProgressToken>,
}

/// A progress route; retired when dropped (the request answered or abandoned).
pub(crate) struct Routed {
    set: Arc<InFlight>,
    token: ProgressToken,
}

impl Drop for Routed {
    fn drop(&mut self) {
        let mut progress = lock(&self.set.progress);
        progress.retired.push_back(self.token.clone());
        if progress.retired.len() > RETIRED_ROUTES
            && let Some(oldest) = progress.retired.pop_front()
        {
            progress.routes.remove(&oldest);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The client connections of one gateway (each upstream sees the same), for
/// what an upstream sends outside a call.
#[derive(Default)]
pub(crate) struct Clients {
    connected: Mutex<Vec<Client>>,
    next: AtomicU64,
}

struct Client {
    id: u64,
    peer: Peer<RoleServer>,
    /// The resource URIs it subscribed to.
    subscriptions: HashSet<String>,
}

/// A connected client; it leaves the set when dropped (disconnected).
pub(crate) struct Registered {
    clients: Arc<Clients>,
    id: u64,
}

impl Registered {
    /// This client's number among the connected ones.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        lock(&self.clients.connected).retain(|client| client.id != self.id);
    }
}

impl Clients {
    /// Notes a connected client, until the guard is dropped.
    pub(crate) fn register(self: &Arc<Self>, peer: Peer<RoleServer>) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.connected).push(Client {
            id,
            peer,
            subscriptions: HashSet::new(),
        });
        Registered {
            clients: Arc::clone(self),
            id,
        }
    }

    /// The only client connected; an error with none or several.
    fn only(&self) -> Result<Peer<RoleServer>, McpError> {
        let connected = lock(&self.connected);
        match connected.as_slice() {
            [client] => Ok(client.peer.clone()),
            [] => Err(McpError::invalid_request(
                "no client is connected to the gateway yet: there is nobody to ask",
                None,
            )),
            _ => Err(McpError::invalid_request(
                "several clients are connected to the gateway and none has a call in flight \
                 here: the gateway cannot tell whose roots to give",
                None,
            )),
        }
    }

    /// Every connected client.
    pub(crate) fn all(&self) -> Vec<Peer<RoleServer>> {
        lock(&self.connected)
            .iter()
            .map(|client| client.peer.clone())
            .collect()
    }

    /// Notes that client `id` subscribed to `uri`; whether it is the first
    /// client to (so the upstream must be asked).
    pub(crate) fn subscribe(&self, id: u64, uri: &str) -> bool {
        let mut connected = lock(&self.connected);
        let first = !connected
            .iter()
            .any(|client| client.subscriptions.contains(uri));
        if let Some(client) = connected.iter_mut().find(|client| client.id == id) {
            client.subscriptions.insert(uri.to_owned());
        }
        first
    }

    /// Notes that client `id` unsubscribed from `uri`; whether no client is
    /// subscribed any more (so the upstream may be told).
    pub(crate) fn unsubscribe(&self, id: u64, uri: &str) -> bool {
        let mut connected = lock(&self.connected);
        if let Some(client) = connected.iter_mut().find(|client| client.id == id) {
            client.subscriptions.remove(uri);
        }
        !connected
            .iter()
            .any(|client| client.subscriptions.contains(uri))
    }

    fn subscribers(&self, uri: &str) -> Vec<Peer<RoleServer>> {
        lock(&self.connected)
            .iter()
            .filter(|client| client.subscriptions.contains(uri))
            .map(|client| client.peer.clone())
            .collect()
    }
}

struct Call {
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
        self.set.lock().remove(&self.token);
    }
}

impl InFlight {
    /// Notes a call of `session`'s client, until the guard is dropped.
    pub(crate) fn enter(self: &Arc<Self>, session: &str, peer: Peer<RoleServer>) -> Entered {
        let token = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(
            token,
            Call {
                session: session.to_owned(),
                peer,
            },
        );
        Entered {
            set: Arc::clone(self),
            token,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Call>> {
        lock(&self.calls)
    }

    /// Sends the upstream's progress for `upstream` (its token for a request
    /// in flight) to `client` as `token`, until the guard is dropped.
    pub(crate) fn route_progress(
        self: &Arc<Self>,
        upstream: ProgressToken,
        client: Peer<RoleServer>,
        token: ProgressToken,
    ) -> Routed {
        lock(&self.progress)
            .routes
            .insert(upstream.clone(), (client, token));
        Routed {
            set: Arc::clone(self),
            token: upstream,
        }
    }

    /// Tells the upstream's connection which clients the gateway has.
    /// Passes the upstream's progress to the client whose request it is
    /// about, under the client's own token (none: nobody asked for it).
    pub(crate) async fn forward_progress(&self, params: ProgressNotificationParam) {
        let route = lock(&self.progress)
            .routes
            .get(&params.progress_token)
            .cloned();
        if let Some((client, token)) = route {
            let mut params = params;
            params.progress_token = token;
            let _ = client.notify_progress(params).await;
        }
    }

    pub(crate) fn attach(&self, clients: &Arc<Clients>) {
        let _ = self.clients.set(Arc::clone(clients));
    }

    /// The client whose roots the upstream means: the one with a call in
    /// flight, or, with none, the only client connected.
    fn roots_client(&self) -> Result<Peer<RoleServer>, McpError> {
        if !self.lock().is_empty() {
            return self.client();
        }
        match self.clients.get() {
            Some(clients) => clients.only(),
            None => Err(McpError::invalid_request(
                "no client is connected to the gateway yet: there is nobody to ask",
                None,
            )),
        }
    }

    /// The client the upstream means: the only session with a call in flight.
    pub(crate) fn client(&self) -> Result<Peer<RoleServer>, McpError> {
        let calls = self.lock();
        let Some(first) = calls.values().next() else {
            return Err(McpError::invalid_request(
                "no client call is in flight on this connection: there is nobody to ask",
                None,
            ));
        };
        if calls.values().any(|call| call.session != first.session) {
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
        // Roots change when a client connects, or says its own changed.
        let capabilities: ClientCapabilities = serde_json::from_value(serde_json::json!({
            "elicitation": {}, "sampling": {}, "roots": {"listChanged": true}
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
        let client = self.0.roots_client()?;
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

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.forward_progress(params).await;
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(clients) = self.0.clients.get() else {
            return;
        };
        for client in clients.subscribers(&params.uri) {
            let _ = client.notify_resource_updated(params.clone()).await;
        }
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let Some(clients) = self.0.clients.get() else {
            return;
        };
        for client in clients.all() {
            let _ = client.notify_resource_list_changed().await;
        }
    }
}
