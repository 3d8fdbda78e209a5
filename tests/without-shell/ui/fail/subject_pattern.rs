use hooks_core::prelude::*;

#[pre_tool_use(matches = "Bash(git push*)")]
fn no_push(_ctx: &mut PreToolUse) -> Decision {
    Decision::deny("no pushing")
}

// A path subject too: which argument is a call's subject is known per call,
// and it may be a `command`.
#[post_tool_use(matches = "sql_*|Write(/etc/*)")]
fn etc_written(_ctx: &mut PostToolUse) {}

// Plain names need no shell reader.
#[pre_tool_use(matches = "sql_*|*_write")]
fn names(_ctx: &mut PreToolUse) {}

fn main() {}
