//! The dispatch table: every hook of every event, resolved and sorted once.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::event::{EventKind, OnError};
use crate::matcher::{Matcher, PatternError};
use crate::name::HookName;
use crate::registry::event::Event;
use crate::registry::hook::Run;
use crate::registry::linked::{HookFn, LinkedHook, StartFn};
use crate::registry::state::{State, StateType};
use crate::verdict::{Decision, Verdict};

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

/// How a hook runs, as `describe()` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A plain call.
    Sync,
    /// A plain call that may hand back a future.
    Deferred,
    /// Always a future.
    Async,
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
    pub(crate) shape: Shape,
    pub(crate) observer: bool,
    /// Runs, but what it decides is recorded, not enforced.
    pub(crate) shadow: bool,
    pub(crate) state: Vec<StateType>,
    pub(crate) origin: Origin,
}

/// How the dispatcher calls a hook.
pub(crate) enum Runner<C: 'static> {
    /// The user's `fn(&mut Ctx)`, called directly.
    Unit(fn(&mut C)),
    /// The user's `fn(&mut Ctx) -> Decision`, called directly.
    Decide(fn(&mut C) -> Decision),
    /// The user's observer `fn(&Ctx)`, called directly.
    Observe(fn(&C)),
    /// A plain call of a wrapper (state, a `Result`).
    Plain(fn(&mut C, &State) -> Verdict),
    /// A call that takes the context and hands it back, now or later.
    Started(StartFn<C>),
    /// A runtime hook.
    Runtime(Arc<dyn Run<C>>),
}

pub(crate) struct Entry<C: 'static> {
    pub(crate) meta: HookMeta,
    pub(crate) runner: Runner<C>,
    /// The state the hook reads, resolved when the dispatcher is built.
    pub(crate) state: State,
}

impl<C: Event> Entry<C> {
    /// A linked hook's entry. Its pattern was checked when the macro
    /// expanded; it is compiled here, once per dispatcher.
    pub(crate) fn linked(hook: &'static LinkedHook<C>) -> Result<Self, PatternError> {
        let (runner, shape) = match hook.run {
            HookFn::Unit(f) => (Runner::Unit(f), Shape::Sync),
            HookFn::Decide(f) => (Runner::Decide(f), Shape::Sync),
            HookFn::Observe(f) => (Runner::Observe(f), Shape::Sync),
            HookFn::Plain(f) => (Runner::Plain(f), Shape::Sync),
            HookFn::Deferred(f) => (Runner::Started(f), Shape::Deferred),
            HookFn::Async(f) => (Runner::Started(f), Shape::Async),
        };
        let more = hook.more;
        let matcher = match hook.matches {
            "" => None,
            pattern => Some(Matcher::parse_static(pattern)?),
        };
        Ok(Entry {
            meta: HookMeta {
                name: HookName::from_static(hook.name),
                priority: hook.priority,
                group: more.group.map(Cow::Borrowed),
                matcher,
                on_error: on_error(more.observe, more.on_error, C::KIND),
                timeout: (more.timeout_ms > 0).then(|| Duration::from_millis(more.timeout_ms)),
                shape,
                observer: more.observe,
                shadow: more.shadow,
                state: more.state.to_vec(),
                origin: Origin::Linked {
                    file: hook.file,
                    line: hook.line,
                },
            },
            runner,
            state: State::default(),
        })
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
pub(crate) fn on_error(observer: bool, declared: Option<OnError>, event: EventKind) -> OnError {
    if observer {
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

macro_rules! tables {
    ($($kind:ident { attr: $attr:ident, $($rest:tt)* })*) => {
        /// Every event's table.
        #[doc(hidden)]
        #[derive(Default)]
        pub struct Tables {
            $(pub(crate) $attr: Table<crate::context::$kind>,)*
        }

        impl Tables {
            /// Every hook's metadata, event by event in lifecycle order.
            pub(crate) fn metas(&self) -> impl Iterator<Item = (EventKind, &HookMeta)> {
                std::iter::empty()
                    $(.chain(self.$attr.entries.iter().map(|entry| (EventKind::$kind, &entry.meta))))*
            }

            /// Calls `visit` with every event's table, in lifecycle order.
            pub(crate) fn each_mut(&mut self, visit: &mut impl VisitTable) {
                $(visit.visit(&mut self.$attr);)*
            }
        }
    };
}

hooks_events::for_each_event!(tables);

/// Something done to every event's table (Rust has no generic closures).
pub(crate) trait VisitTable {
    fn visit<C: Event>(&mut self, table: &mut Table<C>);
}
