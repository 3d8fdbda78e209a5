//! Agent hooks: a verifier that may take several turns — to think, or to
//! look things up with its own tools — before it answers, as Claude Code's
//! `type: "agent"` hooks. You bring the verifier (a [`Verifier`], usually a
//! model with tools); the hook runs the turns, at most `max_turns` of them
//! and within the hook's timeout, and reads the answer as a prompt hook's.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use hooks_core::{BoxFuture, Deferred, HookError, Value, Verdict};

use crate::prompt::read_answer;
use crate::protocol::ProtocolEvent;

/// How many turns a verifier gets unless the hook says (`max_turns`).
pub const DEFAULT_MAX_TURNS: u32 = 5;

/// A verifier an agent hook runs. Implement it over your model and its tools;
/// tests use a scripted one.
///
/// ```
/// use hooks_config::{AgentStep, Turn, Verifier};
/// use hooks_core::BoxFuture;
///
/// /// Reads the event, then allows anything that is not `rm`.
/// struct Careful;
///
/// impl Verifier for Careful {
///     fn turn<'a>(&'a self, conversation: &'a [Turn]) -> BoxFuture<'a, Result<AgentStep, String>> {
///         Box::pin(async move {
///             let [Turn::Task { event, .. }, ..] = conversation else {
///                 return Err("no task".to_owned());
///             };
///             Ok(match conversation.len() {
///                 1 => AgentStep::Continue(format!("looked at {}", event["tool_name"])),
///                 _ if event["tool_name"] == "rm" => {
///                     AgentStep::Answer(r#"{"ok": false, "reason": "no deleting"}"#.to_owned())
///                 }
///                 _ => AgentStep::Answer(r#"{"ok": true}"#.to_owned()),
///             })
///         })
///     }
/// }
/// ```
pub trait Verifier: Send + Sync + 'static {
    /// Takes one turn of `conversation`: the task first, then what each
    /// earlier turn did. Its error fails the hook (guards fail closed).
    fn turn<'a>(&'a self, conversation: &'a [Turn]) -> BoxFuture<'a, Result<AgentStep, String>>;
}

/// One entry of an agent hook's conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// What the hook asks, always first: the hook's prompt and the event as
    /// the protocol shows it.
    Task {
        /// The hook's `prompt`.
        instruction: String,
        /// The event, as a command hook reads it on stdin.
        event: Value,
    },
    /// What the verifier did on a turn that was not its answer.
    Step(String),
}

impl Turn {
    /// The entry as a message for a model. The task says how to answer.
    pub fn text(&self) -> String {
        match self {
            Turn::Task { instruction, event } => format!(
                "{instruction}\n\nThe event, as JSON:\n{event}\n\nWhen you are done, answer with \
                 one JSON object and nothing else: {{\"ok\": true}} to allow, or \
                 {{\"ok\": false, \"reason\": \"...\"}} to refuse."
            ),
            Turn::Step(text) => text.clone(),
        }
    }
}

/// What a verifier's turn came to.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentStep {
    /// Not done: this turn's work (a thought, a tool it called and what came
    /// back) joins the conversation as a [`Turn::Step`], and it gets another turn.
    Continue(String),
    /// Done: `{"ok": true}`, `{"ok": false, "reason": "..."}`, or any hook
    /// output JSON, fenced in Markdown or not.
    Answer(String),
}

/// A hook that runs a verifier.
#[derive(Clone)]
pub struct AgentHook {
    instruction: String,
    verifier: Arc<dyn Verifier>,
    max_turns: u32,
    timeout: Duration,
}

impl AgentHook {
    /// A hook giving `verifier` the task `instruction` for each event, with
    /// [`DEFAULT_MAX_TURNS`] turns and 60 seconds.
    pub fn new(instruction: impl Into<String>, verifier: Arc<dyn Verifier>) -> Self {
        AgentHook {
            instruction: instruction.into(),
            verifier,
            max_turns: DEFAULT_MAX_TURNS,
            timeout: Duration::from_secs(60),
        }
    }

    /// Sets how many turns it gets; one that has not answered by then fails
    /// the hook. At least one.
    #[must_use]
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = turns.max(1);
        self
    }

    /// Sets the time all its turns together get; past it the hook fails.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The answer's text, after at most `max_turns` turns; `taken` counts them.
    async fn converse(&self, event: Value, taken: &AtomicU32) -> Result<String, HookError> {
        let mut conversation = vec![Turn::Task {
            instruction: self.instruction.clone(),
            event,
        }];
        for turn in 1..=self.max_turns {
            taken.store(turn, Ordering::Relaxed);
            let step = self.verifier.turn(&conversation).await.map_err(|error| {
                HookError::failed(format!("the verifier failed on turn {turn}: {error}"))
            })?;
            match step {
                AgentStep::Answer(answer) => return Ok(answer),
                AgentStep::Continue(work) => conversation.push(Turn::Step(work)),
            }
        }
        Err(HookError::failed(format!(
            "the verifier did not answer within {} turns (`max_turns` = {0})",
            self.max_turns
        )))
    }
}

impl AgentHook {
    /// Runs for `ctx`, shown `event`: its input, perhaps with more added
    /// (the kept transcript's path).
    pub(crate) fn call_with<'a, C: ProtocolEvent>(
        &'a self,
        ctx: &'a mut C,
        event: hooks_core::Value,
    ) -> Deferred<'a, Verdict> {
        Deferred::Later(Box::pin(async move {
            let taken = AtomicU32::new(0);
            let answer = tokio::time::timeout(self.timeout, self.converse(event, &taken))
                .await
                .map_err(|_| {
                    HookError::failed(format!(
                        "the verifier did not answer within the hook's timeout ({}), on turn {} \
                         of at most {} (`max_turns`)",
                        humantime::format_duration(self.timeout),
                        taken.load(Ordering::Relaxed),
                        self.max_turns
                    ))
                })??;
            ctx.apply(read_answer(&answer, "the verifier")?)
        }))
    }
}
