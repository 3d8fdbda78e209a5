use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::Instant;

use hooks_core::notes::EndSession;
use hooks_core::{
    Denial, Hooks, Now, Outcome, PreToolUse, Session, SessionEnd, SubagentStart, ToolHandle,
};
use rig_agent::agent::{
    AgentHook, DispatchAction, DispatchEvent, HookContext, OutcomeAction, OutcomeEvent, RunSettled,
    RunStart, RunStartAction,
};
use rig_core::effect::{EffectId, EffectKind};

/// A rig [`AgentHook`] that runs a [`Hooks`] dispatcher for one [`Session`].
///
/// Cloning it is cheap and shares everything, so one value can serve several
/// agents of the same session.
#[derive(Clone)]
pub struct HooksHook {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) hooks: Hooks,
    pub(crate) session: Session,
    started: AtomicBool,
    /// One handle per tool name, found on the tool's first call.
    handles: RwLock<Handles>,
    /// Calls the pre-hooks allowed, waiting for their outcome: the post-hooks
    /// see the pre-hooks' rewrites and approvals, as `ToolHandle::run` does.
    pending: Mutex<HashMap<EffectId, Pending>>,
    /// How many calls are parked: an outcome skips the lock when none is.
    parked: AtomicUsize,
    /// The first hook's word that the session should end: every later run
    /// and dispatch stops on it. Shared with the sub-agents' hooks.
    ended: Arc<OnceLock<EndSession>>,
}

/// The tools' handles. An agent has a few tools, called over and over:
/// the first [`Handles::SCANNED`] are found by comparing names, cheaper than
/// hashing one; any more (a model inventing names) are hashed.
#[derive(Default)]
struct Handles {
    few: Vec<Arc<ToolHandle>>,
    more: HashMap<Box<str>, Arc<ToolHandle>>,
}

impl Handles {
    const SCANNED: usize = 8;

    fn get(&self, tool: &str) -> Option<&Arc<ToolHandle>> {
        match self.few.iter().find(|handle| handle.name() == tool) {
            Some(handle) => Some(handle),
            None if self.more.is_empty() => None,
            None => self.more.get(tool),
        }
    }

    fn insert(&mut self, handle: Arc<ToolHandle>) {
        if self.few.len() < Self::SCANNED {
            self.few.push(handle);
        } else {
            self.more.insert(handle.name().into(), handle);
        }
    }
}

pub(crate) struct Pending {
    pub(crate) pre: Box<PreToolUse>,
    pub(crate) handle: Arc<ToolHandle>,
    pub(crate) started: Instant,
}

impl HooksHook {
    /// A hook running `hooks` for `session`.
    pub fn new(hooks: Hooks, session: Session) -> Self {
        Self::with_ended(hooks, session, Arc::default())
    }

    fn with_ended(hooks: Hooks, session: Session, ended: Arc<OnceLock<EndSession>>) -> Self {
        HooksHook {
            inner: Arc::new(Inner {
                hooks,
                session,
                started: AtomicBool::new(false),
                handles: RwLock::new(Handles::default()),
                pending: Mutex::new(HashMap::new()),
                parked: AtomicUsize::new(0),
                ended,
            }),
        }
    }

    /// The dispatcher.
    pub fn hooks(&self) -> &Hooks {
        &self.inner.hooks
    }

    /// The session the hooks see.
    pub fn session(&self) -> &Session {
        &self.inner.session
    }

    /// Whether a hook ended the session (`end_session` on any event, as
    /// [`PreToolUse::end_session`]; Claude Code's `continue: false`): who did
    /// and why. Once set, every run
    /// of this hook (and of its sub-agents' hooks) stops at its next dispatch
    /// with that reason.
    pub fn session_ended(&self) -> Option<&EndSession> {
        self.inner.ended.get()
    }

    /// Asks the `SubagentStart` hooks whether `subagent_id` may start on
    /// `prompt`; if so, the hook to add to the sub-agent: the same dispatcher,
    /// with a session whose parent is this one's agent. The sub-agent's hook
    /// shares this one's ended session: if either is ended, both stop.
    pub async fn sub_agent(
        &self,
        subagent_id: impl Into<String>,
        prompt: impl Into<String>,
    ) -> Result<HooksHook, Denial> {
        let mut ctx = SubagentStart::new(&self.inner.session, subagent_id, prompt);
        let outcome = self.inner.hooks.dispatch(&mut ctx).await;
        // An ended session reaches the sub-agent through the shared state:
        // its first run stops.
        self.note_end(&outcome);
        match outcome.into_denial() {
            Some(denial) => Err(denial),
            None => Ok(HooksHook::with_ended(
                self.inner.hooks.clone(),
                ctx.subagent_session(),
                Arc::clone(&self.inner.ended),
            )),
        }
    }

    /// Runs the `SessionEnd` hooks: rig has no end of a session, only of a run.
    pub async fn end_session(&self, reason: impl Into<std::borrow::Cow<'static, str>>) {
        let mut ctx = SessionEnd::new(&self.inner.session, reason);
        let _ = self.inner.hooks.dispatch(&mut ctx).await;
    }

    pub(crate) fn handle(&self, tool: &str) -> Arc<ToolHandle> {
        let handles = &self.inner.handles;
        if let Some(handle) = handles
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
        {
            return Arc::clone(handle);
        }
        let mut handles = handles.write().unwrap_or_else(PoisonError::into_inner);
        // Another call of the tool may have made it meanwhile.
        if let Some(handle) = handles.get(tool) {
            return Arc::clone(handle);
        }
        let handle = Arc::new(self.inner.hooks.tool(tool.to_owned()));
        handles.insert(Arc::clone(&handle));
        handle
    }

    /// Keeps the call `pre` allowed for its outcome.
    pub(crate) fn park(&self, id: EffectId, handle: Arc<ToolHandle>, pre: Box<PreToolUse>) {
        let pending = Pending {
            pre,
            handle,
            started: Instant::now(),
        };
        self.inner.parked.fetch_add(1, Ordering::AcqRel);
        self.inner
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, pending);
    }

    pub(crate) fn unpark(&self, id: EffectId) -> Option<Pending> {
        if self.inner.parked.load(Ordering::Acquire) == 0 {
            return None;
        }
        let pending = self
            .inner
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        if pending.is_some() {
            self.inner.parked.fetch_sub(1, Ordering::AcqRel);
        }
        pending
    }

    /// Remembers the session end `outcome` carries (the first one is kept);
    /// the reason to stop the run with, if the session is now ended.
    pub(crate) fn note_end(&self, outcome: &Outcome) -> Option<String> {
        if let Some(end) = outcome.end_session() {
            // Losing a race to an earlier end keeps that one.
            let _ = self.inner.ended.set(end.clone());
        }
        self.ended()
    }

    /// Why the session ended, if a hook ended it.
    pub(crate) fn ended(&self) -> Option<String> {
        self.inner.ended.get().map(|end| end.reason.clone())
    }

    /// Whether this is the value's first run: the session starts there.
    pub(crate) fn first_run(&self) -> bool {
        !self.inner.started.swap(true, Ordering::AcqRel)
    }
}

impl std::fmt::Debug for HooksHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HooksHook")
            .field("session", &self.inner.session.id())
            .finish_non_exhaustive()
    }
}

impl AgentHook for HooksHook {
    fn name(&self) -> Option<String> {
        Some("hooks_rig::HooksHook".to_owned())
    }

    async fn on_run_start(&self, _ctx: &HookContext, event: RunStart<'_>) -> RunStartAction {
        self.run_start(event).await
    }

    async fn on_run_settled(&self, _ctx: &HookContext, event: RunSettled<'_>) {
        self.run_settled(event).await;
    }

    async fn on_dispatch(&self, _ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        // Nothing starts in an ended session: the run stops here.
        if let Some(reason) = self.ended() {
            return DispatchAction::stop(reason);
        }
        match event.kind {
            EffectKind::ToolCall { name, args } => {
                let (handle, mut pre) = self.pre_tool(name, args, event.call_id);
                // Run now: only a hook that waits puts a dispatch future in
                // this one, which rig boxes per call.
                let outcome = match handle.dispatch_now(&mut *pre) {
                    Now::Done(outcome) => outcome,
                    Now::Wait(rest) => rest.await,
                };
                self.pre_tool_done(event.id, handle, pre, &outcome, event.kind)
            }
            // Boxed: rig boxes every hook's future per call, so this
            // future's size is paid by every tool call; a model request's
            // larger state is paid by model requests only.
            EffectKind::Completion { request, stream } => {
                Box::pin(self.pre_model(request, *stream)).await
            }
            _ => DispatchAction::Proceed,
        }
    }

    async fn on_outcome(&self, _ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        // Most tool calls have nothing parked (no post-hooks, nothing
        // injected): answered without the post-hooks' state, which is
        // boxed where it is needed, so that the future rig boxes per call
        // stays small.
        if !self.outcome_needed(&event) {
            // Answered in place: an action kept in a variable first is
            // copied whole (some 200 bytes) even when it is `Proceed`.
            return match self.ended() {
                Some(reason) => OutcomeAction::stop(reason),
                None => OutcomeAction::Proceed,
            };
        }
        let action = Box::pin(self.outcome(event)).await;
        // The hooks saw what happened (the audit keeps a call that ran); an
        // ended session then stops the run, whatever they made of it.
        match self.ended() {
            Some(reason) => OutcomeAction::stop(reason),
            None => action,
        }
    }
}

impl HooksHook {
    /// Whether [`outcome`](Self::outcome) may have hooks to run for
    /// `event`: a tool call's only if some call is parked.
    fn outcome_needed(&self, event: &OutcomeEvent<'_>) -> bool {
        match event.kind {
            EffectKind::ToolCall { .. } => self.inner.parked.load(Ordering::Acquire) > 0,
            EffectKind::Completion { .. } => true,
            _ => false,
        }
    }

    async fn outcome(&self, event: OutcomeEvent<'_>) -> OutcomeAction {
        match event.kind {
            EffectKind::ToolCall { .. } => match self.unpark(event.id) {
                Some(pending) => self.post_tool(pending, &event).await,
                // Denied by our pre-hooks (the denial was recorded then), or
                // dispatched before this hook was added.
                None => OutcomeAction::Proceed,
            },
            EffectKind::Completion { .. } => self.post_model(&event).await,
            _ => OutcomeAction::Proceed,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use hooks_core::{Hooks, Session};

    use super::{Handles, HooksHook};

    /// Past the scanned few, a model inventing tool names still gets each
    /// tool's own handle, made once.
    #[test]
    fn every_tool_keeps_its_own_handle() {
        let hooks = Hooks::builder().without_linked().build().expect("hooks");
        let hook = HooksHook::new(hooks, Session::new("s"));
        let names: Vec<String> = (0..Handles::SCANNED * 3)
            .map(|i| format!("tool_{i}"))
            .collect();
        let first: Vec<_> = names.iter().map(|name| hook.handle(name)).collect();
        for (name, handle) in names.iter().zip(&first).rev() {
            let again = hook.handle(name);
            assert_eq!(again.name(), name);
            assert!(Arc::ptr_eq(&again, handle), "{name}: made twice");
        }
        assert_eq!(hook.handle("tool_").name(), "tool_");
    }
}
