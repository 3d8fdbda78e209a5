//! `PermissionRequest`: hooks answer the host's permission dialog for its
//! person. A denial wins over any grant, an `Ask` leaves it to the person,
//! a failing hook denies, a grant binds the input it was made for, and
//! hooks that say nothing grant nothing.

use std::sync::{Arc, Mutex};

use hooks_core::prelude::*;
use hooks_core::{ApprovalRequest, Approver, BoxFuture, DenialCause, Event, HookName};
use hooks_tests::block_on;

fn session() -> Session {
    Session::new("s")
}

fn rm() -> PermissionRequest {
    PermissionRequest::new(&session(), "Bash", json!({"command": "rm -rf target"}))
}

fn grant(name: &str) -> Hook<PermissionRequest> {
    Hook::new(name, |ctx: &mut PermissionRequest| ctx.grant())
}

#[permission_request(matches = "Bash(cargo test*)")]
fn tests_may_run(ctx: &mut PermissionRequest) {
    ctx.grant();
}

#[permission_request(priority = 10, matches = "Bash(cargo test*--release*)")]
fn no_release_builds(_ctx: &PermissionRequest) -> Decision {
    Decision::deny("release builds take too long here")
}

#[test]
fn a_grant_and_a_later_denial_is_a_denial() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(grant("grants").priority(1))
        .hook(
            Hook::new("denies", |_: &mut PermissionRequest| {
                Decision::deny("no rm")
            })
            .priority(2),
        )
        .build()
        .unwrap();
    let mut ctx = rm();
    let outcome = block_on(hooks.dispatch(&mut ctx));
    assert!(outcome.is_denied(), "{outcome:?}");
    assert_eq!(outcome.denial().unwrap().hook().as_str(), "denies");
}

#[test]
fn a_denial_before_a_grant_ends_the_chain() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("denies", |_: &mut PermissionRequest| {
                Decision::deny("no rm")
            })
            .priority(1),
        )
        .hook(grant("grants").priority(2))
        .build()
        .unwrap();
    let mut ctx = rm();
    assert!(block_on(hooks.dispatch(&mut ctx)).is_denied());
    assert!(ctx.grants().is_empty(), "the granting hook never ran");
}

#[test]
fn a_panicking_hook_denies_though_another_granted() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(grant("grants").priority(1))
        .hook(
            Hook::new("panics", |_: &mut PermissionRequest| -> Decision {
                panic!("the policy file is gone")
            })
            .priority(2),
        )
        .build()
        .unwrap();
    let mut ctx = rm();
    let outcome = block_on(hooks.dispatch(&mut ctx));
    let denial = outcome.denial().expect("a failing hook denies");
    assert_eq!(denial.hook().as_str(), "panics");
    assert!(matches!(denial.cause(), DenialCause::Failed(_)));
}

#[test]
fn a_hook_that_grants_then_fails_grants_nothing_even_when_let_through() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new(
                "half_done",
                |ctx: &mut PermissionRequest| -> Result<(), String> {
                    ctx.grant();
                    Err("lost the policy half-way".into())
                },
            )
            .on_error(OnError::Continue),
        )
        .build()
        .unwrap();
    let mut ctx = rm();
    assert!(!block_on(hooks.dispatch(&mut ctx)).is_denied());
    assert!(
        ctx.granted().is_none(),
        "a failed hook's grant must not stand"
    );
    assert_eq!(ctx.failures().len(), 1);
}

#[test]
fn no_hooks_grant_nothing_and_deny_nothing() {
    let hooks = Hooks::builder().without_linked().build().unwrap();
    let mut ctx = rm();
    let outcome = block_on(hooks.dispatch(&mut ctx));
    assert!(!outcome.is_denied());
    assert!(ctx.granted().is_none(), "the person is asked");
}

#[test]
fn a_hook_saying_continue_grants_nothing() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("looks", |_: &mut PermissionRequest| {
            Decision::Continue
        }))
        .build()
        .unwrap();
    let mut ctx = rm();
    assert!(!block_on(hooks.dispatch(&mut ctx)).is_denied());
    assert!(ctx.granted().is_none());
}

/// An approver that records what it is asked, and says yes.
#[derive(Default, Clone)]
struct Yes(Arc<Mutex<Vec<String>>>);

impl Approver for Yes {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer> {
        self.0.lock().unwrap().push(request.prompt().to_owned());
        Box::pin(async { ApprovalAnswer::approve() })
    }
}

#[test]
fn an_ask_leaves_it_to_the_person_the_host_asks_not_the_approver() {
    let approver = Yes::default();
    let hooks = Hooks::builder()
        .without_linked()
        .approver(approver.clone())
        .hook(grant("grants").priority(1))
        .hook(
            Hook::new("asks", |_: &mut PermissionRequest| {
                Decision::ask("is this rm fine?")
            })
            .priority(2),
        )
        .build()
        .unwrap();
    let mut ctx = rm();
    let outcome = block_on(hooks.dispatch(&mut ctx));
    assert!(!outcome.is_denied());
    assert!(ctx.granted().is_none(), "an ask is not a grant");
    assert!(ctx.asked());
    assert_eq!(ctx.asked_by().map(HookName::as_str), Some("asks"));
    assert_eq!(
        outcome.messages()[0].text,
        "hook `asks` leaves this to you: is this rm fine?",
        "the person who sees the dialog is told why"
    );
    assert!(
        approver.0.lock().unwrap().is_empty(),
        "the approver's yes must not stand in for the host's dialog"
    );
}

#[test]
fn a_grant_is_void_once_a_later_hook_rewrites_the_input() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(grant("grants").priority(1))
        .hook(
            Hook::new("rewrites", |ctx: &mut PermissionRequest| {
                ctx.args_mut()["command"] = json!("rm -rf /");
            })
            .priority(2),
        )
        .build()
        .unwrap();
    let mut ctx = rm();
    assert!(!block_on(hooks.dispatch(&mut ctx)).is_denied());
    assert!(ctx.granted().is_none(), "granted for other input");
    assert_eq!(ctx.grants().len(), 1);
}

#[test]
fn a_grant_after_a_rewrite_carries_the_rewritten_input() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("narrows", |ctx: &mut PermissionRequest| {
                ctx.args_mut()["command"] = json!("rm -rf target/tmp");
            })
            .priority(1),
        )
        .hook(grant("grants").priority(2))
        .build()
        .unwrap();
    let mut ctx = rm();
    assert!(!block_on(hooks.dispatch(&mut ctx)).is_denied());
    let grant = ctx.granted().expect("granted after the rewrite");
    assert_eq!(grant.hook.as_ref().map(HookName::as_str), Some("grants"));
    assert_eq!(grant.args(), &json!({"command": "rm -rf target/tmp"}));
    assert_eq!(ctx.rewrites()[0].hook.as_str(), "narrows");
}

#[test]
fn a_shadow_hooks_grant_is_undone() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(grant("trying").shadow())
        .build()
        .unwrap();
    let mut ctx = rm();
    assert!(!block_on(hooks.dispatch(&mut ctx)).is_denied());
    assert!(ctx.granted().is_none() && ctx.grants().is_empty());
}

#[test]
fn matches_picks_the_calls_and_a_tool_handle_runs_the_hooks() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("no_rm", |_: &mut PermissionRequest| Decision::deny("no rm"))
                .matches("Bash(rm *)"),
        )
        .build()
        .unwrap();
    let mut ls = PermissionRequest::new(&session(), "Bash", json!({"command": "ls"}));
    assert!(!block_on(hooks.dispatch(&mut ls)).is_denied());
    let mut ctx = rm();
    assert!(block_on(hooks.dispatch(&mut ctx)).is_denied());
    // Through a tool handle, as an integration holding one would dispatch it.
    let bash = hooks.tool("Bash");
    let mut ctx = rm();
    assert!(
        block_on(bash.dispatch(&mut ctx)).is_denied(),
        "a tool handle must not skip the event's hooks"
    );
}

#[test]
fn linked_hooks_grant_and_deny_by_pattern() {
    let hooks = Hooks::builder().build().unwrap();
    let call = |command: &str| {
        PermissionRequest::new(&session(), "Bash", json!({"command": command}))
            .with_permission_suggestions(json!([{"type": "addRules"}]))
    };
    let mut test = call("cargo test -p hooks-core");
    assert!(!block_on(hooks.dispatch(&mut test)).is_denied());
    assert!(test.granted().is_some());
    let mut release = call("cargo test --release");
    let outcome = block_on(hooks.dispatch(&mut release));
    assert!(outcome.is_denied(), "the denial wins over the grant");
    let mut build = call("cargo build");
    assert!(!block_on(hooks.dispatch(&mut build)).is_denied());
    assert!(build.granted().is_none());
    assert_eq!(
        test.to_json()["permission_suggestions"][0]["type"],
        "addRules"
    );
}
