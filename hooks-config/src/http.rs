//! HTTP hooks: the event is sent as a JSON `POST`; a 2xx answer is read like a
//! command's stdout (empty body = no objection). Internal addresses are
//! refused unless allow-listed, checked on the address the connection is
//! actually made to: names are resolved by our resolver, which hands the
//! client only allowed addresses (a DNS answer cannot rebind a public name to
//! an internal address), address literals are checked before sending, and
//! redirects are not followed.
//!
//! With a payload template the body is the template, its strings filled in
//! from the event and the whole written as JSON: a value is one JSON value,
//! whatever quotes or braces it holds.
//!
//! A fire-and-forget hook sends from a task of its own, at most
//! [`max_in_flight`](HttpHook::max_in_flight) at once per hook (64 by
//! default): beyond that a call's request is dropped, not queued — the call
//! goes on at once either way, a warning is logged and the drop counted
//! ([`HttpHook::fire_and_forget_dropped`]). Waiting would make a slow endpoint
//! every agent's latency, and queueing would grow without bound.
//!
//! A URL is shown only as its origin (`https://hooks.slack.com/…`): an
//! incoming webhook's path or query is its secret, so no log line, error or
//! configuration problem quotes more of it.

use std::error::Error as _;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use hooks_core::{Decision, Deferred, HookError, Verdict};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Client, Url};

use crate::address::AddressPolicy;
use crate::protocol::{ProtocolEvent, parse_output};
use crate::template::JsonTemplate;

/// How large a response body may be, beyond three times the request's (a
/// hook answering with a large call rewritten sends about as much back).
pub const MAX_BODY: usize = 1024 * 1024;

/// Fire-and-forget requests a hook has in flight at most, unless told otherwise.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;

/// Fire-and-forget requests in flight in this process, all hooks together.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
/// Fire-and-forget requests dropped in this process for want of a free slot.
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// A hook that calls an HTTP endpoint.
#[derive(Clone)]
pub struct HttpHook {
    endpoint: Endpoint,
    timeout: Duration,
    fire_and_forget: bool,
    /// The cap on this hook's fire-and-forget requests, and how many are out
    /// (shared by its clones).
    max_in_flight: usize,
    in_flight: Arc<AtomicUsize>,
    headers: HeaderMap,
    payload: Option<Arc<JsonTemplate>>,
}

/// One fire-and-forget request's slot, given back when its task ends
/// (answered, failed, timed out, or dropped with its runtime).
struct Slot(Arc<AtomicUsize>);

impl Slot {
    /// A slot if fewer than `max` are taken.
    fn take(taken: &Arc<AtomicUsize>, max: usize) -> Option<Slot> {
        taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                (now < max).then_some(now + 1)
            })
            .ok()?;
        IN_FLIGHT.fetch_add(1, Ordering::AcqRel);
        Some(Slot(Arc::clone(taken)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
        IN_FLIGHT.fetch_sub(1, Ordering::AcqRel);
    }
}

impl HttpHook {
    /// A hook sending `POST` requests to `url`; internal addresses only if `policy` allows them.
    pub fn new(url: &str, policy: AddressPolicy) -> Result<Self, String> {
        Ok(HttpHook {
            endpoint: Endpoint::new(url, policy)?,
            timeout: Duration::from_secs(30),
            fire_and_forget: false,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            in_flight: Arc::new(AtomicUsize::new(0)),
            headers: HeaderMap::new(),
            payload: None,
        })
    }

    /// Sets the timeout for the whole exchange.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sends without waiting: the call goes on at once and the answer is ignored.
    #[must_use]
    pub fn fire_and_forget(mut self, yes: bool) -> Self {
        self.fire_and_forget = yes;
        self
    }

    /// Caps the fire-and-forget requests this hook has in flight at once
    /// (default [`DEFAULT_MAX_IN_FLIGHT`]); past it a call's request is
    /// dropped, logged and counted, and the call goes on. Refused if zero.
    pub fn max_in_flight(mut self, max: usize) -> Result<Self, String> {
        if max == 0 {
            return Err(
                "`max_in_flight` is 0, which would drop every request; give at least 1".to_owned(),
            );
        }
        self.max_in_flight = max;
        Ok(self)
    }

    /// Fire-and-forget requests in flight now in this process, every hook's.
    pub fn fire_and_forget_in_flight() -> usize {
        IN_FLIGHT.load(Ordering::Acquire)
    }

    /// Fire-and-forget requests this process dropped because their hook had
    /// [`max_in_flight`](Self::max_in_flight) out already.
    pub fn fire_and_forget_dropped() -> u64 {
        DROPPED.load(Ordering::Acquire)
    }

    /// Adds a request header. A name or value HTTP does not allow is refused
    /// here, when the hook is declared, rather than failing every call.
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, String> {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{name}` is not a valid HTTP header name"))?;
        let value = HeaderValue::from_str(value).map_err(|_| {
            format!("the value of header `{name}` is not valid in HTTP (no control characters or line breaks)")
        })?;
        self.headers.append(name, value);
        Ok(self)
    }

    /// Sends `template` instead of the event: a JSON value whose strings may
    /// hold variables (`"${tool_input.file_path}"`), filled in on each call.
    /// Refused here if a string has a malformed variable.
    pub fn payload_template(mut self, template: hooks_core::Value) -> Result<Self, String> {
        self.payload = Some(Arc::new(
            JsonTemplate::parse(template)
                .map_err(|error| format!("`payload_template`: {error}"))?,
        ));
        Ok(self)
    }

    async fn exchange(&self, body: String) -> Result<String, HookError> {
        let sent = body.len();
        let limit = crate::protocol::answer_cap(MAX_BODY, sent);
        let request = self
            .endpoint
            .post(body)
            .map_err(HookError::failed)?
            .headers(self.headers.clone());
        let mut response = request
            .send()
            .await
            .map_err(|error| HookError::failed(chain(error)))?;
        let status = response.status();
        if status.is_redirection() {
            // Where it sends us may hold a secret too (a code, a token).
            let target = response
                .headers()
                .get("location")
                .and_then(|value| value.to_str().ok())
                .and_then(|location| self.endpoint.url.join(location).ok())
                .map_or_else(|| "?".to_owned(), |target| shown(&target));
            return Err(HookError::failed(format!(
                "answered {status} to `{target}`; redirects are not followed"
            )));
        }
        if !status.is_success() {
            return Err(HookError::failed(format!("answered {status}")));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| HookError::failed(chain(error)))?
        {
            body.extend_from_slice(&chunk);
            if body.len() > limit {
                return Err(HookError::failed(crate::protocol::over_cap(
                    "answered", MAX_BODY, sent,
                )));
            }
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    }
}

/// An http(s) URL and a client that reaches only the addresses a policy
/// allows: names through the guarded resolver, address literals checked
/// before each request; no redirects, no proxy. What HTTP hooks and the
/// approval webhook send through.
#[derive(Clone)]
pub(crate) struct Endpoint {
    pub(crate) url: Url,
    client: Client,
    policy: Arc<AddressPolicy>,
}

impl Endpoint {
    pub(crate) fn new(url: &str, policy: AddressPolicy) -> Result<Self, String> {
        let url = Url::parse(url).map_err(|error| {
            format!(
                "the URL is not valid ({error}); it is not shown, as a webhook's URL is its secret"
            )
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "the URL is `{}:`, and only http and https URLs are called",
                url.scheme()
            ));
        }
        let policy = Arc::new(policy);
        let client = Client::builder()
            .dns_resolver(Arc::new(Guarded(Arc::clone(&policy))))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(|error| format!("cannot build an HTTP client: {error}"))?;
        Ok(Endpoint {
            url,
            client,
            policy,
        })
    }

    /// Refuses an address literal the policy does not allow: a literal never
    /// reaches the resolver, so it is checked here (names go through it).
    pub(crate) fn check(&self) -> Result<(), String> {
        let host = self.url.host_str().unwrap_or_default();
        match host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        {
            Ok(address) if !self.policy.allows(host, address) => Err(refusal(host, &[address])),
            _ => Ok(()),
        }
    }

    /// A JSON `POST` of `body`, or why the address is refused.
    pub(crate) fn post(&self, body: String) -> Result<reqwest::RequestBuilder, String> {
        self.check()?;
        Ok(self
            .client
            .post(self.url.clone())
            .header("content-type", "application/json")
            .body(body))
    }
}

/// Resolves names, keeping only the addresses the policy allows: what the
/// client connects to is what was checked.
struct Guarded(Arc<AddressPolicy>);

impl Resolve for Guarded {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = Arc::clone(&self.0);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<_> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let (allowed, refused): (Vec<_>, Vec<_>) = found
                .into_iter()
                .partition(|address| policy.allows(&host, address.ip()));
            if allowed.is_empty() {
                let refused: Vec<IpAddr> = refused.iter().map(std::net::SocketAddr::ip).collect();
                return Err(refusal(&host, &refused).into());
            }
            let addresses: Addrs = Box::new(allowed.into_iter());
            Ok(addresses)
        })
    }
}

fn refusal(host: &str, addresses: &[IpAddr]) -> String {
    let shown: Vec<String> = addresses
        .iter()
        .map(|address| match crate::address::internal(*address) {
            Some(block) => format!("{address} ({block})"),
            None => address.to_string(),
        })
        .collect();
    format!(
        "`{host}` is {}, an internal address; HTTP hooks and webhooks reach internal \
         addresses only when allow-listed (`[http] allow = [\"{}\"]`)",
        shown.join(", "),
        crate::address::allow_entry(host)
    )
}

/// `url` as it may be shown: its origin, and `/…` if it has more. An
/// incoming webhook's path or query is its secret.
pub(crate) fn shown(url: &Url) -> String {
    let origin = url.origin().ascii_serialization();
    let more = url.path() != "/" || url.query().is_some() || url.fragment().is_some();
    if more {
        format!("{origin}/…")
    } else {
        origin
    }
}

/// An error with its causes (reqwest's own message hides them), without
/// the URL reqwest puts in it.
pub(crate) fn chain(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

impl HttpHook {
    /// Runs for `ctx`, shown `event`: its input, perhaps with more added
    /// (the kept transcript's path).
    pub(crate) fn call_with<'a, C: ProtocolEvent>(
        &'a self,
        ctx: &'a mut C,
        event: hooks_core::Value,
    ) -> Deferred<'a, Verdict> {
        Deferred::Later(Box::pin(async move {
            // Refused now, not in a fire-and-forget task where it would only be logged.
            self.endpoint.check().map_err(HookError::failed)?;
            let body = match &self.payload {
                Some(template) => template.render(&event)?.to_string(),
                None => event.to_string(),
            };
            if self.fire_and_forget {
                let Some(slot) = Slot::take(&self.in_flight, self.max_in_flight) else {
                    DROPPED.fetch_add(1, Ordering::AcqRel);
                    tracing::warn!(
                        url = %shown(&self.endpoint.url),
                        max_in_flight = self.max_in_flight,
                        "fire-and-forget HTTP hook dropped a request: as many as it may have \
                         are in flight (the endpoint is slow or down); raise `max_in_flight` \
                         or shorten the hook's `timeout`"
                    );
                    return Ok(Decision::Continue);
                };
                let hook = self.clone();
                tokio::spawn(async move {
                    let _slot = slot;
                    if let Err(error) = tokio::time::timeout(hook.timeout, hook.exchange(body))
                        .await
                        .map_err(|_| HookError::TimedOut(hook.timeout))
                        .and_then(|result| result)
                    {
                        tracing::warn!(url = %shown(&hook.endpoint.url), %error, "fire-and-forget HTTP hook failed");
                    }
                });
                return Ok(Decision::Continue);
            }
            let answer = tokio::time::timeout(self.timeout, self.exchange(body))
                .await
                .map_err(|_| HookError::TimedOut(self.timeout))??;
            let verdict: Verdict = ctx.apply(parse_output(&answer)?);
            verdict
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_as_its_origin() {
        let shown = |url: &str| shown(&Url::parse(url).unwrap());
        assert_eq!(
            shown("https://hooks.slack.com/services/T0/B0/secret"),
            "https://hooks.slack.com/…"
        );
        assert_eq!(
            shown("https://user:pw@api.telegram.org:8443/bot1:tok/x?y=1"),
            "https://api.telegram.org:8443/…"
        );
        assert_eq!(shown("http://127.0.0.1:8080/"), "http://127.0.0.1:8080");
        assert_eq!(shown("http://h/?token=x"), "http://h/…");
    }
}
