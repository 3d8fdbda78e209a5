//! Who a session is: the principal the HTTP server authenticated (the
//! session's user), the MCP client that called (its agent), and, for clients
//! of the stateless revision 2026-07-28, which hooks session a request
//! belongs to.
//!
//! Session metadata the hooks can read (`ctx.session().metadata_value(..)`):
//!
//! - [`PRINCIPAL`] (`auth.principal`): the authenticated principal's name,
//!   over HTTP with tokens; also the session's user (`Session::user_id`), so
//!   rate limits, approvals and the audit log are per person;
//! - [`CLIENT`] (`mcp.client`): the client's name (`clientInfo.name`), also
//!   the session's agent; [`CLIENT_VERSION`] (`mcp.client_version`) its version;
//! - [`PROTOCOL`] (`mcp.protocol`): the MCP revision the client speaks.
//!
//! The revision 2026-07-28 has no sessions: over HTTP each request stands
//! alone (over stdio the connection is still one session). Its requests over
//! HTTP are put in one hooks session per principal and client name, or,
//! when a request carries [`SESSION_META`] (`hooks-mcp/session`) in its
//! `_meta`, per principal, client name and that key: a client keeps its
//! conversations apart by sending one. The hooks session's id is a digest of
//! all of them, so a client that sends another principal's key still lands
//! in a session of its own principal.

use std::fmt::Write as _;

use rmcp::RoleServer;
use rmcp::model::ProtocolVersion;
use rmcp::service::RequestContext;
use sha2::{Digest, Sha256};

use crate::auth::Principal;

/// The session metadata key of the authenticated principal.
pub const PRINCIPAL: &str = "auth.principal";
/// The session metadata key of the MCP client's name.
pub const CLIENT: &str = "mcp.client";
/// The session metadata key of the MCP client's version.
pub const CLIENT_VERSION: &str = "mcp.client_version";
/// The session metadata key of the MCP revision spoken.
pub const PROTOCOL: &str = "mcp.protocol";
/// The request `_meta` key a 2026-07-28 client may send to name its
/// conversation (any JSON value, a string usually): the requests that carry
/// the same value share a hooks session, apart from its other conversations.
pub const SESSION_META: &str = "hooks-mcp/session";

/// The agent of a session whose client gave no name.
const UNNAMED: &str = "mcp-client";

/// What a request says of who is calling.
pub(crate) struct Identity {
    pub(crate) principal: Option<String>,
    pub(crate) client: String,
    client_version: Option<String>,
    protocol: Option<ProtocolVersion>,
    /// The request's own session key (2026-07-28 `_meta`), if any.
    key: Option<String>,
}

impl Identity {
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Self {
        let principal = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Principal>())
            .map(|principal| principal.0.to_string());
        let info = context.client_info();
        let client = info
            .as_ref()
            .map(|info| info.name.clone())
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| UNNAMED.to_owned());
        // Any JSON value names a conversation: its text is hashed into the id.
        let key = context.meta.get(SESSION_META).map(ToString::to_string);
        Identity {
            principal,
            client,
            client_version: info.map(|info| info.version).filter(|v| !v.is_empty()),
            protocol: context.protocol_version(),
            key,
        }
    }

    /// Whether the request is of the stateless revision (2026-07-28 or
    /// later) over HTTP: it carries its protocol version in its own `_meta`,
    /// and has no connection or MCP session to be one hooks session with.
    /// (Over stdio the connection is the session, whatever the revision.)
    pub(crate) fn stateless(context: &RequestContext<RoleServer>) -> bool {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .is_some()
            && context
                .meta
                .protocol_version()
                .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
    }

    /// The hooks session id of a stateless request: a digest of who calls
    /// and its key, so nobody reaches another principal's session.
    pub(crate) fn stateless_session_id(&self) -> String {
        let mut digest = Sha256::new();
        for part in [
            self.principal.as_deref().unwrap_or(""),
            &self.client,
            self.key.as_deref().unwrap_or(""),
        ] {
            // Length-prefixed: no two triples hash the same bytes.
            digest.update((part.len() as u64).to_be_bytes());
            digest.update(part.as_bytes());
        }
        let digest = digest.finalize();
        let hex = digest[..16]
            .iter()
            .fold(String::with_capacity(32), |mut hex, byte| {
                let _ = write!(hex, "{byte:02x}");
                hex
            });
        format!("mcp-stateless-{hex}")
    }

    /// `session` with the user, agent and metadata this identity gives.
    pub(crate) fn apply(self, session: hooks_core::Session) -> hooks_core::Session {
        let mut session = session
            .with_agent(self.client.clone())
            .with_metadata(CLIENT, self.client);
        if let Some(principal) = self.principal {
            session = session
                .with_user(principal.clone())
                .with_metadata(PRINCIPAL, principal);
        }
        if let Some(version) = self.client_version {
            session = session.with_metadata(CLIENT_VERSION, version);
        }
        if let Some(protocol) = self.protocol {
            session = session.with_metadata(PROTOCOL, protocol.as_str());
        }
        session
    }
}
