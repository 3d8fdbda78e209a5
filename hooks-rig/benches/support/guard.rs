//! The guard the adapter bench and the `hook_calls` driver both run — as a
//! native rig hook and through `HooksHook` — and the model turn it answers:
//! one definition, so that the driver counts the bench's work.

use hooks_core::{Decision, Hook, Hooks, PreToolUse, Session};
use hooks_rig::HooksHook;
use rig_agent::agent::{AgentHook, DispatchAction, DispatchEvent, HookContext};
use serde_json::{Value, json};

use crate::support::server::tool_calls;

/// Tool calls per model turn: half of them read under `/etc` and are denied.
const CALLS: usize = 8;
const REASON: &str = "no reading under /etc";

/// The guard body both hooks run.
fn forbidden(args: &Value) -> bool {
    args["path"]
        .as_str()
        .is_some_and(|path| path.starts_with("/etc"))
}

/// rig's own way: a hook that parses the arguments and skips the call.
pub struct NativeGuard;

impl AgentHook for NativeGuard {
    async fn on_dispatch(&self, _ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        match event.tool_args() {
            Some(args) => {
                let args: Value = serde_json::from_str(args).unwrap_or(Value::Null);
                if forbidden(&args) {
                    DispatchAction::skip(REASON)
                } else {
                    DispatchAction::Proceed
                }
            }
            None => DispatchAction::Proceed,
        }
    }
}

/// The same guard as a hook, through the adapter.
pub fn adapter() -> HooksHook {
    let hooks = Hooks::builder()
        .without_linked()
        .hook(
            Hook::new("no_etc", |ctx: &mut PreToolUse| {
                if forbidden(ctx.args()) {
                    Decision::deny(REASON)
                } else {
                    Decision::Continue
                }
            })
            .matches("read_file"),
        )
        .build()
        .expect("hooks");
    HooksHook::new(hooks, Session::new("bench"))
}

/// A model turn of [`CALLS`] `read_file` calls.
pub fn turn() -> Value {
    let calls: Vec<(String, Value)> = (0..CALLS)
        .map(|i| {
            let path = if i % 2 == 0 {
                "/etc/passwd"
            } else {
                "notes.txt"
            };
            (format!("call_{i}"), json!({"path": path}))
        })
        .collect();
    let calls: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "read_file", args.clone()))
        .collect();
    tool_calls(&calls)
}
