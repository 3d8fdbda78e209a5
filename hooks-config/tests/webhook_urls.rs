//! A webhook's URL is its secret (`hooks.slack.com/services/T/B/<secret>`):
//! an HTTP hook's or the approval webhook's URL is never logged, never put
//! in an error the model or a person reads, never quoted by a configuration
//! error — only its origin (`https://hooks.slack.com`) is shown.

use hooks_config::{AddressPolicy, WebhookChannel, WebhookStyle};
use hooks_core::prelude::*;
use hooks_std::approval::{Request, Status};
use hooks_tests::capture_logs;

const SECRET: &str = "XoXo9sEcReTpAtH";

/// A port nothing listens on.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_failing_http_hook_shows_only_its_origin() {
    let port = closed_port();
    let url = format!("http://127.0.0.1:{port}/services/T0/B0/{SECRET}");
    let text = format!(
        "[http]\nallow = [\"127.0.0.1\"]\n\n[[hooks]]\nevent = \"pre_tool_use\"\nname = \"remote\"\nhttp = {{ url = \"{url}\" }}\ntimeout = \"5s\"\n"
    );
    let hooks = hooks_config::parse("http.toml", &text, false)
        .unwrap()
        .apply(Hooks::builder().without_linked())
        .unwrap()
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (outcome, logs) = capture_logs(|| {
        runtime.block_on(async {
            let mut call = PreToolUse::new(&Session::new("s"), "deploy", json!({}));
            hooks.dispatch(&mut call).await
        })
    });
    let reason = outcome.denial().unwrap().reason();
    assert!(!reason.contains(SECRET), "the model reads: {reason}");
    assert!(!logs.contains(SECRET), "logged: {logs}");
    assert!(!hooks.describe().to_string().contains(SECRET));
    // Still says what failed.
    assert!(
        reason.contains("hook `remote` returned an error"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_failing_approval_webhook_shows_only_its_origin() {
    let url = format!("http://127.0.0.1:{}/services/T0/B0/{SECRET}", closed_port());
    let channel = WebhookChannel::new(
        &url,
        WebhookStyle::Slack,
        AddressPolicy::new(&["127.0.0.1".to_owned()]).unwrap(),
    )
    .unwrap();
    let error = channel.announce(&request()).await.unwrap_err();
    assert!(!error.contains(SECRET), "{error}");
    assert!(error.starts_with("the approval webhook failed"), "{error}");
}

#[test]
fn configuration_errors_do_not_quote_a_url() {
    for url in [
        format!("hooks.slack.com/services/T0/B0/{SECRET}"),
        format!("ftp://hooks.example.com/{SECRET}"),
        format!("https://hooks.slack.com:99999/services/{SECRET}"),
    ] {
        let http = format!("[[hooks]]\nevent = \"pre_tool_use\"\nhttp = {{ url = \"{url}\" }}\n");
        let webhook = format!("[approval]\n\n[approval_webhook]\nurl = \"{url}\"\n");
        for text in [http, webhook] {
            let error = match hooks_config::parse("hooks.toml", &text, false) {
                Ok(_) => panic!("{url} was accepted"),
                Err(error) => error.to_string(),
            };
            assert!(!error.contains(SECRET), "{error}");
            assert!(error.contains("hooks.toml:"), "{error}");
        }
    }
}

fn request() -> Request {
    Request {
        id: 7,
        session: "s".into(),
        agent: "a".into(),
        user: None,
        tool: "payments_refund".into(),
        args: "{}".into(),
        prompt: "Allow?".into(),
        status: Status::Pending,
        scope: None,
        created_at: "2026-01-01T00:00:00.000Z".into(),
        responded_at: None,
        responded_by: None,
        reason: None,
        consumed_at: None,
    }
}
