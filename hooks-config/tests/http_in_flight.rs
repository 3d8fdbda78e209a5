//! Fire-and-forget HTTP hooks are capped: against a local server that holds
//! every request unanswered, 50 calls start at most `max_in_flight` (4)
//! requests; the rest are dropped at once, counted (and logged), and the
//! calls go on without waiting either way. Once the server answers, the
//! slots are free again. A program of its own: the counters are per process.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use hooks_config::HttpHook;
use hooks_core::prelude::*;

mod common;
use common::{PythonServer, dispatcher};

/// `method path` on the hold server: its JSON answer.
fn ask(port: u16, method: &str, path: &str) -> Value {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let body = raw.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    serde_json::from_str(body).unwrap_or(Value::Null)
}

/// Waits until `done`, failing after a minute.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what}: not after a minute"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fire_and_forget_requests_in_flight_are_capped() {
    let server = PythonServer::start("hold_server.py");
    let port = server.port;
    let text = format!(
        "[http]\nallow = [\"127.0.0.1\"]\n\n[[hooks]]\nevent = \"pre_tool_use\"\nname = \"notify\"\n\
         http = {{ url = \"http://127.0.0.1:{port}/hold\", fire_and_forget = true, max_in_flight = 4 }}\n\
         timeout = \"120s\"\n"
    );
    let hooks = dispatcher(hooks_config::parse("http.toml", &text, false).unwrap());
    let session = Session::new("s");
    for n in 0..50 {
        let mut call = PreToolUse::new(&session, "deploy", json!({"n": n}));
        assert!(hooks.dispatch(&mut call).await.is_continue(), "call {n}");
    }
    // Decided as each call went on: four in flight, the rest dropped and counted.
    assert_eq!(HttpHook::fire_and_forget_in_flight(), 4);
    assert_eq!(HttpHook::fire_and_forget_dropped(), 46);
    until("four requests held by the server", || {
        ask(port, "GET", "/counts")["held"] == json!(4)
    })
    .await;

    ask(port, "POST", "/release");
    until("the held requests answered", || {
        HttpHook::fire_and_forget_in_flight() == 0
    })
    .await;
    // Nothing else was ever sent: every call is accounted for.
    assert_eq!(ask(port, "GET", "/counts")["seen"], json!(4));

    // The slots are free again.
    let mut call = PreToolUse::new(&session, "deploy", json!({"n": 50}));
    assert!(hooks.dispatch(&mut call).await.is_continue());
    until("the next request answered", || {
        HttpHook::fire_and_forget_in_flight() == 0
    })
    .await;
    assert_eq!(ask(port, "GET", "/counts")["seen"], json!(5));
    assert_eq!(HttpHook::fire_and_forget_dropped(), 46);
}

#[test]
fn max_in_flight_needs_fire_and_forget_and_a_positive_count() {
    for (entry, expected) in [
        (
            "max_in_flight = 0, fire_and_forget = true",
            "`max_in_flight` is 0, which would drop every request",
        ),
        (
            "max_in_flight = 4",
            "`max_in_flight` caps fire-and-forget requests: set `fire_and_forget = true`",
        ),
    ] {
        let text = format!(
            "[http]\nallow = [\"127.0.0.1\"]\n\n[[hooks]]\nevent = \"pre_tool_use\"\n\
             http = {{ url = \"http://127.0.0.1:1/\", {entry} }}\n"
        );
        let error = match hooks_config::parse("http.toml", &text, false) {
            Ok(config) => common::apply_error(config, entry).to_string(),
            Err(error) => error.to_string(),
        };
        assert!(error.contains(expected), "{entry}: {error}");
    }
}
