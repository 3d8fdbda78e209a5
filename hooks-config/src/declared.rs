//! A hook declared in a file, checked and ready to join a dispatcher.

use std::sync::Arc;
use std::time::Duration;

use hooks_core::{
    EventKind, Hook, HooksBuilder, OnError, PostToolUse, PreModelRequest, PreToolUse, RuntimeHook,
    SessionEnd, SessionStart, Stop, UserPromptSubmit,
};

use crate::command::CommandHook;
use crate::http::HttpHook;
use crate::prompt::{Model, PromptHook};
use crate::protocol::ProtocolEvent;

/// What runs when the hook does.
#[derive(Clone)]
pub(crate) enum Mode {
    Command(CommandHook),
    Http(HttpHook),
    Prompt { model: String, text: String },
}

/// One declared hook.
#[derive(Clone)]
pub(crate) struct Declared {
    pub(crate) event: EventKind,
    pub(crate) name: String,
    pub(crate) matcher: Option<String>,
    pub(crate) priority: i32,
    pub(crate) group: Option<String>,
    pub(crate) on_error: Option<OnError>,
    pub(crate) timeout: Duration,
    pub(crate) mode: Mode,
    pub(crate) file: Arc<str>,
    pub(crate) line: u32,
}

/// Command and HTTP hooks enforce their own timeout (a command's kills its
/// whole process group); the dispatcher's, a little later, is a backstop.
const BACKSTOP: Duration = Duration::from_secs(1);

impl Declared {
    /// Adds the hook to `builder`, as the event it was declared for.
    pub(crate) fn add_to(
        &self,
        builder: HooksBuilder,
        models: &std::collections::HashMap<String, Arc<dyn Model>>,
    ) -> Result<HooksBuilder, String> {
        Ok(match self.event {
            EventKind::SessionStart => builder.hook(self.hook::<SessionStart>(models)?),
            EventKind::UserPromptSubmit => builder.hook(self.hook::<UserPromptSubmit>(models)?),
            EventKind::PreModelRequest => builder.hook(self.hook::<PreModelRequest>(models)?),
            EventKind::PreToolUse => {
                let hook = self.hook::<PreToolUse>(models)?;
                builder.hook(match &self.matcher {
                    Some(pattern) => hook.matches(pattern.clone()),
                    None => hook,
                })
            }
            EventKind::PostToolUse => {
                let hook = self.hook::<PostToolUse>(models)?;
                builder.hook(match &self.matcher {
                    Some(pattern) => hook.matches(pattern.clone()),
                    None => hook,
                })
            }
            EventKind::Stop => builder.hook(self.hook::<Stop>(models)?),
            EventKind::SessionEnd => builder.hook(self.hook::<SessionEnd>(models)?),
        })
    }

    fn hook<C: ProtocolEvent>(
        &self,
        models: &std::collections::HashMap<String, Arc<dyn Model>>,
    ) -> Result<Hook<C>, String> {
        let (runner, backstop): (Box<dyn RuntimeHookBox<C>>, Duration) = match &self.mode {
            Mode::Command(command) => (
                Box::new(command.clone().timeout(self.timeout)),
                self.timeout + BACKSTOP,
            ),
            Mode::Http(http) => (
                Box::new(http.clone().timeout(self.timeout)),
                self.timeout + BACKSTOP,
            ),
            Mode::Prompt { model, text } => {
                let model = models.get(model).ok_or_else(|| {
                    format!(
                        "uses model `{model}`, which the program did not provide (Config::model)"
                    )
                })?;
                (
                    Box::new(PromptHook::new(text.clone(), Arc::clone(model))),
                    self.timeout,
                )
            }
        };
        let mut hook = runner
            .into_hook(self.name.clone())
            .priority(self.priority)
            .timeout(backstop)
            .declared_at(Arc::clone(&self.file), self.line);
        if let Some(group) = &self.group {
            hook = hook.group(group.clone());
        }
        if let Some(on_error) = self.on_error {
            hook = hook.on_error(on_error);
        }
        Ok(hook)
    }
}

/// Turns a boxed runner into a `Hook` without naming its type.
trait RuntimeHookBox<C: ProtocolEvent> {
    fn into_hook(self: Box<Self>, name: String) -> Hook<C>;
}

impl<C: ProtocolEvent, R: RuntimeHook<C>> RuntimeHookBox<C> for R {
    fn into_hook(self: Box<Self>, name: String) -> Hook<C> {
        Hook::from_runtime(name, *self)
    }
}
