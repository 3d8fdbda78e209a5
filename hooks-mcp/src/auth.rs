//! Who is calling over HTTP: bearer tokens, each held by a named principal,
//! read from a file; the OAuth 2.0 protected-resource metadata (RFC 9728)
//! that tells a client which authorization server(s) issue tokens for the
//! gateway; and the `401` challenge (RFC 6750, as the MCP authorization spec
//! asks) that points to it.
//!
//! Tokens are opaque: the gateway knows each one from its file and checks a
//! request's `Authorization: Bearer` against them. It does not validate JWTs
//! an authorization server issued; the metadata only lets clients discover
//! where to get a token (an operator who runs an authorization server puts
//! the tokens it issued in the file, or fronts the gateway with a proxy that
//! validates them).

use std::collections::HashMap;
use std::fmt;
use std::hint::black_box;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use sha2::{Digest, Sha256};

/// Where the protected-resource metadata is served (RFC 9728 §3), and, with
/// the MCP path appended, its per-resource form.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The header rmcp's Streamable HTTP service names a (pre-2026-07-28) MCP
/// session by.
const SESSION_HEADER: &str = "mcp-session-id";

/// The bearer tokens the gateway accepts over HTTP, each held by a named
/// principal: who the hooks see as the session's user.
///
/// Names are 1 to 64 characters of letters, digits, `.`, `_`, `-` and `@`;
/// tokens must be hard to guess ([`hooks_std::token_strength`]: at least
/// 100 bits by their own characters, as `openssl rand -hex 32` makes), each
/// held once. Only their SHA-256 digests are kept.
pub struct Tokens {
    holders: Vec<Holder>,
}

struct Holder {
    name: Arc<str>,
    digest: [u8; 32],
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Tokens")
            .field(&self.names().collect::<Vec<_>>())
            .finish()
    }
}

impl Tokens {
    /// A token for each principal, `(name, token)`.
    ///
    /// # Errors
    ///
    /// No token; a name that is not 1 to 64 of `A-Za-z0-9._-@`, or used twice;
    /// a token that is weak or held by two names.
    pub fn new<N: AsRef<str>, T: AsRef<str>>(
        holders: impl IntoIterator<Item = (N, T)>,
    ) -> Result<Self, String> {
        let mut checked: Vec<Holder> = Vec::new();
        for (name, token) in holders {
            let (name, token) = (name.as_ref(), token.as_ref());
            check_name(name)?;
            hooks_std::token_strength::check(token)
                .map_err(|error| format!("the token of `{name}`: {error}"))?;
            let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
            if checked.iter().any(|holder| &*holder.name == name) {
                return Err(format!(
                    "two tokens are named `{name}`: give each principal one name"
                ));
            }
            if checked.iter().any(|holder| holder.digest == digest) {
                return Err(format!(
                    "`{name}` holds the same token as another: give each principal its own token"
                ));
            }
            checked.push(Holder {
                name: Arc::from(name),
                digest,
            });
        }
        if checked.is_empty() {
            return Err(
                "no token: write one `NAME TOKEN` a line (make a token with `openssl rand -hex 32`)"
                    .to_owned(),
            );
        }
        Ok(Tokens { holders: checked })
    }

    /// Tokens from text: one `NAME TOKEN` a line (separated by spaces or
    /// tabs); blank lines and lines starting with `#` are skipped. `origin`
    /// names the text in errors (a file's path).
    ///
    /// # Errors
    ///
    /// A line that is not two words (with its number), or what [`new`](Self::new) refuses.
    pub fn parse(text: &str, origin: &str) -> Result<Self, String> {
        let mut holders = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let [name, token] = words[..] else {
                return Err(format!(
                    "{origin}:{}: expected `NAME TOKEN`, found {} words",
                    number + 1,
                    words.len()
                ));
            };
            holders.push((name, token));
        }
        Self::new(holders).map_err(|error| format!("{origin}: {error}"))
    }

    /// Tokens from the file at `path` (see [`parse`](Self::parse)). On Unix
    /// the file must not be readable or writable by group or others (`chmod
    /// 600`): anyone who reads it can act as every principal in it.
    ///
    /// # Errors
    ///
    /// The file cannot be read, is open to others, or its text is refused.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, String> {
        let path = path.as_ref();
        let shown = path.display();
        let file = std::fs::File::open(path)
            .map_err(|error| format!("cannot open the token file {shown}: {error}"))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = file
                .metadata()
                .map_err(|error| format!("cannot read the token file {shown}: {error}"))?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                return Err(format!(
                    "the token file {shown} is open to other users (mode {:o}): `chmod 600 {shown}`",
                    mode & 0o777
                ));
            }
        }
        let text = std::io::read_to_string(file)
            .map_err(|error| format!("cannot read the token file {shown}: {error}"))?;
        Self::parse(&text, &shown.to_string())
    }

    /// The principals' names, in the order given.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.holders.iter().map(|holder| &*holder.name)
    }

    /// Who holds `token`. Every digest is compared, whole, so the time taken
    /// says nothing about which token matched or how much of one.
    fn principal(&self, token: &str) -> Option<Arc<str>> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        self.holders.iter().fold(None, |found, holder| {
            let difference = holder
                .digest
                .iter()
                .zip(digest.iter())
                .fold(0u8, |difference, (a, b)| difference | black_box(a ^ b));
            found.or((black_box(difference) == 0).then(|| Arc::clone(&holder.name)))
        })
    }
}

/// Names go into logs, audit records and session keys: a small alphabet.
fn check_name(name: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@');
    if name.is_empty() || name.len() > 64 || !name.chars().all(allowed) {
        return Err(format!(
            "`{name}` is not a principal's name: use 1 to 64 letters, digits, `.`, `_`, `-` or `@`"
        ));
    }
    Ok(())
}

/// The principal a request was authenticated as, put in its extensions by
/// the HTTP server (and so in the `http::request::Parts` rmcp gives each
/// request's context). The gateway makes it the session's user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal(pub Arc<str>);

/// How [`HttpServer`](crate::HttpServer) authenticates its clients: bearer
/// tokens ([`Tokens`]), and what its protected-resource metadata says.
#[derive(Clone, Debug)]
pub struct HttpAuth {
    tokens: Arc<Tokens>,
    authorization_servers: Vec<String>,
    resource: Option<String>,
}

impl HttpAuth {
    /// Requests must carry `Authorization: Bearer TOKEN` with one of `tokens`.
    pub fn bearer(tokens: Tokens) -> Self {
        HttpAuth {
            tokens: Arc::new(tokens),
            authorization_servers: Vec::new(),
            resource: None,
        }
    }

    /// An authorization server that issues tokens for the gateway, named in
    /// the protected-resource metadata (`authorization_servers`), for clients
    /// to discover.
    #[must_use]
    pub fn authorization_server(mut self, url: impl Into<String>) -> Self {
        self.authorization_servers.push(url.into());
        self
    }

    /// The URL clients reach the MCP endpoint at (`https://mcp.example/mcp`
    /// behind a TLS proxy): the metadata's `resource`, and where the `401`
    /// challenge points. Without it, it is `http://` + the request's `Host` +
    /// [`MCP_PATH`](crate::MCP_PATH).
    #[must_use]
    pub fn resource(mut self, url: impl Into<String>) -> Self {
        self.resource = Some(url.into().trim_end_matches('/').to_owned());
        self
    }

    /// The resource's URL, as configured or from the request's `Host` (a
    /// host name, address and port only: nothing that could end the quoted
    /// challenge or add a path).
    fn resource_url(&self, headers: &HeaderMap) -> String {
        self.resource.clone().unwrap_or_else(|| {
            let plain =
                |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
            let host = headers
                .get(header::HOST)
                .and_then(|host| host.to_str().ok())
                .filter(|host| !host.is_empty() && host.chars().all(plain))
                .unwrap_or("localhost");
            format!("http://{host}{}", crate::MCP_PATH)
        })
    }

    /// Where the metadata of `resource` is (RFC 9728 §3.1: the well-known
    /// path inserted before the resource's path).
    fn metadata_url(resource: &str) -> String {
        let (scheme, rest) = resource.split_once("://").unwrap_or(("http", resource));
        let (authority, path) = rest.find('/').map_or((rest, ""), |at| rest.split_at(at));
        format!("{scheme}://{authority}{METADATA_PATH}{path}")
    }

    /// The `401` a request without a valid token gets. `invalid`: it
    /// presented one, and it is wrong.
    fn challenge(&self, headers: &HeaderMap, invalid: bool) -> Response {
        let metadata = Self::metadata_url(&self.resource_url(headers));
        let mut value = format!("Bearer resource_metadata=\"{metadata}\"");
        if invalid {
            value.push_str(", error=\"invalid_token\"");
        }
        let mut response = (
            StatusCode::UNAUTHORIZED,
            if invalid {
                "the bearer token is not one the gateway knows\n"
            } else {
                "authentication required: send `Authorization: Bearer TOKEN`\n"
            },
        )
            .into_response();
        if let Ok(value) = HeaderValue::from_str(&value) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }

    /// The protected-resource metadata (RFC 9728 §2), as JSON.
    fn metadata(&self, headers: &HeaderMap) -> serde_json::Value {
        let mut metadata = serde_json::json!({
            "resource": self.resource_url(headers),
            "bearer_methods_supported": ["header"],
            "resource_name": "hooks-mcp",
        });
        if !self.authorization_servers.is_empty() {
            metadata["authorization_servers"] = self.authorization_servers.clone().into();
        }
        metadata
    }
}

/// The server's authentication state: the tokens, and which principal opened
/// each MCP session (so no other can use its id).
#[derive(Clone)]
pub(crate) struct Gate {
    auth: HttpAuth,
    owners: Arc<Owners>,
    sessions: Arc<LocalSessionManager>,
}

/// MCP session id → the principal that opened it.
#[derive(Default)]
struct Owners {
    map: Mutex<HashMap<String, Arc<str>>>,
    /// The map's size after the last sweep: the next sweep is due at twice it.
    swept: Mutex<usize>,
}

impl Gate {
    pub(crate) fn new(auth: HttpAuth, sessions: Arc<LocalSessionManager>) -> Self {
        Gate {
            auth,
            owners: Arc::default(),
            sessions,
        }
    }

    /// Records that `principal` opened `session`; forgets sessions that
    /// ended, when the map has doubled since it last did.
    async fn opened(&self, session: String, principal: Arc<str>) {
        let ids: Vec<String> = {
            let mut map = self
                .owners
                .map
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            map.insert(session, principal);
            let mut swept = self
                .owners
                .swept
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if map.len() < (*swept * 2).max(64) {
                return;
            }
            *swept = map.len();
            map.keys().cloned().collect()
        };
        let mut ended = Vec::new();
        for id in ids {
            let live = self
                .sessions
                .has_session(&id.clone().into())
                .await
                .unwrap_or(true);
            if !live {
                ended.push(id);
            }
        }
        let mut map = self
            .owners
            .map
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for id in &ended {
            map.remove(id);
        }
        *self
            .owners
            .swept
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = map.len();
    }

    fn owner(&self, session: &str) -> Option<Arc<str>> {
        let map = self
            .owners
            .map
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        map.get(session).cloned()
    }
}

/// The bearer token of a request, if it carries one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Lets in a request with a valid bearer token, as its principal; refuses
/// others with `401` and the challenge, and a request naming an MCP session
/// another principal opened with `404` (as if there were no such session).
pub(crate) async fn authenticate(
    State(gate): State<Gate>,
    mut request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let Some(token) = bearer(headers) else {
        return gate.auth.challenge(headers, false);
    };
    let Some(principal) = gate.auth.tokens.principal(token) else {
        tracing::warn!("a request over HTTP presented a bearer token the gateway does not know");
        return gate.auth.challenge(headers, true);
    };
    let session = headers
        .get(SESSION_HEADER)
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = &session
        && let Some(owner) = gate.owner(id)
        && owner != principal
    {
        tracing::warn!(
            principal = &*principal,
            "a request named an MCP session another principal opened; refused"
        );
        return (StatusCode::NOT_FOUND, "Not Found: Session not found\n").into_response();
    }
    request
        .extensions_mut()
        .insert(Principal(Arc::clone(&principal)));
    let response = next.run(request).await;
    if session.is_none()
        && let Some(opened) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|id| id.to_str().ok())
    {
        gate.opened(opened.to_owned(), principal).await;
    }
    response
}

/// Serves the protected-resource metadata (RFC 9728), to anyone: it is how
/// a client without a token learns where to get one.
pub(crate) async fn metadata(State(gate): State<Gate>, request: Request<Body>) -> Response {
    let body = gate.auth.metadata(request.headers()).to_string();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALICE: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const BOB: &str = "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9";

    #[test]
    fn a_token_file_names_its_principals_and_refuses_bad_lines() {
        let tokens = Tokens::parse(
            &format!("# who may call\n\nalice {ALICE}\n  bob\t{BOB}  \n"),
            "tokens",
        )
        .unwrap();
        assert_eq!(tokens.names().collect::<Vec<_>>(), ["alice", "bob"]);
        assert_eq!(tokens.principal(BOB).as_deref(), Some("bob"));
        assert_eq!(tokens.principal(&BOB[1..]), None);
        assert_eq!(tokens.principal(""), None);
        let shown = format!("{tokens:?}");
        assert!(shown.contains("alice") && !shown.contains(ALICE), "{shown}");

        let refused = |text: &str| Tokens::parse(text, "tokens").unwrap_err();
        assert!(refused("").contains("no token"));
        assert!(refused(&format!("alice {ALICE} extra")).starts_with("tokens:1: expected"));
        assert!(refused(ALICE).contains("found 1 words"));
        assert!(
            refused("alice aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").contains("too easy to guess")
        );
        assert!(refused(&format!("alice {ALICE}\nalice {BOB}")).contains("two tokens"));
        assert!(refused(&format!("alice {ALICE}\nbob {ALICE}")).contains("same token"));
        assert!(refused(&format!("al/ice {ALICE}")).contains("not a principal's name"));
    }

    #[test]
    fn a_host_that_is_not_a_plain_authority_is_not_echoed() {
        let auth = HttpAuth::bearer(Tokens::new([("alice", ALICE)]).unwrap());
        let with_host = |host: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
            auth.resource_url(&headers)
        };
        assert_eq!(with_host("127.0.0.1:8080"), "http://127.0.0.1:8080/mcp");
        assert_eq!(with_host("[::1]:80"), "http://[::1]:80/mcp");
        assert_eq!(with_host("a\", error=\"x"), "http://localhost/mcp");
        assert_eq!(with_host("evil.example/x?"), "http://localhost/mcp");
        let configured = auth.resource("https://mcp.example/mcp/");
        assert_eq!(
            configured.resource_url(&HeaderMap::new()),
            "https://mcp.example/mcp"
        );
    }

    #[test]
    fn the_metadata_sits_before_the_resource_path() {
        assert_eq!(
            HttpAuth::metadata_url("https://mcp.example/mcp"),
            "https://mcp.example/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            HttpAuth::metadata_url("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
    }
}
