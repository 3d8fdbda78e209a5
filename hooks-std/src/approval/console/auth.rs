//! Who may use the console: a bearer of the token (in an `Authorization`
//! header, or once through the login form, which sets a session cookie), or
//! whoever a trusted reverse proxy names in a header. Browser sessions carry
//! a CSRF token that every `POST` must echo, and expire.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderName, header};
use sha2::{Digest, Sha256};

use super::throttle::{Client, Throttle};
use crate::token_strength;

/// The session cookie: `HttpOnly`, `SameSite=Strict`.
pub(super) const COOKIE: &str = "hooks_console_session";

/// How the console knows who is asking, and how long a browser session lasts.
///
/// The name an answer is recorded under comes from here, never from what a
/// caller types: the holder's name of the token it presented, or the user the
/// trusted proxy named.
#[derive(Clone)]
pub struct ConsoleAuth {
    kind: Kind,
    lifetime: Duration,
}

#[derive(Clone)]
enum Kind {
    /// Secrets, each held by a named person: `Authorization: Bearer`, or the login form.
    Tokens(Vec<Holder>),
    /// A header set by a reverse proxy that authenticated the person.
    TrustedHeader(HeaderName),
}

#[derive(Clone)]
struct Holder {
    name: String,
    token: String,
}

impl fmt::Debug for ConsoleAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Tokens(holders) => f
                .debug_tuple("Tokens")
                .field(
                    &holders
                        .iter()
                        .map(|holder| &holder.name)
                        .collect::<Vec<_>>(),
                )
                .finish(),
            Kind::TrustedHeader(name) => f.debug_tuple("TrustedHeader").field(name).finish(),
        }?;
        write!(f, " (sessions last {:?})", self.lifetime)
    }
}

impl ConsoleAuth {
    /// How long a session lasts unless [`session_lifetime`](Self::session_lifetime) says otherwise.
    pub const SESSION_LIFETIME: Duration = Duration::from_secs(8 * 60 * 60);

    /// One token, held by `name`: who every answer given with it is recorded as.
    /// Refused if the name is blank or the token easy to guess (an estimate
    /// of its entropy from its own characters, at least 100 bits: a random
    /// one, `openssl rand -hex 32`, passes).
    pub fn token(name: impl Into<String>, token: &str) -> Result<Self, String> {
        Self::tokens([(name.into(), token.to_owned())])
    }

    /// A token for each person, `(name, token)`: each answer is recorded
    /// under the name of the token that signed in. Refused if there are
    /// none, a name is blank or repeated, a token is weak or held twice.
    pub fn tokens<N: Into<String>, T: Into<String>>(
        holders: impl IntoIterator<Item = (N, T)>,
    ) -> Result<Self, String> {
        let mut checked: Vec<Holder> = Vec::new();
        for (name, token) in holders {
            let (name, token) = (name.into().trim().to_owned(), token.into());
            if name.is_empty() {
                return Err(
                    "a console token needs its holder's name: answers are recorded under it"
                        .to_owned(),
                );
            }
            token_strength::check(&token).map_err(|error| format!("`{name}`: {error}"))?;
            if checked.iter().any(|holder| holder.name == name) {
                return Err(format!(
                    "two console tokens are named `{name}`: give each person their own name"
                ));
            }
            if checked.iter().any(|holder| holder.token == token) {
                return Err(format!(
                    "`{name}` holds the same token as another: give each person their own token"
                ));
            }
            checked.push(Holder { name, token });
        }
        if checked.is_empty() {
            return Err("no console token: make one with `openssl rand -hex 32`".to_owned());
        }
        Ok(ConsoleAuth {
            kind: Kind::Tokens(checked),
            lifetime: Self::SESSION_LIFETIME,
        })
    }

    /// Whoever a reverse proxy that authenticated the person names in header
    /// `name` (for instance `X-Forwarded-User`). Anyone who can reach the
    /// console directly can set it too: use it only with the console bound
    /// to loopback, behind a proxy that overwrites the header. Each user's
    /// CSRF token is renewed when their session's lifetime is over, so a page
    /// left open that long must be reloaded to answer.
    pub fn trusted_header(name: HeaderName) -> Self {
        ConsoleAuth {
            kind: Kind::TrustedHeader(name),
            lifetime: Self::SESSION_LIFETIME,
        }
    }

    /// How long a session lasts: a browser's login, or a proxy user's CSRF
    /// token (default [`SESSION_LIFETIME`](Self::SESSION_LIFETIME), 8 hours).
    /// After it, the login is asked again; an open page stops receiving updates.
    #[must_use]
    pub fn session_lifetime(mut self, lifetime: Duration) -> Self {
        self.lifetime = lifetime;
        self
    }

    /// The proxy's header, if people are named by one.
    pub(super) fn trusted(&self) -> Option<&HeaderName> {
        match &self.kind {
            Kind::TrustedHeader(name) => Some(name),
            Kind::Tokens(_) => None,
        }
    }

    pub(super) fn lifetime(&self) -> Duration {
        self.lifetime
    }
}

/// An authenticated caller.
pub(super) struct Caller {
    /// Recorded as who answered.
    pub(super) name: String,
    /// The token its `POST`s must carry; `None` for a bearer of the token in
    /// a header, which a browser never sends on its own (nothing to forge).
    pub(super) csrf: Option<String>,
    /// When its session ends (`None`: each request proves itself).
    pub(super) expires: Option<Instant>,
}

struct Session {
    name: String,
    csrf: String,
    expires: Instant,
}

impl Session {
    fn caller(&self) -> Caller {
        Caller {
            name: self.name.clone(),
            csrf: Some(self.csrf.clone()),
            expires: Some(self.expires),
        }
    }
}

/// Browser sessions (by cookie) and proxy users, each with its CSRF token.
#[derive(Default)]
pub(super) struct Sessions(Mutex<HashMap<String, Session>>);

impl Sessions {
    /// A new browser session for `name`, lasting `lifetime`: its cookie value.
    pub(super) fn open(
        &self,
        name: String,
        lifetime: Duration,
    ) -> Result<String, getrandom::Error> {
        let id = random_token()?;
        let csrf = random_token()?;
        let now = Instant::now();
        let mut sessions = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|_, session| session.expires > now);
        sessions.insert(
            format!("cookie:{id}"),
            Session {
                name,
                csrf,
                expires: now + lifetime,
            },
        );
        Ok(id)
    }

    fn cookie(&self, id: &str) -> Option<Caller> {
        let sessions = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        sessions
            .get(&format!("cookie:{id}"))
            .filter(|session| session.expires > Instant::now())
            .map(Session::caller)
    }

    /// The proxy-named user's session: made on first sight, and again once it expired.
    fn proxied(&self, name: &str, lifetime: Duration) -> Result<Caller, getrandom::Error> {
        let now = Instant::now();
        let mut sessions = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let key = format!("user:{name}");
        if let Some(session) = sessions.get(&key).filter(|session| session.expires > now) {
            return Ok(session.caller());
        }
        sessions.retain(|_, session| session.expires > now);
        let session = Session {
            name: name.to_owned(),
            csrf: random_token()?,
            expires: now + lifetime,
        };
        let caller = session.caller();
        sessions.insert(key, session);
        Ok(caller)
    }
}

/// Why a request is not let in.
pub(super) enum Refusal {
    /// No credentials, or wrong ones.
    Unauthenticated,
    /// Too many wrong tokens from the caller's address: try again after this.
    Throttled(Duration),
    /// The random source failed: nothing can be issued.
    NoRandomness,
}

impl ConsoleAuth {
    /// Who is asking, from the request's headers; a token presented by
    /// `client` spends one of its attempts.
    pub(super) fn caller(
        &self,
        headers: &HeaderMap,
        sessions: &Sessions,
        throttle: &Throttle,
        client: Client,
    ) -> Result<Caller, Refusal> {
        match &self.kind {
            Kind::Tokens(_) => {
                if let Some(given) = bearer(headers) {
                    let name = self.holder(given, throttle, client)?;
                    return Ok(Caller {
                        name,
                        csrf: None,
                        expires: None,
                    });
                }
                cookie(headers, COOKIE)
                    .and_then(|id| sessions.cookie(id))
                    .ok_or(Refusal::Unauthenticated)
            }
            Kind::TrustedHeader(name) => {
                let user = headers
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::trim)
                    .filter(|user| !user.is_empty())
                    .ok_or(Refusal::Unauthenticated)?;
                sessions
                    .proxied(user, self.lifetime)
                    .map_err(|_| Refusal::NoRandomness)
            }
        }
    }

    /// The name of whoever holds token `given`, presented by `client`: one
    /// of its attempts spent, and given back if the token is right. Every
    /// token is compared, so the time taken says nothing about which matched.
    pub(super) fn holder(
        &self,
        given: &str,
        throttle: &Throttle,
        client: Client,
    ) -> Result<String, Refusal> {
        let Kind::Tokens(holders) = &self.kind else {
            return Err(Refusal::Unauthenticated);
        };
        throttle.attempt(client).map_err(Refusal::Throttled)?;
        let found = holders.iter().fold(None, |found, holder| {
            let same = same_secret(given, &holder.token);
            found.or(same.then_some(holder))
        });
        match found {
            Some(holder) => {
                throttle.succeeded(client);
                Ok(holder.name.clone())
            }
            None => Err(Refusal::Unauthenticated),
        }
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The value of cookie `name`, if the request carries it.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find_map(|(key, value)| (key == name).then_some(value))
}

/// Compares two secrets in time independent of where they differ: both are
/// hashed first, so neither their contents nor their lengths leak through timing.
pub(super) fn same_secret(given: &str, expected: &str) -> bool {
    let (given, expected) = (
        Sha256::digest(given.as_bytes()),
        Sha256::digest(expected.as_bytes()),
    );
    let difference = given
        .iter()
        .zip(expected.iter())
        .fold(0u8, |difference, (a, b)| difference | black_box(a ^ b));
    black_box(difference) == 0
}

/// 32 bytes from the operating system's random source, as hex.
fn random_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("s3cret-token", "s3cret-token"));
        assert!(!same_secret("s3cret-token", "s3cret-tokeN"));
        assert!(!same_secret("s3cret", "s3cret-token"));
        assert!(!same_secret("", "s3cret-token"));
    }

    #[test]
    fn tokens_are_refused_weak_nameless_repeated_or_shared() {
        const GOOD: &str = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
        const OTHER: &str = "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9";
        let refused =
            |holders: &[(&str, &str)]| ConsoleAuth::tokens(holders.iter().copied()).unwrap_err();
        assert!(refused(&[]).contains("no console token"));
        assert!(refused(&[("  ", GOOD)]).contains("holder's name"));
        assert!(refused(&[("alice", "aaaaaaaaaaaaaaaaaaaa")]).starts_with("`alice`: "));
        assert!(refused(&[("alice", GOOD), ("alice", OTHER)]).contains("two console tokens"));
        assert!(refused(&[("alice", GOOD), ("bob", GOOD)]).contains("same token"));
        let auth = ConsoleAuth::tokens([("alice", GOOD), ("bob", OTHER)]).unwrap();
        let shown = format!("{auth:?}");
        assert!(shown.contains("alice") && !shown.contains(GOOD), "{shown}");
        let throttle = Throttle::default();
        let client = Client::of(None);
        assert!(matches!(auth.holder(OTHER, &throttle, client), Ok(name) if name == "bob"));
        assert!(matches!(
            auth.holder("wrong", &throttle, client),
            Err(Refusal::Unauthenticated)
        ));
    }

    #[test]
    fn cookies_are_found_by_exact_name() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            "other=1; hooks_console_session_x=2; hooks_console_session=abc"
                .parse()
                .unwrap(),
        );
        assert_eq!(cookie(&headers, COOKIE), Some("abc"));
    }
}
