//! The approval console: a small web page listing pending requests (tool,
//! the hook's question, redacted arguments, who asked, age) with *approve
//! once*, *approve for the session* (a second step names what it lets
//! through) and *deny with a reason*; the list updates live (Server-Sent
//! Events). Every argument's key is listed with a preview of its value, cut
//! with its size said and the whole a click away, so no value, however long
//! or padded, pushes another key away from the buttons; columns are fixed
//! and every text wraps anywhere, so no string draws over another column.
//! `hooks-approve serve` runs it; [`Console::router`] mounts it in a server
//! of your own.
//!
//! It works on any [`ConsoleStore`] — every [`ApprovalStore`](super::ApprovalStore)
//! is one — so the gate waiting on the same store sees the answer at its next poll.
//!
//! Security:
//! - authentication ([`ConsoleAuth`]): a token, sent as `Authorization:
//!   Bearer` or once through a login form that sets an `HttpOnly`,
//!   `SameSite=Strict` session cookie; or a header a trusted reverse proxy
//!   sets. Who answered is the token's holder or the proxy's user, never a
//!   name typed in; a token easy to guess is refused when the console is made;
//! - sign-in is throttled per client address (10 tokens a minute; past it,
//!   `429` whatever the token, until the allowance refills);
//! - sessions (a login, a proxy user's CSRF token) expire after
//!   [`ConsoleAuth::session_lifetime`], 8 hours by default, and an open
//!   page's live stream ends with them;
//! - approving for the session takes a second step (`confirm=yes`), which
//!   the server requires;
//! - every `POST` from a browser session carries the session's CSRF token (a
//!   hidden form field, compared in constant time) and an `Origin` (or
//!   `Referer`) of the console itself; bearer requests need neither, since a
//!   browser never adds that header on its own;
//! - the page allows no inline script, no framing, and sends no referrer to
//!   other sites (`no-referrer` would make the browser's own `Origin` `null`);
//! - arguments are shown as stored: the gate stores them redacted
//!   ([`ApprovalPolicy::redactor`](super::ApprovalPolicy::redactor)), and
//!   every text is escaped ([`printable`]) and written as
//!   text, never markup.

mod auth;
mod page;
mod shown;
mod store;
mod throttle;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::Router;
use axum::extract::{ConnectInfo, Extension, Form, Path, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{StatusCode, Uri};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use futures_util::Stream;
use serde::Deserialize;

pub use auth::ConsoleAuth;
pub use store::ConsoleStore;

use super::printable;
use super::store::{Answering, Scope};
use auth::{COOKIE, Caller, Refusal, Sessions};
use shown::Shown;
use throttle::{Client, Throttle};

/// The console: a store, and how callers are authenticated (which names them).
pub struct Console {
    store: Arc<dyn ConsoleStore>,
    auth: ConsoleAuth,
    poll_interval: Duration,
    origins: Vec<String>,
    sessions: Sessions,
    throttle: Throttle,
    /// The address `serve` listens on: its IP is a name the console answers to.
    bound: Option<std::net::IpAddr>,
}

impl Console {
    /// A console answering requests in `store`, letting in callers `auth` accepts.
    pub fn new(store: impl ConsoleStore, auth: ConsoleAuth) -> Self {
        Console {
            store: Arc::new(store),
            auth,
            poll_interval: Duration::from_millis(500),
            origins: Vec::new(),
            sessions: Sessions::default(),
            throttle: Throttle::default(),
            bound: None,
        }
    }

    /// How often the store is read for changes to push to open pages.
    #[must_use]
    pub fn poll_interval(mut self, every: Duration) -> Self {
        self.poll_interval = every;
        self
    }

    /// Also accepts `POST`s from this origin (`https://approvals.example.com`):
    /// the address people use when a reverse proxy stands in front.
    /// The origin of the request's own `Host` is always accepted.
    #[must_use]
    pub fn origin(mut self, origin: impl Into<String>) -> Self {
        self.origins
            .push(origin.into().trim_end_matches('/').to_owned());
        self
    }

    /// The console's routes. Requests naming a host the console is not
    /// (`Host`) are refused first: a web page whose own domain resolves to
    /// this machine (DNS rebinding) cannot use the console as its own origin.
    /// Loopback names, the bound address and the `origin`s' hosts are its names.
    ///
    /// Sign-in attempts are throttled by the client's address, which axum
    /// gives only to a server made with
    /// `into_make_service_with_connect_info::<SocketAddr>()`; without it,
    /// every client shares one allowance of wrong tokens.
    pub fn router(self) -> Router {
        let console = Arc::new(self);
        Router::new()
            .route("/", get(index))
            .route("/login", get(login_form).post(login))
            .route("/events", get(events))
            .route("/requests", get(requests))
            .route("/requests/{id}/answer", post(answer))
            .route("/console.js", get(script))
            .route("/console.css", get(style))
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&console),
                known_host,
            ))
            .with_state(console)
    }

    /// Serves the console on `listener` until the process ends.
    pub async fn serve(mut self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        self.bound = Some(listener.local_addr()?.ip());
        axum::serve(
            listener,
            self.router()
                .into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
    }

    /// Whether `Host` names this console.
    fn known_host(&self, headers: &HeaderMap) -> bool {
        let Some(authority) = headers
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .and_then(|host| host.parse::<axum::http::uri::Authority>().ok())
        else {
            return false;
        };
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        if host.eq_ignore_ascii_case("localhost") {
            return true;
        }
        if let Ok(ip) = host.parse::<std::net::IpAddr>()
            && (ip.is_loopback() || self.bound.is_some_and(|bound| bound == ip))
        {
            return true;
        }
        self.origins.iter().any(|origin| {
            origin
                .parse::<Uri>()
                .ok()
                .and_then(|uri| uri.host().map(str::to_owned))
                .is_some_and(|allowed| allowed.eq_ignore_ascii_case(authority.host()))
        })
    }

    fn caller(&self, headers: &HeaderMap, client: Client) -> Result<Caller, Refusal> {
        self.auth
            .caller(headers, &self.sessions, &self.throttle, client)
    }

    fn refused(&self, refusal: Refusal) -> Response {
        match (refusal, self.auth.trusted()) {
            (Refusal::NoRandomness, _) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "no randomness for a session",
            )
                .into_response(),
            (Refusal::Throttled(wait), _) => {
                let seconds = wait.as_secs() + 1;
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, seconds.to_string())],
                    format!("too many wrong tokens from your address: try again in {seconds} s"),
                )
                    .into_response()
            }
            (Refusal::Unauthenticated, None) => secured((
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                Html(page::login(None)),
            )),
            (Refusal::Unauthenticated, Some(name)) => (
                StatusCode::UNAUTHORIZED,
                format!("no `{name}` header: reach the console through its proxy"),
            )
                .into_response(),
        }
    }

    /// Whether a state-changing request comes from the console's own page:
    /// its `Origin` (or, without one, its `Referer`) is the console's.
    fn same_origin(&self, headers: &HeaderMap) -> bool {
        let text = |name| {
            headers
                .get(name)
                .and_then(|value: &HeaderValue| value.to_str().ok())
        };
        let Some(host) = text(header::HOST) else {
            return false;
        };
        let ours = |origin: &str| {
            origin == format!("http://{host}")
                || origin == format!("https://{host}")
                || self.origins.iter().any(|allowed| allowed == origin)
        };
        match (text(header::ORIGIN), text(header::REFERER)) {
            (Some(origin), _) => ours(origin),
            (None, Some(referer)) => referer
                .parse::<Uri>()
                .ok()
                .and_then(|uri| Some(format!("{}://{}", uri.scheme_str()?, uri.authority()?)))
                .is_some_and(|origin| ours(&origin)),
            (None, None) => false,
        }
    }

    /// A browser caller's `POST` must come from the console's page with its CSRF token.
    fn forged(&self, caller: &Caller, headers: &HeaderMap, csrf: Option<&str>) -> bool {
        let Some(expected) = &caller.csrf else {
            return false;
        };
        !self.same_origin(headers) || !csrf.is_some_and(|csrf| auth::same_secret(csrf, expected))
    }

    async fn pending(&self) -> Result<Vec<Shown>, String> {
        let now = SystemTime::now();
        let pending = self
            .store
            .pending()
            .await
            .map_err(|error| error.to_string())?;
        Ok(pending
            .iter()
            .map(|request| Shown::new(request, now))
            .collect())
    }
}

/// Headers every page gets: no inline script, no framing, nothing cached,
/// nothing referred to other sites.
fn secured(response: impl IntoResponse) -> Response {
    let mut response = response.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
             form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

type Shared = State<Arc<Console>>;

/// Refuses a request for a host the console is not (see [`Console::router`]);
/// notes where an accepted one comes from, for the sign-in throttle.
async fn known_host(
    State(console): Shared,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if console.known_host(request.headers()) {
        let address = request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|info| info.0);
        request.extensions_mut().insert(Client::of(address));
        next.run(request).await
    } else {
        (
            StatusCode::MISDIRECTED_REQUEST,
            "this console does not answer to that host name; people reaching it under a \
             name of its own are named with `--origin`",
        )
            .into_response()
    }
}

async fn index(
    State(console): Shared,
    Extension(client): Extension<Client>,
    headers: HeaderMap,
) -> Response {
    match console.caller(&headers, client) {
        Ok(caller) => secured(Html(page::index(
            caller.csrf.as_deref().unwrap_or(""),
            &printable(&caller.name, false),
        ))),
        Err(refusal) => console.refused(refusal),
    }
}

async fn login_form(State(console): Shared) -> Response {
    match console.auth.trusted() {
        None => secured(Html(page::login(None))),
        Some(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The login form: the token only. Who signs in is the token's holder, not a
/// name the form could carry.
#[derive(Deserialize)]
struct Login {
    #[serde(default)]
    token: String,
}

async fn login(
    State(console): Shared,
    Extension(client): Extension<Client>,
    headers: HeaderMap,
    Form(form): Form<Login>,
) -> Response {
    if console.auth.trusted().is_some() {
        return StatusCode::NOT_FOUND.into_response();
    }
    // A login forged from another site would sign the victim in as the forger.
    if !console.same_origin(&headers) {
        return (StatusCode::FORBIDDEN, "cross-origin login refused").into_response();
    }
    let name = match console.auth.holder(&form.token, &console.throttle, client) {
        Ok(name) => name,
        Err(Refusal::Unauthenticated) => {
            return secured((
                StatusCode::UNAUTHORIZED,
                Html(page::login(Some("wrong token"))),
            ));
        }
        Err(refusal) => return console.refused(refusal),
    };
    let Ok(session) = console.sessions.open(name, console.auth.lifetime()) else {
        return console.refused(Refusal::NoRandomness);
    };
    let cookie = format!("{COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict");
    let mut response = Redirect::to("./").into_response();
    match HeaderValue::from_str(&cookie) {
        Ok(cookie) => drop(response.headers_mut().insert(header::SET_COOKIE, cookie)),
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
    // `Redirect::to` answers 303: the browser follows with a GET.
    response
}

/// The pending requests, as JSON: for scripts and for pages without event streams.
async fn requests(
    State(console): Shared,
    Extension(client): Extension<Client>,
    headers: HeaderMap,
) -> Response {
    if let Err(refusal) = console.caller(&headers, client) {
        return console.refused(refusal);
    }
    match console.pending().await {
        Ok(pending) => secured(axum::Json(pending)),
        Err(error) => (StatusCode::SERVICE_UNAVAILABLE, error).into_response(),
    }
}

/// `pending` events: the whole list when the page connects, and again
/// whenever it changes; the stream ends with the caller's session.
async fn events(
    State(console): Shared,
    Extension(client): Extension<Client>,
    headers: HeaderMap,
) -> Response {
    let caller = match console.caller(&headers, client) {
        Ok(caller) => caller,
        Err(refusal) => return console.refused(refusal),
    };
    secured(Sse::new(changes(console, caller.expires)).keep_alive(KeepAlive::default()))
}

fn changes(
    console: Arc<Console>,
    expires: Option<Instant>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    // The ids and statuses the page last saw; ages move on by themselves in the page.
    futures_util::stream::unfold(
        (console, None::<String>, true),
        move |(console, mut last, first)| async move {
            if !first {
                tokio::time::sleep(console.poll_interval).await;
            }
            loop {
                // An expired session hears nothing more; the page's reconnection is refused.
                if expires.is_some_and(|expires| Instant::now() >= expires) {
                    return None;
                }
                let event = match console.pending().await {
                    Ok(pending) => {
                        let ids: Vec<i64> = pending.iter().map(|shown| shown.id).collect();
                        let key = format!("{ids:?}");
                        if last.as_ref() == Some(&key) {
                            None
                        } else {
                            last = Some(key);
                            Some(
                                Event::default()
                                    .event("pending")
                                    .data(serde_json::to_string(&pending).unwrap_or_default()),
                            )
                        }
                    }
                    Err(error) => {
                        last = None;
                        Some(Event::default().event("store-error").data(error))
                    }
                };
                if let Some(event) = event {
                    return Some((Ok(event), (console, last, false)));
                }
                tokio::time::sleep(console.poll_interval).await;
            }
        },
    )
}

#[derive(Deserialize)]
struct AnswerForm {
    csrf: Option<String>,
    action: String,
    reason: Option<String>,
    /// `yes`: the second step approving for the session takes.
    confirm: Option<String>,
}

async fn answer(
    State(console): Shared,
    Extension(client): Extension<Client>,
    Path(id): Path<i64>,
    headers: HeaderMap,
    Form(form): Form<AnswerForm>,
) -> Response {
    let caller = match console.caller(&headers, client) {
        Ok(caller) => caller,
        Err(refusal) => return console.refused(refusal),
    };
    if console.forged(&caller, &headers, form.csrf.as_deref()) {
        return (
            StatusCode::FORBIDDEN,
            "refused: this form did not come from the console's page (CSRF token or origin)",
        )
            .into_response();
    }
    let reason = form
        .reason
        .map(|reason| reason.trim().to_owned())
        .filter(|reason| !reason.is_empty());
    // Every later call of the tool in the session runs unasked: one click
    // must not do that, so the page asks again and sends `confirm=yes`.
    if form.action == "session" && form.confirm.as_deref() != Some("yes") {
        return (
            StatusCode::BAD_REQUEST,
            "approving for the session needs its second step: `confirm=yes` (every \
             later call of this tool in the session will run without asking)",
        )
            .into_response();
    }
    let answering = match (form.action.as_str(), reason) {
        ("once" | "session", _) => Answering {
            approved: true,
            scope: if form.action == "once" {
                Scope::Once
            } else {
                Scope::Session
            },
            by: Some(caller.name),
            reason: None,
        },
        ("deny", Some(reason)) => Answering {
            approved: false,
            scope: Scope::Once,
            by: Some(caller.name),
            reason: Some(reason),
        },
        ("deny", None) => {
            return (
                StatusCode::BAD_REQUEST,
                "a denial needs a reason: the model reads it",
            )
                .into_response();
        }
        (other, _) => {
            return (
                StatusCode::BAD_REQUEST,
                format!("unknown action `{}`", printable(other, false)),
            )
                .into_response();
        }
    };
    match console.store.respond(id, answering).await {
        Ok(true) => Redirect::to("../../").into_response(),
        Ok(false) => (
            StatusCode::CONFLICT,
            format!("request #{id} is not pending: answered already, expired, or unknown"),
        )
            .into_response(),
        Err(error) => (StatusCode::SERVICE_UNAVAILABLE, error.to_string()).into_response(),
    }
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        page::SCRIPT,
    )
}

async fn style() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        page::STYLE,
    )
}
