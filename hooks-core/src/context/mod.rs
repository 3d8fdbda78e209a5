//! The seven hook contexts. Each is both the data a hook receives and the type
//! naming its event (`#[pre_tool_use]` hooks take `&mut PreToolUse`).
//!
//! Every context carries the [`Session`](crate::Session) and the event's own
//! data, serializes to JSON (for command and HTTP hooks), and keeps a trail of
//! what hooks did to it: [`rewrites`](PreToolUse::rewrites) naming the hook
//! behind each change, injected context, failures let through, approvals.

mod model;
mod prompt;
mod session;
mod stop;
mod tool;
mod trail;

pub use model::PreModelRequest;
pub use prompt::UserPromptSubmit;
pub use session::{SessionEnd, SessionStart};
pub use stop::Stop;
pub use tool::{PostToolUse, PreToolUse, ToolCall};
pub use trail::{DEFAULT_INJECTION_BUDGET, HookFailure, Injected, InjectionCut, Rewrite, Trail};

/// Implements [`Event`](crate::Event) and the trail accessors for a context.
macro_rules! context {
    ($ty:ident, $kind:ident, $slice:ident, $table:ident $(, $extra:ident)*) => {
        impl $crate::event::sealed::Sealed for $ty {}

        impl $crate::event::Event for $ty {
            const KIND: $crate::EventKind = $crate::EventKind::$kind;

            fn session(&self) -> &$crate::Session {
                &self.session
            }

            fn __linked() -> &'static [$crate::registry::LinkedHook<Self>] {
                &$crate::registry::$slice
            }

            fn __table(tables: &$crate::table::Tables) -> &$crate::table::Table<Self> {
                &tables.$table
            }

            fn __table_mut(tables: &mut $crate::table::Tables) -> &mut $crate::table::Table<Self> {
                &mut tables.$table
            }

            fn __trail(&mut self) -> &mut $crate::context::Trail {
                &mut self.trail
            }

            $($crate::context::context!(@$extra);)*
        }

        impl $ty {
            /// The session this event belongs to.
            pub fn session(&self) -> &$crate::Session {
                &self.session
            }

            /// Every rewrite so far, in order, naming the hook that made it.
            pub fn rewrites(&self) -> &[$crate::context::Rewrite] {
                self.trail.rewrites()
            }

            /// Hook failures let through by a `continue` failure policy.
            pub fn failures(&self) -> &[$crate::context::HookFailure] {
                self.trail.failures()
            }

            /// Approvals asked for during dispatch, with their answers.
            pub fn approvals(&self) -> &[$crate::ApprovalRecord] {
                self.trail.approvals()
            }

            /// For `observe` hooks: the denial that ended the chain, if one did.
            ///
            /// Observers run after the decision, so they can record it; to
            /// every other hook (and after dispatch) this is `None`: the
            /// outcome is what `dispatch` returns.
            pub fn denial(&self) -> Option<&$crate::Denial> {
                self.trail.denial()
            }
        }
    };
    (@tool_call) => {
        fn __tool_call(&self) -> Option<$crate::context::ToolCall<'_>> {
            Some($crate::context::ToolCall::new(&self.tool, &self.args))
        }
    };
    (@inject) => {};
}

/// Adds `inject` and `injected` to a context whose event may inject context.
macro_rules! injectable {
    ($ty:ident) => {
        impl $ty {
            /// Adds context for the model, after what earlier hooks added.
            ///
            /// All hooks of one event share a byte budget (10 KiB unless the
            /// dispatcher says otherwise); text past it is cut on a character
            /// boundary, and the cut is reported in [`injected`](Self::injected),
            /// in a notice at the end of the text, and as a `tracing` warning.
            pub fn inject(&mut self, text: impl AsRef<str>) {
                self.trail.inject(text.as_ref());
            }

            /// What hooks injected so far.
            pub fn injected(&self) -> &$crate::context::Injected {
                self.trail.injected()
            }
        }
    };
}

pub(crate) use {context, injectable};
