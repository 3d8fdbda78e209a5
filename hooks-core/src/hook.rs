//! Hooks added at run time: closures on the builder, and anything implementing
//! [`RuntimeHook`] (command, HTTP and prompt hooks build on it).

use std::borrow::Cow;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::event::{Event, ToolEvent};
use crate::failure::OnError;
use crate::name::HookName;
use crate::output::{HookOutput, ObserverOutput, Verdict};
use crate::run::guard;
use crate::table::{Origin, Runner};

/// A boxed, sendable future: what async hooks and approvers return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A hook whose behaviour is decided at run time.
///
/// Return [`HookCall::Ready`] when the answer is known at once (no allocation),
/// or [`HookCall::Pending`] with a future.
pub trait RuntimeHook<C>: Send + Sync + 'static {
    /// Runs the hook on `ctx`.
    fn call<'a>(&'a self, ctx: &'a mut C) -> HookCall<'a>;
}

/// What a [`RuntimeHook`] call returns.
pub enum HookCall<'a> {
    /// The hook has finished.
    Ready(Verdict),
    /// The hook will finish when this future does.
    Pending(BoxFuture<'a, Verdict>),
}

/// A hook added on the builder instead of by an attribute.
///
/// Runtime hooks join the same order as linked hooks (priority, then name)
/// and get the same failure handling. The event is the closure's context type:
///
/// ```
/// use hooks_core::prelude::*;
///
/// let hooks = Hooks::builder()
///     .hook(
///         Hook::new("no_force_push", |ctx: &mut PreToolUse| {
///             Decision::deny(format!("`{}` is not allowed here", ctx.subject().unwrap_or("")))
///         })
///         .matches("Bash(git push --force*)")
///         .priority(-10),
///     )
///     .build()
///     .unwrap();
/// # drop(hooks);
/// ```
pub struct Hook<C: Event> {
    pub(crate) name: HookName,
    pub(crate) priority: i32,
    pub(crate) group: Option<Cow<'static, str>>,
    pub(crate) pattern: Option<String>,
    pub(crate) on_error: Option<OnError>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) asynchronous: bool,
    pub(crate) origin: Origin,
    pub(crate) runner: Runner<C>,
}

impl<C: Event> Hook<C> {
    /// A hook running a closure. It may return anything a hook function may.
    pub fn new<F, R>(name: impl Into<String>, hook: F) -> Self
    where
        F: Fn(&mut C) -> R + Send + Sync + 'static,
        R: HookOutput<C> + 'static,
    {
        let runner = SyncClosure(hook, PhantomData);
        Self::with_runner(name, false, Runner::Runtime(Arc::new(runner)))
    }

    /// A hook running a closure that returns a boxed future.
    ///
    /// ```
    /// use hooks_core::prelude::*;
    ///
    /// let hook = Hook::new_async("slow_check", |ctx: &mut PreToolUse| {
    ///     Box::pin(async move {
    ///         tokio::task::yield_now().await;
    ///         if ctx.tool() == "shutdown" { Decision::deny("not today") } else { Decision::Continue }
    ///     })
    /// })
    /// .timeout(std::time::Duration::from_millis(500));
    /// # drop(hook);
    /// ```
    pub fn new_async<F, R>(name: impl Into<String>, hook: F) -> Self
    where
        F: for<'a> Fn(&'a mut C) -> BoxFuture<'a, R> + Send + Sync + 'static,
        R: HookOutput<C> + 'static,
    {
        let runner = AsyncClosure(hook, PhantomData);
        Self::with_runner(name, true, Runner::Runtime(Arc::new(runner)))
    }

    /// A hook backed by a [`RuntimeHook`] implementation.
    pub fn from_runtime(name: impl Into<String>, hook: impl RuntimeHook<C>) -> Self {
        Self::with_runner(name, true, Runner::Runtime(Arc::new(hook)))
    }

    /// An observer: runs after the decision, whatever it was, and sees it
    /// through [`denial`](crate::PreToolUse::denial), but cannot change the
    /// call. Its failures are logged, never acted on. For audit trails and metrics.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use hooks_core::prelude::*;
    ///
    /// static DENIED: AtomicUsize = AtomicUsize::new(0);
    /// let count_denials = Hook::observer("count_denials", |ctx: &PreToolUse| {
    ///     if ctx.denial().is_some() {
    ///         DENIED.fetch_add(1, Ordering::Relaxed);
    ///     }
    /// });
    /// # drop(count_denials);
    /// ```
    pub fn observer<F, R>(name: impl Into<String>, hook: F) -> Self
    where
        F: Fn(&C) -> R + Send + Sync + 'static,
        R: ObserverOutput<C> + 'static,
    {
        let runner = move |ctx: &C| hook(ctx).into_verdict();
        Self::with_runner(name, false, Runner::ObserveRuntime(Arc::new(runner)))
    }

    fn with_runner(name: impl Into<String>, asynchronous: bool, runner: Runner<C>) -> Self {
        Hook {
            name: HookName::from(name.into()),
            priority: 0,
            group: None,
            pattern: None,
            on_error: None,
            timeout: None,
            asynchronous,
            origin: Origin::Runtime,
            runner,
        }
    }

    /// Sets the priority: lower runs earlier; the default is 0.
    #[must_use]
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    /// Puts the hook in a group, for scoping.
    #[must_use]
    pub fn group(mut self, group: impl Into<Cow<'static, str>>) -> Self {
        self.group = Some(group.into());
        self
    }

    /// Overrides the event's failure policy.
    ///
    /// `OnError::Deny` on an event that cannot block is refused when the
    /// dispatcher is built.
    #[must_use]
    pub fn on_error(mut self, on_error: OnError) -> Self {
        self.on_error = Some(on_error);
        self
    }

    /// Bounds how long the hook's future may run; past it, the hook has failed.
    ///
    /// Applies to hooks that return a future; a synchronous closure cannot be interrupted.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Says where the hook was declared, for [`describe`](crate::Hooks::describe)
    /// and error messages: a configuration file and line.
    #[must_use]
    pub fn declared_at(mut self, file: impl Into<Arc<str>>, line: u32) -> Self {
        self.origin = Origin::Config {
            file: file.into(),
            line,
        };
        self
    }

    /// The hook's name.
    pub fn name(&self) -> &HookName {
        &self.name
    }
}

impl<C: ToolEvent> Hook<C> {
    /// Limits the hook to tool calls matching `pattern` (see [`Matcher`](crate::Matcher)).
    ///
    /// A bad pattern is reported, with the hook's name, when the dispatcher is built.
    #[must_use]
    pub fn matches(mut self, pattern: impl Into<String>) -> Self {
        self.pattern = Some(pattern.into());
        self
    }
}

/// A runtime hook with a timeout: its pending futures are boxed with the
/// timer inside, so the dispatcher never holds a timer of its own.
pub(crate) struct Timed<C: 'static> {
    pub(crate) inner: Arc<dyn RuntimeHook<C>>,
    pub(crate) limit: Duration,
}

impl<C: Event> RuntimeHook<C> for Timed<C> {
    fn call<'a>(&'a self, ctx: &'a mut C) -> HookCall<'a> {
        match self.inner.call(ctx) {
            HookCall::Pending(future) => {
                HookCall::Pending(Box::pin(guard(Some(self.limit), future)))
            }
            ready @ HookCall::Ready(_) => ready,
        }
    }
}

struct SyncClosure<F, R>(F, PhantomData<fn() -> R>);

impl<C, F, R> RuntimeHook<C> for SyncClosure<F, R>
where
    C: Event,
    F: Fn(&mut C) -> R + Send + Sync + 'static,
    R: HookOutput<C> + 'static,
{
    fn call<'a>(&'a self, ctx: &'a mut C) -> HookCall<'a> {
        HookCall::Ready((self.0)(ctx).into_verdict())
    }
}

struct AsyncClosure<F, R>(F, PhantomData<fn() -> R>);

impl<C, F, R> RuntimeHook<C> for AsyncClosure<F, R>
where
    C: Event,
    F: for<'a> Fn(&'a mut C) -> BoxFuture<'a, R> + Send + Sync + 'static,
    R: HookOutput<C> + 'static,
{
    fn call<'a>(&'a self, ctx: &'a mut C) -> HookCall<'a> {
        let future = (self.0)(ctx);
        HookCall::Pending(Box::pin(async move { future.await.into_verdict() }))
    }
}
