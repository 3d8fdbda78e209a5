//! The approval webhook: one message per new request, in the Slack or
//! Feishu shape, linking to the console, sent only to allowed addresses.

use hooks_config::{AddressPolicy, WebhookChannel, WebhookStyle};
use hooks_std::approval::{Request, Status};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

fn request() -> Request {
    Request {
        id: 42,
        session: "s-1".into(),
        agent: "billing-bot".into(),
        user: Some("dana".into()),
        tool: "payments_refund".into(),
        args: r#"{"amount_usd":500,"api_key":"[redacted]"}"#.into(),
        prompt: "Allow `payments_refund`?".into(),
        status: Status::Pending,
        scope: None,
        created_at: "2026-01-01T00:00:00.000Z".into(),
        responded_at: None,
        responded_by: None,
        reason: None,
        consumed_at: None,
    }
}

/// A one-request webhook on loopback; the JSON body it received.
async fn hook() -> (String, tokio::task::JoinHandle<Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let received = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut raw = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let read = socket.read(&mut buffer).await.unwrap();
            raw.extend_from_slice(&buffer[..read]);
            let text = String::from_utf8_lossy(&raw);
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length: usize = head
                    .lines()
                    .find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse().ok())?
                    })
                    .unwrap_or(0);
                if body.len() >= length {
                    socket
                        .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                        .await
                        .unwrap();
                    return serde_json::from_str(body).unwrap();
                }
            }
        }
    });
    (url, received)
}

fn loopback() -> AddressPolicy {
    AddressPolicy::new(&["127.0.0.1".to_owned()]).unwrap()
}

#[tokio::test]
async fn slack_gets_the_request_and_a_link_to_the_console() {
    let (url, received) = hook().await;
    let channel = WebhookChannel::new(&url, WebhookStyle::Slack, loopback())
        .unwrap()
        .console("https://approvals.example.com/");
    channel.announce(&request()).await.unwrap();
    let body = received.await.unwrap();
    let text = body["text"].as_str().unwrap();
    assert!(
        text.contains("#42") && text.contains("payments_refund"),
        "{text}"
    );
    assert!(
        text.contains("dana") && text.contains("billing-bot"),
        "{text}"
    );
    assert!(text.contains("https://approvals.example.com/"), "{text}");
    assert!(
        !text.contains("api_key"),
        "arguments stay in the console: {text}"
    );
}

#[tokio::test]
async fn feishu_gets_its_own_shape() {
    let (url, received) = hook().await;
    let channel = WebhookChannel::new(&url, WebhookStyle::Feishu, loopback()).unwrap();
    channel.announce(&request()).await.unwrap();
    let body = received.await.unwrap();
    assert_eq!(body["msg_type"], json!("text"));
    assert!(
        body["content"]["text"]
            .as_str()
            .unwrap()
            .contains("hooks-approve approve 42")
    );
}

#[tokio::test]
async fn internal_addresses_are_refused_unless_allowed() {
    let (url, received) = hook().await;
    let channel = WebhookChannel::new(&url, WebhookStyle::Slack, AddressPolicy::default()).unwrap();
    let error = channel.announce(&request()).await.unwrap_err();
    assert!(error.contains("internal address"), "{error}");
    received.abort();
    let named = WebhookChannel::new(
        &url.replace("127.0.0.1", "localhost"),
        WebhookStyle::Slack,
        AddressPolicy::default(),
    )
    .unwrap();
    assert!(
        named.announce(&request()).await.is_err(),
        "a name resolving to loopback"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_webhook_from_a_config_file_announces_each_request() {
    use hooks_core::prelude::*;

    let (url, received) = hook().await;
    let dir = std::env::temp_dir().join(format!("hooks-webhook-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!(
        r#"
[http]
allow = ["127.0.0.1"]

[approval]
tools = ["payments_*"]
database = "{db}"
timeout = "1s"

[approval_webhook]
url = "{url}"
style = "slack"
console = "https://approvals.example.com/"
"#,
        db = dir.join("approvals.sqlite3").display()
    );
    let config = hooks_config::parse("fleet.toml", &text, false).unwrap();
    let hooks = config
        .apply(Hooks::builder().only(["hooks_std::approval::gate"]))
        .unwrap()
        .build()
        .unwrap();
    let mut call = PreToolUse::new(
        &Session::new("s-1"),
        "payments_refund",
        json!({"amount_usd": 500}),
    );
    // Nobody answers: denied at the timeout, after the webhook was told.
    assert!(hooks.dispatch(&mut call).await.is_denied());
    // Bounded: without the channel wired, nothing would ever arrive.
    let message = tokio::time::timeout(std::time::Duration::from_secs(10), received)
        .await
        .expect("the webhook was told of the request")
        .unwrap();
    let text = message["text"].as_str().unwrap();
    assert!(text.contains("payments_refund"), "{text}");
    assert!(text.contains("https://approvals.example.com/"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);

    // A webhook without an `[approval]` table to announce is refused, naming its line.
    let Err(error) = hooks_config::parse(
        "bad.toml",
        "[approval_webhook]\nurl = \"https://hooks.slack.com/x\"\n",
        false,
    ) else {
        panic!("a webhook without [approval] loads");
    };
    assert!(
        error.problems()[0]
            .starts_with("bad.toml:1: `[approval_webhook]` is set, but there is no `[approval]`"),
        "{error}"
    );
}
