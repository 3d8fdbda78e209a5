//! The registry: what hooks there are and how to run them. Linked hooks
//! (the link-time slices the attribute macros fill), runtime hooks added on
//! the builder, the state they read, and the builder that scopes, sorts,
//! checks and resolves them all into a [`Hooks`] dispatcher once. Nothing
//! here runs a hook; `dispatch` does.

mod builder;
mod describe;
mod event;
pub(crate) mod hook;
mod hooks;
pub(crate) mod linked;
mod problem;
pub(crate) mod state;
pub(crate) mod table;

pub use builder::{DEFAULT_STOP_DENIAL_CAP, HooksBuilder};
pub use describe::{Description, HookInfo, ToolHook, ToolHooks};
pub use event::{AfterToolUse, Event, ToolEvent};
pub use hook::{Hook, HookClosure, ObserverClosure, RuntimeHook};
pub use hooks::Hooks;
pub use problem::{BuildError, BuildProblem};
pub use state::StateValue;
pub use table::Origin;
