//! The dispatch table: every hook of every event, resolved and sorted once.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::context::{
    PostToolUse, PreModelRequest, PreToolUse, SessionEnd, SessionStart, Stop, UserPromptSubmit,
};
use crate::event::{Event, EventKind};
use crate::failure::OnError;
use crate::hook::RuntimeHook;
use crate::matcher::Matcher;
use crate::name::HookName;
use crate::output::Verdict;
use crate::registry::{AsyncHookFn, HookFn, LinkedHook};

/// Where a hook comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Origin {
    /// An attribute macro, in this source file.
    Linked {
        /// The file, as `file!()` gives it.
        file: &'static str,
        /// The line of the function's name.
        line: u32,
    },
    /// Added on the builder at run time.
    Runtime,
    /// Declared in a configuration file, at this line.
    Config {
        /// The file.
        file: Arc<str>,
        /// The line of the hook's declaration.
        line: u32,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Linked { file, line } => write!(f, "{file}:{line}"),
            Origin::Runtime => f.write_str("runtime"),
            Origin::Config { file, line } => write!(f, "{file}:{line} (config)"),
        }
    }
}

/// Everything about a hook except how to run it.
#[derive(Debug, Clone)]
pub(crate) struct HookMeta {
    pub(crate) name: HookName,
    pub(crate) priority: i32,
    pub(crate) group: Option<Cow<'static, str>>,
    pub(crate) matcher: Option<Matcher>,
    pub(crate) on_error: OnError,
    pub(crate) timeout: Option<Duration>,
    pub(crate) asynchronous: bool,
    pub(crate) observer: bool,
    pub(crate) origin: Origin,
}

pub(crate) enum Runner<C: 'static> {
    Sync(fn(&mut C) -> Verdict),
    Async(AsyncHookFn<C>),
    Runtime(Arc<dyn RuntimeHook<C>>),
    Observe(fn(&C) -> Verdict),
    ObserveAsync(AsyncHookFn<C>),
    ObserveRuntime(Arc<dyn Fn(&C) -> Verdict + Send + Sync>),
}

impl<C> Runner<C> {
    /// Whether this runs after the decision, as an observer.
    pub(crate) fn observes(&self) -> bool {
        matches!(
            self,
            Runner::Observe(_) | Runner::ObserveAsync(_) | Runner::ObserveRuntime(_)
        )
    }
}

#[doc(hidden)]
pub(crate) struct Entry<C: 'static> {
    pub(crate) meta: HookMeta,
    pub(crate) runner: Runner<C>,
}

impl<C: Event> Entry<C> {
    pub(crate) fn linked(hook: &'static LinkedHook<C>) -> Self {
        let (runner, asynchronous): (Runner<C>, bool) = match hook.run {
            HookFn::Sync(f) => (Runner::Sync(f), false),
            HookFn::Async(f) => (Runner::Async(f), true),
            HookFn::Observe(f) => (Runner::Observe(f), false),
            HookFn::ObserveAsync(f) => (Runner::ObserveAsync(f), true),
        };
        Entry {
            meta: HookMeta {
                name: HookName::from_static(hook.name),
                priority: hook.priority,
                group: hook.group.map(Cow::Borrowed),
                matcher: hook.matcher.clone(),
                on_error: on_error(&runner, hook.on_error, C::KIND),
                timeout: hook.timeout,
                asynchronous,
                observer: runner.observes(),
                origin: Origin::Linked {
                    file: hook.file,
                    line: hook.line,
                },
            },
            runner,
        }
    }

    /// Whether the hook applies to this event instance (its matcher, on tool events).
    pub(crate) fn applies_to(&self, ctx: &C) -> bool {
        match &self.meta.matcher {
            None => true,
            Some(matcher) => ctx.__tool_call().is_some_and(|call| matcher.matches(call)),
        }
    }
}

/// A hook's failure policy: observers always fail open (they run after the
/// decision); others as they say, or as their event does by default.
pub(crate) fn on_error<C>(
    runner: &Runner<C>,
    declared: Option<OnError>,
    event: EventKind,
) -> OnError {
    if runner.observes() {
        OnError::Continue
    } else {
        declared.unwrap_or(event.default_on_error())
    }
}

/// A hook a tool handle may run, and whether its matcher must still be
/// checked per call (only subject patterns need to be).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate {
    pub(crate) index: u32,
    pub(crate) per_call: bool,
}

#[doc(hidden)]
pub struct Table<C: 'static> {
    pub(crate) entries: Vec<Entry<C>>,
    /// How many entries are observers: none means no observer phase at all.
    pub(crate) observers: usize,
}

impl<C> Default for Table<C> {
    fn default() -> Self {
        Table {
            entries: Vec::new(),
            observers: 0,
        }
    }
}

impl<C> Table<C> {
    /// Sorts in dispatch order: the chain by (priority, name), then the
    /// observers by (priority, name). Fixed whatever the link order.
    pub(crate) fn sort(&mut self) {
        self.observers = self
            .entries
            .iter()
            .filter(|entry| entry.meta.observer)
            .count();
        self.entries.sort_by(|a, b| {
            let key = |entry: &Entry<C>| (entry.meta.observer, entry.meta.priority);
            key(a)
                .cmp(&key(b))
                .then_with(|| a.meta.name.cmp(&b.meta.name))
        });
    }
}

#[doc(hidden)]
#[derive(Default)]
pub struct Tables {
    pub(crate) session_start: Table<SessionStart>,
    pub(crate) user_prompt_submit: Table<UserPromptSubmit>,
    pub(crate) pre_model_request: Table<PreModelRequest>,
    pub(crate) pre_tool_use: Table<PreToolUse>,
    pub(crate) post_tool_use: Table<PostToolUse>,
    pub(crate) stop: Table<Stop>,
    pub(crate) session_end: Table<SessionEnd>,
}

impl Tables {
    /// Every hook's metadata, event by event in lifecycle order.
    pub(crate) fn metas(&self) -> impl Iterator<Item = (crate::EventKind, &HookMeta)> {
        fn of<C: Event>(table: &Table<C>) -> impl Iterator<Item = (crate::EventKind, &HookMeta)> {
            table.entries.iter().map(|entry| (C::KIND, &entry.meta))
        }
        of(&self.session_start)
            .chain(of(&self.user_prompt_submit))
            .chain(of(&self.pre_model_request))
            .chain(of(&self.pre_tool_use))
            .chain(of(&self.post_tool_use))
            .chain(of(&self.stop))
            .chain(of(&self.session_end))
    }
}
