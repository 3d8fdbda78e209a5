//! The client's side over Streamable HTTP: the gateway served at
//! [`MCP_PATH`] on a TCP address, by rmcp's Streamable HTTP service (a tower
//! service) on axum. Each MCP session the service opens gets a gateway
//! connection of its own, so each is one `Session` to the hooks.

use std::io;
use std::net::SocketAddr;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use crate::Gateway;

/// The path the gateway answers MCP on.
pub const MCP_PATH: &str = "/mcp";

/// The gateway as a tower service speaking Streamable HTTP, to mount in a
/// server of your own (at [`MCP_PATH`] or wherever you like). Every MCP
/// session is a [`Gateway::connection`]: one `Session` per MCP session.
///
/// Clients of the 2026-07-28 revision, which has no sessions, are served
/// request by request: each request is a connection, and so a `Session`, of
/// its own.
pub fn http_service(
    gateway: Gateway,
    config: StreamableHttpServerConfig,
) -> StreamableHttpService<Gateway, LocalSessionManager> {
    StreamableHttpService::new(
        move || Ok(gateway.connection()),
        std::sync::Arc::default(),
        config,
    )
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
        Ok(HttpServer {
            listener,
            address,
            service: http_service(gateway, config),
        })
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
    pub async fn serve(self) -> io::Result<()> {
        let router = axum::Router::new().route_service(MCP_PATH, self.service);
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
