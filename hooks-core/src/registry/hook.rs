//! Hooks added at run time: closures on the builder, and anything implementing
//! [`RuntimeHook`] (command, HTTP and prompt hooks build on it).

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use crate::event::OnError;
use crate::name::HookName;
use crate::registry::event::{Event, ToolEvent};
use crate::registry::state::{State, StateRead, StateType, StateValue};
use crate::registry::table::{Origin, Shape};
use crate::verdict::guard;
use crate::verdict::{BoxFuture, Deferred, HookOutput, ObserverOutput, Verdict};

/// A hook whose behaviour is decided at run time.
///
/// Return [`Deferred::Ready`] when the answer is known at once (no allocation),
/// or [`Deferred::Later`] with a future.
pub trait RuntimeHook<C>: Send + Sync + 'static {
    /// Runs the hook on `ctx`.
    fn call<'a>(&'a self, ctx: &'a mut C) -> Deferred<'a, Verdict>;
}

/// How the dispatcher runs a runtime hook: with the state it reads.
pub(crate) trait Run<C>: Send + Sync + 'static {
    fn run<'a>(&'a self, ctx: &'a mut C, state: &'a State) -> Deferred<'a, Verdict>;
}

/// A closure a hook can be made of with [`Hook::new`]: `Fn(&mut C) -> R`, or
/// `Fn(&mut C, &S) -> R` where `S` is state given to the builder
/// ([`HooksBuilder::state`](crate::HooksBuilder::state)). `R` is anything a
/// hook function may return.
///
/// Implemented for closures of other shapes too (the context shared, two
/// state values), so the compiler learns the event from the first parameter
/// and [`Hook::new`] refuses the shape in words naming it.
#[diagnostic::on_unimplemented(
    message = "this closure cannot be a hook",
    label = "expected `|ctx: &mut Ctx| ..` or `|ctx: &mut Ctx, state: &S| ..`, `Ctx` being the event's context",
    note = "annotate the closure's parameters with their types; a closure hook reads at most one state value, borrowed: `state: &S`"
)]
pub trait HookClosure<C, Args>: Send + Sync + 'static {
    /// What the closure returns.
    #[doc(hidden)]
    type Output;
    /// Whether the shape is one `Hook::new` takes ([`Fits`]), or why not.
    #[doc(hidden)]
    type Shape;
    /// The state type the closure reads (`()` for none).
    #[doc(hidden)]
    type State;
    #[doc(hidden)]
    fn __state() -> Vec<StateType>;
    #[doc(hidden)]
    fn __call(&self, ctx: &mut C, state: &State) -> Self::Output;
}

/// A closure an observer can be made of with [`Hook::observer`]: `Fn(&C) -> R`,
/// or `Fn(&C, &S) -> R` with state `S`; `R` is `()` or `Result<(), E>`.
#[diagnostic::on_unimplemented(
    message = "this closure cannot be an observer",
    label = "expected `|ctx: &Ctx| ..` or `|ctx: &Ctx, state: &S| ..`, `Ctx` being the event's context",
    note = "annotate the closure's parameters with their types; a closure hook reads at most one state value, borrowed: `state: &S`"
)]
pub trait ObserverClosure<C, Args>: Send + Sync + 'static {
    /// What the closure returns.
    #[doc(hidden)]
    type Output;
    /// Whether the shape is one `Hook::observer` takes ([`Fits`]), or why not.
    #[doc(hidden)]
    type Shape;
    /// The state type the closure reads (`()` for none).
    #[doc(hidden)]
    type State;
    #[doc(hidden)]
    fn __state() -> Vec<StateType>;
    /// Runs the closure (it takes `&mut C` so that a refused shape still has a body).
    #[doc(hidden)]
    fn __call(&self, ctx: &mut C, state: &State) -> Self::Output;
}

/// The closure shapes, by the traits they implement. A shape that neither
/// trait takes still implements one, with a [`Shape`](HookClosure::Shape)
/// saying why not: the compiler then knows the event, and the error names it.
pub(crate) mod shapes {
    use super::{HookClosure, ObserverClosure, State, StateType};

    /// A shape the constructor takes.
    #[doc(hidden)]
    pub struct Fits;
    /// A closure reading more than one state value.
    #[doc(hidden)]
    pub struct TooManyStates;
    /// A closure given to `Hook::new` that takes the context shared.
    #[doc(hidden)]
    pub struct SharedContext;
    /// A closure given to `Hook::observer` that takes the context mutably.
    #[doc(hidden)]
    pub struct MutableContext;

    /// The `Args` of a closure `|ctx: &C| ..` given to `Hook::new`, or
    /// `|ctx: &mut C| ..` given to `Hook::observer`: other than `()`.
    #[doc(hidden)]
    pub struct OtherBorrow;
    /// As [`OtherBorrow`], with one state value.
    #[doc(hidden)]
    pub struct OtherBorrowWith<S>(std::marker::PhantomData<S>);

    /// Closures read at most one state value: more is one struct.
    #[diagnostic::on_unimplemented(
        message = "a closure hook on `{C}` reads at most one state value",
        label = "this closure reads more than one",
        note = "put the values in one struct, give the builder that, and read it: `|ctx, limits: &Limits| ..` with `struct Limits {{ low: u64, high: u64 }}`"
    )]
    #[doc(hidden)]
    pub trait AtMostOneState<C> {}
    #[diagnostic::do_not_recommend]
    impl<C> AtMostOneState<C> for Fits {}
    #[diagnostic::do_not_recommend]
    impl<C> AtMostOneState<C> for SharedContext {}
    #[diagnostic::do_not_recommend]
    impl<C> AtMostOneState<C> for MutableContext {}

    /// `Hook::new` takes the context mutably (`|ctx: &mut C| ..`, to change
    /// the call) or shared (`|ctx: &C| ..`, a guard that only reads to decide).
    #[doc(hidden)]
    pub trait TakesMutably<C> {}
    #[diagnostic::do_not_recommend]
    impl<C> TakesMutably<C> for Fits {}
    #[diagnostic::do_not_recommend]
    impl<C> TakesMutably<C> for TooManyStates {}
    #[diagnostic::do_not_recommend]
    impl<C> TakesMutably<C> for SharedContext {}

    /// `Hook::observer` takes the context shared.
    #[diagnostic::on_unimplemented(
        message = "`Hook::observer` takes the context shared: `|ctx: &{C}| ..`",
        label = "this closure takes `&mut {C}`",
        note = "an observer runs after the decision and cannot change the call; to change it, use `Hook::new`"
    )]
    #[doc(hidden)]
    pub trait TakesShared<C> {}
    #[diagnostic::do_not_recommend]
    impl<C> TakesShared<C> for Fits {}
    #[diagnostic::do_not_recommend]
    impl<C> TakesShared<C> for TooManyStates {}

    impl<C, F, R> HookClosure<C, ()> for F
    where
        F: Fn(&mut C) -> R + Send + Sync + 'static,
    {
        type Output = R;
        type Shape = Fits;
        type State = ();

        fn __state() -> Vec<StateType> {
            Vec::new()
        }

        fn __call(&self, ctx: &mut C, _: &State) -> R {
            self(ctx)
        }
    }

    impl<C, F, R, S: 'static> HookClosure<C, (S,)> for F
    where
        F: Fn(&mut C, &S) -> R + Send + Sync + 'static,
    {
        type Output = R;
        type Shape = Fits;
        type State = S;

        fn __state() -> Vec<StateType> {
            vec![StateType::of::<S>()]
        }

        fn __call(&self, ctx: &mut C, state: &State) -> R {
            self(ctx, state.get(0))
        }
    }

    impl<C, F, R, S1: 'static, S2: 'static> HookClosure<C, (S1, S2)> for F
    where
        F: Fn(&mut C, &S1, &S2) -> R + Send + Sync + 'static,
    {
        type Output = R;
        type Shape = TooManyStates;
        type State = S1;

        fn __state() -> Vec<StateType> {
            vec![StateType::of::<S1>(), StateType::of::<S2>()]
        }

        fn __call(&self, ctx: &mut C, state: &State) -> R {
            self(ctx, state.get(0), state.get(1))
        }
    }

    impl<C, F, R> HookClosure<C, OtherBorrow> for F
    where
        F: Fn(&C) -> R + Send + Sync + 'static,
    {
        type Output = R;
        type Shape = SharedContext;
        type State = ();

        fn __state() -> Vec<StateType> {
            Vec::new()
        }

        fn __call(&self, ctx: &mut C, _: &State) -> R {
            self(ctx)
        }
    }

    impl<C, F, R, S: 'static> HookClosure<C, OtherBorrowWith<S>> for F
    where
        F: Fn(&C, &S) -> R + Send + Sync + 'static,
    {
        type Output = R;
        type Shape = SharedContext;
        type State = S;

        fn __state() -> Vec<StateType> {
            vec![StateType::of::<S>()]
        }

        fn __call(&self, ctx: &mut C, state: &State) -> R {
            self(ctx, state.get(0))
        }
    }

    impl<C, F, R> ObserverClosure<C, ()> for F
    where
        F: Fn(&C) -> R + Send + Sync + 'static,
    {
        type Output = R;
        type Shape = Fits;
        type State = ();

        fn __state() -> Vec<StateType> {
            Vec::new()
        }

        fn __call(&self, ctx: &mut C, _: &State) -> R {
            self(ctx)
        }
    }

    impl<C, F, R, S: 'static> ObserverClosure<C, (S,)> for F
    where
        F: Fn(&C, &S) -> R + Send + Sync + 'static,
    {
        type Output = R;
        type Shape = Fits;
        type State = S;

        fn __state() -> Vec<StateType> {
            vec![StateType::of::<S>()]
        }

        fn __call(&self, ctx: &mut C, state: &State) -> R {
            self(ctx, state.get(0))
        }
    }

    impl<C, F, R, S1: 'static, S2: 'static> ObserverClosure<C, (S1, S2)> for F
    where
        F: Fn(&C, &S1, &S2) -> R + Send + Sync + 'static,
    {
        type Output = R;
        type Shape = TooManyStates;
        type State = S1;

        fn __state() -> Vec<StateType> {
            vec![StateType::of::<S1>(), StateType::of::<S2>()]
        }

        fn __call(&self, ctx: &mut C, state: &State) -> R {
            self(ctx, state.get(0), state.get(1))
        }
    }

    impl<C, F, R> ObserverClosure<C, OtherBorrow> for F
    where
        F: Fn(&mut C) -> R + Send + Sync + 'static,
    {
        type Output = R;
        type Shape = MutableContext;
        type State = ();

        fn __state() -> Vec<StateType> {
            Vec::new()
        }

        fn __call(&self, ctx: &mut C, _: &State) -> R {
            self(ctx)
        }
    }
}

/// A hook added on the builder instead of by an attribute.
///
/// Runtime hooks join the same order as linked hooks (priority, then name),
/// get the same failure handling, and are scoped by the same filters. The
/// event is the closure's context type:
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
///
/// A closure may read state given to the builder, as attribute hooks do:
///
/// ```
/// use hooks_core::prelude::*;
///
/// struct Blocked(Vec<&'static str>);
///
/// let hooks = Hooks::builder()
///     .state(Blocked(vec!["rm", "dd"]))
///     .hook(Hook::new("blocklist", |ctx: &mut PreToolUse, blocked: &Blocked| {
///         if blocked.0.contains(&ctx.tool()) { Decision::deny("blocked tool") } else { Decision::Continue }
///     }))
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
    pub(crate) shape: Shape,
    pub(crate) observer: bool,
    pub(crate) shadow: bool,
    pub(crate) origin: Origin,
    pub(crate) state: Vec<StateType>,
    pub(crate) runner: Arc<dyn Run<C>>,
}

impl<C: Event> Hook<C> {
    /// A hook running a closure: `|ctx: &mut C| ..`, or `|ctx: &mut C, state: &S| ..`
    /// to read state `S` given to the builder. It may return anything a hook function may.
    /// A guard that only reads the call to decide may take it shared:
    ///
    /// ```
    /// use hooks_core::prelude::*;
    ///
    /// let no_rm = Hook::new("no_rm", |ctx: &PreToolUse| {
    ///     if ctx.tool() == "rm" { Decision::deny("no") } else { Decision::Continue }
    /// });
    /// # drop(no_rm);
    /// ```
    pub fn new<F, Args>(name: impl Into<String>, hook: F) -> Self
    where
        F: HookClosure<C, Args>,
        F::Shape: shapes::TakesMutably<C> + shapes::AtMostOneState<C>,
        F::State: StateRead,
        F::Output: HookOutput<C>,
        Args: 'static,
    {
        Self::with_runner(
            name,
            Shape::Sync,
            false,
            F::__state(),
            Arc::new(SyncClosure(hook, PhantomData)),
        )
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
        Self::with_runner(name, Shape::Async, false, Vec::new(), Arc::new(runner))
    }

    /// A hook running a closure that reads state `S` and returns a boxed future.
    pub fn new_async_with_state<F, S, R>(name: impl Into<String>, hook: F) -> Self
    where
        F: for<'a> Fn(&'a mut C, &'a S) -> BoxFuture<'a, R> + Send + Sync + 'static,
        S: StateValue,
        R: HookOutput<C> + 'static,
    {
        let runner = AsyncStateClosure(hook, PhantomData);
        let state = vec![StateType::of::<S>()];
        Self::with_runner(name, Shape::Async, false, state, Arc::new(runner))
    }

    /// A hook backed by a [`RuntimeHook`] implementation.
    pub fn from_runtime(name: impl Into<String>, hook: impl RuntimeHook<C>) -> Self {
        Self::with_runner(
            name,
            Shape::Async,
            false,
            Vec::new(),
            Arc::new(Stateless(hook)),
        )
    }

    /// An observer: runs after the decision, whatever it was, and sees it
    /// through [`denial`](crate::PreToolUse::denial), but cannot change the
    /// call. Its failures are logged, never acted on. For audit trails and
    /// metrics. Like [`new`](Self::new), it may read state: `|ctx: &C, state: &S| ..`.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use hooks_core::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Denied(AtomicUsize);
    ///
    /// let count_denials = Hook::observer("count_denials", |ctx: &PreToolUse, denied: &Denied| {
    ///     if ctx.denial().is_some() {
    ///         denied.0.fetch_add(1, Ordering::Relaxed);
    ///     }
    /// });
    /// let hooks = Hooks::builder().state(Denied::default()).hook(count_denials).build().unwrap();
    /// # drop(hooks);
    /// ```
    pub fn observer<F, Args>(name: impl Into<String>, hook: F) -> Self
    where
        F: ObserverClosure<C, Args>,
        F::Shape: shapes::TakesShared<C> + shapes::AtMostOneState<C>,
        F::State: StateRead,
        F::Output: ObserverOutput<C>,
        Args: 'static,
    {
        Self::with_runner(
            name,
            Shape::Sync,
            true,
            F::__state(),
            Arc::new(Observer(hook, PhantomData)),
        )
    }

    fn with_runner(
        name: impl Into<String>,
        shape: Shape,
        observer: bool,
        state: Vec<StateType>,
        runner: Arc<dyn Run<C>>,
    ) -> Self {
        Hook {
            name: HookName::from(name.into()),
            priority: 0,
            group: None,
            pattern: None,
            on_error: None,
            timeout: None,
            shape,
            observer,
            shadow: false,
            origin: Origin::Runtime,
            state,
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
    /// `OnError::Deny` fails closed: on a blocking event the call is denied;
    /// on `PostToolUse` the model gets an error naming the hook instead of
    /// the tool's result. On any other event it is refused when the
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

    /// Runs the hook in shadow: it runs, and what it would have decided
    /// (deny, ask, a rewrite) is recorded in the outcome, the tracing span
    /// and the audit record, but not enforced. The way to roll out a guard:
    /// shadow it for a week, read what it would have denied, then enforce.
    ///
    /// An observer enforces nothing, so marking one is refused at build.
    #[must_use]
    pub fn shadow(mut self) -> Self {
        self.shadow = true;
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
    pub(crate) inner: Arc<dyn Run<C>>,
    pub(crate) limit: Duration,
}

impl<C: Event> Run<C> for Timed<C> {
    fn run<'a>(&'a self, ctx: &'a mut C, state: &'a State) -> Deferred<'a, Verdict> {
        match self.inner.run(ctx, state) {
            Deferred::Later(future) => Deferred::Later(Box::pin(guard(Some(self.limit), future))),
            ready @ Deferred::Ready(_) => ready,
        }
    }
}

struct Stateless<H>(H);

impl<C, H: RuntimeHook<C>> Run<C> for Stateless<H> {
    fn run<'a>(&'a self, ctx: &'a mut C, _: &'a State) -> Deferred<'a, Verdict> {
        self.0.call(ctx)
    }
}

struct SyncClosure<F, Args>(F, PhantomData<fn() -> Args>);

impl<C, F, Args> Run<C> for SyncClosure<F, Args>
where
    F: HookClosure<C, Args>,
    F::Output: HookOutput<C>,
    Args: 'static,
{
    fn run<'a>(&'a self, ctx: &'a mut C, state: &'a State) -> Deferred<'a, Verdict> {
        Deferred::Ready(self.0.__call(ctx, state).into_verdict())
    }
}

struct Observer<F, Args>(F, PhantomData<fn() -> Args>);

impl<C, F, Args> Run<C> for Observer<F, Args>
where
    F: ObserverClosure<C, Args>,
    F::Output: ObserverOutput<C>,
    Args: 'static,
{
    fn run<'a>(&'a self, ctx: &'a mut C, state: &'a State) -> Deferred<'a, Verdict> {
        Deferred::Ready(self.0.__call(ctx, state).into_verdict())
    }
}

struct AsyncClosure<F, R>(F, PhantomData<fn() -> R>);

impl<C, F, R> Run<C> for AsyncClosure<F, R>
where
    C: Event,
    F: for<'a> Fn(&'a mut C) -> BoxFuture<'a, R> + Send + Sync + 'static,
    R: HookOutput<C> + 'static,
{
    fn run<'a>(&'a self, ctx: &'a mut C, _: &'a State) -> Deferred<'a, Verdict> {
        let future = (self.0)(ctx);
        Deferred::Later(Box::pin(async move { future.await.into_verdict() }))
    }
}

struct AsyncStateClosure<F, S, R>(F, PhantomData<fn() -> (S, R)>);

impl<C, F, S, R> Run<C> for AsyncStateClosure<F, S, R>
where
    C: Event,
    F: for<'a> Fn(&'a mut C, &'a S) -> BoxFuture<'a, R> + Send + Sync + 'static,
    S: StateValue,
    R: HookOutput<C> + 'static,
{
    fn run<'a>(&'a self, ctx: &'a mut C, state: &'a State) -> Deferred<'a, Verdict> {
        let future = (self.0)(ctx, state.get(0));
        Deferred::Later(Box::pin(async move { future.await.into_verdict() }))
    }
}
