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
        .hook(
            Hook::new("aardvark", |ctx: &mut PreToolUse| {
                ctx.inject("aardvark");
            })
            .group("order"),
        )
        .hook(
            Hook::new("mike", |ctx: &mut PreToolUse| ctx.inject("mike"))
                .priority(5)
                .group("order"),
        )
        .hook(
            Hook::new("first", |ctx: &mut PreToolUse| ctx.inject("first"))
                .priority(i32::MIN)
                .group("order"),
        )
        .build()
        .unwrap();
    assert_eq!(
        order(&hooks),
        [
            "first", "yankee", "aardvark", "alpha", "bravo", "charlie", "mike", "zulu"
        ]
    );
}

/// Every ordering of `items`.
fn permutations(items: &[(&'static str, i32)]) -> Vec<Vec<(&'static str, i32)>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut all = Vec::new();
    for (at, item) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(at);
        for mut tail in permutations(&rest) {
            tail.insert(0, *item);
            all.push(tail);
        }
    }
    all
}

#[test]
fn the_order_does_not_depend_on_the_order_hooks_arrive_in() {
    // The linker's layout cannot be changed from inside one process, but the
    // order runtime hooks are added in can, and both go through the same
    // sort: every one of the 120 arrival orders must dispatch alike, with
    // ties on priority broken by name.
    let hooks = [
        ("delta", 0),
        ("alpha", 0),
        ("echo", -1),
        ("charlie", 7),
        ("bravo", 0),
    ];
    for arrival in permutations(&hooks) {
        let builder = arrival.iter().fold(
            Hooks::builder().without_linked(),
            |builder, &(name, priority)| {
                builder.hook(
                    Hook::new(name, move |ctx: &mut PreToolUse| ctx.inject(name))
                        .priority(priority),
                )
            },
        );
        let hooks = builder.build().unwrap();
        assert_eq!(
            order(&hooks),
            ["echo", "alpha", "bravo", "delta", "charlie"],
            "added in the order {arrival:?}"
        );
        assert_eq!(names(&hooks), order(&hooks));
    }
}
