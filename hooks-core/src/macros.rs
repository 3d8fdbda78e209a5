//! The attribute macros, documented where users find them.
//!
//! Every macro takes the same optional arguments:
//!
//! | argument | meaning | default |
//! |---|---|---|
//! | `priority = -5` | lower runs earlier; any `i32`, `i32::MIN` and `i32::MAX` included | `0` |
//! | `matches = "sql_*"` | only tool calls matching the pattern (tool events only; see [`Matcher`](crate::Matcher)) | every call |
//! | `name = "sql_guard"` | the hook's name, for ordering ties, scoping and audit | `module::path::fn_name` |
//! | `group = "db"` | a group, for scoping with [`HooksBuilder::groups`](crate::HooksBuilder::groups) | none |
//! | `timeout_ms = 500` | fail the hook if it runs longer (async hooks only) | none |
//! | `on_error = "continue"` | what a failure does: `"deny"` or `"continue"`; `"deny"` only on events that can block (`user_prompt_submit`, `pre_tool_use`, `stop`) and not on observers, which always continue — a compile error otherwise | `"deny"` on `user_prompt_submit` and `pre_tool_use`, else `"continue"` |
//! | `observe` | run after the decision, whatever it was; take `&Ctx`, see [`denial`](crate::PreToolUse::denial), change nothing (for audit) | off |
//! | `crate = my::reexport` | where `hooks_core` is, if you re-export it | `::hooks_core` |
//!
//! The function takes `&mut` its event's context and returns `()`,
//! [`Decision`](crate::Decision) (on events that may block) or a `Result` of
//! those. It may be `async` (its future must be `Send`). Misuse is a compile
//! error pointing at the offending token.
//!
//! An `observe` hook takes `&` the context and returns `()` or
//! `Result<(), E>`; observers run after every deciding hook, so an audit
//! trail records denied calls too:
//!
//! ```
//! use hooks_core::prelude::*;
//!
//! #[pre_tool_use(observe)]
//! fn log_denials(ctx: &PreToolUse) {
//!     if let Some(denial) = ctx.denial() {
//!         eprintln!("{} refused by {}: {}", ctx.tool(), denial.hook(), denial.reason());
//!     }
//! }
//! # fn main() {}
//! ```

/// Runs when a session starts; may inject context for the first turn.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[session_start]
/// fn conventions(ctx: &mut SessionStart) {
///     ctx.inject("This repository uses rustfmt defaults and denies warnings.");
/// }
/// # fn main() {}
/// ```
pub use hooks_macros::session_start;

/// Runs when the user submits a prompt; may block it, rewrite it, or inject context.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[user_prompt_submit]
/// fn no_pasted_keys(ctx: &mut UserPromptSubmit) -> Decision {
///     if ctx.prompt().contains("sk-live-") {
///         Decision::deny("the prompt contains what looks like a live API key; remove it and resend")
///     } else {
///         Decision::Continue
///     }
/// }
/// # fn main() {}
/// ```
pub use hooks_macros::user_prompt_submit;

/// Runs before each request to the model; may narrow the tools offered and change parameters.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[pre_model_request]
/// fn no_shell_for_guests(ctx: &mut PreModelRequest) {
///     if ctx.session().user_id().is_none() {
///         ctx.exclude_tools(&["Bash"]);
///     }
/// }
/// # fn main() {}
/// ```
pub use hooks_macros::pre_model_request;

/// Runs before a tool call; may deny it, ask a person, rewrite its arguments, or inject context.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[pre_tool_use(priority = -10, matches = "Bash(rm -rf *)")]
/// fn no_rm_rf(ctx: &mut PreToolUse) -> Decision {
///     Decision::deny(format!("`{}` is destructive; delete specific files instead", ctx.subject().unwrap_or_default()))
/// }
///
/// #[pre_tool_use(matches = "payments_*", timeout_ms = 2_000)]
/// async fn large_payments_need_a_human(ctx: &mut PreToolUse) -> Decision {
///     match ctx.args()["amount"].as_u64() {
///         Some(amount) if amount > 10_000 => Decision::ask(format!("Pay {amount}?")),
///         _ => Decision::Continue,
///     }
/// }
/// # fn main() {}
/// ```
pub use hooks_macros::pre_tool_use;

/// Runs after a tool call; may rewrite the result or inject context, but cannot block.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[post_tool_use(matches = "read_file")]
/// fn redact_keys(ctx: &mut PostToolUse) {
///     if let Ok(Value::String(text)) = ctx.result_mut() {
///         *text = text.replace("AKIA", "[redacted]AKIA");
///     }
/// }
/// # fn main() {}
/// ```
pub use hooks_macros::post_tool_use;

/// Runs when the agent wants to stop; returning `Decision::Deny(reason)` keeps it going.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[stop]
/// fn finish_the_checklist(ctx: &mut Stop) -> Decision {
///     let said_done = ctx.last_message().is_some_and(|m| m.contains("All tests pass"));
///     if said_done || ctx.stop_hook_active() {
///         Decision::Continue
///     } else {
///         Decision::deny("run the test suite and report the result before stopping")
///     }
/// }
/// # fn main() {}
/// ```
pub use hooks_macros::stop;

/// Runs when the session is over; can neither block nor inject.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[session_end]
/// fn farewell(ctx: &mut SessionEnd) {
///     tracing::info!(session = ctx.session().id(), reason = ctx.reason(), "session ended");
/// }
/// # mod tracing { macro_rules! info { ($($t:tt)*) => {} } pub(crate) use info; }
/// # fn main() {}
/// ```
pub use hooks_macros::session_end;
