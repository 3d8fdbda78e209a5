//! A rig agent with the hooks in its loop. Offline, against a scripted model
//! on 127.0.0.1; with `OPENAI_API_KEY` (and optionally `OPENAI_BASE_URL`)
//! set, against that provider instead.
//!
//! ```sh
//! cargo run -p hooks-rig --example rig_agent
//! ```

#[allow(
    dead_code,
    unreachable_pub,
    reason = "the example uses a few of the tests' helpers"
)]
#[path = "../tests/support/mod.rs"]
mod support;

use hooks_core::{Decision, Hook, Hooks, PostToolUse, PreToolUse, Session};
use hooks_rig::HooksHook;
use rig_agent::agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;
use serde_json::json;

use support::server::{ScriptedModel, text, tool_calls};
use support::{DeleteFile, ReadFile};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("no_delete", |_: &mut PreToolUse| {
                Decision::deny("deleting files needs a person")
            })
            .matches("delete_file"),
        )
        .hook(Hook::new("redact", |ctx: &mut PostToolUse| {
            if let Ok(result) = ctx.result_mut() {
                result["secret"] = json!("[redacted]");
            }
        }))
        .build()?;

    let mut scripted_model = None;
    let (config, model) = if std::env::var_os("OPENAI_API_KEY").is_some() {
        (OpenAIConfig::from_env()?, "gpt-4o-mini".to_owned())
    } else {
        let (scripted, base_url) = ScriptedModel::start([
            tool_calls(&[
                ("call_1", "read_file", json!({"path": "notes.txt"})),
                ("call_2", "delete_file", json!({"path": "notes.txt"})),
            ]),
            text("I read the notes; deleting them was refused."),
        ])
        .await;
        scripted_model = Some(scripted);
        (
            OpenAIConfig::new("offline").with_base_url(base_url),
            "scripted".to_owned(),
        )
    };
    let agent = AgentBuilder::new(config.client().chat(model))
        .preamble("You tidy up files with the tools you have.")
        .tool(ReadFile::default())
        .tool(DeleteFile::default())
        .default_max_turns(4)
        .add_hook(HooksHook::new(hooks, Session::new("example")))
        .build();
    let response = agent.prompt("Read notes.txt, then delete it.").await?;
    if let Some(model) = scripted_model {
        // What the model was told, call by call: what the hooks made of each.
        for request in model.requests().iter().skip(1) {
            for (id, result) in support::server::tool_results(request) {
                println!("tool result for {id}: {result}");
            }
        }
    }
    println!("model: {}", response.output());
    Ok(())
}
