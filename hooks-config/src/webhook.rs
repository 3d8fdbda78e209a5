//! Announces approval requests in a chat: a Slack- or Feishu-style incoming
//! webhook gets one message per new request, with a link to the approval
//! console (`hooks-approve serve`) where a person answers. The webhook only
//! announces; the answer comes back through the store.
//!
//! It lives here, not in hooks-std, because it sends through the HTTP hooks'
//! SSRF-safe client: internal addresses are refused unless allow-listed
//! ([`AddressPolicy`]), checked on the address actually connected to, and
//! redirects are not followed.

use std::fmt::Write as _;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::{BoxFuture, printable};
use hooks_std::approval::{Answer, Channel, Request};
use reqwest::{Client, Url};
use serde_json::{Value, json};

use crate::address::AddressPolicy;
use crate::http::Guarded;

/// The message format the webhook expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookStyle {
    /// Slack (and Mattermost, Rocket.Chat): `{"text": "..."}`.
    Slack,
    /// Feishu / Lark custom bots: `{"msg_type": "text", "content": {"text": "..."}}`.
    Feishu,
}

/// A [`Channel`] posting each new request to an incoming webhook.
#[derive(Clone)]
pub struct WebhookChannel {
    url: Url,
    style: WebhookStyle,
    console: Option<String>,
    client: Client,
    policy: Arc<AddressPolicy>,
    timeout: Duration,
}

impl WebhookChannel {
    /// Posts to `url` in `style`; internal addresses only if `policy` allows them.
    pub fn new(url: &str, style: WebhookStyle, policy: AddressPolicy) -> Result<Self, String> {
        let url = Url::parse(url).map_err(|error| format!("`{url}` is not a URL: {error}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("`{url}`: only http and https URLs"));
        }
        let policy = Arc::new(policy);
        let client = Client::builder()
            .dns_resolver(Arc::new(Guarded(Arc::clone(&policy))))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(|error| format!("cannot build an HTTP client: {error}"))?;
        Ok(WebhookChannel {
            url,
            style,
            console: None,
            client,
            policy,
            timeout: Duration::from_secs(10),
        })
    }

    /// Links each message to the console at `url` (`https://approvals.example.com/`).
    #[must_use]
    pub fn console(mut self, url: impl Into<String>) -> Self {
        self.console = Some(url.into());
        self
    }

    /// Sets the timeout for one post.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The message announcing `request`: who asks for which tool, and where
    /// to answer. Arguments stay in the console: a chat keeps its history.
    pub fn message(&self, request: &Request) -> Value {
        let shown = |text: &str| printable(text, false).into_owned();
        let mut text = format!(
            "Approval #{} waiting: `{}` asked by agent `{}`",
            request.id,
            shown(&request.tool),
            shown(&request.agent)
        );
        if let Some(user) = &request.user {
            let _ = write!(text, " for user `{}`", shown(user));
        }
        let _ = write!(text, " in session `{}`.", shown(&request.session));
        match &self.console {
            Some(console) => drop(write!(text, " Answer it at {console}")),
            None => drop(write!(
                text,
                " Answer it with `hooks-approve approve {}`.",
                request.id
            )),
        }
        match self.style {
            WebhookStyle::Slack => json!({ "text": text }),
            WebhookStyle::Feishu => json!({ "msg_type": "text", "content": { "text": text } }),
        }
    }

    /// Posts the message announcing `request`.
    pub async fn announce(&self, request: &Request) -> Result<(), String> {
        let host = self.url.host_str().unwrap_or_default();
        // Names go through the guarded resolver; a literal address never reaches it.
        if let Ok(address) = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            && !self.policy.allows(host, address)
        {
            return Err(format!(
                "`{host}` is an internal address; the approval webhook reaches it only when \
                 allow-listed (`[http] allow = [\"{}\"]`)",
                crate::address::allow_entry(host)
            ));
        }
        let response = self
            .client
            .post(self.url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(self.message(request).to_string())
            .timeout(self.timeout)
            .send()
            .await
            .map_err(|error| format!("the approval webhook failed: {error}"))?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(format!(
                "the approval webhook answered {}",
                response.status()
            ))
        }
    }
}

impl Channel for WebhookChannel {
    fn deliver<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Option<Answer>> {
        Box::pin(async move {
            if let Err(error) = self.announce(request).await {
                tracing::error!(target: "hooks_config::webhook", id = request.id, %error, "approval request not announced");
            }
            // The answer comes through the store, from the console or the CLI.
            None
        })
    }
}
