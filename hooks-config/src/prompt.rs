//! Prompt hooks: a model judges the event. You bring the model (a [`Model`]);
//! the hook sends it the instruction and the event, and reads its answer as
//! the protocol's JSON, or as Claude Code's prompt and agent hooks answer:
//! `{"ok": true}`, `{"ok": false, "reason": "..."}`.

use std::sync::Arc;

use hooks_core::{BoxFuture, Deferred, HookError, Value, Verdict};
use serde::Deserialize;

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

/// Reads a model's (or verifier's) answer: one JSON object, fenced or not,
/// in the hook protocol or as `{"ok": bool, "reason": "..."}`. Both at once
/// give the stricter: an `ok: false` blocks whatever else the object says.
pub(crate) fn read_answer(answer: &str, who: &str) -> Result<Reply, HookError> {
    let text = unfenced(answer);
    if !text.starts_with('{') {
        return Err(HookError::failed(format!(
            "{who} did not answer with JSON: {text:.200}"
        )));
    }
    let mut reply = parse_output(text)?;
    let verdict: OkAnswer = crate::strict_json::from_str(text)
        .map_err(|error| HookError::failed(format!("{who} answered {error}")))?;
    match verdict.ok {
        None | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => {
            reply.block.get_or_insert_with(|| {
                verdict
                    .reason
                    .unwrap_or_else(|| format!("{who} said no (`\"ok\": false`)"))
            });
        }
        Some(other) => {
            return Err(HookError::failed(format!(
                "{who} answered `\"ok\": {other}`; `ok` is true or false"
            )));
        }
    }
    Ok(reply)
}

/// Claude Code's prompt and agent hook answer.
#[derive(Deserialize)]
struct OkAnswer {
    ok: Option<Value>,
    reason: Option<String>,
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

impl PromptHook {
    /// Runs for `ctx`, shown `event`: its input, perhaps with more added
    /// (the kept transcript's path).
    pub(crate) fn call_with<'a, C: ProtocolEvent>(
        &'a self,
        ctx: &'a mut C,
        event: hooks_core::Value,
    ) -> Deferred<'a, Verdict> {
        Deferred::Later(Box::pin(async move {
            let prompt = self.prompt(&event.to_string());
            let answer = self.model.complete(&prompt).await.map_err(|error| {
                HookError::failed(format!("the model could not answer: {error}"))
            })?;
            ctx.apply(read_answer(&answer, "the model")?)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::{read_answer, unfenced};

    #[test]
    fn code_fences_are_removed() {
        assert_eq!(unfenced("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(unfenced(" {} "), "{}");
    }

    #[test]
    fn ok_answers_are_read_as_claude_code_means_them() {
        let block = |text: &str| read_answer(text, "the model").map(|reply| reply.block);
        assert_eq!(block(r#"{"ok": true}"#).unwrap(), None);
        assert_eq!(
            block(r#"{"ok": false, "reason": "tests fail"}"#).unwrap(),
            Some("tests fail".to_owned())
        );
        assert!(
            block(r#"{"ok": false}"#)
                .unwrap()
                .unwrap()
                .contains("said no")
        );
        assert_eq!(
            block(r#"{"ok": true, "decision": "block", "reason": "no"}"#).unwrap(),
            Some("no".to_owned()),
            "the stricter answer wins"
        );
        assert!(block(r#"{"ok": "yes"}"#).is_err());
        assert!(
            block(r#"{"ok": true, "ok": false}"#).is_err(),
            "a repeated key is refused"
        );
        assert!(block("sure, fine").is_err());
    }
}
