use hooks_core::prelude::*;

#[stop(matches = "sql_*")]
fn keep_going(_ctx: &mut Stop) -> Decision {
    Decision::Continue
}

fn main() {}
