//! Our hooks: the eight guards (sync and async) and the three rewrites.
//!
//! Groups compose into the workloads: `match2` + `noise8` is 10 registered
//! with 2 matching; `match2` + `match6` + `noise2` is 10 with 8; adding
//! `noise90` and `noise900` makes 100 and 1,000.

use hooks_core::ArgsNotObject;
use hooks_core::prelude::*;

use crate::bodies::{self, guard};

fn decide(refusal: Option<&'static str>) -> Decision {
    refusal.map_or(Decision::Continue, Decision::deny)
}

macro_rules! guards {
    ($($group:tt $async_group:tt $name:ident $async_name:ident $index:tt,)*) => {$(
        #[doc = concat!("Guard ", stringify!($index), ", sync.")]
        #[pre_tool_use(group = $group, matches = "sql_*")]
        pub fn $name(ctx: &mut PreToolUse) -> Decision {
            decide(guard(ctx.args(), $index))
        }

        #[doc = concat!("Guard ", stringify!($index), ", async (its body never waits: this measures the machinery).")]
        #[pre_tool_use(group = $async_group, matches = "sql_*")]
        #[allow(clippy::unused_async)]
        pub async fn $async_name(ctx: &mut PreToolUse) -> Decision {
            decide(guard(ctx.args(), $index))
        }
    )*};
}

guards! {
    "match2" "async_match2" no_drop async_no_drop 0,
    "match2" "async_match2" no_truncate async_no_truncate 1,
    "match6" "async_match6" no_alter async_no_alter 2,
    "match6" "async_match6" no_grant async_no_grant 3,
    "match6" "async_match6" no_revoke async_no_revoke 4,
    "match6" "async_match6" no_delete async_no_delete 5,
    "match6" "async_match6" no_create async_no_create 6,
    "match6" "async_match6" no_insert async_no_insert 7,
}

/// The two guards of the 2-matching workloads, called by hand: the physical limit.
pub fn direct_2(ctx: &mut PreToolUse) -> Decision {
    match no_drop(ctx) {
        Decision::Continue => no_truncate(ctx),
        refusal => refusal,
    }
}

/// The eight guards, called by hand.
pub fn direct_8(ctx: &mut PreToolUse) -> Decision {
    for guard in [
        no_drop,
        no_truncate,
        no_alter,
        no_grant,
        no_revoke,
        no_delete,
        no_create,
        no_insert,
    ] {
        match guard(ctx) {
            Decision::Continue => {}
            refusal => return refusal,
        }
    }
    Decision::Continue
}

/// First rewrite, through `set_arg` (the rewrite recorded as it is made).
#[pre_tool_use(group = "rewrite3", priority = 1, matches = "http_get")]
pub fn rewrite_host(ctx: &mut PreToolUse) -> Result<(), ArgsNotObject> {
    bodies::pin_host(ctx)
}

/// Second rewrite, which depends on the first.
#[pre_tool_use(group = "rewrite3", priority = 2, matches = "http_get")]
pub fn rewrite_timeout(ctx: &mut PreToolUse) -> Result<(), ArgsNotObject> {
    bodies::cap_timeout(ctx)
}

/// Third rewrite.
#[pre_tool_use(group = "rewrite3", priority = 3, matches = "http_get")]
pub fn rewrite_scheme(ctx: &mut PreToolUse) -> Result<(), ArgsNotObject> {
    bodies::force_https(ctx)
}

/// First rewrite, through `args_mut` (the dispatcher looks at the whole
/// arguments before and after to tell whether they changed).
#[pre_tool_use(group = "rewrite3_borrowed", priority = 1, matches = "http_get")]
pub fn borrowed_host(ctx: &mut PreToolUse) -> Result<(), ArgsNotObject> {
    bodies::pin_host(ctx.args_mut())
}

/// Second rewrite, through `args_mut`.
#[pre_tool_use(group = "rewrite3_borrowed", priority = 2, matches = "http_get")]
pub fn borrowed_timeout(ctx: &mut PreToolUse) -> Result<(), ArgsNotObject> {
    bodies::cap_timeout(ctx.args_mut())
}

/// Third rewrite, through `args_mut`.
#[pre_tool_use(group = "rewrite3_borrowed", priority = 3, matches = "http_get")]
pub fn borrowed_scheme(ctx: &mut PreToolUse) -> Result<(), ArgsNotObject> {
    bodies::force_https(ctx.args_mut())
}

/// The three rewrites, called by hand on the arguments.
pub fn direct_rewrites(ctx: &mut PreToolUse) {
    let args = ctx.args_mut();
    let rewritten = bodies::pin_host(args)
        .and_then(|()| bodies::cap_timeout(args))
        .and_then(|()| bodies::force_https(args));
    debug_assert!(rewritten.is_ok());
}
