//! `crate = path` for users who reach hooks_core through a re-export.

mod platform {
    pub use hooks_core as hooks;
}

use platform::hooks::{Decision, PreToolUse};

#[platform::hooks::pre_tool_use(crate = platform::hooks, matches = "deploy")]
fn guard(_ctx: &mut PreToolUse) -> Decision {
    Decision::deny("no deploys")
}

fn main() {
    let hooks = platform::hooks::Hooks::builder().build().unwrap();
    assert!(hooks.describe().hooks()[0].name.ends_with("::guard"));
}
