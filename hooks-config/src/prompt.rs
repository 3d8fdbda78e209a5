//! Prompt hooks: a model judges the event. You bring the model (a [`Model`]);
//! the hook sends it the instruction and the event, and reads its answer as
//! the protocol's JSON.

use std::sync::Arc;

use hooks_core::{BoxFuture, HookCall, HookError, RuntimeHook};

use crate::protocol::{ProtocolEvent, Reply, parse_output};

/// A model a prompt hook can ask. Implement it over your client; tests use a fake.
pub trait Model: Send + Sync + 'static {
    /// Answers `prompt`, or says why it could not.
    fn complete<'a>(&'a self, prompt: &'a str) -> BoxFuture<'a, Result<String, String>>;
}

/// A hook that asks a model.
#[derive(Clone)]
pub struct PromptHook {
    instruction: String,
    model: Arc<dyn Model>,
}

impl PromptHook {
    /// A hook asking `model` to apply `instruction` to each event.
    pub fn new(instruction: impl Into<String>, model: Arc<dyn Model>) -> Self {
        PromptHook {
            instruction: instruction.into(),
            model,
        }
    }

    fn prompt(&self, event: &str) -> String {
        format!(
            "{}\n\nThe event, as JSON:\n{event}\n\nAnswer with one JSON object and nothing else: \
             {{\"decision\": \"block\", \"reason\": \"...\"}} to refuse, {{}} to allow, and \
             {{\"hookSpecificOutput\": {{\"additionalContext\": \"...\"}}}} to add context.",
            self.instruction
        )
    }
}

/// The model's JSON, with any Markdown code fence around it removed.
fn unfenced(answer: &str) -> &str {
    let answer = answer.trim();
    let Some(inner) = answer.strip_prefix("```") else {
        return answer;
    };
    let inner = inner.strip_prefix("json").unwrap_or(inner);
    inner.strip_suffix("```").unwrap_or(inner).trim()
}

impl<C: ProtocolEvent> RuntimeHook<C> for PromptHook {
    fn call<'a>(&'a self, ctx: &'a mut C) -> HookCall<'a> {
        HookCall::Pending(Box::pin(async move {
            let prompt = self.prompt(&ctx.input().to_string());
            let answer = self.model.complete(&prompt).await.map_err(|error| {
                HookError::failed(format!("the model could not answer: {error}"))
            })?;
            let text = unfenced(&answer);
            if !text.starts_with('{') {
                return Err(HookError::failed(format!(
                    "the model did not answer with JSON: {text:.200}"
                )));
            }
            let reply: Reply = parse_output(text)?;
            ctx.apply(reply)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::unfenced;

    #[test]
    fn code_fences_are_removed() {
        assert_eq!(unfenced("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(unfenced(" {} "), "{}");
    }
}
