//! The linker caveat, caught: this test binary depends on the fixture crate
//! (it is a dev-dependency) but never refers to it, so the linker drops it and
//! its hooks with it. `require` turns that silence into a start-up error.

use hooks_core::prelude::*;

#[test]
fn a_crate_nothing_refers_to_is_dropped_and_require_says_so() {
    let hooks = Hooks::builder().build().unwrap();
    assert!(
        hooks
            .describe()
            .hooks()
            .iter()
            .all(|hook| !hook.name.starts_with("hooks_linked_fixture")),
        "the fixture crate is not linked into this binary"
    );

    let err = Hooks::builder()
        .require(["hooks_linked_fixture::no_unreviewed_deploys"])
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the hooks dispatcher cannot be built (1 problem)\n  - hook \
         `hooks_linked_fixture::no_unreviewed_deploys` is required but is neither linked into \
         this binary nor added to the builder: if it is a hook function defined in another \
         crate, reference that crate with `hooks_core::link!(that_crate);` (a crate nothing \
         refers to is dropped by the linker); if it is a runtime hook (`Hook::new`), add it \
         with `.hook(..)` before `build()`"
    );
}
