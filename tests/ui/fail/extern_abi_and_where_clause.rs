use hooks_core::prelude::*;

#[pre_tool_use]
extern "C" fn guard(_ctx: &mut PreToolUse) {}

#[post_tool_use]
fn tagger<'a>(_ctx: &'a mut PostToolUse)
where
    'a: 'a,
{
}

fn main() {}
