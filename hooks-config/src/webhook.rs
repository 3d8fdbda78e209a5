//! Announces approval requests in a chat: a Slack- or Feishu-style incoming
//! webhook gets one message per new request, with a link to the approval
//! console (`hooks-approve serve`) where a person answers. The webhook only
//! announces; the answer comes back through the store.
//!
//! It lives here, not in hooks-std, because it sends through the HTTP hooks'
//! SSRF-safe client: internal addresses are refused unless allow-listed
//! ([`AddressPolicy`]), checked on the address actually connected to, and
//! redirects are not followed. Its URL is its secret: no error or log line
//! shows more of it than its origin.

use std::fmt::Write as _;
use std::time::Duration;

use hooks_core::{BoxFuture, printable};
use hooks_std::approval::{Answer, Channel, Request};
use serde_json::{Value, json};

use crate::address::AddressPolicy;
use crate::http::{Endpoint, chain};

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
    endpoint: Endpoint,
    style: WebhookStyle,
    console: Option<String>,
    timeout: Duration,
}

impl WebhookChannel {
    /// Posts to `url` in `style`; internal addresses only if `policy` allows them.
    pub fn new(url: &str, style: WebhookStyle, policy: AddressPolicy) -> Result<Self, String> {
        Ok(WebhookChannel {
            endpoint: Endpoint::new(url, policy)?,
            style,
            console: None,
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
        let response = self
            .endpoint
            .post(self.message(request).to_string())
            .map_err(|refusal| format!("the approval webhook: {refusal}"))?
            .timeout(self.timeout)
            .send()
            .await
            .map_err(|error| format!("the approval webhook failed: {}", chain(error)))?;
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
