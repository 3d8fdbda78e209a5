use hooks_core::prelude::*;

#[pre_tool_use(matches = "^sql_")]
fn regex_like(_ctx: &mut PreToolUse) {}

#[pre_tool_use(matches = "Bash(git push*")]
fn unclosed(_ctx: &mut PreToolUse) {}

#[post_tool_use(matches = "read||write")]
fn empty_alternative(_ctx: &mut PostToolUse) {}

fn main() {}
