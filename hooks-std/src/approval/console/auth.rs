//! Who may use the console: a bearer of the token (in an `Authorization`
//! header, or once through the login form, which sets a session cookie), or
//! whoever a trusted reverse proxy names in a header. Browser sessions carry
//! a CSRF token that every `POST` must echo.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderName, header};
use sha2::{Digest, Sha256};

/// The session cookie: `HttpOnly`, `SameSite=Strict`.
pub(super) const COOKIE: &str = "hooks_console_session";

/// How long a browser session lasts after the login.
const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);

/// How the console knows who is asking.
#[derive(Clone)]
pub enum ConsoleAuth {
    /// A shared secret: `Authorization: Bearer <token>`, or the login form.
    Token(String),
    /// A header set by a reverse proxy that authenticated the person (for
    /// instance `X-Forwarded-User`). Anyone who can reach the console
    /// directly can set it too: use it only with the console bound to
    /// loopback, behind a proxy that overwrites the header.
    TrustedHeader(HeaderName),
}

impl fmt::Debug for ConsoleAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConsoleAuth::Token(_) => f.write_str("Token(..)"),
            ConsoleAuth::TrustedHeader(name) => f.debug_tuple("TrustedHeader").field(name).finish(),
        }
    }
}

/// An authenticated caller.
pub(super) struct Caller {
    /// Recorded as who answered.
    pub(super) name: String,
    /// The token its `POST`s must carry; `None` for a bearer of the token in
    /// a header, which a browser never sends on its own (nothing to forge).
    pub(super) csrf: Option<String>,
}

struct Session {
    name: String,
    csrf: String,
    since: Instant,
}

/// Browser sessions (by cookie) and proxy users, each with its CSRF token.
#[derive(Default)]
pub(super) struct Sessions(Mutex<HashMap<String, Session>>);

impl Sessions {
    /// A new browser session for `name`: its cookie value.
    pub(super) fn open(&self, name: String) -> Result<String, getrandom::Error> {
        let id = random_token()?;
        let csrf = random_token()?;
        let mut sessions = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|_, session| session.since.elapsed() < SESSION_LIFETIME);
        sessions.insert(
            format!("cookie:{id}"),
            Session {
                name,
                csrf,
                since: Instant::now(),
            },
        );
        Ok(id)
    }

    fn cookie(&self, id: &str) -> Option<Caller> {
        let sessions = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        sessions
            .get(&format!("cookie:{id}"))
            .filter(|session| session.since.elapsed() < SESSION_LIFETIME)
            .map(|session| Caller {
                name: session.name.clone(),
                csrf: Some(session.csrf.clone()),
            })
    }

    /// The proxy-named user's CSRF token, made on first sight.
    fn proxied(&self, name: &str) -> Result<Caller, getrandom::Error> {
        let mut sessions = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let key = format!("user:{name}");
        let csrf = match sessions.get(&key) {
            Some(session) => session.csrf.clone(),
            None => {
                let csrf = random_token()?;
                sessions.insert(
                    key,
                    Session {
                        name: name.to_owned(),
                        csrf: csrf.clone(),
                        since: Instant::now(),
                    },
                );
                csrf
            }
        };
        Ok(Caller {
            name: name.to_owned(),
            csrf: Some(csrf),
        })
    }
}

/// Why a request is not let in.
pub(super) enum Refusal {
    /// No credentials, or wrong ones.
    Unauthenticated,
    /// The random source failed: nothing can be issued.
    NoRandomness,
}

impl ConsoleAuth {
    /// Who is asking, from the request's headers.
    pub(super) fn caller(
        &self,
        headers: &HeaderMap,
        sessions: &Sessions,
        answered_by: &str,
    ) -> Result<Caller, Refusal> {
        match self {
            ConsoleAuth::Token(token) => {
                if let Some(given) = bearer(headers) {
                    return if same_secret(given, token) {
                        Ok(Caller {
                            name: answered_by.to_owned(),
                            csrf: None,
                        })
                    } else {
                        Err(Refusal::Unauthenticated)
                    };
                }
                cookie(headers, COOKIE)
                    .and_then(|id| sessions.cookie(id))
                    .ok_or(Refusal::Unauthenticated)
            }
            ConsoleAuth::TrustedHeader(name) => {
                let user = headers
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::trim)
                    .filter(|user| !user.is_empty())
                    .ok_or(Refusal::Unauthenticated)?;
                sessions.proxied(user).map_err(|_| Refusal::NoRandomness)
            }
        }
    }

    /// Whether `given` is the console's token (always `false` for a proxy-authenticated console).
    pub(super) fn accepts_token(&self, given: &str) -> bool {
        matches!(self, ConsoleAuth::Token(token) if same_secret(given, token))
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
