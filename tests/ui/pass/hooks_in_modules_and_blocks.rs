//! Hooks may live in nested modules, be `pub`, carry docs and attributes,
//! and be declared inside a function body.

use hooks_core::prelude::*;

pub mod guards {
    use hooks_core::prelude::*;

    /// Documented, public, and with other attributes.
    #[pre_tool_use(matches = "rm")]
    #[allow(clippy::needless_pass_by_ref_mut)]
    pub fn no_rm(_ctx: &mut PreToolUse) -> Decision {
        Decision::deny("no rm")
    }
}

fn main() {
    #[stop]
    fn inner(_ctx: &mut Stop) {}

    let hooks = Hooks::builder().build().unwrap();
    let names: Vec<_> = hooks.describe().hooks().iter().map(|hook| hook.name.clone()).collect();
    // The crate name is trybuild's; the module path under it is ours.
    assert!(names[0].ends_with("::guards::no_rm"), "{names:?}");
    assert!(names[1].ends_with("::inner"), "{names:?}");
}
