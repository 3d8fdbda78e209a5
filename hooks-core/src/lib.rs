//! Compile-time lifecycle hooks for Rust agents.
//!
//! A *hook* is code that runs outside the model at a fixed point of an agent's
//! lifecycle: the model cannot see it, argue with it, or skip it. Annotate a
//! function, and it is registered at link time, type-checked against its event,
//! and run by a dispatcher that allocates nothing once built.
//!
//! ```
//! use hooks_core::prelude::*;
//!
//! #[pre_tool_use(priority = 5, matches = "sql_*")]
//! fn read_only_sql(ctx: &mut PreToolUse) -> Decision {
//!     match ctx.args()["query"].as_str() {
//!         Some(q) if q.trim_start().to_ascii_uppercase().starts_with("DROP") => {
//!             Decision::deny("DROP is not allowed")
//!         }
//!         _ => Decision::Continue,
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let hooks = Hooks::builder().build().unwrap();
//! let sql = hooks.tool("sql_query");
//! let session = Session::new("demo");
//!
//! let mut call = PreToolUse::new(&session, "sql_query", json!({"query": "DROP TABLE users"}));
//! assert!(sql.dispatch(&mut call).await.is_denied());
//! # }
//! ```
//!
//! # Events
//!
//! | event | attribute | context | may block | may rewrite | may inject |
//! |---|---|---|---|---|---|
//! | session start | [`#[session_start]`](macro@session_start) | [`SessionStart`] | no | — | yes |
//! | prompt submitted | [`#[user_prompt_submit]`](macro@user_prompt_submit) | [`UserPromptSubmit`] | yes | the prompt | yes |
//! | model request | [`#[pre_model_request]`](macro@pre_model_request) | [`PreModelRequest`] | no | tools offered, parameters | yes |
//! | model answered | [`#[post_model_response]`](macro@post_model_response) | [`PostModelResponse`] | yes (discard the reply) | text, requested tool calls | yes |
//! | before a tool | [`#[pre_tool_use]`](macro@pre_tool_use) | [`PreToolUse`] | yes (deny, or ask a person) | arguments | yes |
//! | permission dialog | [`#[permission_request]`](macro@permission_request) | [`PermissionRequest`] | yes (deny; or grant: `ctx.grant()`) | the input, with a grant | no |
//! | after a tool | [`#[post_tool_use]`](macro@post_tool_use) | [`PostToolUse`] | no | result | yes |
//! | a tool failed | [`#[post_tool_use_failure]`](macro@post_tool_use_failure) | [`PostToolUseFailure`] | no | the error | yes |
//! | notification | [`#[notification]`](macro@notification) | [`Notification`] | no | — | no |
//! | sub-agent spawned | [`#[subagent_start]`](macro@subagent_start) | [`SubagentStart`] | yes (refuse to spawn) | — | yes |
//! | sub-agent stops | [`#[subagent_stop]`](macro@subagent_stop) | [`SubagentStop`] | yes (keep going) | — | yes |
//! | before compaction | [`#[pre_compact]`](macro@pre_compact) | [`PreCompact`] | no | — | yes |
//! | stop | [`#[stop]`](macro@stop) | [`Stop`] | yes (keep going) | — | yes |
//! | session end | [`#[session_end]`](macro@session_end) | [`SessionEnd`] | no | — | no |
//!
//! A hook returns `()`, [`Decision`] (on events that may block), or a
//! `Result` of those whose error is `Display`; the compiler refuses anything else.
//!
//! # Dispatch semantics
//!
//! - **Order**: by priority (lower first), then name — whatever the link order.
//!   Runtime hooks join the same order.
//! - **Veto**: the first `Deny` stops the chain; `Ask` waits for an
//!   [`Approver`], and no answer by the timeout (or no approver) denies.
//!   On `PermissionRequest` (the host's own dialog) a `Deny` wins over any
//!   grant and an `Ask` leaves the call to the person the host asks.
//! - **Chaining**: rewrites are seen by every later hook and by the tool.
//! - **Injection**: concatenated in order within a byte budget (10 KiB); cuts are reported.
//! - **Failure**: panics, `Err`s and timeouts never escape. `UserPromptSubmit`,
//!   `PostModelResponse`, `PreToolUse`, `PermissionRequest` and `SubagentStart` fail closed; other
//!   events fail open with a warning; `on_error` overrides (`"deny"` on
//!   `PostToolUse` withholds the result).
//! - **Cost**: sync hooks dispatch without allocating; a [`ToolHandle`] runs
//!   only the hooks that can match its tool.
//! - **State**: a hook reads values given to its dispatcher by taking `&T`
//!   after its context ([`HooksBuilder::state`]); resolved at `build()`, a
//!   missing value is a build error naming the hook and the type.
//! - **Scoping**: [`groups`](HooksBuilder::groups), `without_groups`, `only`
//!   and `without` pick linked, runtime and config hooks alike.
//!
//! # Layout
//!
//! `verdict` (what hooks decide), `context` (what they see), `registry`
//! (what hooks there are, with their state, built once into [`Hooks`]) and
//! `dispatch` (running them; its module docs tell one dispatch in ten
//! lines), each using only those before it.
//!
//! # Linking hooks from another crate
//!
//! The linker drops a crate nothing refers to, and its hooks with it. If a
//! crate only holds hooks, refer to it once, and make start-up fail if its
//! hooks are missing:
//!
//! ```ignore
//! hooks_core::link!(my_guards);
//!
//! let hooks = Hooks::builder().require(["my_guards::no_drop_table"]).build()?;
//! ```

// Leaves: no imports from the folders below.
mod event;
mod matcher;
mod name;
mod session;
// The tool catalog: facts about tools, below everything that reads them.
mod catalog;
// Folders, each depending only on those above it and on the leaves.
pub mod context;
mod dispatch;
mod registry;
mod verdict;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use catalog::{ArgFact, ArgRole, Fact, Source, ToolCatalog, ToolFacts, UnknownRole};
pub use context::{
    ArgsNotObject, CompactTrigger, Injection, RequestedCall, Role, ToolCall, ToolError,
};
pub use dispatch::{Now, RunError, ToolHandle, ToolRun, Waiting};
pub use event::{EventKind, OnError};
pub use matcher::{Matcher, PatternError};
#[cfg(feature = "shell")]
pub use matcher::{NotAllowed, ShellAllowList};
pub use name::HookName;
pub use registry::{
    AfterToolUse, BuildError, BuildProblem, DEFAULT_STOP_DENIAL_CAP, Description, Event, Hook,
    HookClosure, HookInfo, Hooks, HooksBuilder, ObserverClosure, Origin, RuntimeHook, StateValue,
    ToolEvent, ToolHook, ToolHooks,
};
pub use serde_json::{Value, json};
pub use session::Session;
/// Re-exports every context type (generated from the event table).
macro_rules! contexts {
    ($($kind:ident { $($rest:tt)* })*) => {
        pub use context::{$($kind),*};
    };
}
hooks_events::for_each_event!(contexts);

pub use verdict::{
    Approval, ApprovalAnswer, ApprovalOutcome, ApprovalRecord, ApprovalRequest, Approver,
    BoxFuture, Decision, Deferred, Denial, DenialCause, HookError, HookOutput, MessageLevel, Notes,
    ObserverOutput, Outcome, Redact, Refusal, Verdict, printable,
};

/// The parts of [`Notes`]: what hooks said during a dispatch besides their
/// decision. Read them from [`Outcome::notes`]; a hook writes them through
/// its context (`ctx.user_message(..)`, `ctx.warn(..)`, `ctx.end_session(..)`).
pub mod notes {
    pub use crate::verdict::{
        EndSession, MessageLevel, Notes, Shadowed, StopCapped, UserMessage, Warning, Would,
    };
}

#[cfg(feature = "macros")]
mod macros;
#[cfg(feature = "macros")]
pub use macros::*;

/// Links crates whose only job is to define hooks.
///
/// The linker drops a dependency nothing refers to, and the hooks in it
/// vanish without a word. One line at the top of `main.rs` (or `lib.rs`) keeps them:
///
/// ```ignore
/// hooks_core::link!(billing_guards, audit_hooks);
/// ```
///
/// Pair it with [`HooksBuilder::require`] so start-up fails if they go missing anyway.
#[macro_export]
macro_rules! link {
    ($($krate:ident),+ $(,)?) => {
        $(
            #[allow(unused_imports)]
            use $krate as _;
        )+
    };
}

/// Everything a hook author needs: `use hooks_core::prelude::*;`.
pub mod prelude {
    #[cfg(feature = "macros")]
    pub use crate::macros::*;
    pub use crate::{
        Approval, ApprovalAnswer, CompactTrigger, Decision, Deferred, Hook, Hooks, Injection,
        MessageLevel, Now, OnError, Outcome, RequestedCall, Session, ToolError, ToolHandle,
        ToolRun, Value, json,
    };

    macro_rules! contexts {
        ($($kind:ident { $($rest:tt)* })*) => {
            pub use crate::{$($kind),*};
        };
    }
    hooks_events::for_each_event!(contexts);
}
