//! Chaining: every rewrite is seen by later hooks and by the tool, and each
//! is recorded under the name of the hook that made it.

use std::sync::atomic::{AtomicUsize, Ordering};

use hooks_core::context::Rewrite;
use hooks_core::prelude::*;

#[pre_tool_use(group = "chain", priority = 1, matches = "echo")]
fn tag_one(ctx: &mut PreToolUse) {
    let text = ctx.args()["text"].as_str().unwrap_or_default().to_owned();
    ctx.args_mut()["text"] = json!(format!("[1]{text}"));
}

#[pre_tool_use(group = "chain", priority = 2, matches = "echo")]
fn tag_two_after_one(ctx: &mut PreToolUse) -> Decision {
    let text = ctx.args()["text"].as_str().unwrap_or_default().to_owned();
    if !text.starts_with("[1]") {
        return Decision::deny("tag_two ran before seeing tag_one's rewrite");
    }
    ctx.args_mut()["text"] = json!(format!("[2]{text}"));
    Decision::Continue
}

#[pre_tool_use(group = "chain", matches = "forbidden")]
fn forbid(_: &mut PreToolUse) -> Decision {
    Decision::deny("forbidden tool")
}

#[post_tool_use(group = "chain", priority = 1, matches = "echo")]
fn wrap_a(ctx: &mut PostToolUse) {
    if let Ok(Value::String(text)) = ctx.result_mut() {
        text.push_str("<a>");
    }
}

#[post_tool_use(group = "chain", priority = 2, matches = "echo")]
fn wrap_b(ctx: &mut PostToolUse) {
    if let Ok(Value::String(text)) = ctx.result_mut() {
        assert!(text.ends_with("<a>"), "wrap_b sees wrap_a's rewrite");
        text.push_str("<b>");
    }
}

fn hooks() -> Hooks {
    Hooks::builder().groups(["chain"]).build().unwrap()
}

#[tokio::test]
async fn rewrites_reach_later_hooks_and_the_tool() {
    let hooks = hooks();
    let echo = hooks.tool("echo");
    let seen_by_tool = std::sync::Mutex::new(None);
    let run = echo
        .run(
            &Session::new("s"),
            json!({"text": "hi"}),
            async |args: &Value| {
                *seen_by_tool.lock().unwrap() = Some(args.clone());
                Ok::<_, String>(args["text"].clone())
            },
        )
        .await;
    assert_eq!(
        seen_by_tool.into_inner().unwrap(),
        Some(json!({"text": "[2][1]hi"}))
    );
    assert_eq!(run.result(), Ok(&json!("[2][1]hi<a><b>")));
    assert_eq!(
        run.pre().rewrites(),
        [
            Rewrite {
                hook: "chaining::tag_one".into(),
                field: "args"
            },
            Rewrite {
                hook: "chaining::tag_two_after_one".into(),
                field: "args"
            },
        ]
    );
    let post = run.post().unwrap();
    assert_eq!(post.args(), &json!({"text": "[2][1]hi"}));
    assert_eq!(
        post.rewrites(),
        [
            Rewrite {
                hook: "chaining::wrap_a".into(),
                field: "result"
            },
            Rewrite {
                hook: "chaining::wrap_b".into(),
                field: "result"
            },
        ]
    );
    assert!(post.duration().is_some());
}

#[tokio::test]
async fn dispatch_by_name_and_by_handle_agree() {
    let hooks = hooks();
    let session = Session::new("s");
    let mut by_name = PreToolUse::new(&session, "echo", json!({"text": "x"}));
    let mut by_handle = PreToolUse::new(&session, "echo", json!({"text": "x"}));
    assert!(hooks.dispatch(&mut by_name).await.is_continue());
    assert!(
        hooks
            .tool("echo")
            .dispatch(&mut by_handle)
            .await
            .is_continue()
    );
    assert_eq!(by_name.args(), by_handle.args());
    assert_eq!(by_name.rewrites(), by_handle.rewrites());
}

#[tokio::test]
async fn a_denied_tool_never_runs() {
    let hooks = hooks();
    let calls = AtomicUsize::new(0);
    let run = hooks
        .tool("forbidden")
        .run(&Session::new("s"), json!({}), async |_: &Value| {
            calls.fetch_add(1, Ordering::SeqCst);
            Ok::<_, String>(json!("ran"))
        })
        .await;
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert!(!run.ran());
    assert_eq!(run.result(), Err("forbidden tool"));
    assert_eq!(run.denial().unwrap().hook(), &"chaining::forbid");
}

#[tokio::test]
async fn a_tool_error_reaches_post_hooks_and_the_caller() {
    let hooks = hooks();
    let run = hooks
        .tool("echo")
        .run(
            &Session::new("s"),
            json!({"text": "x"}),
            async |_: &Value| Err::<Value, _>(std::io::Error::other("disk full")),
        )
        .await;
    assert!(run.ran());
    assert_eq!(run.result(), Err("disk full"));
}
