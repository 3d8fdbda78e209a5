//! State for hooks: values the application gives the builder
//! ([`HooksBuilder::state`](crate::HooksBuilder::state)), which hooks read
//! by taking `&T` after their context. Each hook's state is resolved once, at
//! `build()`; reading it during dispatch is a type check, no allocation.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// A type hooks can read as state: shared by every call of the dispatcher,
/// on any thread, for as long as the dispatcher lives.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be hook state",
    label = "hook state must be `Send + Sync + 'static`",
    note = "state is shared by every call of the dispatcher, on any thread: wrap what is not `Sync` in a `Mutex`, and hold owned values or `Arc`s, not borrows"
)]
pub trait StateValue: Any + Send + Sync {}

impl<T: Any + Send + Sync> StateValue for T {}

/// What a hook's state parameter needs: read by reference from any thread
/// (`Sync`) for as long as the dispatcher lives (`'static`). The value given
/// to the builder must also be `Send` ([`StateValue`]); checking only `Sync`
/// where a hook reads it makes `&Rc<T>` one error, not one per auto trait.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be hook state",
    label = "hook state must be `Send + Sync + 'static`",
    note = "state is shared by every call of the dispatcher, on any thread: use `Arc` rather than `Rc`, a `Mutex` or an atomic rather than a `Cell` or `RefCell`, and hold owned values, not borrows"
)]
pub trait StateRead: Any + Sync {}

impl<T: Any + Sync> StateRead for T {}

/// A state type a hook reads (built by generated code).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct StateType {
    pub id: fn() -> TypeId,
    pub name: fn() -> &'static str,
}

impl StateType {
    pub(crate) fn of<T: Any>() -> Self {
        StateType {
            id: TypeId::of::<T>,
            name: std::any::type_name::<T>,
        }
    }
}

impl fmt::Debug for StateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str((self.name)())
    }
}

/// A shared value of some state type.
pub(crate) type Shared = Arc<dyn Any + Send + Sync>;

/// The state one hook reads, in parameter order, resolved at `build()`.
#[doc(hidden)]
#[derive(Clone, Default)]
pub struct State(Box<[Shared]>);

impl State {
    pub(crate) fn new(values: Vec<Shared>) -> Self {
        State(values.into_boxed_slice())
    }

    /// The `index`th value; its type was checked when the dispatcher was built.
    ///
    /// # Panics
    ///
    /// Only on a bug of ours: `build()` resolves every hook's state by type.
    #[inline]
    pub fn get<T: Any>(&self, index: usize) -> &T {
        self.0
            .get(index)
            .and_then(|value| value.downcast_ref())
            .expect("hook state is resolved by type when the dispatcher is built")
    }
}

/// The values given to the builder, by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap(HashMap<TypeId, (Shared, &'static str)>);

impl StateMap {
    pub(crate) fn insert<T: StateValue>(&mut self, value: Arc<T>) {
        self.0
            .insert(TypeId::of::<T>(), (value, std::any::type_name::<T>()));
    }

    pub(crate) fn insert_shared(&mut self, ty: StateType, value: Shared) {
        self.0.insert((ty.id)(), (value, (ty.name)()));
    }

    pub(crate) fn get(&self, ty: StateType) -> Option<&Shared> {
        self.0.get(&(ty.id)()).map(|(value, _)| value)
    }

    pub(crate) fn get_typed<T: StateValue>(&self) -> Option<&T> {
        self.0
            .get(&TypeId::of::<T>())
            .and_then(|(value, _)| value.downcast_ref())
    }

    /// The type names, sorted, for `Debug`.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        let mut names: Vec<_> = self.0.values().map(|(_, name)| *name).collect();
        names.sort_unstable();
        names
    }
}

/// Makes a state type a dispatcher's choice: a hook whose policy is `T` — its
/// first state parameter — runs only in a dispatcher given a `T` (by
/// [`state`](crate::HooksBuilder::state), or a configuration table that sets
/// it); in any other dispatcher it is left out, as if it were not linked.
/// Linking a crate, or turning on its feature, then changes no dispatcher
/// that did not ask. A hook reading `T` after its policy only needs it: a
/// value given, or a [`default_state!`](crate::default_state) made.
///
/// This is how `hooks-std`'s standard hooks are opt-in: the read-only guard
/// runs where a `ReadOnlyGuard` is given, the audit log where an `Auditor` is.
///
/// ```
/// use hooks_core::prelude::*;
///
/// pub struct Quota { pub max_calls: u32 }
///
/// hooks_core::opt_in!(Quota);
///
/// #[pre_tool_use(group = "quota_doc")]
/// fn enforce(_ctx: &mut PreToolUse, quota: &Quota) -> Decision {
///     if quota.max_calls == 0 { Decision::deny("no calls allowed") } else { Decision::Continue }
/// }
///
/// // Not given a `Quota`: the hook is left out, and building is no error.
/// let plain = Hooks::builder().groups(["quota_doc"]).build().unwrap();
/// assert_eq!(plain.count::<PreToolUse>(), 0);
/// // Given one: it runs.
/// let limited = Hooks::builder().groups(["quota_doc"]).state(Quota { max_calls: 0 }).build().unwrap();
/// assert_eq!(limited.count::<PreToolUse>(), 1);
/// ```
#[macro_export]
macro_rules! opt_in {
    ($ty:ty) => {
        const _: () = {
            #[$crate::__private::linkme::distributed_slice(
                $crate::__private::__HOOKS_CORE_V1_OPT_IN
            )]
            #[linkme(crate = $crate::__private::linkme)]
            static OPT_IN: $crate::__private::StateType = $crate::__private::StateType {
                id: ::core::any::TypeId::of::<$ty>,
                name: ::core::any::type_name::<$ty>,
            };
        };
    };
}

/// A default for a state type, offered by the crate whose hooks read it
/// ([`default_state!`](crate::default_state)): used by a dispatcher whose
/// builder was given no value of that type, made afresh for each dispatcher.
#[doc(hidden)]
pub struct StateDefault {
    pub ty: StateType,
    pub make: fn() -> Result<Shared, String>,
    pub file: &'static str,
    pub line: u32,
}

/// Offers a default for a state type, so that hooks reading it work without
/// the application providing a value. Each dispatcher built without a value
/// of that type gets its own, made when it is built: by `T::default()`
/// (`default_state!(T)`), or by `make`, a `fn() -> Result<T, E>` with
/// `E: Display` (`default_state!(T, make)`), whose failure is a build error.
///
/// This is how a crate lets its hooks work without the application providing a
/// value (for policies a dispatcher must ask for, see [`opt_in!`](crate::opt_in)):
///
/// ```
/// use hooks_core::prelude::*;
///
/// pub struct Limits { pub max_calls: u32 }
///
/// impl Limits {
///     fn defaults() -> Result<Self, std::convert::Infallible> {
///         Ok(Limits { max_calls: 100 })
///     }
/// }
///
/// hooks_core::default_state!(Limits, Limits::defaults);
///
/// #[pre_tool_use(group = "limits_doc")]
/// fn enforce(_ctx: &mut PreToolUse, limits: &Limits) -> Decision {
///     if limits.max_calls == 0 { Decision::deny("no calls allowed") } else { Decision::Continue }
/// }
///
/// // No `.state(Limits { .. })`: the default is made for this dispatcher.
/// let hooks = Hooks::builder().groups(["limits_doc"]).build().unwrap();
/// assert_eq!(hooks.state::<Limits>().unwrap().max_calls, 100);
/// ```
#[macro_export]
macro_rules! default_state {
    ($ty:ty) => {
        $crate::default_state!($ty, $crate::__private::infallible_default::<$ty>);
    };
    ($ty:ty, $make:expr) => {
        const _: () = {
            #[$crate::__private::linkme::distributed_slice(
                $crate::__private::__HOOKS_CORE_V1_STATE_DEFAULTS
            )]
            #[linkme(crate = $crate::__private::linkme)]
            static DEFAULT: $crate::__private::StateDefault = $crate::__private::StateDefault {
                ty: $crate::__private::StateType {
                    id: ::core::any::TypeId::of::<$ty>,
                    name: ::core::any::type_name::<$ty>,
                },
                make: || {
                    $crate::__private::shared_default::<$ty>(
                        $crate::__private::MakeDefault::<$ty>::make($make),
                    )
                },
                file: ::core::file!(),
                line: ::core::line!(),
            };
        };
    };
}
