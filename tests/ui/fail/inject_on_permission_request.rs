use hooks_core::prelude::*;

// The host's permission dialog takes an answer, not context for the model.
#[permission_request(matches = "Bash")]
fn explain(ctx: &mut PermissionRequest) {
    ctx.inject("the person will see this dialog soon");
}

fn main() {}
