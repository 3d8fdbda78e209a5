use std::borrow::Cow;
use std::fmt::Display;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::chain::Chain;
use super::now::Now;
use super::walk::{Dispatch, now};
use super::{attach_facts, give_facts};
use crate::catalog::ToolFacts;
use crate::context::{PostToolUse, PostToolUseFailure, PreToolUse, ToolError, ToolName};
use crate::event::EventKind;
use crate::matcher::Relevance;
use crate::registry::table::{Candidate, Entry};
use crate::registry::{Hooks, ToolEvent};
use crate::session::Session;
use crate::verdict::{Denial, HookError, Outcome, catch_async};

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
    /// Shared with the contexts made from the handle.
    tool: ToolName,
    /// What the dispatcher's catalog knows about the tool, looked up once.
    facts: Option<Arc<ToolFacts>>,
    pre: Plan,
    post: Plan,
    failure: Plan,
}

/// One event's hooks for one tool, found when the handle is made: which
/// may run, and whether any of them observes (if none does, a dispatch
/// has no observer phase, whatever other tools' hooks observe).
#[derive(Clone)]
struct Plan {
    candidates: Box<[Candidate]>,
    observed: bool,
}

impl Hooks {
    /// The handle of one tool; build it once and keep it.
    pub fn tool(&self, tool: impl Into<Cow<'static, str>>) -> ToolHandle {
        let tool = tool.into();
        ToolHandle {
            facts: self.inner.catalog.get(&tool).cloned(),
            pre: self.plan::<PreToolUse>(&tool),
            post: self.plan::<PostToolUse>(&tool),
            failure: self.plan::<PostToolUseFailure>(&tool),
            hooks: self.clone(),
            tool: ToolName::shared(tool),
        }
    }

    /// The hooks of `C`'s event that can run for `tool`.
    fn plan<C: ToolEvent>(&self, tool: &str) -> Plan {
        let entries = &C::__table(&self.inner.tables).entries;
        let candidates = Self::candidates(entries, tool);
        let observed = candidates
            .iter()
            .any(|candidate| entries[candidate.index as usize].meta.observer);
        Plan {
            candidates,
            observed,
        }
    }

    /// The hooks that can run for `tool`, and whether each must still check
    /// its matcher per call (only subject patterns need to).
    fn candidates<C>(entries: &[Entry<C>], tool: &str) -> Box<[Candidate]> {
        entries
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

    /// The context for a call of this tool with `args`: what
    /// [`PreToolUse::new`] makes, sharing the handle's name instead of
    /// copying it.
    ///
    /// ```
    /// use hooks_core::prelude::*;
    ///
    /// let hooks = Hooks::builder().build().unwrap();
    /// let search = hooks.tool(String::from("search"));
    /// let ctx = search.pre_tool_use(&Session::new("s1"), json!({"q": "rust"}));
    /// assert_eq!(ctx.tool(), "search");
    /// ```
    #[inline]
    pub fn pre_tool_use(&self, session: &Session, args: Value) -> PreToolUse {
        PreToolUse::named(session, self.tool.clone(), args)
    }

    /// How many hooks of `C`'s event may run for this tool.
    pub fn count<C: ToolEvent>(&self) -> usize {
        self.plan::<C>().map_or_else(
            || C::__table(&self.hooks.inner.tables).entries.len(),
            |plan| plan.candidates.len(),
        )
    }

    /// The plan of `C`'s event for this tool, where the handle keeps one;
    /// `None` for a tool event it does not (every hook is checked).
    fn plan<C: ToolEvent>(&self) -> Option<&Plan> {
        match C::KIND {
            EventKind::PreToolUse => Some(&self.pre),
            EventKind::PostToolUse => Some(&self.post),
            EventKind::PostToolUseFailure => Some(&self.failure),
            _ => None,
        }
    }

    /// Runs this tool's hooks for `C`'s event.
    ///
    /// A context for another tool is dispatched correctly, through every hook
    /// (slower, never wrong).
    #[inline]
    pub fn dispatch<'a, C: ToolEvent>(
        &'a self,
        ctx: &'a mut C,
    ) -> impl Future<Output = Outcome> + Send + 'a {
        match self.planned(ctx) {
            Some((chain, observed)) => Dispatch::new(&self.hooks, chain, observed, ctx),
            None => self.dispatch_all(ctx),
        }
    }

    /// The handle's chain for `ctx` and whether any of its hooks observes,
    /// the tool's facts given to `ctx`; `None` for a context of another
    /// tool, or an event the handle keeps no plan for.
    #[inline]
    fn planned<'a, C: ToolEvent>(&'a self, ctx: &mut C) -> Option<(Chain<'a, C>, bool)> {
        let plan = self.plan::<C>()?;
        if !same_tool(ctx.tool(), &self.tool) {
            return None;
        }
        if let Some(facts) = &self.facts {
            give_facts(ctx, facts);
        }
        let chain = Chain::Candidates {
            entries: &C::__table(&self.hooks.inner.tables).entries,
            candidates: plan.candidates.iter(),
        };
        Some((chain, plan.observed))
    }

    /// [`dispatch`](Self::dispatch) without a future: the hooks run now,
    /// and unless one must be waited on (an `async fn` hook that is not
    /// ready, a person's approval), the outcome is [`Now::Done`] — what `dispatch` would
    /// have given, at less cost (no future to build, move and drop). For a
    /// loop that calls tools synchronously; [`Now::Wait`] holds the rest of
    /// the dispatch, to await or to refuse the call.
    ///
    /// ```standalone_crate
    /// use hooks_core::prelude::*;
    ///
    /// #[pre_tool_use(matches = "sql_query")]
    /// fn no_drop(ctx: &mut PreToolUse) -> Decision {
    ///     match ctx.args()["query"].as_str() {
    ///         Some(query) if query.starts_with("DROP") => Decision::deny("no DROP"),
    ///         _ => Decision::Continue,
    ///     }
    /// }
    ///
    /// let hooks = Hooks::builder().build().unwrap();
    /// let sql = hooks.tool("sql_query");
    /// let mut ctx = sql.pre_tool_use(&Session::new("s1"), json!({"query": "DROP TABLE t"}));
    /// let Now::Done(outcome) = sql.dispatch_now(&mut ctx) else {
    ///     panic!("only plain hooks here: nothing to wait for");
    /// };
    /// assert_eq!(outcome.denial().unwrap().reason(), "no DROP");
    /// ```
    #[inline]
    pub fn dispatch_now<'a, C: ToolEvent>(&'a self, ctx: &'a mut C) -> Now<'a> {
        match self.planned(ctx) {
            Some((chain, observed)) => now(&self.hooks, chain, observed, ctx),
            None => self.hooks.dispatch_now(ctx),
        }
    }

    /// A dispatch through every hook of `C`'s event: a context for another
    /// tool, or a tool event the handle keeps no plan for. Out of line, so
    /// that the common case above is inlined where it is called.
    #[inline(never)]
    fn dispatch_all<'a, C: ToolEvent>(&'a self, ctx: &'a mut C) -> Dispatch<'a, C> {
        attach_facts(&self.hooks, ctx);
        let table = C::__table(&self.hooks.inner.tables);
        let chain = Chain::All(table.entries.iter());
        Dispatch::new(&self.hooks, chain, table.observers > 0, ctx)
    }

    /// Runs the pre-hooks; unless one denies, runs `tool` with the final
    /// arguments, then the post-hooks on its result: `post_tool_use` if it
    /// succeeded, `post_tool_use_failure` if it returned an error or panicked
    /// (a panic is caught, and reported to the model as the tool's error).
    pub async fn run<T, E>(&self, session: &Session, args: Value, tool: T) -> ToolRun
    where
        T: AsyncFnOnce(&Value) -> Result<Value, E>,
        E: Display,
    {
        let pre = self.pre_tool_use(session, args);
        self.run_call(pre, async |args: &Value| {
            tool(args)
                .await
                .map_err(|error| ToolError::new(error.to_string()))
        })
        .await
    }

    /// [`run`](Self::run), for a call the integration has prepared (with its
    /// [call id](PreToolUse::with_call_id)), and a tool whose errors carry
    /// structured content ([`ToolError::with_data`]: an MCP result with `is_error`).
    pub async fn run_call<T>(&self, mut pre: PreToolUse, tool: T) -> ToolRun
    where
        T: AsyncFnOnce(&Value) -> Result<Value, ToolError>,
    {
        // Run now: only a hook that waits puts a dispatch future in this one.
        let outcome = match self.dispatch_now(&mut pre) {
            Now::Done(outcome) => outcome,
            Now::Wait(rest) => rest.await,
        };
        if outcome.is_denied() {
            return ToolRun {
                pre,
                outcome,
                after: After::NotRun,
            };
        }
        let started = Instant::now();
        let result = {
            // Pinned here and lent to `catch_async`: handed over by value,
            // the tool's future would be laid out twice in this one (once
            // as `catch_async`'s argument, once pinned inside it), and an
            // integration's tool future is often the largest thing in it.
            let mut call = pin!(tool(pre.args()));
            match catch_async(call.as_mut()).await {
                Ok(result) => result,
                Err(HookError::Panicked(message)) => Err(ToolError::panicked(message)),
                Err(error) => Err(ToolError::panicked(error.to_string())),
            }
        };
        let after = match result {
            Ok(value) => {
                let mut post = PostToolUse::after(&pre, Ok(value)).with_duration(started.elapsed());
                let _ = self.dispatch(&mut post).await;
                After::Succeeded(post)
            }
            Err(error) => {
                let mut failure =
                    PostToolUseFailure::after(&pre, error).with_duration(started.elapsed());
                let _ = self.dispatch(&mut failure).await;
                After::Failed(failure)
            }
        };
        ToolRun {
            pre,
            outcome,
            after,
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
            .field("pre_tool_use_hooks", &self.pre.candidates.len())
            .field("post_tool_use_hooks", &self.post.candidates.len())
            .field(
                "post_tool_use_failure_hooks",
                &self.failure.candidates.len(),
            )
            .finish_non_exhaustive()
    }
}

/// What [`ToolHandle::run`] did: the pre-hooks' outcome and, if the tool
/// ran, its post-hook context (`PostToolUse` on success,
/// `PostToolUseFailure` on failure).
#[derive(Debug)]
pub struct ToolRun {
    pre: PreToolUse,
    outcome: Outcome,
    after: After,
}

#[derive(Debug)]
enum After {
    NotRun,
    Succeeded(PostToolUse),
    Failed(PostToolUseFailure),
}

/// Why a [`ToolRun`] has no result for the model: the call was denied, or
/// the tool failed. Both are errors for the model to read; a program tells
/// them apart (an MCP server answers a denial and a tool error alike, with
/// `is_error`, but only the tool error is the tool's).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RunError {
    /// A pre-tool-use hook refused the call; the tool did not run.
    Denied(Denial),
    /// The tool ran and failed (or a post-tool-use hook turned its result
    /// into an error), as the post-hooks left it.
    Failed(ToolError),
}

impl RunError {
    /// What to tell the model.
    pub fn message(&self) -> &str {
        match self {
            RunError::Denied(denial) => denial.reason(),
            RunError::Failed(error) => error.message(),
        }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Denied(denial) => denial.fmt(f),
            RunError::Failed(error) => write!(f, "the tool failed: {error}"),
        }
    }
}

impl std::error::Error for RunError {}

impl ToolRun {
    /// Whether the tool ran.
    pub fn ran(&self) -> bool {
        !matches!(self.after, After::NotRun)
    }

    /// The pre-hooks' denial, if the tool did not run.
    pub fn denial(&self) -> Option<&Denial> {
        self.outcome.denial()
    }

    /// The pre-hooks' outcome: the denial, and what hooks noted (messages,
    /// warnings, shadow decisions).
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// What to tell the model: the (rewritten) result, the tool's error, or
    /// the denial's reason.
    pub fn result(&self) -> Result<&Value, &str> {
        match &self.after {
            After::Succeeded(post) => post.result(),
            After::Failed(failure) => Err(failure.error().message()),
            After::NotRun => Err(self.outcome.denial().map_or("", Denial::reason)),
        }
    }

    /// The result by value: the (rewritten) result, or why there is none,
    /// telling a denial from a tool error.
    pub fn into_result(self) -> Result<Value, RunError> {
        match self.after {
            After::Succeeded(post) => post
                .into_result()
                .map_err(|message| RunError::Failed(ToolError::new(message))),
            After::Failed(failure) => Err(RunError::Failed(failure.into_error())),
            // A tool that did not run was denied; said plainly rather than
            // assumed, should that ever change.
            After::NotRun => Err(match self.outcome.into_denial() {
                Some(denial) => RunError::Denied(denial),
                None => RunError::Failed(ToolError::new("the tool did not run")),
            }),
        }
    }

    /// The pre-hook context: final arguments, rewrites, injected context, approvals.
    pub fn pre(&self) -> &PreToolUse {
        &self.pre
    }

    /// The post-hook context, if the tool ran and succeeded.
    pub fn post(&self) -> Option<&PostToolUse> {
        match &self.after {
            After::Succeeded(post) => Some(post),
            _ => None,
        }
    }

    /// The failure hooks' context, if the tool ran and failed.
    pub fn failure(&self) -> Option<&PostToolUseFailure> {
        match &self.after {
            After::Failed(failure) => Some(failure),
            _ => None,
        }
    }
}
