//! A bare HTTP/1.1 client for the console tests: one request per
//! connection, every header under the test's control (a forged `Origin`, a
//! missing token), nothing added behind its back.

use std::fmt::Write as _;
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A response: its status, headers (names lowercased) and body.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Sends `method path` to `address` with `headers` (and a form `body`, if any).
pub(crate) fn send(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Reply {
    send_to_host(address, &address.to_string(), method, path, headers, body)
}

/// [`send`], naming `host` in the `Host` header (as a page under another
/// domain that resolves to the console's address would).
pub(crate) fn send_to_host(
    address: SocketAddr,
    host: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Reply {
    let mut stream = TcpStream::connect(address).expect("connect to the console");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        let _ = write!(request, "{name}: {value}\r\n");
    }
    if let Some(body) = body {
        let _ = write!(
            request,
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        );
    }
    request.push_str("\r\n");
    request.push_str(body.unwrap_or(""));
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .expect("read the console's answer");
    let raw = String::from_utf8_lossy(&raw);
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {raw}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_owned(),
    }
}

/// Signs in through the login form; the session cookie (`name=value`).
pub(crate) fn login(address: SocketAddr, token: &str) -> String {
    let origin = format!("http://{address}");
    let reply = send(
        address,
        "POST",
        "/login",
        &[("Origin", &origin)],
        Some(&format!("token={token}")),
    );
    assert_eq!(reply.status, 303, "login refused: {}", reply.body);
    let cookie = reply.header("set-cookie").expect("a session cookie");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    cookie.split(';').next().unwrap().to_owned()
}

/// The CSRF token the console's page carries for this session.
pub(crate) fn csrf(address: SocketAddr, cookie: &str) -> String {
    let page = send(address, "GET", "/", &[("Cookie", cookie)], None);
    assert_eq!(page.status, 200);
    let start = page
        .body
        .find(r#"name="csrf" content=""#)
        .expect("a CSRF token")
        + 21;
    page.body[start..start + 64].to_owned()
}
