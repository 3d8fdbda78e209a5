use hooks_core::prelude::*;

// A guard (`&PermissionRequest`) may deny, but granting changes the request:
// it takes `&mut`.
#[permission_request(matches = "Read")]
fn reads_are_fine(ctx: &PermissionRequest) -> Decision {
    ctx.grant();
    Decision::Continue
}

fn main() {}
