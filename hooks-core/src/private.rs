//! What generated code refers to. Not public API: anything here may change in
//! any release.

use std::future::Future;

pub use core::option::Option::{None, Some};
pub use core::time::Duration;
pub use hooks_pattern::{Alternative, NameGlob};
pub use linkme;

pub use crate::failure::OnError;
pub use crate::hook::BoxFuture;
pub use crate::matcher::Matcher;
pub use crate::output::{HookOutput, ObserverOutput, Verdict};
pub use crate::registry::{
    __HOOKS_CORE_V1_POST_TOOL_USE, __HOOKS_CORE_V1_PRE_MODEL_REQUEST, __HOOKS_CORE_V1_PRE_TOOL_USE,
    __HOOKS_CORE_V1_SESSION_END, __HOOKS_CORE_V1_SESSION_START, __HOOKS_CORE_V1_STOP,
    __HOOKS_CORE_V1_USER_PROMPT_SUBMIT, HandBack, HookFn, LinkedHook,
};
pub use crate::run::guard;

use crate::event::Event;

/// Proves that a hook's parameter is its event's context. Generated code
/// calls [`context`], spanned on the user's type, so a mismatch is one error
/// pointing at the parameter.
#[diagnostic::on_unimplemented(
    message = "this hook takes `&mut {Self}`, but hooks on this event take `&mut {E}`",
    label = "expected `&mut {E}`",
    note = "each event has its own context type: `#[pre_tool_use]` hooks take `&mut PreToolUse`, `#[post_tool_use]` hooks take `&mut PostToolUse`, and so on"
)]
pub trait ContextOf<E> {
    fn cast(ctx: &mut E) -> &mut Self;
    fn cast_ref(ctx: &E) -> &Self;
}

impl<E: Event> ContextOf<E> for E {
    fn cast(ctx: &mut E) -> &mut Self {
        ctx
    }

    fn cast_ref(ctx: &E) -> &Self {
        ctx
    }
}

pub fn context<E, C: ContextOf<E> + ?Sized>(ctx: &mut E) -> &mut C {
    C::cast(ctx)
}

pub fn observed_context<E, C: ContextOf<E> + ?Sized>(ctx: &E) -> &C {
    C::cast_ref(ctx)
}

pub fn observed<E: Event, R: ObserverOutput<E>>(value: R) -> Verdict {
    value.into_verdict()
}

pub fn output<E: Event, R: HookOutput<E>>(value: R) -> Verdict {
    value.into_verdict()
}

pub fn boxed<'a, C, F>(future: F) -> HandBack<'a, C>
where
    F: Future<Output = (Verdict, &'a mut C)> + Send + 'a,
{
    Box::pin(future)
}
