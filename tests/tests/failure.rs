//! Failure: a hook that panics, returns `Err` or runs past its timeout never
//! crashes the agent loop. Guards fail closed (the call is denied, naming the
//! hook and the cause); hooks on events that cannot block (and observers)
//! fail open with a warning; `on_error`
//! overrides either way.

use std::time::Duration;

use hooks_core::prelude::*;
use hooks_core::{DenialCause, HookError};
use hooks_tests::{block_on, capture_logs};

#[pre_tool_use(group = "panic")]
fn panics(_: &mut PreToolUse) -> Decision {
    panic!("boom")
}

#[pre_tool_use(group = "panic", priority = 1)]
fn after_panic(ctx: &mut PreToolUse) {
    ctx.inject("after_panic ran");
}

#[pre_tool_use(group = "error")]
fn returns_err(_: &mut PreToolUse) -> Result<Decision, String> {
    Err("policy database unreachable".to_owned())
}

#[pre_tool_use(group = "timeout", timeout_ms = 20)]
async fn too_slow(_: &mut PreToolUse) {
    tokio::time::sleep(Duration::from_secs(30)).await;
}

#[pre_tool_use(group = "never", timeout_ms = 20)]
async fn never_finishes(_: &mut PreToolUse) {
    std::future::pending::<()>().await;
}

#[pre_tool_use(group = "async_panic")]
async fn panics_later(_: &mut PreToolUse) {
    tokio::task::yield_now().await;
    panic!("async boom");
}

#[post_tool_use(group = "post", priority = 1)]
fn post_hook_panics(_: &mut PostToolUse) {
    panic!("post hook broke");
}

#[post_tool_use(group = "post", priority = 2)]
fn post_hook_after(ctx: &mut PostToolUse) {
    ctx.inject("post_hook_after ran");
}

#[pre_tool_use(group = "lenient", on_error = "continue")]
fn lenient(_: &mut PreToolUse) -> Result<(), String> {
    Err("flaky".to_owned())
}

#[user_prompt_submit(group = "prompt")]
fn prompt_check_fails(_: &mut UserPromptSubmit) -> Result<Decision, std::io::Error> {
    Err(std::io::Error::other("classifier down"))
}

#[stop(group = "stop_default")]
fn stop_check_panics(_: &mut Stop) -> Decision {
    panic!("stop check broke")
}

#[stop(group = "stop_strict", on_error = "deny")]
fn strict_stop_check(_: &mut Stop) -> Decision {
    panic!("stop check broke")
}

fn hooks(group: &str) -> Hooks {
    Hooks::builder().groups([group]).build().unwrap()
}

fn call(tool: &'static str) -> PreToolUse {
    PreToolUse::new(&Session::new("s"), tool, json!({}))
}

#[test]
fn a_panicking_guard_denies_naming_the_hook_and_nothing_after_runs() {
    let mut ctx = call("anything");
    let outcome = block_on(hooks("panic").dispatch(&mut ctx));
    let denial = outcome.denial().expect("fail closed");
    assert_eq!(denial.hook(), &"failure::panics");
    assert_eq!(
        denial.cause(),
        &DenialCause::Failed(HookError::Panicked("boom".into()))
    );
    assert_eq!(
        denial.reason(),
        "hook `failure::panics` panicked: boom, so the call was denied \
         (pre_tool_use hooks fail closed unless they say `on_error = \"continue\"`)"
    );
    assert!(ctx.injected().is_empty());
}

#[test]
fn an_err_from_a_guard_denies_with_the_error() {
    let outcome = block_on(hooks("error").dispatch(&mut call("x")));
    let denial = outcome.denial().unwrap();
    assert_eq!(
        denial.cause(),
        &DenialCause::Failed(HookError::Failed("policy database unreachable".into()))
    );
    assert!(
        denial
            .reason()
            .contains("returned an error: policy database unreachable")
    );
}

#[tokio::test]
async fn a_timeout_denies() {
    let started = std::time::Instant::now();
    let outcome = hooks("timeout").dispatch(&mut call("x")).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the hook was cut off"
    );
    let denial = outcome.denial().unwrap();
    assert_eq!(denial.hook(), &"failure::too_slow");
    assert_eq!(
        denial.cause(),
        &DenialCause::Failed(HookError::TimedOut(Duration::from_millis(20)))
    );
    assert!(denial.reason().contains("timed out after 20 ms"));
}

#[test]
fn a_timeout_without_a_runtime_fails_the_hook_instead_of_panicking() {
    let outcome = block_on(hooks("never").dispatch(&mut call("x")));
    let reason = outcome.denial().unwrap().reason().to_owned();
    assert!(
        reason.contains("a timeout needs a Tokio runtime"),
        "{reason}"
    );

    // A hook that itself needs the runtime panics inside, and is denied like any panic.
    let outcome = block_on(hooks("timeout").dispatch(&mut call("x")));
    let reason = outcome.denial().unwrap().reason().to_owned();
    assert!(
        reason.contains("panicked: there is no reactor running"),
        "{reason}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_an_async_hook_denies() {
    let hooks = hooks("async_panic");
    // Dispatch from a spawned task: the dispatch future is `Send`.
    let outcome = tokio::spawn(async move { hooks.dispatch(&mut call("x")).await })
        .await
        .unwrap();
    assert_eq!(
        outcome.denial().unwrap().cause(),
        &DenialCause::Failed(HookError::Panicked("async boom".into()))
    );
}

#[test]
fn a_failing_post_tool_use_hook_lets_the_call_go_on_with_a_warning() {
    let hooks = hooks("post");
    let mut ctx = PostToolUse::new(&Session::new("s"), "read", json!({}), Ok(json!("data")));
    let (outcome, logs) = capture_logs(|| block_on(hooks.dispatch(&mut ctx)));
    assert!(outcome.is_continue());
    assert_eq!(ctx.injected().text(), "post_hook_after ran");
    assert_eq!(ctx.failures().len(), 1);
    assert_eq!(ctx.failures()[0].hook, "failure::post_hook_panics");
    assert_eq!(
        ctx.failures()[0].error,
        HookError::Panicked("post hook broke".into())
    );
    assert!(logs.contains("WARN"), "{logs}");
    assert!(logs.contains("hook failed; continuing"), "{logs}");
    assert!(logs.contains("failure::post_hook_panics"), "{logs}");
}

#[test]
fn on_error_continue_makes_a_guard_fail_open() {
    let mut ctx = call("x");
    assert!(block_on(hooks("lenient").dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.failures()[0].error, HookError::Failed("flaky".into()));
}

#[test]
fn a_failing_prompt_check_blocks_the_prompt() {
    let mut ctx = UserPromptSubmit::new(&Session::new("s"), "hello");
    let outcome = block_on(hooks("prompt").dispatch(&mut ctx));
    assert!(
        outcome
            .denial()
            .unwrap()
            .reason()
            .contains("classifier down")
    );
}

#[test]
fn a_failing_stop_check_lets_the_agent_stop_unless_it_says_deny() {
    let mut ctx = Stop::new(&Session::new("s"));
    assert!(block_on(hooks("stop_default").dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.failures().len(), 1);

    let mut ctx = Stop::new(&Session::new("s"));
    let outcome = block_on(hooks("stop_strict").dispatch(&mut ctx));
    assert_eq!(
        outcome.denial().unwrap().hook(),
        &"failure::strict_stop_check"
    );
}

/// A scrubber that removes secrets from results, and breaks on a shape it
/// did not expect: what reaches the model must not be the raw result.
#[post_tool_use(group = "scrub", on_error = "deny")]
fn scrub_secrets(ctx: &mut PostToolUse) -> Result<(), String> {
    let Ok(Value::String(text)) = ctx.result_mut() else {
        return Err("expected a text result".to_owned());
    };
    *text = text.replace("sk-live-", "[redacted]-");
    Ok(())
}

#[post_tool_use(group = "scrub", priority = 1)]
fn sees_what_the_model_sees(ctx: &mut PostToolUse) {
    let seen = match ctx.result() {
        Ok(value) => value.to_string(),
        Err(error) => format!("error: {error}"),
    };
    ctx.inject(seen);
}

#[test]
fn a_failing_scrubber_that_fails_closed_withholds_the_result() {
    let hooks = hooks("scrub");
    let secret = json!({"key": "sk-live-1234567890"});
    let mut ctx = PostToolUse::new(&Session::new("s"), "read", json!({}), Ok(secret));
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
    let error = ctx.result().expect_err("the raw result is withheld");
    assert_eq!(
        error,
        "the tool's result was withheld: hook `failure::scrub_secrets` returned an error, and it \
         fails closed (`on_error = \"deny\"`)"
    );
    assert!(
        !ctx.injected().text().contains("sk-live"),
        "later hooks see the error"
    );
    assert_eq!(ctx.failures()[0].hook, "failure::scrub_secrets");
    assert_eq!(ctx.rewrites()[0].hook, "failure::scrub_secrets");

    // A result it can handle goes through scrubbed.
    let mut ctx = PostToolUse::new(
        &Session::new("s"),
        "read",
        json!({}),
        Ok(json!("sk-live-1")),
    );
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
    assert_eq!(ctx.result(), Ok(&json!("[redacted]-1")));
}

#[test]
fn a_runtime_scrubber_may_fail_closed_and_other_events_may_not() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("scrub::panics", |ctx: &mut PostToolUse| {
                assert!(ctx.result().is_err(), "regex blew up");
            })
            .on_error(OnError::Deny),
        )
        .build()
        .unwrap();
    let mut ctx = PostToolUse::new(&Session::new("s"), "read", json!({}), Ok(json!("raw")));
    assert!(block_on(hooks.dispatch(&mut ctx)).is_continue());
    let error = ctx.result().unwrap_err();
    assert!(error.contains("`scrub::panics` panicked"), "{error}");
    assert!(
        !error.contains("regex blew up"),
        "the message may quote the data: {error}"
    );
    assert_eq!(
        ctx.failures()[0].error,
        HookError::Panicked("regex blew up".into())
    );

    let refused = Hooks::builder()
        .without_linked()
        .hook(Hook::new("greet", |_: &mut SessionStart| {}).on_error(OnError::Deny))
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("`on_error = deny` is not possible because session_start hooks can neither block nor withhold anything"),
        "{refused}"
    );
}
