//! A library does only what it is asked (DESIGN §14). With every crate of the
//! workspace linked and every standard hook compiled in, a dispatcher built
//! with nothing asked of it runs no hook: in an empty working directory,
//! calls of every event — payments, deploys, writes, a hundred searches, a
//! huge result — are all allowed and untouched, and the directory stays empty.

use hooks_core::prelude::*;

hooks_core::link!(
    hooks_std,
    hooks_config,
    hooks_mcp,
    hooks_claude,
    hooks_rig,
    hooks_tower
);

// One dispatcher, every event fired once in turn: the list grows with the
// events, and splitting it would hide that it is one dispatcher.
#[allow(clippy::too_many_lines)]
#[tokio::test(flavor = "current_thread")]
async fn a_dispatcher_that_asked_for_nothing_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("hooks-unasked-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The only test of this binary: the working directory is its own to change.
    std::env::set_current_dir(&dir).unwrap();

    let hooks = Hooks::builder().build().unwrap();
    assert!(
        hooks.describe().hooks().is_empty(),
        "linked but not asked for:\n{}",
        hooks.describe()
    );

    let session = Session::new("unasked").with_user("dana");
    let check = |what: &str, outcome: Outcome| {
        assert!(
            !outcome.is_denied(),
            "{what} was denied: {:?}",
            outcome.denial()
        );
    };
    check(
        "session start",
        hooks.dispatch(&mut SessionStart::new(&session)).await,
    );
    check(
        "prompt",
        hooks
            .dispatch(&mut UserPromptSubmit::new(&session, "refund order 42"))
            .await,
    );
    check(
        "model request",
        hooks
            .dispatch(&mut PreModelRequest::new(
                &session,
                ["payments_refund"],
                json!({}),
            ))
            .await,
    );
    check(
        "model reply",
        hooks
            .dispatch(&mut PostModelResponse::new(&session, "done"))
            .await,
    );
    for (tool, args) in [
        ("payments_refund", json!({"amount": 250})),
        ("deploy_production", json!({})),
        ("write_file", json!({"path": "x", "content": "y"})),
        ("Bash", json!({"command": "rm -rf build"})),
    ] {
        let mut call = PreToolUse::new(&session, tool, args);
        check(tool, hooks.dispatch(&mut call).await);
    }
    for _ in 0..100 {
        let mut search = PreToolUse::new(&session, "search", json!({"q": "x"}));
        check("a search", hooks.dispatch(&mut search).await);
    }
    let huge = json!("x".repeat(100_000));
    let mut result = PostToolUse::new(&session, "read_file", json!({}), Ok(huge.clone()));
    check("a result", hooks.dispatch(&mut result).await);
    assert_eq!(result.into_result(), Ok(huge), "nothing cut the result");
    check(
        "a failure",
        hooks
            .dispatch(&mut PostToolUseFailure::new(
                &session,
                "read_file",
                json!({}),
                ToolError::new("no such file"),
            ))
            .await,
    );
    check(
        "sub-agent start",
        hooks
            .dispatch(&mut SubagentStart::new(&session, "helper", "look around"))
            .await,
    );
    check(
        "sub-agent stop",
        hooks.dispatch(&mut SubagentStop::new(&session)).await,
    );
    check(
        "compaction",
        hooks
            .dispatch(&mut PreCompact::new(&session, CompactTrigger::Auto))
            .await,
    );
    check(
        "permission dialog",
        hooks
            .dispatch(&mut PermissionRequest::new(
                &session,
                "Bash",
                json!({"command": "ls"}),
            ))
            .await,
    );
    check(
        "notification",
        hooks
            .dispatch(&mut Notification::new(&session, "waiting for input"))
            .await,
    );
    check("stop", hooks.dispatch(&mut Stop::new(&session)).await);
    check(
        "session end",
        hooks.dispatch(&mut SessionEnd::new(&session, "done")).await,
    );

    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "files written nobody asked for: {left:?}");
    std::env::set_current_dir(std::env::temp_dir()).unwrap();
    std::fs::remove_dir(&dir).unwrap();
}
