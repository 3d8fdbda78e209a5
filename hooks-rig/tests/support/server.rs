//! A scripted OpenAI-compatible chat-completions server on 127.0.0.1: it
//! answers each request with the next reply of its script and records every
//! request body.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

#[derive(Clone, Default)]
pub(crate) struct ScriptedModel {
    replies: Arc<Mutex<VecDeque<Value>>>,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl ScriptedModel {
    /// Serves `replies` (chat-completion `message` objects) in order; the
    /// base URL to give the client.
    pub(crate) async fn start(replies: impl IntoIterator<Item = Value>) -> (Self, String) {
        let model = ScriptedModel {
            replies: Arc::new(Mutex::new(replies.into_iter().collect())),
            requests: Arc::default(),
        };
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .with_state(model.clone());
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        (model, format!("http://{addr}/v1"))
    }

    /// Appends `replies` to the script.
    #[allow(
        dead_code,
        reason = "the bench scripts one run at a time; the tests do not"
    )]
    pub(crate) fn script(&self, replies: impl IntoIterator<Item = Value>) {
        self.replies
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(replies);
    }

    /// Every request body received, in order.
    pub(crate) fn requests(&self) -> Vec<Value> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

async fn answer(State(model): State<ScriptedModel>, Json(body): Json<Value>) -> Json<Value> {
    model
        .requests
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(body);
    let message = model
        .replies
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .pop_front()
        .unwrap_or_else(|| text("the script is over"));
    let finish = if message.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    Json(json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }))
}

/// An assistant message asking for `calls`: `(id, tool, arguments)`.
pub(crate) fn tool_calls(calls: &[(&str, &str, Value)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": args.to_string()},
            })
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

/// An assistant message with `content`.
pub(crate) fn text(content: &str) -> Value {
    json!({"role": "assistant", "content": content})
}

/// The `tool` messages of a request: `(tool_call_id, content)`.
pub(crate) fn tool_results(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|message| message["role"] == "tool")
        .map(|message| {
            let content = match &message["content"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (
                message["tool_call_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                content,
            )
        })
        .collect()
}
