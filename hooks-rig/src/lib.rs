//! Runs a [`hooks_core`] dispatcher inside [rig](https://docs.rs/rig-agent) agents.
//!
//! [`HooksHook`] implements rig's [`AgentHook`](rig_agent::agent::AgentHook):
//! add one value to an agent and every tool call, completion request and model
//! turn goes through the hooks.
//!
//! | rig | hooks |
//! |---|---|
//! | `on_run_start` (first run of the value) | `SessionStart` |
//! | `on_run_start` | `UserPromptSubmit`: a denial stops the run, a rewrite replaces the prompt |
//! | `on_dispatch`, completion | `PreModelRequest`: tool filters and parameter patches become a patched request |
//! | `on_outcome`, completion | `PostModelResponse`: text and tool-call rewrites replace the reply, a denial stops the run |
//! | `on_dispatch`, tool call | `PreToolUse` with rig's call id: a denial is rig's skip (the model reads the reason), a rewrite patches the arguments |
//! | `on_outcome`, tool call | `PostToolUse` / `PostToolUseFailure` (carrying the pre-hooks' rewrites and approvals): a rewrite replaces what the model reads; context the tool hooks inject follows the result |
//! | `on_run_settled` | `Stop` (observed: rig cannot keep a settled run going) |
//! | [`HooksHook::end_session`] | `SessionEnd` |
//! | [`HooksHook::sub_agent`] | `SubagentStart`, and a hook for the sub-agent on the parent's dispatcher |
//!
//! `PermissionRequest` and `Notification` are a host's permission dialog and
//! notices to its person; rig has neither, so they are not dispatched here.
//!
//! [`tool_facts`] gives the dispatcher's tool catalog what rig's tool
//! definitions say (input schemas, URL arguments), for guards to read.
//!
//! A hook that ends the session (`end_session` on any event's context, Claude
//! Code's `continue: false`) stops the rig run with its reason: a prompt or
//! run-start hook before any model call, a pre-hook before the tool or model
//! runs (rig's cancellation), a post-hook before the run goes on. The
//! [`HooksHook`] remembers it ([`HooksHook::session_ended`]): its later runs
//! and dispatches, and its sub-agents', stop at once with the same reason.
//!
//! ```no_run
//! use hooks_core::{Hooks, Session};
//! use hooks_rig::HooksHook;
//! use rig_agent::agent::AgentBuilder;
//! use rig_core::providers::openai::OpenAIConfig;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let hooks = Hooks::builder().build()?;
//! let model = OpenAIConfig::from_env()?.client().chat("gpt-4o-mini");
//! let agent = AgentBuilder::new(model)
//!     .add_hook(HooksHook::new(hooks, Session::new("s1")))
//!     .build();
//! # drop(agent);
//! # Ok(())
//! # }
//! ```

mod convert;
mod facts;
mod hook;
mod model;
mod run;
mod tool;

pub use facts::tool_facts;
pub use hook::HooksHook;
