//! Rewrites are recorded when a hook changes a field, not when it borrows
//! one: a hook that looks through `args_mut()` and changes nothing leaves
//! no rewrite in the trail (nor, so, in the audit log).

use hooks_core::prelude::*;
use hooks_tests::block_on;

/// Borrows mutably, reads, changes nothing.
#[pre_tool_use(group = "rewrites", priority = 1)]
fn looks(ctx: &mut PreToolUse) {
    if let Some(amount) = ctx.args_mut().get_mut("amount") {
        assert!(amount.is_u64());
    }
}

/// Changes a field and puts it back: the content is what it was.
#[pre_tool_use(group = "rewrites", priority = 2)]
fn changes_and_restores(ctx: &mut PreToolUse) {
    let before = ctx.args()["amount"].clone();
    ctx.args_mut()["amount"] = json!(0);
    ctx.args_mut()["amount"] = before;
}

/// Really changes the arguments.
#[pre_tool_use(group = "rewrites", priority = 3)]
fn caps(ctx: &mut PreToolUse) {
    if ctx.args()["amount"].as_u64() > Some(100) {
        ctx.args_mut()["amount"] = json!(100);
    }
}

#[post_tool_use(group = "rewrites")]
fn looks_at_result(ctx: &mut PostToolUse) {
    let _ = ctx.result_mut();
}

#[user_prompt_submit(group = "rewrites")]
fn trims(ctx: &mut UserPromptSubmit) {
    let prompt = ctx.prompt_mut();
    let trimmed = prompt.trim().to_owned();
    *prompt = trimmed;
}

#[pre_model_request(group = "rewrites")]
fn keeps_offered_tools(ctx: &mut PreModelRequest) {
    ctx.include_tools(&["read", "write"]);
    let _ = ctx.params_mut();
}

fn hooks() -> Hooks {
    Hooks::builder().groups(["rewrites"]).build().unwrap()
}

fn pay(amount: u64) -> PreToolUse {
    PreToolUse::new(&Session::new("s"), "pay", json!({ "amount": amount }))
}

#[test]
fn borrowing_without_changing_records_nothing() {
    let hooks = hooks();
    let mut small = pay(10);
    assert!(block_on(hooks.dispatch(&mut small)).is_continue());
    assert!(small.rewrites().is_empty(), "{:?}", small.rewrites());

    let mut post = PostToolUse::new(&Session::new("s"), "pay", json!({}), Ok(json!("ok")));
    assert!(block_on(hooks.dispatch(&mut post)).is_continue());
    assert!(post.rewrites().is_empty());

    let mut model = PreModelRequest::new(&Session::new("s"), ["read", "write"], json!({"t": 1}));
    assert!(block_on(hooks.dispatch(&mut model)).is_continue());
    assert!(model.rewrites().is_empty());
}

#[test]
fn a_change_is_recorded_under_the_hook_that_made_it() {
    let hooks = hooks();
    let mut large = pay(5_000);
    assert!(block_on(hooks.dispatch(&mut large)).is_continue());
    assert_eq!(large.args(), &json!({"amount": 100}));
    let rewrites: Vec<_> = large
        .rewrites()
        .iter()
        .map(|rewrite| (rewrite.hook.as_str(), rewrite.field))
        .collect();
    assert_eq!(rewrites, [("rewrites::caps", "args")]);

    let mut padded = UserPromptSubmit::new(&Session::new("s"), "  hello  ");
    assert!(block_on(hooks.dispatch(&mut padded)).is_continue());
    assert_eq!(padded.rewrites().len(), 1);
    let mut tidy = UserPromptSubmit::new(&Session::new("s"), "hello");
    assert!(block_on(hooks.dispatch(&mut tidy)).is_continue());
    assert!(tidy.rewrites().is_empty());

    let mut model = PreModelRequest::new(&Session::new("s"), ["read", "write", "shell"], json!({}));
    assert!(block_on(hooks.dispatch(&mut model)).is_continue());
    assert_eq!(model.rewrites()[0].field, "tools");
}

/// Each hook's change is judged against the arguments as the hook before
/// left them (a hook undoing another's change is a rewrite too), and a
/// change the integration makes between dispatches is nobody's rewrite.
#[test]
fn each_change_is_judged_against_what_the_previous_hook_left() {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(Hook::new("raise", |ctx: &mut PreToolUse| {
            ctx.args_mut()["amount"] = json!(500);
        }))
        .hook(
            Hook::new("undo", |ctx: &mut PreToolUse| {
                ctx.args_mut()["amount"] = json!(5);
            })
            .priority(1),
        )
        .hook(
            Hook::new("look", |ctx: &mut PreToolUse| {
                let _ = ctx.args_mut();
            })
            .priority(2),
        )
        .build()
        .unwrap();
    let mut ctx = PreToolUse::new(&Session::new("s"), "pay", json!({"amount": 5}));
    let _ = block_on(hooks.dispatch(&mut ctx));
    let by: Vec<&str> = ctx.rewrites().iter().map(|r| r.hook.as_str()).collect();
    assert_eq!(by, ["raise", "undo"], "undoing is a change; looking is not");

    // Between dispatches the integration sets the amount to 500 itself:
    // `undo` changes it back to 5 (a rewrite), `raise` first sets 500
    // over the integration's 500 (no change of its own).
    *ctx.args_mut() = json!({"amount": 500});
    let _ = block_on(hooks.dispatch(&mut ctx));
    let by: Vec<&str> = ctx.rewrites().iter().map(|r| r.hook.as_str()).collect();
    assert_eq!(by, ["raise", "undo", "undo"]);
}
