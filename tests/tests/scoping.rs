//! Scoping: a dispatcher can hold all hooks or a subset (by group, by name,
//! without some), runtime hooks scoped exactly as linked ones, and a filter
//! that names nothing is an error, not a no-op.

use std::sync::atomic::{AtomicUsize, Ordering};

use hooks_core::prelude::*;
use hooks_core::{BuildProblem, EventKind, HooksBuilder};
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
fn without_groups_leaves_a_group_out() {
    let hooks = Hooks::builder()
        .without_groups(["billing"])
        .build()
        .unwrap();
    assert_eq!(
        names(&hooks),
        ["scoping::search_guard", "scoping::ungrouped"]
    );
}

/// Two runtime hooks, one in group `billing`, one in no group.
fn with_runtime_hooks() -> HooksBuilder {
    Hooks::builder()
        .hook(Hook::new("runtime_billing", |_: &mut PreToolUse| {}).group("billing"))
        .hook(Hook::new("runtime_loose", |_: &mut PreToolUse| {}))
}

#[test]
fn runtime_hooks_are_scoped_exactly_as_linked_ones() {
    let hooks = with_runtime_hooks().groups(["billing"]).build().unwrap();
    assert_eq!(
        names(&hooks),
        [
            "runtime_billing",
            "scoping::billing_guard",
            "scoping::billing_audit"
        ]
    );
    let hooks = with_runtime_hooks()
        .without_groups(["billing"])
        .build()
        .unwrap();
    assert_eq!(
        names(&hooks),
        [
            "runtime_loose",
            "scoping::search_guard",
            "scoping::ungrouped"
        ]
    );
    let hooks = with_runtime_hooks()
        .only(["runtime_loose", "scoping::ungrouped"])
        .build()
        .unwrap();
    assert_eq!(names(&hooks), ["runtime_loose", "scoping::ungrouped"]);
    let hooks = with_runtime_hooks()
        .without(["runtime_loose"])
        .without_linked()
        .build()
        .unwrap();
    assert_eq!(names(&hooks), ["runtime_billing"]);
}

#[test]
fn a_group_only_a_runtime_hook_is_in_is_a_known_group() {
    let hooks = Hooks::builder()
        .hook(Hook::new("tenant_guard", |_: &mut PreToolUse| {}).group("tenant_a"))
        .groups(["tenant_a"])
        .build()
        .unwrap();
    assert_eq!(names(&hooks), ["tenant_guard"]);
}

#[test]
fn filters_naming_nothing_are_errors() {
    let err = Hooks::builder()
        .groups(["biling"])
        .without_groups(["serch"])
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
                filter: "groups",
                group: "biling".into()
            },
            BuildProblem::UnknownGroup {
                filter: "without_groups",
                group: "serch".into()
            },
        ]
    );
    let text = err.to_string();
    assert!(
        text.starts_with("the hooks dispatcher cannot be built (4 problems)"),
        "{text}"
    );
    assert!(
        text.contains("`groups` names group `biling`, which no hook is in"),
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
    // Linked, but this dispatcher's filters leave it out: not a linking problem.
    assert_eq!(
        err.problems(),
        [BuildProblem::RequiredLeftOut {
            name: "scoping::billing_guard".into()
        }]
    );
    assert!(err.to_string().contains("filters"), "{err}");
    assert!(!err.to_string().contains("link!"), "{err}");

    // Known nowhere: linking, or adding it at run time, is the fix.
    let err = Hooks::builder()
        .require(["scoping::nowhere"])
        .build()
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("hooks_core::link!(that_crate);"), "{text}");
    assert!(
        text.contains(".hook("),
        "a runtime hook is added with .hook(..): {text}"
    );
}

#[test]
fn a_required_hook_must_enforce_and_require_shadow_asks_for_a_recording_one() {
    let shadowed = || {
        Hooks::builder()
            .without_linked()
            .hook(Hook::new("rollout::new_guard", |_: &PreToolUse| Decision::deny("no")).shadow())
            .hook(Hook::new("rollout::old_guard", |_: &PreToolUse| {
                Decision::Continue
            }))
    };
    // Required, but in shadow: it would record and enforce nothing.
    let err = shadowed()
        .require(["rollout::new_guard"])
        .build()
        .unwrap_err();
    assert_eq!(
        err.problems(),
        [BuildProblem::RequiredInShadow {
            name: "rollout::new_guard".into()
        }]
    );
    assert!(err.to_string().contains("require_shadow"), "{err}");
    // Its shadow form: present, and recording.
    shadowed()
        .require_shadow(["rollout::new_guard"])
        .build()
        .unwrap();
    let err = shadowed()
        .require_shadow(["rollout::old_guard"])
        .build()
        .unwrap_err();
    assert_eq!(
        err.problems(),
        [BuildProblem::RequiredShadowEnforces {
            name: "rollout::old_guard".into()
        }]
    );
    // A group put in shadow by the builder counts too.
    let err = Hooks::builder()
        .without_linked()
        .hook(Hook::new("rollout::grouped", |_: &PreToolUse| Decision::Continue).group("canary"))
        .shadow_groups(["canary"])
        .require(["rollout::grouped"])
        .build()
        .unwrap_err();
    assert!(matches!(
        err.problems(),
        [BuildProblem::RequiredInShadow { .. }]
    ));
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

#[derive(Default)]
struct Calls(AtomicUsize);

#[test]
fn sub_agents_share_the_parents_dispatcher_and_its_state() {
    let hooks = Hooks::builder()
        .without_linked()
        .state(Calls::default())
        .hook(Hook::new(
            "count_and_name",
            |ctx: &mut PreToolUse, calls: &Calls| {
                calls.0.fetch_add(1, Ordering::Relaxed);
                let agent = ctx.session().agent_id().to_owned();
                ctx.inject(agent);
            },
        ))
        .build()
        .unwrap();
    let for_sub_agent = hooks.clone();
    let parent = Session::new("s").with_user("u");
    let child = parent.sub_agent("researcher");
    assert_eq!(child.parent_agent_id(), Some("main"));

    let mut by_parent = PreToolUse::new(&parent, "search", json!({}));
    assert!(block_on(hooks.dispatch(&mut by_parent)).is_continue());
    let mut by_child = PreToolUse::new(&child, "search", json!({}));
    assert!(block_on(for_sub_agent.dispatch(&mut by_child)).is_continue());

    // The clone runs the parent's hooks, and they see the sub-agent...
    assert_eq!(by_parent.injected().text(), "main");
    assert_eq!(by_child.injected().text(), "researcher");
    // ...with the parent's state: both calls counted in one place, which a
    // dispatcher built anew (or a deep copy) would not do.
    assert_eq!(hooks.state::<Calls>().unwrap().0.load(Ordering::Relaxed), 2);
}
