//! Order: hooks run by (priority, then name), whatever order they are written
//! or linked in, and hooks added at run time join the same order.

use hooks_core::prelude::*;
use hooks_tests::{block_on, names};

// Written out of order on purpose.
#[pre_tool_use(priority = 10, group = "order", name = "zulu")]
fn zulu(ctx: &mut PreToolUse) {
    ctx.inject("zulu");
}

#[pre_tool_use(group = "order", name = "bravo")]
fn bravo(ctx: &mut PreToolUse) {
    ctx.inject("bravo");
}

#[pre_tool_use(priority = -3, group = "order", name = "yankee")]
fn yankee(ctx: &mut PreToolUse) {
    ctx.inject("yankee");
}

mod elsewhere {
    use hooks_core::prelude::*;

    #[pre_tool_use(group = "order", name = "charlie")]
    fn charlie(ctx: &mut PreToolUse) {
        ctx.inject("charlie");
    }

    #[pre_tool_use(group = "order", name = "alpha")]
    fn alpha(ctx: &mut PreToolUse) {
        ctx.inject("alpha");
    }
}

fn order(hooks: &Hooks) -> Vec<String> {
    let mut ctx = PreToolUse::new(&Session::new("s"), "any_tool", json!({}));
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
    ctx.injected().text().lines().map(str::to_owned).collect()
}

#[test]
fn linked_hooks_run_by_priority_then_name() {
    let hooks = Hooks::builder().groups(["order"]).build().unwrap();
    assert_eq!(
        order(&hooks),
        ["yankee", "alpha", "bravo", "charlie", "zulu"]
    );
}

#[test]
fn runtime_hooks_join_the_same_order() {
    let hooks = Hooks::builder()
        .groups(["order"])
        .hook(Hook::new("aardvark", |ctx: &mut PreToolUse| {
            ctx.inject("aardvark");
        }))
        .hook(Hook::new("mike", |ctx: &mut PreToolUse| ctx.inject("mike")).priority(5))
        .hook(Hook::new("first", |ctx: &mut PreToolUse| ctx.inject("first")).priority(i32::MIN))
        .build()
        .unwrap();
    assert_eq!(
        order(&hooks),
        [
            "first", "yankee", "aardvark", "alpha", "bravo", "charlie", "mike", "zulu"
        ]
    );
}

#[test]
fn the_order_is_the_same_on_every_build() {
    // Rebuilding in one process reads the same link order every time, so
    // only the expected order itself, fixed by (priority, name) and not by
    // how the linker laid the hooks out, shows this.
    let hooks = Hooks::builder().groups(["order"]).build().unwrap();
    assert_eq!(
        names(&hooks),
        ["yankee", "alpha", "bravo", "charlie", "zulu"]
    );
}
