//! A hook declared in a file, checked and ready to join a dispatcher.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::{
    Decision, Deferred, EventKind, Hook, HooksBuilder, Notification, OnError, PermissionRequest,
    PostModelResponse, PostToolUse, PostToolUseFailure, PreCompact, PreModelRequest, PreToolUse,
    SessionEnd, SessionStart, Stop, SubagentStart, SubagentStop, ToolEvent, UserPromptSubmit,
    Value, Verdict,
};

use crate::agent::{AgentHook, Verifier};
use crate::claude_matcher::{Gate, Subject};
use crate::command::CommandHook;
use crate::condition::Condition;
#[cfg(feature = "http")]
use crate::http::HttpHook;
use crate::mcp_tool::{McpCaller, McpToolHook};
use crate::prompt::{Model, PromptHook};
use crate::protocol::ProtocolEvent;
use crate::template::JsonTemplate;
use crate::transcript::Transcripts;

/// What runs when the hook does.
pub(crate) enum Mode {
    Command(CommandHook),
    #[cfg(feature = "http")]
    Http(HttpHook),
    Prompt {
        model: String,
        text: String,
    },
    Agent {
        verifier: String,
        prompt: String,
        max_turns: u32,
    },
    McpTool {
        server: String,
        tool: String,
        arguments: Option<Arc<JsonTemplate>>,
    },
    /// `mode`, on the tool calls `condition` holds for only. A wrapper rather
    /// than a field, so a hook of any mode takes one.
    When(Arc<Condition>, Box<Mode>),
}

/// What the program provides for declared hooks to use, by name.
pub(crate) struct Provided<'a> {
    pub(crate) models: &'a HashMap<String, Arc<dyn Model>>,
    pub(crate) verifiers: &'a HashMap<String, Arc<dyn Verifier>>,
    pub(crate) mcp: &'a HashMap<String, Arc<dyn McpCaller>>,
}

/// One declared hook.
pub(crate) struct Declared {
    pub(crate) event: EventKind,
    pub(crate) name: String,
    pub(crate) matcher: Option<String>,
    /// A Claude Code matcher the dispatcher's patterns cannot express, checked by the hook.
    pub(crate) gate: Option<Gate>,
    pub(crate) priority: i32,
    pub(crate) group: Option<String>,
    pub(crate) on_error: Option<OnError>,
    /// Runs, and records what it would have decided, without enforcing it.
    pub(crate) shadow: bool,
    pub(crate) timeout: Duration,
    pub(crate) mode: Mode,
    pub(crate) file: Arc<str>,
    pub(crate) line: u32,
}

/// Command and HTTP hooks enforce their own timeout, to report it in their
/// own words; the dispatcher's, a little later, is a backstop (everything a
/// command started is killed either way).
const BACKSTOP: Duration = Duration::from_secs(1);

/// What a declared hook runs, with its model, verifier or MCP server found:
/// a hook that names one the program did not provide never gets this far.
pub(crate) enum Runner {
    Command(CommandHook),
    #[cfg(feature = "http")]
    Http(HttpHook),
    Prompt(PromptHook),
    Agent(AgentHook),
    McpTool(McpToolHook),
    When(Arc<Condition>, Box<Runner>),
    /// The runner, shown the kept transcript's path when the host gave none.
    Transcript(Arc<Transcripts>, Box<Runner>),
}

impl Declared {
    /// Finds what the hook runs; the error names what is missing.
    pub(crate) fn runner(&self, provided: &Provided<'_>) -> Result<Runner, String> {
        self.run(&self.mode, provided)
    }

    fn run(&self, mode: &Mode, provided: &Provided<'_>) -> Result<Runner, String> {
        Ok(match mode {
            Mode::Command(command) => Runner::Command(command.clone().timeout(self.timeout)),
            #[cfg(feature = "http")]
            Mode::Http(http) => Runner::Http(http.clone().timeout(self.timeout)),
            Mode::Prompt { model, text } => {
                let model = provided.models.get(model).ok_or_else(|| {
                    format!(
                        "uses model `{model}`, which the program did not provide (Config::model)"
                    )
                })?;
                Runner::Prompt(PromptHook::new(text.clone(), Arc::clone(model)))
            }
            Mode::Agent {
                verifier,
                prompt,
                max_turns,
            } => {
                let verifier = provided.verifiers.get(verifier).ok_or_else(|| {
                    format!(
                        "uses verifier `{verifier}`, which the program did not provide (Config::verifier)"
                    )
                })?;
                Runner::Agent(
                    AgentHook::new(prompt.clone(), Arc::clone(verifier))
                        .max_turns(*max_turns)
                        .timeout(self.timeout),
                )
            }
            Mode::McpTool {
                server,
                tool,
                arguments,
            } => {
                let caller = provided.mcp.get(server).ok_or_else(|| {
                    format!(
                        "uses MCP server `{server}`, which the program did not provide (Config::mcp)"
                    )
                })?;
                Runner::McpTool(
                    McpToolHook::new(server.clone(), tool.clone(), Arc::clone(caller))
                        .with_template(arguments.clone())
                        .timeout(self.timeout),
                )
            }
            Mode::When(condition, mode) => {
                Runner::When(Arc::clone(condition), Box::new(self.run(mode, provided)?))
            }
        })
    }

    /// Adds the hook to `builder`, as the event it was declared for.
    pub(crate) fn add_to(&self, builder: HooksBuilder, runner: Runner) -> HooksBuilder {
        match self.event {
            EventKind::SessionStart => builder.hook(self.hook::<SessionStart>(runner)),
            EventKind::UserPromptSubmit => builder.hook(self.hook::<UserPromptSubmit>(runner)),
            EventKind::PreModelRequest => builder.hook(self.hook::<PreModelRequest>(runner)),
            EventKind::PreToolUse => builder.hook(self.matching(self.hook::<PreToolUse>(runner))),
            EventKind::PermissionRequest => {
                builder.hook(self.matching(self.hook::<PermissionRequest>(runner)))
            }
            EventKind::PostToolUse => builder.hook(self.matching(self.hook::<PostToolUse>(runner))),
            EventKind::Notification => builder.hook(self.hook::<Notification>(runner)),
            EventKind::PostToolUseFailure => {
                builder.hook(self.matching(self.hook::<PostToolUseFailure>(runner)))
            }
            EventKind::PostModelResponse => builder.hook(self.hook::<PostModelResponse>(runner)),
            EventKind::SubagentStart => builder.hook(self.hook::<SubagentStart>(runner)),
            EventKind::SubagentStop => builder.hook(self.hook::<SubagentStop>(runner)),
            EventKind::PreCompact => builder.hook(self.hook::<PreCompact>(runner)),
            EventKind::Stop => builder.hook(self.hook::<Stop>(runner)),
            EventKind::SessionEnd => builder.hook(self.hook::<SessionEnd>(runner)),
        }
    }

    fn matching<C: ToolEvent>(&self, hook: Hook<C>) -> Hook<C> {
        match &self.matcher {
            Some(pattern) => hook.matches(pattern.clone()),
            None => hook,
        }
    }

    fn hook<C: ProtocolEvent + Subject>(&self, runner: Runner) -> Hook<C> {
        let name = self.name.clone();
        // Saturating: a timeout of `u64::MAX` seconds is odd, not a panic.
        let backstop = self.timeout.saturating_add(BACKSTOP);
        let limit = if runner.times_itself() {
            backstop
        } else {
            self.timeout
        };
        let mut hook = crate::claude_matcher::hook(name, self.gate.as_ref(), runner)
            .priority(self.priority)
            .timeout(limit)
            .declared_at(Arc::clone(&self.file), self.line);
        if let Some(group) = &self.group {
            hook = hook.group(group.clone());
        }
        if let Some(on_error) = self.on_error {
            hook = hook.on_error(on_error);
        }
        if self.shadow {
            hook = hook.shadow();
        }
        hook
    }
}

impl Runner {
    /// Whether it enforces the hook's timeout itself, to say so in its own words.
    fn times_itself(&self) -> bool {
        match self {
            Runner::Prompt(_) => false,
            Runner::Command(_) | Runner::Agent(_) | Runner::McpTool(_) => true,
            #[cfg(feature = "http")]
            Runner::Http(_) => true,
            Runner::When(_, runner) | Runner::Transcript(_, runner) => runner.times_itself(),
        }
    }
}

impl Runner {
    /// Every runner is shown the same input, built once here.
    pub(crate) fn call_with<'a, C: ProtocolEvent>(
        &'a self,
        ctx: &'a mut C,
        mut input: Value,
    ) -> Deferred<'a, Verdict> {
        match self {
            Runner::Command(hook) => hook.call_with(ctx, input),
            #[cfg(feature = "http")]
            Runner::Http(hook) => hook.call_with(ctx, input),
            Runner::Prompt(hook) => hook.call_with(ctx, input),
            Runner::Agent(hook) => hook.call_with(ctx, input),
            Runner::McpTool(hook) => hook.call_with(ctx, input),
            Runner::When(condition, runner) => {
                if condition.holds(&input) {
                    runner.call_with(ctx, input)
                } else {
                    Deferred::Ready(Ok(Decision::Continue))
                }
            }
            Runner::Transcript(transcripts, runner) => {
                transcripts.show(ctx.session(), &mut input);
                runner.call_with(ctx, input)
            }
        }
    }
}
