//! Hooks defined in another crate, one that only holds registrations, run
//! once that crate is linked with the documented one-liner.

use hooks_core::prelude::*;

hooks_core::link!(hooks_linked_fixture);

#[tokio::test]
async fn hooks_from_a_linked_crate_are_present_and_run() {
    let hooks = Hooks::builder()
        .groups(["fixture"])
        .require([
            "hooks_linked_fixture::no_unreviewed_deploys",
            "hooks_linked_fixture::house_rules",
        ])
        .build()
        .unwrap();

    let session = Session::new("s");
    let mut start = SessionStart::new(&session);
    assert!(hooks.dispatch(&mut start).await.is_continue());
    assert_eq!(start.injected().text(), "house rules from another crate");

    let deploy = hooks.tool("deploy");
    let mut unreviewed = PreToolUse::new(&session, "deploy", json!({}));
    let outcome = deploy.dispatch(&mut unreviewed).await;
    assert_eq!(
        outcome.denial().unwrap().hook(),
        &"hooks_linked_fixture::no_unreviewed_deploys"
    );
    let mut reviewed = PreToolUse::new(&session, "deploy", json!({"reviewed": true}));
    assert!(deploy.dispatch(&mut reviewed).await.is_continue());
}
