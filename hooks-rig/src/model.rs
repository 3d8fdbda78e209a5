//! Model calls: `PreModelRequest` at a completion's dispatch,
//! `PostModelResponse` at its outcome.

use hooks_core::{PostModelResponse, PreModelRequest, RequestedCall};
use rig_agent::agent::{DispatchAction, OutcomeAction, OutcomeEvent};
use rig_core::completion::CompletionRequest;
use rig_core::effect::{EffectKind, Outcome};
use rig_core::message::{AssistantContent, ToolFunction};
use serde_json::{Map, Value};

use crate::hook::HooksHook;

/// The request parameters hooks see besides the provider's own
/// (`additional_params`, merged in at the top level).
const TEMPERATURE: &str = "temperature";
const MAX_TOKENS: &str = "max_tokens";

impl HooksHook {
    pub(crate) async fn pre_model(
        &self,
        request: &CompletionRequest,
        stream: bool,
    ) -> DispatchAction {
        let tools: Vec<String> = request
            .tools
            .iter()
            .map(|tool| tool.name.as_str().to_owned())
            .collect();
        let mut ctx = PreModelRequest::new(&self.inner.session, tools, params(request));
        let outcome = self.inner.hooks.dispatch(&mut ctx).await;
        // An ended session stops the run before the model is called.
        if let Some(reason) = self.note_end(&outcome) {
            return DispatchAction::stop(reason);
        }
        if ctx.rewrites().is_empty() {
            return DispatchAction::Proceed;
        }
        let mut request = request.clone();
        let offered: Vec<&str> = ctx.tools().collect();
        request
            .tools
            .retain(|tool| offered.contains(&tool.name.as_str()));
        apply_params(&mut request, ctx.params());
        DispatchAction::Patch(EffectKind::Completion { request, stream })
    }

    pub(crate) async fn post_model(&self, event: &OutcomeEvent<'_>) -> OutcomeAction {
        let Ok(Outcome::Completion(response)) = event.outcome else {
            return OutcomeAction::Proceed;
        };
        let mut text = String::new();
        let mut calls = Vec::new();
        for content in &response.choice {
            match content {
                AssistantContent::Text(part) => text.push_str(&part.text),
                AssistantContent::ToolCall(call) => calls.push(
                    RequestedCall::new(
                        call.function.name.as_str().to_owned(),
                        Value::Object(call.function.arguments.clone()),
                    )
                    .with_id(call.id.wire()),
                ),
                _ => {}
            }
        }
        let mut ctx = PostModelResponse::new(&self.inner.session, text).with_tool_calls(calls);
        let outcome = self.inner.hooks.dispatch(&mut ctx).await;
        if let Some(reason) = self.note_end(&outcome) {
            return OutcomeAction::stop(reason);
        }
        if let Some(denial) = outcome.denial() {
            // rig cannot discard a reply at this point and ask again: the run stops.
            return OutcomeAction::stop(denial.reason());
        }
        if ctx.rewrites().is_empty() {
            return OutcomeAction::Proceed;
        }
        let (text, calls) = ctx.into_parts();
        let mut response = response.clone();
        response.choice = rebuild(&response.choice, text, &calls);
        OutcomeAction::Replace(Ok(Outcome::Completion(response)))
    }
}

/// The parameters hooks read and rewrite.
fn params(request: &CompletionRequest) -> Value {
    let mut params = match &request.additional_params {
        Some(Value::Object(extra)) => extra.clone(),
        _ => Map::new(),
    };
    if let Some(temperature) = request.temperature {
        params.insert(TEMPERATURE.to_owned(), temperature.into());
    }
    if let Some(max_tokens) = request.max_tokens {
        params.insert(MAX_TOKENS.to_owned(), max_tokens.into());
    }
    Value::Object(params)
}

fn apply_params(request: &mut CompletionRequest, params: &Value) {
    let Value::Object(params) = params else {
        return;
    };
    let mut extra = params.clone();
    request.temperature = extra.remove(TEMPERATURE).and_then(|value| value.as_f64());
    request.max_tokens = extra.remove(MAX_TOKENS).and_then(|value| value.as_u64());
    request.additional_params = (!extra.is_empty()).then_some(Value::Object(extra));
}

/// The reply with the hooks' text and tool calls: the text replaces the
/// first text block (later ones go), a call keeps its place and id with the
/// hooks' arguments, a call the hooks removed goes, and other content stays.
fn rebuild(
    choice: &[AssistantContent],
    text: String,
    calls: &[RequestedCall],
) -> Vec<AssistantContent> {
    let mut text = Some(text);
    let mut rebuilt = Vec::with_capacity(choice.len());
    for content in choice {
        match content {
            AssistantContent::Text(_) => {
                if let Some(text) = text.take().filter(|text| !text.is_empty()) {
                    rebuilt.push(AssistantContent::text(text));
                }
            }
            AssistantContent::ToolCall(call) => {
                let wire = call.id.wire();
                if let Some(kept) = calls.iter().find(|kept| kept.id() == Some(&*wire)) {
                    let mut call = call.clone();
                    call.function =
                        ToolFunction::new(call.function.name.clone(), kept.args().clone());
                    rebuilt.push(AssistantContent::ToolCall(call));
                }
            }
            other => rebuilt.push(other.clone()),
        }
    }
    if let Some(text) = text.filter(|text| !text.is_empty()) {
        rebuilt.insert(0, AssistantContent::text(text));
    }
    rebuilt
}
