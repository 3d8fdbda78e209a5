//! One upstream MCP server, spoken to as an MCP client — a child process
//! over stdio, or a running server over Streamable HTTP — with the tools
//! and prompts it offered when the gateway started.

mod line_limit;
mod lines;
mod link;
mod ordered;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, Prompt, ServerCapabilities, Tool};
use rmcp::service::{ClientInitializeError, Peer};
use rmcp::transport::streamable_http_client::StreamableHttpError;

use crate::forward::{Entered, InFlight};
use crate::pins::watch::ToolWatch;
use serde_json::{Map, Value};

pub use line_limit::MAX_MESSAGE_BYTES;
pub(crate) use link::Link;
use link::{Recipe, Supervisor};

/// How long a call may take upstream before the gateway answers with a tool
/// error (the upstream keeps running; a later call may succeed).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A connected upstream server.
///
/// One started as a child process is started again when it exits, after a
/// delay that doubles with each failed start (a quarter of a second up to
/// 30 s); meanwhile its calls fail at once with a tool error saying it is
/// down. A message from it over [`MAX_MESSAGE_BYTES`] is dropped, and the
/// call it answered fails with an error giving its size.
pub struct Upstream {
    name: String,
    /// Its current connection (replaced when it is started again).
    link: Arc<Link>,
    /// Keeps it up; ends it when the upstream is dropped.
    _supervisor: Supervisor,
    /// The client sessions with a call in flight here: the upstream's own
    /// requests (elicitation, sampling) go to them.
    in_flight: Arc<InFlight>,
    /// Where its `notifications/tools/list_changed` go (the gateway's pins).
    tool_watch: Arc<ToolWatch>,
    tools: Vec<Tool>,
    /// Its prompts, listed at start-up like its tools (none if it offers none).
    prompts: Vec<Prompt>,
    /// What it said it can do in the handshake of its first start.
    capabilities: ServerCapabilities,
    timeout: Duration,
    /// Whether its tools' annotations may open a door (a guard allowing
    /// what they say only reads).
    trusted: bool,
}

/// An upstream that could not be started, or answered the handshake wrongly.
#[derive(Debug)]
pub struct UpstreamError {
    /// The upstream's name.
    pub upstream: String,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "upstream `{}`: {}", self.upstream, self.message)
    }
}

impl std::error::Error for UpstreamError {}

impl Upstream {
    /// Starts `command` (program and arguments) as a child process, speaks
    /// MCP to it over its stdin and stdout, and lists its tools. Its stderr
    /// is the gateway's: the gateway's own stdout carries only protocol
    /// messages.
    pub async fn spawn(name: impl Into<String>, command: &[String]) -> Result<Self, UpstreamError> {
        Self::start(name.into(), Recipe::Command(command.to_vec())).await
    }

    /// Reaches the MCP server whose Streamable HTTP endpoint is `url`
    /// (`http://127.0.0.1:8000/mcp`), and lists its tools. Should the server
    /// forget the session (a restart), rmcp's client opens a new one.
    ///
    /// It is asked first in the stateless revision 2026-07-28
    /// (`server/discover`, each request carrying its own `_meta`); a server
    /// that answers as an older one (or not within 10 seconds) is spoken to
    /// in the handshake of the revisions before.
    pub async fn connect_http(name: impl Into<String>, url: &str) -> Result<Self, UpstreamError> {
        Self::start(name.into(), Recipe::Url(url.to_owned())).await
    }

    /// The connected upstream, with the tools it offers, kept up.
    async fn start(name: String, recipe: Recipe) -> Result<Self, UpstreamError> {
        let fail = |message: String| UpstreamError {
            upstream: name.clone(),
            message,
        };
        let in_flight = Arc::new(InFlight::default());
        let tool_watch = Arc::new(ToolWatch::default());
        let connected = link::connect(&name, &recipe, &in_flight, &tool_watch)
            .await
            .map_err(fail)?;
        let tools = connected
            .service
            .list_all_tools()
            .await
            .map_err(|error| fail(format!("could not list its tools: {error}")))?;
        let prompts = crate::primitives::list_prompts(connected.service.peer())
            .await
            .map_err(fail)?;
        // What it said it can do in the handshake (resources, prompts,
        // completions, ...): what the gateway offers of it.
        let capabilities = connected
            .service
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        let link = Arc::new(Link::new(&name, connected.service.peer().clone()));
        let supervisor = link::supervise(
            Arc::clone(&link),
            recipe,
            Arc::clone(&in_flight),
            Arc::clone(&tool_watch),
            connected,
        );
        Ok(Upstream {
            name,
            link,
            _supervisor: supervisor,
            in_flight,
            tool_watch,
            tools,
            prompts,
            capabilities,
            timeout: DEFAULT_CALL_TIMEOUT,
            trusted: false,
        })
    }

    /// Notes that `session`'s client has a call in flight here, until the
    /// guard drops: what the upstream asks meanwhile goes to that client.
    pub(crate) fn calling(
        &self,
        session: &str,
        peer: rmcp::service::Peer<rmcp::RoleServer>,
    ) -> Entered {
        self.in_flight.enter(session, peer)
    }

    /// Passes the client's log level on; an upstream that does not log is no error.
    #[allow(deprecated)] // logging: deprecated by SEP-2577, still what 2025-11-25 clients speak
    pub(crate) async fn set_level(&self, params: rmcp::model::SetLevelRequestParams) {
        let Ok(peer) = self.link.peer() else {
            return;
        };
        let logs = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.logging.is_some());
        if logs && let Err(error) = peer.set_level(params).await {
            tracing::warn!(upstream = %self.name, %error, "could not set the upstream's log level");
        }
    }

    /// Bounds each call upstream (default [`DEFAULT_CALL_TIMEOUT`]).
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Trusts what the server says of its tools in `tools/list` annotations
    /// (`readOnlyHint`, ...): a guard may then let a tool the server says
    /// only reads run without judging its arguments. Untrusted (the
    /// default), its annotations can only make a guard refuse, as the MCP
    /// specification says of annotations from servers a client does not trust.
    #[must_use]
    pub fn with_trusted_annotations(mut self, trusted: bool) -> Self {
        self.trusted = trusted;
        self
    }

    /// Whether its annotations are trusted.
    pub fn trusts_annotations(&self) -> bool {
        self.trusted
    }

    /// The upstream's name (the namespace of its tools when there are several).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where its new tool lists go when it says they changed.
    pub(crate) fn tool_watch(&self) -> &ToolWatch {
        &self.tool_watch
    }

    /// The tools it offered at start-up.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The prompts it offered at start-up.
    pub fn prompts(&self) -> &[Prompt] {
        &self.prompts
    }

    /// What it said it can do in the handshake (resources, prompts,
    /// completions, ...); nothing if it said nothing.
    pub fn capabilities(&self) -> ServerCapabilities {
        self.capabilities.clone()
    }

    /// Its current connection, for requests other than tool calls, or why
    /// there is none (it crashed and is being started again).
    pub(crate) fn peer(&self) -> Result<Peer<RoleClient>, String> {
        self.link.peer()
    }

    /// The client sessions with a request in flight here, and the routes
    /// of their progress.
    pub(crate) fn in_flight(&self) -> &Arc<InFlight> {
        &self.in_flight
    }

    /// How long a request may take here.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Calls `tool` with `args` upstream. A transport failure (the server
    /// crashed or closed the connection) or a call past the timeout is an
    /// `Err` with a message for the model; the server's own tool errors
    /// come back as results with `is_error` set.
    pub async fn call(
        &self,
        tool: &str,
        args: Map<String, Value>,
    ) -> Result<CallToolResult, String> {
        call_tool(&self.link, self.timeout, tool, args).await
    }

    /// What calls its tools from elsewhere (the MCP tool hooks) need: its
    /// name, its connection, and its timeout.
    pub(crate) fn handle(&self) -> (String, Arc<Link>, Duration) {
        (self.name.clone(), Arc::clone(&self.link), self.timeout)
    }
}

/// Calls `tool` with `args` on the upstream `link` reaches, within `timeout`.
pub(crate) async fn call_tool(
    link: &Link,
    timeout: Duration,
    tool: &str,
    args: Map<String, Value>,
) -> Result<CallToolResult, String> {
    let peer: Peer<RoleClient> = link.peer()?;
    let name = link.name();
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = Some(args);
    match tokio::time::timeout(timeout, peer.call_tool(params)).await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(error)) => Err(format!(
            "the upstream MCP server `{name}` failed to answer: {error}"
        )),
        Err(_elapsed) => Err(format!(
            "the upstream MCP server `{name}` did not answer within {} s",
            timeout.as_secs()
        )),
    }
}

/// Why no MCP server answered at `url`: the transport's own error, not the
/// layers of types wrapped around it.
fn handshake_error(url: &str, error: &ClientInitializeError) -> String {
    let cause = match error {
        ClientInitializeError::TransportError { error, .. } => root_cause(error),
        other => other.to_string(),
    };
    format!("no MCP server answered at {url}: {cause}")
}

/// The innermost error (`Connection refused`), which says what went wrong
/// better than the layers wrapped around it.
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    loop {
        // rmcp wraps the HTTP client's error without naming it as the source.
        let next = match cause.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::Client(client)) => Some(client as _),
            _ => cause.source(),
        };
        match next {
            Some(next) => cause = next,
            None => return cause.to_string(),
        }
    }
}
