//! What generated code refers to. Not public API: anything here may change in
//! any release.

use std::fmt::Display;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

pub use core::option::Option::{None, Some};
pub use linkme;

pub use crate::event::OnError;
pub use crate::registry::hook::shapes::*;
pub use crate::registry::linked::*;
pub use crate::registry::state::{State, StateDefault, StateRead, StateType};
pub use crate::verdict::{BoxFuture, Deferred, HookError, HookOutput, ObserverOutput, Verdict};

use crate::registry::Event;

/// The contexts, so generated code names them through one short path.
macro_rules! contexts {
    ($($kind:ident { $($rest:tt)* })*) => {
        pub use crate::context::{$($kind),*};
    };
}
hooks_events::for_each_event!(contexts);
use crate::registry::state::{Shared, StateValue};
use crate::verdict::Decision;

/// Why a subject pattern is refused without the `shell` feature: at run time
/// ([`Matcher::parse`](crate::Matcher::parse)) and, through
/// [`subject_pattern!`], at compile time.
pub const NEEDS_SHELL: &str = crate::__hooks_core_needs_shell!();

#[doc(hidden)]
#[macro_export]
macro_rules! __hooks_core_needs_shell {
    () => {
        "a subject pattern (`Tool(glob)`, as in `Bash(git push*)`) needs hooks-core's `shell` \
         feature, which reads a `command` subject as bash: turn it on in Cargo.toml, as in \
         `hooks-core = { version = \"0.1\", features = [\"shell\"] }`"
    };
}

/// Generated for a `matches` pattern with a subject. The macro cannot see
/// hooks-core's features; this can, and refuses the pattern without `shell`
/// (spanned on the pattern), so no hook compiles that would read a command as
/// plain text.
#[cfg(feature = "shell")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hooks_core_subject_pattern {
    ($pattern:literal) => {};
}

#[cfg(not(feature = "shell"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __hooks_core_subject_pattern {
    ($pattern:literal) => {
        ::core::compile_error!($crate::__hooks_core_needs_shell!());
    };
}

pub use crate::__hooks_core_subject_pattern as subject_pattern;

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
}

impl<E: Event> ContextOf<E> for E {
    #[inline]
    fn cast(ctx: &mut E) -> &mut Self {
        ctx
    }
}

#[inline]
pub fn context<E, C: ContextOf<E> + ?Sized>(ctx: &mut E) -> &mut C {
    C::cast(ctx)
}

#[inline]
pub fn observed_context<E, C: ContextOf<E> + ?Sized>(ctx: &mut E) -> &C {
    C::cast(ctx)
}

/// A guard's view of its context: shared, so it cannot change the call.
#[inline]
pub fn guarded_context<E, C: ContextOf<E> + ?Sized>(ctx: &mut E) -> &C {
    C::cast(ctx)
}

/// Reads a hook's `index`th state value, spanned on the user's type so that
/// a type that cannot be state is reported there.
#[inline]
pub fn state<T: StateRead>(state: &State, index: usize) -> &T {
    state.get(index)
}

#[inline]
pub fn output<E: Event, R: HookOutput<E>>(value: R) -> Verdict {
    value.into_verdict()
}

#[inline]
pub fn observed<E: Event, R: ObserverOutput<E>>(value: R) -> Verdict {
    value.into_verdict()
}

/// A `fn(&mut Ctx) -> Decision` hook, on an event that may block: the
/// bound is the compiler's check, spanned on the hook's return type.
pub const fn decide<C: 'static>(hook: fn(&mut C) -> Decision) -> HookFn<C>
where
    Decision: HookOutput<C>,
{
    HookFn::Decide(hook)
}

/// An `async fn` hook's future, boxed with its timeout and panic guard, and
/// handing the context back when done.
pub fn boxed<'a, C, F>(future: F) -> HandBack<'a, C>
where
    F: Future<Output = (Verdict, &'a mut C)> + Send + 'a,
{
    Box::pin(future)
}

/// Awaits a hook's future within `limit` (0: none), turning a panic or a
/// timeout into an error verdict.
pub async fn guard(limit_ms: u64, future: impl Future<Output = Verdict>) -> Verdict {
    let limit = (limit_ms > 0).then(|| std::time::Duration::from_millis(limit_ms));
    crate::verdict::guard(limit, future).await
}

/// Starts a hook returning [`Deferred`]: `call` runs the user's function
/// (a panic in it is a failure, not an unwind through the dispatcher);
/// a ready answer comes back with the context, a later one as a future
/// that hands the context back when done.
pub fn deferred<'a, C, R, F>(
    ctx: &'a mut C,
    limit_ms: u64,
    convert: fn(R) -> Verdict,
    call: F,
) -> Started<'a, C>
where
    C: Send,
    R: Send + 'a,
    F: FnOnce(&mut C) -> Deferred<'a, R>,
{
    match catch_unwind(AssertUnwindSafe(|| call(&mut *ctx))) {
        Ok(Deferred::Ready(value)) => Started::Ready(convert(value), ctx),
        Ok(Deferred::Later(future)) => Started::Pending(Box::pin(async move {
            let verdict = guard(limit_ms, async move { convert(future.await) }).await;
            (verdict, ctx)
        })),
        Err(payload) => Started::Ready(Err(HookError::from_panic(&*payload)), ctx),
    }
}

/// The converter for a deciding hook's `Deferred` answer.
pub fn decided<E: Event, R: HookOutput<E>>(value: R) -> Verdict {
    value.into_verdict()
}

/// The converter for an observer's `Deferred` answer.
pub fn noted<E: Event, R: ObserverOutput<E>>(value: R) -> Verdict {
    value.into_verdict()
}

/// `T::default()`, for `default_state!(T)`.
#[allow(clippy::unnecessary_wraps)] // the shape `default_state!` takes
pub fn infallible_default<T: Default>() -> Result<T, std::convert::Infallible> {
    Ok(T::default())
}

/// What `default_state!(T, make)` calls: a function (or closure) returning
/// `Result<T, E>` with `E: Display`. A trait rather than a bound on a
/// function, so that a `make` returning `T` itself is one error in our
/// words, on `make` (`do_not_recommend`: not rustc's "expected `Result`").
#[diagnostic::on_unimplemented(
    message = "`default_state!({T}, ..)` makes the default with a function returning `Result<{T}, E>`",
    label = "expected a `fn() -> Result<{T}, E>`, with `E: Display`",
    note = "return `Ok(value)`, or implement `Default` for `{T}` and write `default_state!({T})`"
)]
pub trait MakeDefault<T> {
    fn make(self) -> Result<T, String>;
}

#[diagnostic::do_not_recommend]
impl<T, E: Display, F: FnOnce() -> Result<T, E>> MakeDefault<T> for F {
    fn make(self) -> Result<T, String> {
        self().map_err(|error| error.to_string())
    }
}

/// Shares a state type's default made for [`default_state!`](crate::default_state).
pub fn shared_default<T: StateValue>(made: Result<T, String>) -> Result<Shared, String> {
    made.map(|value| Arc::new(value) as Shared)
}
