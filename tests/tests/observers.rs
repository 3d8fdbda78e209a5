//! Observers (`observe`): run after the decision, whatever it was; see it
//! through `ctx.denial()`; cannot change the call; their failures are logged,
//! never acted on. What audit trails need.

use std::sync::Mutex;

use hooks_core::prelude::*;
use hooks_core::{DenialCause, HookError};
use hooks_tests::{block_on, capture_logs};

static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn seen() -> Vec<String> {
    std::mem::take(&mut *SEEN.lock().unwrap())
}

#[pre_tool_use(group = "observed", priority = 1, matches = "rm")]
fn denies_rm(_: &mut PreToolUse) -> Decision {
    Decision::deny("rm is not allowed")
}

#[pre_tool_use(group = "observed", priority = 2)]
fn after_the_veto(ctx: &mut PreToolUse) {
    ctx.inject("after_the_veto ran");
}

// A lower priority than the guards: observers still run after the chain.
#[pre_tool_use(group = "observed", observe, priority = -100)]
fn audit(ctx: &PreToolUse) {
    let line = match ctx.denial() {
        Some(denial) => format!(
            "{} denied by {}: {}",
            ctx.tool(),
            denial.hook(),
            denial.reason()
        ),
        None => format!("{} allowed", ctx.tool()),
    };
    SEEN.lock().unwrap().push(line);
}

#[pre_tool_use(group = "observed", observe, priority = 5)]
async fn second_observer(ctx: &PreToolUse) {
    tokio::task::yield_now().await;
    SEEN.lock()
        .unwrap()
        .push(format!("second saw {}", ctx.tool()));
}

#[pre_tool_use(group = "failing_observer", observe)]
fn broken_observer(_: &PreToolUse) -> Result<(), String> {
    Err("audit disk full".to_owned())
}

#[post_tool_use(group = "post_observer", observe)]
fn whole_call(ctx: &PostToolUse) {
    SEEN.lock().unwrap().push(format!(
        "{} ran after {} pre-rewrite(s) by {}",
        ctx.tool(),
        ctx.pre_rewrites().len(),
        ctx.pre_rewrites()
            .first()
            .map_or("nobody", |rewrite| rewrite.hook.as_str())
    ));
}

#[pre_tool_use(group = "post_observer")]
fn rewrite(ctx: &mut PreToolUse) {
    ctx.args_mut()["checked"] = json!(true);
}

// One test, so the shared record is not raced by other tests in this binary.
#[tokio::test]
async fn observers_see_the_decision_and_cannot_change_it() {
    let hooks = Hooks::builder().groups(["observed"]).build().unwrap();
    let session = Session::new("s");

    let mut rm = PreToolUse::new(&session, "rm", json!({}));
    let outcome = hooks.dispatch(&mut rm).await;
    assert_eq!(outcome.denial().unwrap().hook(), &"observers::denies_rm");
    assert!(rm.injected().is_empty(), "the veto still stops the chain");
    assert!(
        rm.denial().is_none(),
        "the outcome is returned, not left on the context"
    );

    let mut ls = PreToolUse::new(&session, "ls", json!({}));
    assert!(hooks.dispatch(&mut ls).await.is_continue());
    assert_eq!(
        seen(),
        [
            "rm denied by observers::denies_rm: rm is not allowed",
            "second saw rm",
            "ls allowed",
            "second saw ls",
        ]
    );

    let hooks = Hooks::builder().groups(["post_observer"]).build().unwrap();
    let run = hooks
        .tool("read")
        .run(&session, json!({}), async |_: &Value| {
            Ok::<_, String>(json!("text"))
        })
        .await;
    assert!(run.ran());
    assert_eq!(
        seen(),
        ["read ran after 1 pre-rewrite(s) by observers::rewrite"]
    );

    let log_line = std::sync::Arc::new(Mutex::new(0));
    let counter = log_line.clone();
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("deny_all", |_: &mut PreToolUse| {
            Decision::deny("closed")
        }))
        .hook(Hook::observer("count", move |ctx: &PreToolUse| {
            *counter.lock().unwrap() += usize::from(ctx.denial().is_some());
        }))
        .build()
        .unwrap();
    assert!(
        hooks
            .dispatch(&mut PreToolUse::new(&session, "x", json!({})))
            .await
            .is_denied()
    );
    assert_eq!(*log_line.lock().unwrap(), 1);
    let kinds: Vec<String> = hooks
        .describe()
        .to_string()
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(
        kinds[2].contains("count") && kinds[2].contains("continue  sync observer"),
        "{kinds:?}"
    );
}

#[test]
fn a_failing_observer_is_logged_and_changes_nothing() {
    let hooks = Hooks::builder()
        .groups(["failing_observer"])
        .build()
        .unwrap();
    let mut ctx = PreToolUse::new(&Session::new("s"), "x", json!({}));
    let (outcome, logs) = capture_logs(|| block_on(hooks.dispatch(&mut ctx)));
    assert!(
        outcome.is_continue(),
        "a guard's event, yet the observer fails open"
    );
    assert_eq!(
        ctx.failures()[0].error,
        HookError::Failed("audit disk full".into())
    );
    assert!(logs.contains("observer failed; continuing"), "{logs}");

    // And a denial stays a denial when an observer fails after it.
    let hooks = Hooks::builder()
        .groups(["failing_observer"])
        .hook(
            Hook::new("deny", |_: &mut PreToolUse| Decision::deny("no")).group("failing_observer"),
        )
        .build()
        .unwrap();
    let outcome =
        block_on(hooks.dispatch(&mut PreToolUse::new(&Session::new("s"), "x", json!({}))));
    assert_eq!(outcome.denial().unwrap().cause(), &DenialCause::Decided);
}
