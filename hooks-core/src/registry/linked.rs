//! The link-time registry: one distributed slice per event, filled by the
//! attribute macros from every crate linked into the binary, and one for
//! the defaults crates offer for the state their hooks read.
//!
//! Everything here is built in `static`s by generated code, so it is plain
//! data: no calls to evaluate at compile time beyond what a literal needs.

use linkme::distributed_slice;

use crate::event::OnError;
use crate::registry::state::{StateDefault, StateType};
use crate::verdict::{BoxFuture, Decision, Verdict};

/// A hook registered by an attribute macro.
///
/// Lean on purpose: every field costs compile time in every hook's static
/// (BENCHMARKS.md, "Compile cost"), so what few hooks set sits behind `more`,
/// shared by all the others.
#[doc(hidden)]
pub struct LinkedHook<C: 'static> {
    pub name: &'static str,
    pub priority: i32,
    /// The `matches` pattern as written (checked when the macro expanded,
    /// compiled when a dispatcher is built); empty for none, which the
    /// macro refuses as a pattern.
    pub matches: &'static str,
    pub file: &'static str,
    pub line: u32,
    pub run: HookFn<C>,
    pub more: &'static More,
}

/// The options few hooks set.
#[doc(hidden)]
pub struct More {
    pub group: Option<&'static str>,
    pub on_error: Option<OnError>,
    /// Milliseconds; 0 for none.
    pub timeout_ms: u64,
    pub observe: bool,
    /// Runs in shadow: decides, but is not enforced.
    pub shadow: bool,
    /// The state the hook reads, in parameter order.
    pub state: &'static [StateType],
}

/// The options of a hook that sets none.
#[doc(hidden)]
pub static NO_MORE: More = More {
    group: None,
    on_error: None,
    timeout_ms: 0,
    observe: false,
    shadow: false,
    state: &[],
};

/// How to call a linked hook. The common shapes — `fn(&mut Ctx)`,
/// `fn(&mut Ctx) -> Decision`, an observer's `fn(&Ctx)` — are the user's
/// own function, called directly: no wrapper to compile, no extra call.
/// Other shapes get a generated wrapper.
#[doc(hidden)]
pub enum HookFn<C: 'static> {
    /// `fn(&mut Ctx)`.
    Unit(fn(&mut C)),
    /// `fn(&mut Ctx) -> Decision` (on events that may block).
    Decide(fn(&mut C) -> Decision),
    /// An observer's `fn(&Ctx)`.
    Observe(fn(&C)),
    /// A wrapper around any other plain `fn`: state, a `Result`, an observer's `Result`.
    Plain(fn(&mut C, &crate::registry::state::State) -> Verdict),
    /// A plain `fn` returning `Deferred`: an answer now, or a future.
    Deferred(StartFn<C>),
    /// An `async fn`: always a future.
    Async(StartFn<C>),
}

/// A hook that may have to wait: it takes the context for the whole
/// dispatch and hands it back, now or when its future is done.
#[doc(hidden)]
pub type StartFn<C> = for<'a> fn(&'a mut C, &'a crate::registry::state::State) -> Started<'a, C>;

/// What a hook that may wait came to: its verdict now, with the context
/// back, or a future that hands both back when done.
#[doc(hidden)]
pub enum Started<'a, C> {
    Ready(Verdict, &'a mut C),
    Pending(HandBack<'a, C>),
}

/// The future of a hook that waits: its verdict, and the context back. It
/// catches the hook's panics and enforces its timeout, so the dispatcher
/// needs no future of its own to go on.
#[doc(hidden)]
pub type HandBack<'a, C> = BoxFuture<'a, (Verdict, &'a mut C)>;

macro_rules! slices {
    ($($kind:ident { attr: $attr:ident, slice: $slice:ident, $($rest:tt)* })*) => {$(
        // Versioned, prefixed names: a user's own statics cannot collide with
        // them, and an incompatible layout gets a new slice, not a silent mismatch.
        #[doc(hidden)]
        #[distributed_slice]
        pub static $slice: [LinkedHook<crate::context::$kind>];
    )*};
}

hooks_events::for_each_event!(slices);

#[doc(hidden)]
#[distributed_slice]
pub static __HOOKS_CORE_V1_STATE_DEFAULTS: [StateDefault];

/// State types whose hooks run only in dispatchers given a value of them
/// ([`opt_in!`](crate::opt_in)).
#[doc(hidden)]
#[distributed_slice]
pub static __HOOKS_CORE_V1_OPT_IN: [StateType];
