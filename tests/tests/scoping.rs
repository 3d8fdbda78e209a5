//! Scoping: a dispatcher can hold all linked hooks or a subset (by group, by
//! name, without some), and a filter that names nothing is an error, not a no-op.

use hooks_core::prelude::*;
use hooks_core::{BuildProblem, EventKind};
use hooks_tests::{block_on, names};

#[pre_tool_use(group = "billing")]
fn billing_guard(_: &mut PreToolUse) {}

#[post_tool_use(group = "billing")]
fn billing_audit(_: &mut PostToolUse) {}

#[pre_tool_use(group = "search")]
fn search_guard(_: &mut PreToolUse) {}

#[pre_tool_use]
fn ungrouped(_: &mut PreToolUse) {}

#[test]
fn all_linked_hooks_by_default() {
    let hooks = Hooks::builder().build().unwrap();
    assert_eq!(
        names(&hooks),
        [
            "scoping::billing_guard",
            "scoping::search_guard",
            "scoping::ungrouped",
            "scoping::billing_audit"
        ]
    );
}

#[test]
fn by_group() {
    let hooks = Hooks::builder().groups(["billing"]).build().unwrap();
    assert_eq!(
        names(&hooks),
        ["scoping::billing_guard", "scoping::billing_audit"]
    );
    let hooks = Hooks::builder()
        .groups(["billing", "search"])
        .build()
        .unwrap();
    assert_eq!(hooks.count::<PreToolUse>(), 2);
}

#[test]
fn by_name_and_without() {
    let hooks = Hooks::builder()
        .only(["scoping::ungrouped"])
        .build()
        .unwrap();
    assert_eq!(names(&hooks), ["scoping::ungrouped"]);
    let hooks = Hooks::builder()
        .without(["scoping::ungrouped", "scoping::billing_audit"])
        .build()
        .unwrap();
    assert_eq!(
        names(&hooks),
        ["scoping::billing_guard", "scoping::search_guard"]
    );
}

#[test]
fn without_linked_keeps_runtime_hooks_only() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("mine", |_: &mut Stop| {}))
        .build()
        .unwrap();
    assert_eq!(names(&hooks), ["mine"]);
}

#[test]
fn filters_naming_nothing_are_errors() {
    let err = Hooks::builder()
        .groups(["biling"])
        .only(["scoping::billing_gaurd"])
        .without(["nope"])
        .build()
        .unwrap_err();
    assert_eq!(
        err.problems(),
        [
            BuildProblem::UnknownHook {
                filter: "only",
                name: "scoping::billing_gaurd".into()
            },
            BuildProblem::UnknownHook {
                filter: "without",
                name: "nope".into()
            },
            BuildProblem::UnknownGroup {
                group: "biling".into()
            },
        ]
    );
    let text = err.to_string();
    assert!(
        text.starts_with("the hooks dispatcher cannot be built (3 problems)"),
        "{text}"
    );
    assert!(
        text.contains("`groups` names group `biling`, which no linked hook is in"),
        "{text}"
    );
}

#[test]
fn require_passes_when_present_and_fails_naming_the_missing() {
    Hooks::builder()
        .require(["scoping::billing_guard"])
        .build()
        .unwrap();
    let err = Hooks::builder()
        .groups(["search"])
        .require(["scoping::billing_guard"])
        .build()
        .unwrap_err();
    assert_eq!(
        err.problems(),
        [BuildProblem::MissingRequired {
            name: "scoping::billing_guard".into()
        }]
    );
    assert!(err.to_string().contains("hooks_core::link!(that_crate);"));
}

#[test]
fn duplicate_names_on_one_event_are_refused() {
    let err = Hooks::builder()
        .hook(Hook::new("scoping::ungrouped", |_: &mut PreToolUse| {}))
        .build()
        .unwrap_err();
    match &err.problems()[0] {
        BuildProblem::DuplicateName { event, name, .. } => {
            assert_eq!(
                (*event, name.as_str()),
                (EventKind::PreToolUse, "scoping::ungrouped")
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("tests/tests/scoping.rs:"), "{err}");
    // The same name on another event is fine: one guard, its pre and post halves.
    Hooks::builder()
        .hook(Hook::new("scoping::ungrouped", |_: &mut PostToolUse| {}))
        .build()
        .unwrap();
}

#[test]
fn sub_agents_share_the_parents_dispatcher() {
    let hooks = Hooks::builder()
        .groups(["billing"])
        .hook(Hook::new("who", |ctx: &mut PreToolUse| {
            let agent = ctx.session().agent_id().to_owned();
            ctx.inject(agent);
        }))
        .build()
        .unwrap();
    let for_sub_agent = hooks.clone();
    assert_eq!(names(&for_sub_agent), names(&hooks));
    let child = Session::new("s").with_user("u").sub_agent("researcher");
    assert_eq!(child.parent_agent_id(), Some("main"));
    // The clone runs the parent's hooks, and they see the sub-agent.
    let mut ctx = PreToolUse::new(&child, "search", json!({}));
    assert!(block_on(for_sub_agent.dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.injected().text(), "researcher");
}
