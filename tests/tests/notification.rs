//! `Notification`: hooks observe what the host tells its person; they can
//! neither block it nor add context, and a failing hook is only logged.

use std::sync::{Arc, Mutex};

use hooks_core::prelude::*;
use hooks_core::{Event, RuntimeHook, Verdict};
use hooks_tests::block_on;

/// What a command hook exiting 2 comes to: a `Deny` on an event that cannot block.
struct Script;

impl RuntimeHook<Notification> for Script {
    fn call<'a>(&'a self, _: &'a mut Notification) -> Deferred<'a, Verdict> {
        Deferred::Ready(Ok(Decision::deny("quiet hours")))
    }
}

fn idle() -> Notification {
    Notification::new(&Session::new("s"), "Claude is waiting for your input")
        .with_title("Waiting")
        .with_notification_type("idle_prompt")
}

#[test]
fn hooks_see_the_message_title_and_type() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&seen);
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("sound", move |ctx: &mut Notification| {
            into.lock().unwrap().push((
                ctx.message().to_owned(),
                ctx.title().map(ToOwned::to_owned),
                ctx.notification_type().map(ToOwned::to_owned),
            ));
        }))
        .build()
        .unwrap();
    let mut ctx = idle();
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
    assert_eq!(
        *seen.lock().unwrap(),
        [(
            "Claude is waiting for your input".to_owned(),
            Some("Waiting".to_owned()),
            Some("idle_prompt".to_owned())
        )]
    );
    let json = ctx.to_json();
    assert_eq!(
        (&json["event"], &json["notification_type"], &json["title"]),
        (
            &json!("notification"),
            &json!("idle_prompt"),
            &json!("Waiting")
        )
    );
}

#[test]
fn a_runtime_hook_cannot_block_it_and_a_failing_one_is_let_through() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::from_runtime("script", Script))
        .hook(Hook::new(
            "broken",
            |_: &mut Notification| -> Result<(), String> { Err("no sound device".into()) },
        ))
        .build()
        .unwrap();
    let mut ctx = idle();
    let outcome = block_on(hooks.dispatch(&mut ctx));
    assert!(!outcome.is_denied(), "a notification cannot be blocked");
    assert!(
        outcome
            .messages()
            .iter()
            .any(|m| m.text.contains("quiet hours")),
        "the script's reason is told to the person: {:?}",
        outcome.messages()
    );
    assert_eq!(
        ctx.failures().len(),
        1,
        "the failure is recorded, not acted on"
    );
}
