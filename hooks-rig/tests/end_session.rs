//! A hook ending the session (`end_session`, Claude Code's `continue: false`)
//! stops rig's run with its reason, and every later run of the same hook.

#[allow(
    dead_code,
    reason = "no run here gets as far as answering a tool call to the model"
)]
mod support;

use hooks_core::{
    Event, Hook, Hooks, PostToolUse, PreModelRequest, PreToolUse, Session, UserPromptSubmit,
};
use hooks_rig::HooksHook;
use rig_agent::agent::{Agent, AgentBuilder};
use rig_agent::completion::PromptError;
use rig_core::providers::openai::OpenAIConfig;
use serde_json::{Value, json};

use support::server::{ScriptedModel, text, tool_calls};
use support::{DeleteFile, ReadFile};

const REASON: &str = "the user asked to stop";

struct Rig {
    model: ScriptedModel,
    read: ReadFile,
    delete: DeleteFile,
    hook: HooksHook,
    agent: Agent,
}

/// An agent with both tools and `hooks`, against a model that answers with
/// `replies` and then with text.
async fn rig(hooks: Hooks, replies: impl IntoIterator<Item = Value>) -> Rig {
    let (model, base_url) = ScriptedModel::start(replies).await;
    let client = OpenAIConfig::new("test-key")
        .with_base_url(base_url)
        .client();
    let read = ReadFile::default();
    let delete = DeleteFile::default();
    let hook = HooksHook::new(hooks, Session::new("rig-end"));
    let agent = AgentBuilder::new(client.chat("scripted"))
        .tool(read.clone())
        .tool(delete.clone())
        .default_max_turns(4)
        .add_hook(hook.clone())
        .build();
    Rig {
        model,
        read,
        delete,
        hook,
        agent,
    }
}

/// The reason a run was cancelled with; panics on any other end.
async fn cancelled(agent: &Agent, prompt: &str) -> String {
    match agent.prompt(prompt).await {
        Err(PromptError::Cancelled { reason, .. }) => reason,
        Err(other) => panic!("the run failed instead of being cancelled: {other}"),
        Ok(response) => panic!("the run completed: {:?}", response.output()),
    }
}

fn build<C: Event>(hook: Hook<C>) -> Hooks {
    Hooks::builder()
        .without_linked()
        .hook(hook)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_tool_hook_ending_the_session_stops_the_run_before_the_tool() {
    let hooks = build(
        Hook::new("kill_switch", |ctx: &mut PreToolUse| {
            ctx.end_session(REASON);
        })
        .matches("delete_file"),
    );
    let call = tool_calls(&[("call_d1", "delete_file", json!({"path": "/"}))]);
    let rig = rig(hooks, [call, text("done")]).await;

    assert_eq!(cancelled(&rig.agent, "tidy up").await, REASON);
    assert!(rig.delete.0.calls().is_empty(), "the tool ran");
    assert_eq!(rig.model.requests().len(), 1, "the model was called again");
    let ended = rig.hook.session_ended().expect("the session ended");
    assert_eq!(ended.reason, REASON);
    assert_eq!(
        ended.hook.as_ref().map(hooks_core::HookName::as_str),
        Some("kill_switch")
    );

    // The session is over: the next run stops before the model is called.
    assert_eq!(cancelled(&rig.agent, "and again").await, REASON);
    assert_eq!(rig.model.requests().len(), 1, "the model was called again");
}

#[tokio::test]
async fn a_post_tool_hook_ending_the_session_stops_the_run_after_the_tool() {
    let hooks = build(Hook::new("enough", |ctx: &mut PostToolUse| {
        ctx.end_session(REASON);
    }));
    let call = tool_calls(&[("call_r1", "read_file", json!({"path": "a.txt"}))]);
    let rig = rig(hooks, [call, text("done")]).await;

    assert_eq!(cancelled(&rig.agent, "read it").await, REASON);
    assert_eq!(rig.read.0.calls().len(), 1, "the tool ran once");
    assert_eq!(rig.model.requests().len(), 1, "the model was called again");
}

#[tokio::test]
async fn a_prompt_hook_ending_the_session_stops_before_any_model_call() {
    let hooks = build(Hook::new("closing_time", |ctx: &mut UserPromptSubmit| {
        ctx.end_session(REASON);
    }));
    let rig = rig(hooks, [text("hello")]).await;

    assert_eq!(cancelled(&rig.agent, "hi").await, REASON);
    assert!(rig.model.requests().is_empty(), "the model was called");
    assert_eq!(cancelled(&rig.agent, "hi again").await, REASON);
    assert!(rig.model.requests().is_empty(), "the model was called");
}

#[tokio::test]
async fn a_model_request_hook_ending_the_session_stops_before_the_call() {
    let hooks = build(Hook::new("budget", |ctx: &mut PreModelRequest| {
        ctx.end_session(REASON);
    }));
    let rig = rig(hooks, [text("hello")]).await;

    assert_eq!(cancelled(&rig.agent, "hi").await, REASON);
    assert!(rig.model.requests().is_empty(), "the model was called");
}

#[tokio::test]
async fn a_sub_agents_hook_shares_the_ended_session() {
    let hooks = build(
        Hook::new("kill_switch", |ctx: &mut PreToolUse| {
            ctx.end_session(REASON);
        })
        .matches("delete_file"),
    );
    let call = tool_calls(&[("call_d1", "delete_file", json!({"path": "/"}))]);
    let rig = rig(hooks, [call]).await;
    let sub = rig.hook.sub_agent("helper", "help").await.expect("allowed");
    assert!(sub.session_ended().is_none());

    assert_eq!(cancelled(&rig.agent, "tidy up").await, REASON);
    assert_eq!(
        sub.session_ended().map(|end| end.reason.as_str()),
        Some(REASON)
    );
}
