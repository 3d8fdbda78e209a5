//! The link-time registry: one distributed slice per event, filled by the
//! attribute macros from every crate linked into the binary, and one for
//! the defaults crates offer for the state their hooks read.
//!
//! Everything here is built in `static`s by generated code, so it is plain
//! data: no calls to evaluate at compile time beyond what a literal needs.

use linkme::distributed_slice;

use crate::event::OnError;
use crate::registry::state::{StateDefault, StateType};
use crate::verdict::{BoxFuture, Verdict};

/// A hook registered by an attribute macro.
#[doc(hidden)]
pub struct LinkedHook<C: 'static> {
    pub name: &'static str,
    pub priority: i32,
    pub group: Option<&'static str>,
    /// The `matches` pattern as written, and compiled by the macro.
    pub matches: Option<(
        &'static str,
        &'static [hooks_pattern::Alternative<&'static str>],
    )>,
    pub on_error: Option<OnError>,
    /// Milliseconds; 0 for none.
    pub timeout_ms: u64,
    pub observe: bool,
    /// The state the hook reads, in parameter order.
    pub state: &'static [StateType],
    pub file: &'static str,
    pub line: u32,
    pub run: HookFn<C>,
}

/// The generated wrapper around a hook function.
#[doc(hidden)]
pub enum HookFn<C: 'static> {
    /// A plain `fn`: a call and its verdict. Observers' wrappers take `&mut`
    /// too and hand the hook a shared borrow.
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
