//! What hooks say passes the dispatcher's redactor: a hook's error (returned
//! or panicked, deciding, observing or in shadow), a denial's reason and an
//! approval's prompt reach neither the log, nor the trail, nor the model,
//! nor the person asked with a secret in them.

use std::sync::{Arc, Mutex};

use hooks_core::prelude::*;
use hooks_core::{ApprovalRequest, HookError, Redact};
use hooks_tests::{block_on, capture_logs};

const SECRET: &str = "s3cr3t-Value-42xy";

/// Replaces [`SECRET`] wherever it is.
struct Known;

impl Redact for Known {
    fn redact_text(&self, text: &str) -> Option<String> {
        text.contains(SECRET)
            .then(|| text.replace(SECRET, "[redacted]"))
    }
}

fn quoting(
    name: &'static str,
    decide: fn(&PreToolUse) -> Result<Decision, String>,
) -> Hook<PreToolUse> {
    Hook::new(name, move |ctx: &mut PreToolUse| decide(ctx))
}

fn dispatch(hooks: &Hooks) -> (Outcome, PreToolUse, String) {
    let session = Session::new("s");
    let mut call = PreToolUse::new(&session, "query", json!({"dsn": SECRET}));
    let (outcome, logs) = capture_logs(|| block_on(hooks.dispatch(&mut call)));
    (outcome, call, logs)
}

#[test]
fn a_failing_guard_does_not_hand_its_error_on_unredacted() {
    let hooks = Hooks::builder()
        .without_linked()
        .redactor(Known)
        .hook(quoting("guard", |ctx| {
            Err(format!("cannot connect with {}", ctx.args()["dsn"]))
        }))
        .build()
        .unwrap();
    let (outcome, _, logs) = dispatch(&hooks);
    let reason = outcome.denial().unwrap().reason();
    assert!(
        reason.contains("cannot connect with \"[redacted]\""),
        "{reason}"
    );
    assert!(!reason.contains(SECRET), "the model reads: {reason}");
    assert!(!logs.contains(SECRET), "logged: {logs}");
}

#[test]
fn a_panicking_guard_a_denial_and_a_failing_observer_are_redacted() {
    let hooks = Hooks::builder()
        .without_linked()
        .redactor(Known)
        .hook(Hook::new("panics", |ctx: &mut PreToolUse| -> Decision {
            panic!("broke on {}", ctx.args()["dsn"])
        }))
        .build()
        .unwrap();
    let (outcome, _, logs) = dispatch(&hooks);
    let denial = outcome.denial().unwrap();
    assert!(
        denial.reason().contains("[redacted]"),
        "{}",
        denial.reason()
    );
    assert!(!format!("{denial:?}").contains(SECRET), "{denial:?}");
    assert!(!logs.contains(SECRET), "logged: {logs}");

    let hooks = Hooks::builder()
        .without_linked()
        .redactor(Known)
        .hook(quoting("guard", |ctx| {
            Ok(Decision::deny(format!("no: {}", ctx.args()["dsn"])))
        }))
        .build()
        .unwrap();
    let (outcome, _, _) = dispatch(&hooks);
    assert_eq!(outcome.denial().unwrap().reason(), "no: \"[redacted]\"");

    let hooks = Hooks::builder()
        .without_linked()
        .redactor(Known)
        .hook(Hook::observer(
            "watcher",
            |ctx: &PreToolUse| -> Result<(), String> {
                Err(format!("could not record {}", ctx.args()["dsn"]))
            },
        ))
        .build()
        .unwrap();
    let (outcome, call, logs) = dispatch(&hooks);
    assert!(outcome.is_continue());
    assert!(!logs.contains(SECRET), "logged: {logs}");
    let failures = format!("{:?}", call.failures());
    assert!(failures.contains("[redacted]"), "{failures}");
    assert!(!failures.contains(SECRET), "{failures}");
}

#[test]
fn a_shadow_hook_would_decide_without_the_secret() {
    let hooks = Hooks::builder()
        .without_linked()
        .redactor(Known)
        .hook(
            quoting("guard", |ctx| {
                Ok(Decision::deny(format!(
                    "would refuse {}",
                    ctx.args()["dsn"]
                )))
            })
            .shadow(),
        )
        .hook(
            quoting("broken", |ctx| {
                Err(format!("broken on {}", ctx.args()["dsn"]))
            })
            .shadow()
            .priority(1),
        )
        .build()
        .unwrap();
    let (outcome, _, logs) = dispatch(&hooks);
    assert!(outcome.is_continue());
    let notes = format!("{:?}", outcome.notes());
    assert!(notes.matches("[redacted]").count() >= 2, "{notes}");
    assert!(!notes.contains(SECRET), "{notes}");
    assert!(!logs.contains(SECRET), "logged: {logs}");
}

#[test]
fn the_person_asked_and_the_approver_see_the_prompt_redacted() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let asked = Arc::clone(&seen);
    let hooks = Hooks::builder()
        .without_linked()
        .redactor(Known)
        .hook(quoting("asks", |ctx| {
            Ok(Decision::ask(format!("Run with {}?", ctx.args()["dsn"])))
        }))
        .approver(move |request: &ApprovalRequest| {
            let args = request.args().unwrap().to_string();
            let redacted = request
                .redactor()
                .and_then(|redactor| redactor.redact_text(&args));
            asked
                .lock()
                .unwrap()
                .extend([request.prompt().to_owned(), redacted.unwrap_or(args)]);
            ApprovalAnswer::deny(format!("not with {SECRET}"))
        })
        .build()
        .unwrap();
    let (outcome, call, logs) = dispatch(&hooks);
    // The approver's reason is its own words, and the model reads them.
    let reason = outcome.denial().unwrap().reason();
    assert!(reason.ends_with("not with [redacted]"), "{reason}");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0], "Run with \"[redacted]\"?");
    assert_eq!(seen[1], r#"{"dsn":"[redacted]"}"#);
    let recorded = format!("{:?}", call.approvals());
    assert!(!recorded.contains("Run with \"s3cr3t"), "{recorded}");
    assert!(!logs.contains(SECRET), "logged: {logs}");
}

#[test]
fn without_a_redactor_nothing_is_changed() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(quoting("guard", |ctx| {
            Err(format!("{}", ctx.args()["dsn"]))
        }))
        .build()
        .unwrap();
    let (outcome, _, _) = dispatch(&hooks);
    assert!(outcome.denial().unwrap().reason().contains(SECRET));
    assert!(matches!(
        outcome.denial().unwrap().cause(),
        hooks_core::DenialCause::Failed(HookError::Failed(message)) if message.contains(SECRET)
    ));
}
