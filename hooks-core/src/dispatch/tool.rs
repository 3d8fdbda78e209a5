use std::borrow::Cow;
use std::fmt::Display;
use std::future::Future;
use std::time::Instant;

use serde_json::Value;

use super::chain::Chain;
use super::walk::Dispatch;
use crate::context::{PostToolUse, PreToolUse};
use crate::event::EventKind;
use crate::matcher::Relevance;
use crate::registry::table::Candidate;
use crate::registry::{Hooks, ToolEvent};
use crate::session::Session;
use crate::verdict::{Denial, Outcome};

/// The hooks of one tool, found once: dispatching through a handle costs
/// O(hooks that can match this tool), however many hooks are registered.
///
/// [`run`](Self::run) runs the pre-hooks, the tool and the post-hooks as one
/// unit, so an integration cannot forget half of them.
///
/// ```
/// use hooks_core::prelude::*;
///
/// #[post_tool_use(matches = "search")]
/// fn tag_results(ctx: &mut PostToolUse) {
///     if let Ok(result) = ctx.result_mut() {
///         result["checked"] = json!(true);
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let hooks = Hooks::builder().build().unwrap();
/// let search = hooks.tool("search");            // once, at start-up
///
/// let session = Session::new("s1");
/// let run = search
///     .run(&session, json!({"q": "rust"}), async |args: &Value| {
///         Ok::<_, std::io::Error>(json!({"hits": 3, "q": args["q"]}))
///     })
///     .await;
/// assert_eq!(run.result().unwrap(), &json!({"hits": 3, "q": "rust", "checked": true}));
/// # }
/// ```
#[derive(Clone)]
pub struct ToolHandle {
    hooks: Hooks,
    tool: Cow<'static, str>,
    pre: Box<[Candidate]>,
    post: Box<[Candidate]>,
}

impl Hooks {
    /// The handle of one tool; build it once and keep it.
    pub fn tool(&self, tool: impl Into<Cow<'static, str>>) -> ToolHandle {
        let tool = tool.into();
        ToolHandle {
            pre: self.candidates::<PreToolUse>(&tool),
            post: self.candidates::<PostToolUse>(&tool),
            hooks: self.clone(),
            tool,
        }
    }

    /// The hooks that can run for `tool`, and whether each must still check
    /// its matcher per call (only subject patterns need to).
    fn candidates<C: ToolEvent>(&self, tool: &str) -> Box<[Candidate]> {
        C::__table(&self.inner.tables)
            .entries
            .iter()
            .enumerate()
            .filter_map(|(index, entry)| {
                let relevance = entry
                    .meta
                    .matcher
                    .as_ref()
                    .map_or(Relevance::Always, |matcher| matcher.relevance(tool));
                let index = u32::try_from(index).expect("fewer than 2^32 hooks per event");
                match relevance {
                    Relevance::Never => None,
                    Relevance::Always => Some(Candidate {
                        index,
                        per_call: false,
                    }),
                    Relevance::PerCall => Some(Candidate {
                        index,
                        per_call: true,
                    }),
                }
            })
            .collect()
    }
}

impl ToolHandle {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.tool
    }

    /// How many hooks of `C`'s event may run for this tool.
    pub fn count<C: ToolEvent>(&self) -> usize {
        self.indices::<C>().len()
    }

    fn indices<C: ToolEvent>(&self) -> &[Candidate] {
        match C::KIND {
            EventKind::PreToolUse => &self.pre,
            EventKind::PostToolUse => &self.post,
            _ => &[],
        }
    }

    /// Runs this tool's hooks for `C`'s event.
    ///
    /// A context for another tool is dispatched correctly, through every hook
    /// (slower, never wrong).
    pub fn dispatch<'a, C: ToolEvent>(
        &'a self,
        ctx: &'a mut C,
    ) -> impl Future<Output = Outcome> + Send + 'a {
        let entries = &C::__table(&self.hooks.inner.tables).entries;
        let chain = if same_tool(ctx.tool(), &self.tool) {
            Chain::Candidates {
                entries,
                candidates: self.indices::<C>().iter(),
            }
        } else {
            Chain::All(entries.iter())
        };
        Dispatch::new(&self.hooks, chain, ctx)
    }

    /// Runs the pre-hooks; unless one denies, runs `tool` with the final
    /// arguments, then the post-hooks on its result.
    pub async fn run<T, E>(&self, session: &Session, args: Value, tool: T) -> ToolRun
    where
        T: AsyncFnOnce(&Value) -> Result<Value, E>,
        E: Display,
    {
        let mut pre = PreToolUse::new(session, self.tool.clone(), args);
        let outcome = self.dispatch(&mut pre).await;
        if outcome.is_denied() {
            return ToolRun {
                pre,
                outcome,
                post: None,
            };
        }
        let started = Instant::now();
        let result = tool(pre.args()).await.map_err(|error| error.to_string());
        let mut post = PostToolUse::after(&pre, result).with_duration(started.elapsed());
        let _ = self.dispatch(&mut post).await;
        ToolRun {
            pre,
            outcome,
            post: Some(post),
        }
    }
}

/// Whether a context is for the handle's tool. Usually both names are the
/// same `'static` literal, so comparing pointers settles it before the bytes.
#[inline]
fn same_tool(tool: &str, handle: &str) -> bool {
    (std::ptr::eq(tool.as_ptr(), handle.as_ptr()) && tool.len() == handle.len()) || tool == handle
}

impl std::fmt::Debug for ToolHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolHandle")
            .field("tool", &self.tool)
            .field("pre_tool_use_hooks", &self.pre.len())
            .field("post_tool_use_hooks", &self.post.len())
            .finish_non_exhaustive()
    }
}

/// What [`ToolHandle::run`] did: the pre-hooks' outcome and, if the tool ran,
/// its post-hook context.
#[derive(Debug)]
pub struct ToolRun {
    pre: PreToolUse,
    outcome: Outcome,
    post: Option<PostToolUse>,
}

impl ToolRun {
    /// Whether the tool ran.
    pub fn ran(&self) -> bool {
        self.post.is_some()
    }

    /// The pre-hooks' denial, if the tool did not run.
    pub fn denial(&self) -> Option<&Denial> {
        self.outcome.denial()
    }

    /// What to tell the model: the (rewritten) result, the tool's error, or the denial's reason.
    pub fn result(&self) -> Result<&Value, &str> {
        match (&self.post, self.outcome.denial()) {
            (Some(post), _) => post.result(),
            (None, Some(denial)) => Err(denial.reason()),
            (None, None) => unreachable!("a tool that did not run was denied"),
        }
    }

    /// The pre-hook context: final arguments, rewrites, injected context, approvals.
    pub fn pre(&self) -> &PreToolUse {
        &self.pre
    }

    /// The post-hook context, if the tool ran.
    pub fn post(&self) -> Option<&PostToolUse> {
        self.post.as_ref()
    }
}
