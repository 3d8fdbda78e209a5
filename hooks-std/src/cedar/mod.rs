//! **cedar**: tool calls decided by Cedar policies — written, reviewed and
//! tested by a security team without Rust.
//!
//! The policy is a [`CedarGuard`], state of the dispatcher that runs it,
//! built from a [`Cedar`] configuration (the `[cedar]` table). Each call is
//! a Cedar request:
//!
//! - **principal**: `User::"<user>"` when the session has a user, else
//!   `Agent::"<agent>"`. What it is a member of (`principal in
//!   Group::"finance"`) and its attributes come from the entities file —
//!   never from the session, which a caller may fill;
//! - **action**: `Action::"call_tool"`; through the gateway,
//!   `Action::"read_resource"` (`resources:read`) and
//!   `Action::"get_prompt"` (`prompts:get:NAME`);
//! - **resource**: `Tool::"<name>"`, with the tool catalog's facts as
//!   attributes (`read_only`, `destructive`, `idempotent`, `open_world` —
//!   each only when a trusted source declared it —, `origin`, `server`) and
//!   the parents and attributes the entities file gives it (a tenant);
//! - **context**: `args`, the call's arguments as a record, and `session`
//!   (`id`, `agent`, `user`, `tenant` from metadata `tenant`, `client` from
//!   metadata `mcp.client`, and all of `metadata`).
//!
//! A call runs if a `permit` applies and no `forbid` does (forbid wins), or,
//! with `default = "allow"`, if no `forbid` does. A denial names the
//! policies that decided: the refusal's kind is `policy_denied`, its data
//! `{"policies": [...], "principal", "action", "resource"}`, and so the
//! audit record's `cause`. A policy is named by its `@id("...")`, or
//! `FILE#N` (its place in its file).
//!
//! It fails closed: a policy that cannot be evaluated for a call (a string
//! compared as a number, an attribute missing), an argument Cedar cannot
//! hold exactly (a fraction, a number beyond 64 bits, `null` in a list,
//! nesting over 32 deep), or policies that do not validate, deny the call
//! (kind `policy_error`). A `null` member of an object is a key not given.
//! A tool name not in the catalog that looks like one that is (another
//! case, another namespace before `__`) is denied.
//!
//! Tools no policy could permit the session (no `permit` whose scope
//! matches, or a `forbid` without conditions that does) are taken out of
//! `pre_model_request` tool lists — so the gateway does not list them.
//!
//! The schema is generated from the tool catalog (see [`CedarGuard::validate`]):
//! a policy naming a tool, argument, attribute or action that does not
//! exist is refused with its file and line. The files are looked at again
//! at most every `reload_ms` on a call; a change that does not parse or
//! validate keeps the policies in force and is reported
//! ([`CedarGuard::problem`], and a `tracing` error).
//!
//! ```
//! use hooks_core::prelude::*;
//! use hooks_core::ToolFacts;
//! use hooks_std::cedar::{Cedar, CedarGuard};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::env::temp_dir().join(format!("cedar-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! std::fs::write(dir.join("refunds.cedar"), r#"
//!     @id("small-refunds")
//!     permit(principal, action == Action::"call_tool", resource == Tool::"refund")
//!     when { context.args has amount && context.args.amount <= 100 };
//! "#)?;
//! let hooks = Hooks::builder()
//!     .only(["hooks_std::cedar::guard"])
//!     .tools([ToolFacts::new("refund").schema(json!({
//!         "type": "object", "properties": {"amount": {"type": "integer"}}
//!     }))])
//!     .state(CedarGuard::new(Cedar::new(dir.join("refunds.cedar")))?)
//!     .build()?;
//! hooks.state::<CedarGuard>().unwrap().validate(hooks.catalog())?;
//!
//! let session = Session::new("s").with_user("ann");
//! let mut small = PreToolUse::new(&session, "refund", json!({"amount": 40}));
//! assert!(hooks.dispatch(&mut small).await.is_continue());
//! let mut large = PreToolUse::new(&session, "refund", json!({"amount": "50000"}));
//! assert!(hooks.dispatch(&mut large).await.is_denied());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
//!
//! What Cedar decides is only as true as its facts: the arguments are what
//! the model sent (a policy on `amount` judges the amount asked for, not
//! what the tool does with it), and the entities are what the file says.

mod config;
mod entities;
mod files;
mod guard;
mod schema;
mod value;

pub use config::{Cedar, DefaultDecision, SchemaCheck};
pub use guard::{CedarGuard, DEFAULT_ALLOW};

/// The guard's hooks, for [`HooksBuilder::shadow_hooks`](hooks_core::HooksBuilder::shadow_hooks)
/// (and `only`, `without`).
pub const HOOKS: [&str; 2] = ["hooks_std::cedar::guard", "hooks_std::cedar::offer"];

use hooks_core::ToolCatalog;
use hooks_core::prelude::*;

/// Denies the calls the Cedar policies do not permit.
#[pre_tool_use(group = "hooks_std", priority = -1100)]
fn guard(ctx: &mut PreToolUse, guard: &CedarGuard, catalog: &ToolCatalog) -> Decision {
    guard.check(ctx, catalog)
}

/// Offers only the tools some Cedar policy could permit.
#[pre_model_request(group = "hooks_std", priority = -1100)]
fn offer(ctx: &mut PreModelRequest, guard: &CedarGuard, catalog: &ToolCatalog) {
    guard.offer(ctx, catalog);
}
