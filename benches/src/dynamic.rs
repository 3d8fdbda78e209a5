//! A dynamic hook registry, written the way popular agent frameworks write
//! theirs, as the honest baseline: trait objects in a `Vec`, `async_trait`,
//! event names as `String`s, tool patterns as globs compiled once at
//! registration, a JSON result object per hook, results collected in a `Vec`,
//! rewrites returned as `updated_input`.

use std::sync::Arc;

use async_trait::async_trait;
use glob::Pattern;
use hooks_core::{ArgsNotObject, Value, json};

use crate::bodies::{self, guard};

/// The event a hook receives.
#[derive(Debug, Clone)]
pub struct ToolEvent {
    /// `PreToolUse`.
    pub hook_event_name: String,
    /// The session.
    pub session_id: String,
    /// The tool.
    pub tool_name: String,
    /// Its arguments.
    pub tool_input: Value,
}

impl ToolEvent {
    /// A `PreToolUse` event.
    pub fn pre_tool_use(tool: &str, input: Value) -> Self {
        ToolEvent {
            hook_event_name: "PreToolUse".to_owned(),
            session_id: "bench".to_owned(),
            tool_name: tool.to_owned(),
            tool_input: input,
        }
    }
}

/// A hook.
#[async_trait]
pub trait Hook: Send + Sync {
    /// Its name.
    fn name(&self) -> &str;
    /// The event it runs on.
    fn event(&self) -> &str;
    /// The tools it runs for.
    fn matcher(&self) -> &Pattern;
    /// Lower runs earlier.
    fn priority(&self) -> i32;
    /// Runs it: `{"decision": "continue" | "deny", "reason"?, "updated_input"?}`.
    async fn run(&self, event: &ToolEvent) -> Value;
}

/// One hook's result.
#[derive(Debug)]
pub struct HookRun {
    /// The hook.
    pub hook: String,
    /// What it returned.
    pub output: Value,
}

/// The registry.
#[derive(Default)]
pub struct Registry {
    hooks: Vec<Arc<dyn Hook>>,
}

impl Registry {
    /// Adds a hook, keeping the order by priority.
    pub fn register(&mut self, hook: Arc<dyn Hook>) {
        self.hooks.push(hook);
        self.hooks.sort_by_key(|hook| hook.priority());
    }

    /// Runs the hooks for `event`; the first `deny` stops the chain.
    pub async fn dispatch(&self, event: &mut ToolEvent) -> Vec<HookRun> {
        let mut runs = Vec::new();
        for hook in &self.hooks {
            if hook.event() != event.hook_event_name || !hook.matcher().matches(&event.tool_name) {
                continue;
            }
            let output = hook.run(event).await;
            if let Some(input) = output.get("updated_input") {
                event.tool_input = input.clone();
            }
            let denied = output["decision"] == "deny";
            runs.push(HookRun {
                hook: hook.name().to_owned(),
                output,
            });
            if denied {
                break;
            }
        }
        runs
    }
}

/// A guard running [`bodies::guard`].
pub struct GuardHook {
    name: String,
    event: String,
    matcher: Pattern,
    index: usize,
}

#[async_trait]
impl Hook for GuardHook {
    fn name(&self) -> &str {
        &self.name
    }
    fn event(&self) -> &str {
        &self.event
    }
    fn matcher(&self) -> &Pattern {
        &self.matcher
    }
    fn priority(&self) -> i32 {
        0
    }
    async fn run(&self, event: &ToolEvent) -> Value {
        match guard(&event.tool_input, self.index) {
            Some(reason) => json!({"decision": "deny", "reason": reason}),
            None => json!({"decision": "continue"}),
        }
    }
}

/// A rewrite: returns the rewritten input as `updated_input`.
pub struct RewriteHook {
    name: String,
    event: String,
    matcher: Pattern,
    priority: i32,
    rewrite: Rewrite,
}

/// A rewrite of a call's arguments.
type Rewrite = fn(&mut Value) -> Result<(), ArgsNotObject>;

#[async_trait]
impl Hook for RewriteHook {
    fn name(&self) -> &str {
        &self.name
    }
    fn event(&self) -> &str {
        &self.event
    }
    fn matcher(&self) -> &Pattern {
        &self.matcher
    }
    fn priority(&self) -> i32 {
        self.priority
    }
    async fn run(&self, event: &ToolEvent) -> Value {
        let mut input = event.tool_input.clone();
        match (self.rewrite)(&mut input) {
            Ok(()) => json!({"decision": "continue", "updated_input": input}),
            Err(error) => json!({"decision": "deny", "reason": error.to_string()}),
        }
    }
}

fn pattern(glob: &str) -> Pattern {
    Pattern::new(glob).expect("bench patterns are valid")
}

/// `registered` hooks of which the first `matching` guard `sql_*` tools.
pub fn guards(registered: usize, matching: usize) -> Registry {
    let mut registry = Registry::default();
    for n in 0..registered {
        let hook = if n < matching {
            GuardHook {
                name: format!("guard_{n}"),
                event: "PreToolUse".to_owned(),
                matcher: pattern("sql_*"),
                index: n,
            }
        } else {
            GuardHook {
                name: format!("noise_{n}"),
                event: "PreToolUse".to_owned(),
                matcher: pattern(&format!("other_tool_{n:04}")),
                index: 0,
            }
        };
        registry.register(Arc::new(hook));
    }
    registry
}

/// The three rewrites of the rewrite workload.
pub fn rewrites() -> Registry {
    let mut registry = Registry::default();
    let steps: [(i32, Rewrite); 3] = [
        (1, bodies::pin_host::<Value>),
        (2, bodies::cap_timeout::<Value>),
        (3, bodies::force_https::<Value>),
    ];
    for (priority, rewrite) in steps {
        registry.register(Arc::new(RewriteHook {
            name: format!("rewrite_{priority}"),
            event: "PreToolUse".to_owned(),
            matcher: pattern("http_get"),
            priority,
            rewrite,
        }));
    }
    registry
}
