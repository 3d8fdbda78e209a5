//! The link between a context type, its event and its place in the
//! registry: the [`Event`] trait, implemented for every context from the
//! event table, with each event's capabilities as trait impls the compiler
//! checks hooks against.

use serde::Serialize;

#[allow(clippy::wildcard_imports)] // every context, each named by the event table
use crate::context::*;
use crate::event::EventKind;
use crate::registry::linked::LinkedHook;
use crate::registry::table::{Table, Tables};
use crate::session::Session;
use crate::verdict::{ApprovalRecord, Decision, HookOutput, Notes, Verdict};

/// A hook context, which is also the type naming its event.
///
/// Implemented by the context types only.
pub trait Event: Serialize + Send + Sync + Sized + 'static + sealed::Sealed {
    /// Which event this is.
    const KIND: EventKind;

    /// The session the event belongs to.
    fn session(&self) -> &Session;

    /// The context as JSON: the session facts and the event's data, tagged
    /// with `"event": "pre_tool_use"` (and so on), for logs and your own
    /// transports. (Command and HTTP hooks declared with `hooks-config` get
    /// the Claude Code hook protocol's shape instead: `hooks_config::protocol`.)
    ///
    /// # Panics
    ///
    /// Never: contexts hold only JSON-representable data.
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("contexts serialize to JSON")
    }

    #[doc(hidden)]
    fn __linked() -> &'static [LinkedHook<Self>];
    #[doc(hidden)]
    fn __table(tables: &Tables) -> &Table<Self>;
    #[doc(hidden)]
    fn __table_mut(tables: &mut Tables) -> &mut Table<Self>;
    #[doc(hidden)]
    fn __trail(&mut self) -> &mut Trail;
    /// Records the rewrites of the hook that just ran (fields it changed).
    #[doc(hidden)]
    fn __settle(&mut self);
    /// `hook` starts running: what the previous one changed is recorded first.
    #[doc(hidden)]
    #[inline]
    fn __enter(&mut self, hook: &crate::name::HookName) {
        self.__settle();
        self.__trail().enter(hook);
    }
    /// No hook is running any more.
    #[doc(hidden)]
    #[inline]
    fn __leave(&mut self) {
        self.__settle();
        self.__trail().leave();
    }
    #[doc(hidden)]
    fn __tool_call(&self) -> Option<ToolCall<'_>> {
        None
    }
    /// Where a tool event keeps what the catalog knows about its tool.
    #[doc(hidden)]
    fn __facts_slot(&mut self) -> Option<&mut Option<std::sync::Arc<crate::catalog::ToolFacts>>> {
        None
    }
    /// The provider's id for the tool call (tool events), shared, for the outcome.
    #[doc(hidden)]
    fn __call_id(&self) -> Option<std::sync::Arc<str>> {
        None
    }
    /// A copy of the fields hooks may rewrite (to undo a shadow hook).
    #[doc(hidden)]
    fn __save(&self) -> Box<dyn std::any::Any + Send>;
    /// Puts back what `__save` copied.
    #[doc(hidden)]
    fn __restore(&mut self, saved: Box<dyn std::any::Any + Send>);
    /// Replaces what the event hands on with an error saying that it was
    /// withheld and `why` (events that can withhold; a no-op elsewhere).
    #[doc(hidden)]
    fn __withhold(&mut self, _why: String) {}
    /// A hook's `Ask` on an event where the host asks its person itself
    /// (`PermissionRequest`): recorded, and no approver is asked.
    #[doc(hidden)]
    fn __leave_to_person(&mut self);
    /// `hook` failed: what it granted does not stand (`PermissionRequest`).
    #[doc(hidden)]
    fn __withdraw(&mut self, hook: &crate::name::HookName);
}

/// An event about one tool call ([`PreToolUse`](crate::PreToolUse),
/// [`PostToolUse`](crate::PostToolUse)). Only these take `matches`.
pub trait ToolEvent: Event {
    /// The tool's name.
    fn tool(&self) -> &str;
}

/// A context after a tool call, succeeded ([`PostToolUse`](crate::PostToolUse))
/// or failed ([`PostToolUseFailure`](crate::PostToolUseFailure)): what one
/// observer auditing both reads.
pub trait AfterToolUse: ToolEvent {
    /// The arguments the tool ran with.
    fn args(&self) -> &serde_json::Value;
    /// The provider's id for the call, if the agent loop gave it.
    fn call_id(&self) -> Option<&str>;
    /// How long the tool ran, if the agent loop measured it.
    fn duration(&self) -> Option<std::time::Duration>;
    /// The rewrites pre-tool-use hooks made (when built with `after`).
    fn pre_rewrites(&self) -> &[Rewrite];
    /// The approvals pre-tool-use hooks asked for (when built with `after`).
    fn pre_approvals(&self) -> &[ApprovalRecord];
    /// What pre-tool-use hooks noted on the call (when built with `after`).
    fn pre_notes(&self) -> &Notes;
}

/// Each after-call context is an [`AfterToolUse`], through its own accessors.
macro_rules! after_tool_use {
    ($($kind:ident),*) => {$(
        impl AfterToolUse for $kind {
            fn args(&self) -> &serde_json::Value {
                $kind::args(self)
            }
            fn call_id(&self) -> Option<&str> {
                $kind::call_id(self)
            }
            fn duration(&self) -> Option<std::time::Duration> {
                $kind::duration(self)
            }
            fn pre_rewrites(&self) -> &[Rewrite] {
                $kind::pre_rewrites(self)
            }
            fn pre_approvals(&self) -> &[ApprovalRecord] {
                $kind::pre_approvals(self)
            }
            fn pre_notes(&self) -> &Notes {
                $kind::pre_notes(self)
            }
        }
    )*};
}

after_tool_use!(PostToolUse, PostToolUseFailure);

pub(crate) mod sealed {
    pub trait Sealed {}
}

macro_rules! events {
    ($($kind:ident {
        attr: $attr:ident,
        slice: $slice:ident,
        block: $block:tt,
        tool: $tool:tt,
        inject: $inject:tt,
        fail_closed: $closed:tt,
        withhold: $withhold:tt,
        $($rest:tt)*
    })*) => {$(
        impl sealed::Sealed for $kind {}

        impl Event for $kind {
            const KIND: EventKind = EventKind::$kind;

            #[inline]
            fn session(&self) -> &Session {
                $kind::session(self)
            }

            #[inline]
            fn __linked() -> &'static [LinkedHook<Self>] {
                &crate::registry::linked::$slice
            }

            #[inline]
            fn __table(tables: &Tables) -> &Table<Self> {
                &tables.$attr
            }

            #[inline]
            fn __table_mut(tables: &mut Tables) -> &mut Table<Self> {
                &mut tables.$attr
            }

            #[inline]
            fn __trail(&mut self) -> &mut Trail {
                self.trail_mut()
            }

            #[inline]
            fn __settle(&mut self) {
                self.settle_touched();
            }

            fn __save(&self) -> Box<dyn std::any::Any + Send> {
                crate::context::Rewritable::save(self)
            }

            fn __restore(&mut self, saved: Box<dyn std::any::Any + Send>) {
                crate::context::Rewritable::restore(self, saved);
            }

            #[inline]
            fn __leave_to_person(&mut self) {
                crate::context::Rewritable::leave_to_person(self);
            }

            #[inline]
            fn __withdraw(&mut self, hook: &crate::name::HookName) {
                crate::context::Rewritable::withdraw(self, hook);
            }

            tool_call!($tool);
            withhold!($withhold);
        }

        tool_event!($tool, $kind);
        blocking!($block, $kind);
    )*};
}

macro_rules! tool_call {
    (false) => {};
    (true) => {
        #[inline]
        fn __tool_call(&self) -> Option<ToolCall<'_>> {
            Some(ToolCall::new(self.tool(), self.args()).with_call_id(self.call_id()))
        }

        #[inline]
        fn __call_id(&self) -> Option<std::sync::Arc<str>> {
            self.call_id_arc()
        }

        #[inline]
        fn __facts_slot(
            &mut self,
        ) -> Option<&mut Option<std::sync::Arc<crate::catalog::ToolFacts>>> {
            Some(self.facts_slot())
        }
    };
}

macro_rules! withhold {
    (false) => {};
    (true) => {
        fn __withhold(&mut self, why: String) {
            self.withhold(&why);
        }
    };
}

macro_rules! tool_event {
    (false, $kind:ident) => {};
    (true, $kind:ident) => {
        impl ToolEvent for $kind {
            #[inline]
            fn tool(&self) -> &str {
                $kind::tool(self)
            }
        }
    };
}

// One impl per blocking event: they are what the compiler lists when a
// hook returns `Decision` from an event that cannot block.
macro_rules! blocking {
    (false, $kind:ident) => {};
    (true, $kind:ident) => {
        impl HookOutput<$kind> for Decision {
            #[inline]
            fn into_verdict(self) -> Verdict {
                Ok(self)
            }
        }
    };
}

hooks_events::for_each_event!(events);
