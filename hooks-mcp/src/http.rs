//! The client's side over Streamable HTTP: the gateway served at
//! [`MCP_PATH`] on a TCP address, by rmcp's Streamable HTTP service (a tower
//! service) on axum. Each MCP session the service opens gets a gateway
//! connection of its own, so each is one `Session` to the hooks; requests of
//! the stateless revision 2026-07-28 are put in sessions by who sends them
//! ([`identity`](crate::identity)).
//!
//! With [`HttpAuth`] every request must carry a bearer token; its holder is
//! the session's user ([`auth`](crate::auth)).

use std::io;
use std::net::SocketAddr;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use crate::Gateway;
use crate::auth::{self, Gate, HttpAuth, METADATA_PATH};

/// The path the gateway answers MCP on.
pub const MCP_PATH: &str = "/mcp";

/// The gateway as a tower service speaking Streamable HTTP, to mount in a
/// server of your own (at [`MCP_PATH`] or wherever you like). Every MCP
/// session is a [`Gateway::connection`]: one `Session` per MCP session.
///
/// Clients of the 2026-07-28 revision, which has no sessions, are served
/// request by request, each request in the hooks session of its principal,
/// client and conversation ([`identity`](crate::identity)).
///
/// It authenticates nobody: put it behind your own authentication, which
/// sets the caller's [`Principal`](crate::Principal) in each request's
/// extensions (the session's user), and refuses a request naming an MCP
/// session another principal opened; or use [`HttpServer::authenticate`],
/// which does both.
pub fn http_service(
    gateway: Gateway,
    config: StreamableHttpServerConfig,
) -> StreamableHttpService<Gateway, LocalSessionManager> {
    service_with(gateway, config, Arc::default())
}

fn service_with(
    gateway: Gateway,
    config: StreamableHttpServerConfig,
    sessions: Arc<LocalSessionManager>,
) -> StreamableHttpService<Gateway, LocalSessionManager> {
    StreamableHttpService::new(move || Ok(gateway.connection()), sessions, config)
}

/// The browser origins [`HttpServer`] answers: pages served from this machine.
const LOCAL_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// A gateway bound to a TCP address, ready to serve Streamable HTTP at
/// [`MCP_PATH`].
///
/// ```no_run
/// # async fn run(gateway: hooks_mcp::Gateway) -> std::io::Result<()> {
/// let server = hooks_mcp::HttpServer::bind(gateway, "127.0.0.1:0".parse().unwrap()).await?;
/// eprintln!("listening on {}", server.url());
/// server.serve().await
/// # }
/// ```
pub struct HttpServer {
    listener: TcpListener,
    address: SocketAddr,
    service: StreamableHttpService<Gateway, LocalSessionManager>,
    sessions: Arc<LocalSessionManager>,
    auth: Option<HttpAuth>,
}

impl HttpServer {
    /// Listens on `address` (port 0: any free port; see
    /// [`local_addr`](Self::local_addr)).
    ///
    /// Requests must name the server by a loopback name (`localhost`,
    /// `127.0.0.1`, `::1`) or the address it is bound to in their `Host`
    /// header: a web page cannot reach it through a DNS name rebound to it.
    /// A request with an `Origin` header (one a browser sent) must come from
    /// a page on this machine (`http://localhost`, `http://127.0.0.1`,
    /// `http://[::1]`, any port) or it is refused with 403, as the MCP spec
    /// asks; clients that are not browsers send none and are not affected.
    pub async fn bind(gateway: Gateway, address: SocketAddr) -> io::Result<Self> {
        let listener = TcpListener::bind(address).await?;
        let address = listener.local_addr()?;
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_origins(LOCAL_ORIGINS)
            .enforce_origin_validation();
        let ip = address.ip();
        if !ip.is_loopback() && !ip.is_unspecified() {
            config.allowed_hosts.push(ip.to_string());
        }
        let sessions = Arc::new(LocalSessionManager::default());
        Ok(HttpServer {
            listener,
            address,
            service: service_with(gateway, config, Arc::clone(&sessions)),
            sessions,
            auth: None,
        })
    }

    /// Every request must be authenticated by `auth` (`401` otherwise, with
    /// the challenge pointing to the protected-resource metadata, served at
    /// [`METADATA_PATH`](crate::auth::METADATA_PATH)); its principal is the
    /// session's user. An MCP session belongs to the principal that opened
    /// it: another one naming its id gets `404`.
    ///
    /// Without it, [`serve`](Self::serve) serves only on a loopback address.
    #[must_use]
    pub fn authenticate(mut self, auth: HttpAuth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// The address it listens on (with the port chosen, when asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// The endpoint a client connects to: `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.address)
    }

    /// Serves clients until the process ends (or the listener fails).
    ///
    /// # Errors
    ///
    /// The listener failed, or the server has no [`authenticate`](Self::authenticate)
    /// and is bound to an address other than loopback: anyone who can reach
    /// it could call every tool.
    pub async fn serve(self) -> io::Result<()> {
        let router: axum::Router = axum::Router::new().route_service(MCP_PATH, self.service);
        let router = match self.auth {
            Some(auth) => {
                let gate = Gate::new(auth, self.sessions);
                // Not behind the gate: how a client without a token learns
                // where to get one.
                let metadata = axum::Router::new()
                    .route(METADATA_PATH, axum::routing::get(auth::metadata))
                    .route(
                        &format!("{METADATA_PATH}{MCP_PATH}"),
                        axum::routing::get(auth::metadata),
                    )
                    .with_state(gate.clone());
                router
                    .layer(axum::middleware::from_fn_with_state(
                        gate,
                        auth::authenticate,
                    ))
                    .merge(metadata)
            }
            None if self.address.ip().is_loopback() => router,
            None => {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "refusing to serve on {} without authentication: give the server an `HttpAuth` (`--tokens FILE`), or bind a loopback address",
                        self.address
                    ),
                ));
            }
        };
        axum::serve(self.listener, router).await
    }
}

/// Serves `gateway` over Streamable HTTP at [`MCP_PATH`] on `address`, to
/// any number of clients, each MCP session a `Session` of its own.
///
/// # Errors
///
/// The address could not be bound, or the listener failed.
pub async fn serve_http(gateway: Gateway, address: SocketAddr) -> io::Result<()> {
    HttpServer::bind(gateway, address).await?.serve().await
}
