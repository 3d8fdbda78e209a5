//! Tool handles: the hooks that can match a tool are found once, so dispatch
//! through a handle costs O(matching hooks) however many hooks are registered;
//! subject patterns are still checked per call.

use hooks_core::prelude::*;
use hooks_tests::block_on;

#[pre_tool_use(group = "handle", matches = "Bash(git push*)")]
fn no_push(_: &mut PreToolUse) -> Decision {
    Decision::deny("pushing is for humans")
}

#[pre_tool_use(group = "handle", matches = "sql_*")]
fn sql_only(ctx: &mut PreToolUse) {
    ctx.inject("sql_only");
}

#[pre_tool_use(group = "handle")]
fn every_tool(ctx: &mut PreToolUse) {
    ctx.inject("every_tool");
}

fn with_noise(noise: usize) -> Hooks {
    (0..noise)
        .fold(Hooks::builder().groups(["handle"]), |builder, i| {
            builder.hook(
                Hook::new(format!("noise_{i:04}"), |_: &mut PreToolUse| -> Decision {
                    Decision::deny("a non-matching hook ran")
                })
                .matches(format!("other_tool_{i}"))
                .group("handle"),
            )
        })
        .build()
        .unwrap()
}

#[test]
fn a_handle_holds_only_the_hooks_that_can_match() {
    let hooks = with_noise(1_000);
    assert_eq!(hooks.count::<PreToolUse>(), 1_003);
    assert_eq!(hooks.tool("sql_query").count::<PreToolUse>(), 2);
    assert_eq!(hooks.tool("Bash").count::<PreToolUse>(), 2);
    assert_eq!(hooks.tool("read_file").count::<PreToolUse>(), 1);
    assert_eq!(hooks.tool("other_tool_7").count::<PreToolUse>(), 2);
    assert_eq!(hooks.tool("sql_query").count::<PostToolUse>(), 0);

    let mut ctx = PreToolUse::new(&Session::new("s"), "sql_query", json!({}));
    assert!(block_on(hooks.tool("sql_query").dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.injected().text(), "every_tool\nsql_only"); // same priority: by name
}

#[test]
fn subjects_are_matched_per_call() {
    let hooks = with_noise(0);
    let bash = hooks.tool("Bash");
    let session = Session::new("s");
    let mut push = PreToolUse::new(&session, "Bash", json!({"command": "git push origin main"}));
    assert!(block_on(bash.dispatch(&mut push)).is_denied());
    let mut status = PreToolUse::new(&session, "Bash", json!({"command": "git status"}));
    assert!(block_on(bash.dispatch(&mut status)).is_continue());
    let mut no_subject = PreToolUse::new(&session, "Bash", json!({}));
    assert!(block_on(bash.dispatch(&mut no_subject)).is_continue());
}

#[test]
fn a_context_for_another_tool_is_still_dispatched_correctly() {
    let hooks = with_noise(0);
    let sql = hooks.tool("sql_query");
    let mut push = PreToolUse::new(&Session::new("s"), "Bash", json!({"command": "git push"}));
    assert!(block_on(sql.dispatch(&mut push)).is_denied());
}
