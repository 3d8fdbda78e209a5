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
//! | `on_error = "continue"` | what a failure does: `"deny"` or `"continue"`; `"deny"` only on events that can block or withhold what they hand on (`user_prompt_submit`, `post_model_response`, `pre_tool_use`, `permission_request`, `post_tool_use`, `post_tool_use_failure`, `subagent_start`, `subagent_stop`, `stop`) and not on observers, which always continue — a compile error otherwise | `"deny"` on `user_prompt_submit`, `post_model_response`, `pre_tool_use`, `permission_request` and `subagent_start`, else `"continue"` |
//! | `observe` | run after the decision, whatever it was; take `&Ctx`, see [`denial`](crate::PreToolUse::denial), change nothing (for audit) | off |
//! | `crate = my::reexport` | where `hooks_core` is, if you re-export it | `::hooks_core` |
//!
//! The function takes `&mut` its event's context, then any state it reads
//! (`&T`, given to the builder with [`state`](crate::HooksBuilder::state)),
//! and returns `()`, [`Decision`](crate::Decision) (on events that may block),
//! a `Result` of those, or a [`Deferred`](crate::Deferred) of those. It may be
//! `async` (its future must be `Send`). Misuse is a compile error pointing at
//! the offending token.
//!
//! A hook is a free function: in an `impl` block nothing outside can name
//! it (rustc then says it cannot find the function). State is found by its
//! type, so a hook reads each type once (a second parameter of the same type
//! is a compile error, or a build error when a type alias hides it), and a
//! runtime closure ([`Hook::new`](crate::Hook::new)) reads at most one value.
//!
//! ```standalone_crate
//! use hooks_core::prelude::*;
//!
//! struct Allowed { tools: Vec<String> }
//!
//! #[pre_tool_use]
//! fn allow_list(ctx: &mut PreToolUse, allowed: &Allowed) -> Decision {
//!     if allowed.tools.iter().any(|tool| tool == ctx.tool()) {
//!         Decision::Continue
//!     } else {
//!         Decision::deny(format!("`{}` is not on this deployment's allow-list", ctx.tool()))
//!     }
//! }
//! # fn main() {}
//! ```
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

macro_rules! attribute_macros {
    ($($kind:ident {
        attr: $attr:ident,
        slice: $slice:ident,
        block: $block:literal,
        tool: $tool:literal,
        inject: $inject:literal,
        fail_closed: $closed:literal,
        withhold: $withhold:literal,
        what: $what:literal,
        doc: $doc:literal,
        example: $example:literal,
    })*) => {$(
        #[doc = $doc]
        #[doc = ""]
        #[doc = "```"]
        #[doc = $example]
        #[doc = "```"]
        pub use hooks_macros::$attr;
    )*};
}

hooks_events::for_each_event!(attribute_macros);
