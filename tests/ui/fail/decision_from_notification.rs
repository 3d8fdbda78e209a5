use hooks_core::prelude::*;

// A notification is already on its way to the person: nothing to block.
#[notification]
fn silence(_ctx: &mut Notification) -> Decision {
    Decision::deny("no sounds after six")
}

fn main() {}
