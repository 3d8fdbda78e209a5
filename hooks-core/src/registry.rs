//! The link-time registry: one distributed slice per event, filled by the
//! attribute macros from every crate linked into the binary.

use std::time::Duration;

use linkme::distributed_slice;

use crate::context::{
    PostToolUse, PreModelRequest, PreToolUse, SessionEnd, SessionStart, Stop, UserPromptSubmit,
};
use crate::failure::OnError;
use crate::hook::BoxFuture;
use crate::matcher::Matcher;
use crate::output::Verdict;

/// A hook registered by an attribute macro. Built in a `static` by generated code.
#[doc(hidden)]
pub struct LinkedHook<C: 'static> {
    pub name: &'static str,
    pub priority: i32,
    pub group: Option<&'static str>,
    pub matcher: Option<Matcher>,
    pub on_error: Option<OnError>,
    pub timeout: Option<Duration>,
    pub file: &'static str,
    pub line: u32,
    pub run: HookFn<C>,
}

/// The generated wrapper around a hook function. Sync hooks are plain fn
/// pointers; only async hooks box (their future).
#[doc(hidden)]
pub enum HookFn<C: 'static> {
    Sync(fn(&mut C) -> Verdict),
    Async(AsyncHookFn<C>),
    /// `observe` hooks see the context after the decision and cannot change it.
    Observe(fn(&C) -> Verdict),
    ObserveAsync(AsyncHookFn<C>),
}

/// An async hook's wrapper: its boxed future hands the context back when it
/// finishes (also after a panic or a timeout, which it catches), so the
/// dispatcher can go on with the next hook without a future of its own.
#[doc(hidden)]
pub(crate) type AsyncHookFn<C> = for<'a> fn(&'a mut C) -> HandBack<'a, C>;

/// The future of an async hook: its verdict, and the context back.
#[doc(hidden)]
pub type HandBack<'a, C> = BoxFuture<'a, (Verdict, &'a mut C)>;

// Versioned, prefixed names: a user's own statics cannot collide with them,
// and a future incompatible layout gets a new slice instead of a silent mismatch.
#[doc(hidden)]
#[distributed_slice]
pub static __HOOKS_CORE_V1_SESSION_START: [LinkedHook<SessionStart>];
#[doc(hidden)]
#[distributed_slice]
pub static __HOOKS_CORE_V1_USER_PROMPT_SUBMIT: [LinkedHook<UserPromptSubmit>];
#[doc(hidden)]
#[distributed_slice]
pub static __HOOKS_CORE_V1_PRE_MODEL_REQUEST: [LinkedHook<PreModelRequest>];
#[doc(hidden)]
#[distributed_slice]
pub static __HOOKS_CORE_V1_PRE_TOOL_USE: [LinkedHook<PreToolUse>];
#[doc(hidden)]
#[distributed_slice]
pub static __HOOKS_CORE_V1_POST_TOOL_USE: [LinkedHook<PostToolUse>];
#[doc(hidden)]
#[distributed_slice]
pub static __HOOKS_CORE_V1_STOP: [LinkedHook<Stop>];
#[doc(hidden)]
#[distributed_slice]
pub static __HOOKS_CORE_V1_SESSION_END: [LinkedHook<SessionEnd>];
