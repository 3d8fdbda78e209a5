//! The hook contexts, one per event. Each is both the data a hook receives
//! and the type naming its event (`#[pre_tool_use]` hooks take `&mut PreToolUse`).
//!
//! Every context carries the [`Session`](crate::Session) and the event's own
//! data, serializes to JSON (for command and HTTP hooks), and keeps a trail of
//! what hooks did to it: [`rewrites`](PreToolUse::rewrites) naming the hook
//! behind each change, injected context, failures let through, approvals.
//!
//! A context type is written by hand (its fields and accessors); what every
//! context has — the session, the trail, `inject` on events that may inject —
//! is generated here from the event table. Each context has a `session` and a
//! `trail` field.

mod compact;
mod failure;
mod fingerprint;
mod model;
mod notification;
mod permission;
mod prompt;
mod ran;
mod response;
mod session;
mod set_arg;
mod stop;
mod subagent;
mod tool;
mod tool_name;
mod trail;

use fingerprint::Print;

pub use compact::{CompactTrigger, PreCompact};
pub use failure::{PostToolUseFailure, ToolError};
pub use model::PreModelRequest;
pub use notification::Notification;
pub use permission::{Grant, PermissionRequest};
pub use prompt::UserPromptSubmit;
pub use response::{PostModelResponse, RequestedCall};
pub use session::{SessionEnd, SessionStart};
pub use set_arg::ArgsNotObject;
pub use stop::Stop;
pub use subagent::{SubagentStart, SubagentStop};
pub use tool::{PostToolUse, PreToolUse};
pub(crate) use tool_name::ToolName;
pub use trail::{
    DEFAULT_INJECTION_BUDGET, HookFailure, Injected, InjectedPiece, Injection, InjectionCut,
    Rewrite, Role, Trail,
};

pub use crate::matcher::ToolCall;

macro_rules! common {
    ($($kind:ident { attr: $attr:ident, slice: $slice:ident, block: $block:tt, tool: $tool:tt, inject: $inject:tt, $($rest:tt)* })*) => {$(
        impl $kind {
            /// The session this event belongs to.
            #[inline]
            pub fn session(&self) -> &crate::session::Session {
                &self.session
            }

            /// Every rewrite so far, in order, naming the hook that made it.
            pub fn rewrites(&self) -> &[Rewrite] {
                self.trail.rewrites()
            }

            /// Hook failures let through by a `continue` failure policy.
            pub fn failures(&self) -> &[HookFailure] {
                self.trail.failures()
            }

            /// Approvals asked for during dispatch, with their answers.
            pub fn approvals(&self) -> &[crate::verdict::ApprovalRecord] {
                self.trail.approvals()
            }

            /// For `observe` hooks: the denial that ended the chain, if one did.
            ///
            /// Observers run after the decision, so they can record it; to
            /// every other hook (and after dispatch) this is `None`: the
            /// outcome is what `dispatch` returns.
            pub fn denial(&self) -> Option<&crate::verdict::Denial> {
                self.trail.denial()
            }

            /// Records a warning, in the outcome and the audit record,
            /// without changing any decision: for guards that let a call
            /// through but want it looked at. Works from a shared reference.
            pub fn warn(&self, text: impl Into<String>) {
                self.trail.warn(text.into());
            }

            /// Sends a message to the person using the agent (not the
            /// model): collected in the outcome for the integration to show.
            pub fn user_message(&self, level: crate::verdict::MessageLevel, text: impl Into<String>) {
                self.trail.user_message(level, text.into());
            }

            /// Says the whole session should end, not just this event (Claude
            /// Code's `continue: false`): the outcome carries it
            /// ([`Outcome::end_session`](crate::Outcome::end_session)) for the
            /// integration to stop the agent, with `reason` for the person.
            /// It is not a denial (the outcome's decision is the hooks'), but
            /// integrations stop the agent as soon as they can, which may be
            /// before this call runs (hooks-rig, Claude Code); a guard that
            /// must stop this call denies it too. The first hook to say so is kept.
            pub fn end_session(&self, reason: impl Into<String>) {
                self.trail.end_session(reason.into());
            }

            /// What hooks noted so far: messages, warnings, shadow decisions.
            pub fn notes(&self) -> impl std::ops::Deref<Target = crate::verdict::Notes> + '_ {
                self.trail.notes()
            }

            #[inline]
            pub(crate) fn trail_mut(&mut self) -> &mut Trail {
                &mut self.trail
            }

            /// Records a rewrite for each field the hook that just ran
            /// borrowed mutably and changed. Inline, as every hook's start
            /// and every dispatch's end pay for it: the check only.
            #[inline]
            pub(crate) fn settle_touched(&mut self) {
                if self.trail.has_touched() {
                    self.settle_touched_fields();
                }
            }

            #[inline(never)]
            fn settle_touched_fields(&mut self) {
                for field in self.trail.take_touched() {
                    let now = Rewritable::print_of(self, field);
                    self.trail.settle(field, &now);
                }
            }
        }
        injectable!($inject, $kind);
    )*};
}

/// The fields of a context that hooks may rewrite, by the names rewrites
/// carry: how [`settle_touched`](PreToolUse::settle_touched) tells whether
/// a field changed.
pub(crate) trait Rewritable {
    /// The print of `field` as it is now ([`Print::NONE`] for a field it does not have).
    fn print_of(&self, _field: &'static str) -> Print {
        Print::NONE
    }

    /// A copy of every field hooks may rewrite, so a shadow hook's changes
    /// can be undone.
    fn save(&self) -> Saved {
        Box::new(())
    }

    /// Puts back what [`save`](Self::save) copied.
    fn restore(&mut self, _saved: Saved) {}

    /// The running hook asked for a person where the host asks its own
    /// (`PermissionRequest`: its dialog), so no approver is asked.
    fn leave_to_person(&mut self) {}

    /// `hook` failed (and its policy let the chain go on): what it granted
    /// does not stand.
    fn withdraw(&mut self, _hook: &crate::name::HookName) {}
}

/// What [`Rewritable::save`] copied.
pub(crate) type Saved = Box<dyn std::any::Any + Send>;

/// The value `saved` holds, if it is a `T`.
pub(crate) fn restored<T: 'static>(saved: Saved) -> Option<T> {
    saved.downcast().ok().map(|value| *value)
}

/// Notes that the running hook borrows `field` mutably, taking its print
/// before unless the trail has it from the hook before; once per hook and field.
#[inline]
pub(crate) fn touch<F: fingerprint::Fingerprint + ?Sized>(
    trail: &mut Trail,
    field: &'static str,
    value: &F,
) {
    if trail.first_touch(field) {
        if !trail.knows(field) {
            trail.remember(field, value.print());
        }
        trail.touch(field);
    }
}

/// Adds `inject` and `injected` to a context whose event may inject context.
macro_rules! injectable {
    (false, $kind:ident) => {};
    (true, $kind:ident) => {
        impl $kind {
            /// Adds context for the model, after what earlier hooks added:
            /// text is system context, kept in the conversation; an
            /// [`Injection`] may be the user's, or ephemeral (this model call only).
            ///
            /// All hooks of one event share a byte budget (10 KiB unless the
            /// dispatcher says otherwise); text past it is cut on a character
            /// boundary, and the cut is reported in [`injected`](Self::injected),
            /// in a notice at the end of the text, and as a `tracing` warning.
            pub fn inject<'i>(&mut self, context: impl Into<Injection<'i>>) {
                self.trail.inject(&context.into());
            }

            /// What hooks injected so far.
            pub fn injected(&self) -> &Injected {
                self.trail.injected()
            }
        }
    };
}

hooks_events::for_each_event!(common);
