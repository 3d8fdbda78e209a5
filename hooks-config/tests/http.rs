//! HTTP hooks against a local server: allow, deny, rewrite, context with
//! headers, timeouts, errors, oversized answers, a redirect to a private
//! address, and internal addresses refused unless allow-listed — including
//! a name (`localhost`) that resolves to one.

use std::time::{Duration, Instant};

use hooks_core::prelude::*;
use hooks_core::{DenialCause, HookError};

mod common;
use common::{PythonServer, dispatcher, parse_error};

fn hooks(url: &str, allow: &str, extra: &str) -> Hooks {
    let text = format!(
        "[http]\nallow = [{allow}]\n\n[[hooks]]\nevent = \"pre_tool_use\"\nname = \"remote\"\nhttp = {{ url = \"{url}\"{extra} }}\ntimeout = \"1s\"\n"
    );
    dispatcher(hooks_config::parse("http.toml", &text, false).unwrap())
}

fn call() -> PreToolUse {
    PreToolUse::new(&Session::new("s"), "deploy", json!({"env": "prod"}))
}

/// The message a call through `hooks` fails with.
async fn failure(hooks: Hooks) -> String {
    let outcome = hooks.dispatch(&mut call()).await;
    match outcome.denial().map(hooks_core::Denial::cause) {
        Some(DenialCause::Failed(HookError::Failed(message))) => message.clone(),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[tokio::test]
async fn answers_allow_deny_rewrite_and_add_context() {
    let server = PythonServer::start("hook_server.py");
    let base = format!("http://127.0.0.1:{}", server.port);
    let allow = "\"127.0.0.1\"";

    assert!(
        hooks(&format!("{base}/allow"), allow, "")
            .dispatch(&mut call())
            .await
            .is_continue()
    );
    let outcome = hooks(&format!("{base}/deny"), allow, "")
        .dispatch(&mut call())
        .await;
    assert_eq!(
        outcome.denial().unwrap().reason(),
        "the remote policy says no"
    );

    let mut ctx = call();
    assert!(
        hooks(&format!("{base}/rewrite"), allow, "")
            .dispatch(&mut ctx)
            .await
            .is_continue()
    );
    assert_eq!(ctx.args(), &json!({"env": "prod", "dry_run": true}));

    let mut ctx = call();
    let with_header = ", headers = { x-hook-token = \"t0k\" }";
    assert!(
        hooks(&format!("{base}/context"), allow, with_header)
            .dispatch(&mut ctx)
            .await
            .is_continue()
    );
    assert_eq!(ctx.injected().text(), "PreToolUse deploy t0k");
}

#[tokio::test]
async fn timeouts_errors_and_oversized_answers_fail_closed() {
    let server = PythonServer::start("hook_server.py");
    let base = format!("http://127.0.0.1:{}", server.port);
    let allow = "\"127.0.0.1\"";

    let started = Instant::now();
    let outcome = hooks(&format!("{base}/slow"), allow, "")
        .dispatch(&mut call())
        .await;
    assert!(started.elapsed() < Duration::from_secs(4));
    assert_eq!(
        outcome.denial().unwrap().cause(),
        &DenialCause::Failed(HookError::TimedOut(Duration::from_secs(1)))
    );

    assert_eq!(
        failure(hooks(&format!("{base}/error"), allow, "")).await,
        "answered 500 Internal Server Error"
    );
    // 2 MiB: more than 1 MiB plus three times the small event sent.
    let big = failure(hooks(&format!("{base}/big"), allow, "")).await;
    assert!(
        big.starts_with("answered more than ") && big.contains("(1048576, plus 3 times its "),
        "{big}"
    );
    let redirect = failure(hooks(&format!("{base}/redirect-private"), allow, "")).await;
    assert_eq!(
        redirect,
        "answered 302 Found to `http://10.255.255.1/…`; redirects are not followed"
    );
}

#[tokio::test]
async fn internal_addresses_need_an_allow_list_entry_checked_where_the_connection_goes() {
    let server = PythonServer::start("hook_server.py");
    let literal = failure(hooks(
        &format!("http://127.0.0.1:{}/allow", server.port),
        "",
        "",
    ))
    .await;
    assert!(
        literal.starts_with("`127.0.0.1` is 127.0.0.1 (loopback, RFC 1122), an internal address"),
        "{literal}"
    );

    // A name that resolves to loopback is refused at resolution: the client never connects.
    let named = failure(hooks(
        &format!("http://localhost:{}/allow", server.port),
        "",
        "",
    ))
    .await;
    assert!(named.contains("`localhost` is "), "{named}");
    assert!(named.contains("an internal address"), "{named}");

    let metadata = failure(hooks("http://169.254.169.254/latest/meta-data/", "", "")).await;
    assert!(
        metadata.contains(
            "169.254.169.254 (link-local and cloud metadata, RFC 3927), an internal address"
        ),
        "{metadata}"
    );

    // Allow-listing the name lets it through.
    let outcome = hooks(
        &format!("http://localhost:{}/allow", server.port),
        "\"localhost\"",
        "",
    )
    .dispatch(&mut call())
    .await;
    assert!(outcome.is_continue(), "{outcome:?}");
}

/// The allow-list entry a refusal suggests.
fn suggested(refusal: &str) -> &str {
    let start = refusal.find("allow = [\"").expect("a suggestion") + "allow = [\"".len();
    let end = start + refusal[start..].find('"').unwrap();
    &refusal[start..end]
}

#[tokio::test]
async fn ipv4_carried_in_ipv6_is_judged_by_the_ipv4_and_the_suggested_entry_parses() {
    let server = PythonServer::start("hook_server.py");
    for host in [
        "[::127.0.0.1]",          // IPv4-compatible
        "[::ffff:127.0.0.1]",     // IPv4-mapped
        "[::ffff:0:7f00:1]",      // SIIT, IPv4-translated
        "[64:ff9b::7f00:1]",      // NAT64, well-known prefix
        "[64:ff9b:1::a9fe:a9fe]", // NAT64, local-use prefix
        "[2002:7f00:1::1]",       // 6to4
    ] {
        let url = format!("http://{host}:{}/allow", server.port);
        let refusal = failure(hooks(&url, "", "")).await;
        assert!(refusal.contains("an internal address"), "{host}: {refusal}");
        // The suggestion is an entry the config accepts, and with it the
        // policy lets the address through (whether anything answers there
        // is another matter: only `::ffff:` reaches this machine's loopback).
        let entry = suggested(&refusal);
        let allowed = hooks(&url, &format!("\"{entry}\""), "");
        let outcome = allowed.dispatch(&mut call()).await;
        if let Some(denial) = outcome.denial() {
            assert!(
                !denial.reason().contains("an internal address"),
                "{host}: allow-listed as `{entry}`, still refused: {}",
                denial.reason()
            );
        }
    }
}

#[tokio::test]
async fn fire_and_forget_does_not_wait() {
    let server = PythonServer::start("hook_server.py");
    let hooks = hooks(
        &format!("http://127.0.0.1:{}/slow", server.port),
        "\"127.0.0.1\"",
        ", fire_and_forget = true",
    );
    let started = Instant::now();
    assert!(hooks.dispatch(&mut call()).await.is_continue());
    assert!(started.elapsed() < Duration::from_millis(500));
}

#[test]
fn a_header_http_does_not_allow_is_refused_at_load_naming_the_hook() {
    let declaring = |headers: &str| {
        format!(
            "[[hooks]]\nevent = \"pre_tool_use\"\nname = \"remote\"\n\
             http = {{ url = \"https://hooks.example.com/check\", headers = {{ {headers} }} }}\n"
        )
    };
    let error = parse_error("http.toml", &declaring(r#""x-token" = "abc\ndef""#), false);
    assert_eq!(
        error.problems(),
        [
            "http.toml:1: hook `remote`: `http`: the value of header `x-token` is not valid in HTTP (no control characters or line breaks)"
        ]
    );
    let error = parse_error("http.toml", &declaring(r#""x token" = "abc""#), false);
    assert_eq!(
        error.problems(),
        ["http.toml:1: hook `remote`: `http`: `x token` is not a valid HTTP header name"]
    );
}
