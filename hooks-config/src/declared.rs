//! A hook declared in a file, checked and ready to join a dispatcher.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use hooks_core::{
    EventKind, Hook, HooksBuilder, OnError, PostModelResponse, PostToolUse, PostToolUseFailure,
    PreCompact, PreModelRequest, PreToolUse, SessionEnd, SessionStart, Stop, SubagentStart,
    SubagentStop, ToolEvent, UserPromptSubmit,
};

use crate::command::CommandHook;
use crate::http::HttpHook;
use crate::prompt::{Model, PromptHook};
use crate::protocol::ProtocolEvent;

/// What runs when the hook does.
pub(crate) enum Mode {
    Command(CommandHook),
    Http(HttpHook),
    Prompt { model: String, text: String },
}

/// One declared hook.
pub(crate) struct Declared {
    pub(crate) event: EventKind,
    pub(crate) name: String,
    pub(crate) matcher: Option<String>,
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
/// own words; the dispatcher's, a little later, is a backstop (a command's
/// process group is killed either way).
const BACKSTOP: Duration = Duration::from_secs(1);

/// What a declared hook runs, with its model found: a hook that names a
/// model the program did not provide never gets this far.
pub(crate) enum Runner {
    Command(CommandHook),
    Http(HttpHook),
    Prompt(PromptHook),
}

impl Declared {
    /// Finds what the hook runs; the error names the missing model.
    pub(crate) fn runner(
        &self,
        models: &HashMap<String, Arc<dyn Model>>,
    ) -> Result<Runner, String> {
        Ok(match &self.mode {
            Mode::Command(command) => Runner::Command(command.clone().timeout(self.timeout)),
            Mode::Http(http) => Runner::Http(http.clone().timeout(self.timeout)),
            Mode::Prompt { model, text } => {
                let model = models.get(model).ok_or_else(|| {
                    format!(
                        "uses model `{model}`, which the program did not provide (Config::model)"
                    )
                })?;
                Runner::Prompt(PromptHook::new(text.clone(), Arc::clone(model)))
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
            EventKind::PostToolUse => builder.hook(self.matching(self.hook::<PostToolUse>(runner))),
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

    fn hook<C: ProtocolEvent>(&self, runner: Runner) -> Hook<C> {
        let name = self.name.clone();
        // Saturating: a timeout of `u64::MAX` seconds is odd, not a panic.
        let backstop = self.timeout.saturating_add(BACKSTOP);
        let (hook, limit) = match runner {
            Runner::Command(command) => (Hook::from_runtime(name, command), backstop),
            Runner::Http(http) => (Hook::from_runtime(name, http), backstop),
            Runner::Prompt(prompt) => (Hook::from_runtime(name, prompt), self.timeout),
        };
        let mut hook = hook
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
