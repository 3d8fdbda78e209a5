use hooks_core::prelude::*;

#[pre_compact]
fn never_compact(_ctx: &mut PreCompact) -> Decision {
    Decision::deny("keep everything")
}

fn main() {}
