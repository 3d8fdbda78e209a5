//! An agent session with hooks at work: a scripted model calls tools through
//! a `Hooks` dispatcher, and every hook's decision is printed as it happens.
//!
//! Run it with `cargo run`. No network, no API key: the model is a script.

mod guards;
mod script;

use std::collections::HashMap;
use std::process::ExitCode;

use hooks_core::prelude::*;
use hooks_core::{ApprovalOutcome, ApprovalRequest};

use script::{TOOLS, Turn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let hooks = match Hooks::builder()
        .approver(scripted_approver)
        .require(["agent_session::guards::careful_sql"])
        .build()
    {
        Ok(hooks) => hooks,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    println!("Hooks linked into this binary:\n\n{}", hooks.describe());

    // Tool handles are built once: each knows which hooks can match its tool.
    let handles: HashMap<&str, ToolHandle> = TOOLS
        .iter()
        .map(|tool| (*tool, hooks.tool(*tool)))
        .collect();
    let session = Session::new("demo-1")
        .with_user("dana")
        .with_metadata("role", "guest");
    println!(
        "Session {} for user {}\n",
        session.id(),
        session.user_id().unwrap_or("?")
    );

    let mut start = SessionStart::new(&session);
    let _ = hooks.dispatch(&mut start).await;
    show(
        "session_start",
        &format!("context for the model: {:?}", start.injected().text()),
    );
    submit_prompts(&hooks, &session).await;
    request_model(&hooks, &session).await;
    run_turns(&hooks, &handles, &session).await;

    let mut end = SessionEnd::new(&session, "completed");
    let _ = hooks.dispatch(&mut end).await;
    show(
        "session_end",
        &format!("session {} closed", end.session().id()),
    );
    ExitCode::SUCCESS
}

async fn submit_prompts(hooks: &Hooks, session: &Session) {
    for prompt in [
        "Here is my key sk-live-51Hx9, archive order 42",
        "Archive order 42 and refund it",
    ] {
        let mut submitted = UserPromptSubmit::new(session, prompt);
        match hooks.dispatch(&mut submitted).await {
            Outcome::Denied(denial) => show(
                "prompt",
                &format!(
                    "{prompt:?}\n{:18}BLOCKED by {}: {}",
                    "",
                    denial.hook(),
                    denial.reason()
                ),
            ),
            Outcome::Continue => show("prompt", &format!("{prompt:?} accepted")),
        }
    }
}

async fn request_model(hooks: &Hooks, session: &Session) {
    let mut request = PreModelRequest::new(session, TOOLS, json!({"model": "scripted"}));
    let _ = hooks.dispatch(&mut request).await;
    let offered: Vec<&str> = request.tools().collect();
    show(
        "model request",
        &format!("tools offered: {}", offered.join(", ")),
    );
    for rewrite in request.rewrites() {
        show(
            "model request",
            &format!(
                "({} changed the {}; guards still check every call)",
                rewrite.hook, rewrite.field
            ),
        );
    }
}

/// Plays the scripted model: tool calls go through their handles, and a
/// final message goes through the stop hooks, which may keep the agent going.
async fn run_turns(hooks: &Hooks, handles: &HashMap<&str, ToolHandle>, session: &Session) {
    let mut stop_hook_active = false;
    for turn in script::turns() {
        match turn {
            Turn::Call { tool, args } => {
                println!("\n  model calls {tool} {args}");
                let run = handles[tool]
                    .run(session, args, async |args: &Value| {
                        script::run_tool(tool, args).await
                    })
                    .await;
                report(&run);
            }
            Turn::Say(message) => {
                println!("\n  model says {message:?}");
                let mut stop = Stop::new(session)
                    .with_last_message(message)
                    .with_stop_hook_active(stop_hook_active);
                match hooks.dispatch(&mut stop).await {
                    Outcome::Denied(denial) => {
                        show(
                            "stop",
                            &format!("KEEP GOING, says {}: {}", denial.hook(), denial.reason()),
                        );
                        stop_hook_active = true;
                    }
                    Outcome::Continue => {
                        show("stop", "the agent may stop");
                        return;
                    }
                }
            }
        }
    }
}

/// Prints what the hooks did to one tool call.
fn report(run: &ToolRun) {
    let pre = run.pre();
    for rewrite in pre.rewrites() {
        show(
            "pre_tool_use",
            &format!(
                "{} rewrote the {} -> {}",
                rewrite.hook,
                rewrite.field,
                pre.args()
            ),
        );
    }
    for approval in pre.approvals() {
        let answer = match &approval.outcome {
            ApprovalOutcome::Answered(answer) if answer.is_approved() => {
                format!("approved by {}", answer.responder().unwrap_or("someone"))
            }
            other => format!("not approved ({other:?})"),
        };
        show(
            "pre_tool_use",
            &format!("{} asked {:?}: {answer}", approval.hook, approval.prompt),
        );
    }
    if let Some(denial) = run.denial() {
        show(
            "pre_tool_use",
            &format!("DENIED by {}: {}", denial.hook(), denial.reason()),
        );
        return;
    }
    if let Some(post) = run.post() {
        for rewrite in post.rewrites() {
            show(
                "post_tool_use",
                &format!("{} rewrote the {}", rewrite.hook, rewrite.field),
            );
        }
        match post.result() {
            Ok(result) => show("tool", &format!("ran; the model sees {result}")),
            Err(error) => show("tool", &format!("failed; the model sees {error:?}")),
        }
    }
}

/// Answers approvals as a person would, so the example never waits on a terminal.
fn scripted_approver(request: &ApprovalRequest) -> ApprovalAnswer {
    if request.tool() == Some("payments_refund") {
        ApprovalAnswer::approve().by("alice (scripted)")
    } else {
        ApprovalAnswer::deny("not expected in this script").by("alice (scripted)")
    }
}

fn show(event: &str, what: &str) {
    println!("  [{event:>13}] {what}");
}
