//! The future a dispatch returns. Small, and on the common path — sync hooks,
//! nobody tracing — nothing but a loop of plain calls on its first poll. A
//! hook that may wait (`async fn`, `Deferred`) takes the context and hands it
//! back — at once, or from its own boxed future — so waiting on one needs no
//! state beyond a pointer; only the rare paths (an approval, a traced
//! dispatch, a runtime hook that returns a future) go on in a boxed task.
//! [`now`] runs the same start without the future (`dispatch_now`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use super::ask::{ask, rewriter, superseded, unbound};
use super::chain::{Chain, Stretch, sync_stretch};
use super::now::{Now, Waiting};
use super::run::run;
use super::{Settled, cap_stops, conclude, conclude_allowed, record, settle, shadow};
use crate::registry::linked::{HandBack, Started};
use crate::registry::table::{Entry, Runner, Shape};
use crate::registry::{Event, Hooks};
use crate::verdict::Deferred;
use serde_json::Value;

use crate::verdict::{
    Approval, ApprovalRecord, BoxFuture, Decision, Denial, HookError, Outcome, Verdict, catch,
};

/// A dispatch in progress: what [`Hooks::dispatch`] and
/// [`ToolHandle::dispatch`](crate::ToolHandle::dispatch) return.
pub(crate) struct Dispatch<'a, C: 'static> {
    state: State<'a, C>,
    /// Set when the first poll finished it where it started: the start is
    /// left in place (it holds only references), so that the outcome can
    /// be written straight into the poll's answer (building it first, then
    /// moving it past a change of state, stalled the load of every word
    /// just written: most of the first poll's time, by `perf`).
    finished: bool,
}

enum State<'a, C: 'static> {
    /// Not polled yet.
    Start {
        hooks: &'a Hooks,
        chain: Chain<'a, C>,
        /// Whether any hook of the chain observes.
        observed: bool,
        ctx: &'a mut C,
    },
    /// Waiting on a hook's future, which holds the context until it is done.
    Hook {
        walk: Walk<'a, C>,
        entry: &'a Entry<C>,
        future: HandBack<'a, C>,
    },
    /// Going on in a boxed task: an approval, tracing, or a runtime async hook.
    Slow(BoxFuture<'a, Outcome>),
    Done,
}

/// Where a dispatch is.
struct Walk<'a, C: 'static> {
    hooks: &'a Hooks,
    /// What is left of the current phase.
    chain: Chain<'a, C>,
    /// Every entry, for the observer phase.
    all: Chain<'a, C>,
    traced: bool,
    observed: bool,
    observing: bool,
}

enum Step<'a, C: 'static> {
    Wait(State<'a, C>),
    Finish(Outcome),
}

/// What the boxed task does before it carries on with the chain.
enum First<'a, C: 'static> {
    Run(&'a Entry<C>),
    Ask(&'a Entry<C>, Approval),
}

impl<'a, C: Event> Dispatch<'a, C> {
    pub(crate) fn new(
        hooks: &'a Hooks,
        chain: Chain<'a, C>,
        observed: bool,
        ctx: &'a mut C,
    ) -> Self {
        Dispatch {
            state: State::Start {
                hooks,
                chain,
                observed,
                ctx,
            },
            finished: false,
        }
    }
}

impl<C: Event> Future for Dispatch<'_, C> {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let this = self.get_mut();
        assert!(
            !this.finished,
            "a hooks dispatch was polled after it finished"
        );
        // The start is used where it lies: moving the whole state out (it is
        // as large as its largest variant) cost more than a small hook.
        let State::Start {
            hooks,
            chain,
            observed,
            ctx,
        } = &mut this.state
        else {
            return this.poll_on(cx);
        };
        let (hooks, observed) = (*hooks, *observed);
        match begin(hooks, chain, observed, ctx) {
            Begun::Finished(outcome) => {
                this.finished = true;
                Poll::Ready(outcome)
            }
            Begun::GoOn {
                stretch,
                all,
                traced,
            } => this.go_on(stretch, all, traced, observed, cx),
        }
    }
}

/// How a dispatch's first stretch of hooks ended.
pub(crate) enum Begun<'a, C: 'static> {
    /// The dispatch is done.
    Finished(Outcome),
    /// It goes on from where the stretch stopped (`None`: traced, not run);
    /// `all` is every entry, for the observer phase.
    GoOn {
        stretch: Option<Stretch<'a, C>>,
        all: Chain<'a, C>,
        traced: bool,
    },
}

/// The start of a dispatch, shared by its future's first poll and
/// [`now`]: on the common path (plain calls that let the call through, no
/// observers, nobody tracing) the whole dispatch.
#[inline]
pub(crate) fn begin<'a, C: Event>(
    hooks: &'a Hooks,
    chain: &mut Chain<'a, C>,
    observed: bool,
    ctx: &mut C,
) -> Begun<'a, C> {
    if chain.is_empty() && !observed && ctx.__trail().approvals().is_empty() {
        // No hook to run (a tool none of whose hooks match): none can
        // have been entered, touched a field or noted anything, so
        // there is nothing to settle, only the outcome to give.
        if super::is_stop::<C>() {
            let _ = cap_stops(hooks, ctx, None);
        }
        return Begun::Finished(conclude_allowed(ctx));
    }
    ctx.__trail().set_budget(hooks.inner.injection_budget);
    // A span costs more than a small hook even when nobody listens: ask
    // once whether anyone does (one relaxed load).
    let traced = tracing::level_enabled!(tracing::Level::DEBUG);
    let all = chain.clone();
    let stretch = if traced {
        None
    } else {
        // The common case ends here: every hook a plain call that let
        // the call through, and no observers.
        let stretch = sync_stretch(chain, ctx, false);
        if matches!(stretch, Stretch::Done) && !observed && ctx.__trail().approvals().is_empty() {
            ctx.__leave();
            if super::is_stop::<C>() {
                let _ = cap_stops(hooks, ctx, None);
            }
            return Begun::Finished(conclude_allowed(ctx));
        }
        Some(stretch)
    };
    Begun::GoOn {
        stretch,
        all,
        traced,
    }
}

/// A dispatch run now, as far as it goes without waiting: what
/// [`ToolHandle::dispatch_now`](crate::ToolHandle::dispatch_now) and
/// [`Hooks::dispatch_now`] return.
#[inline]
pub(crate) fn now<'a, C: Event>(
    hooks: &'a Hooks,
    mut chain: Chain<'a, C>,
    observed: bool,
    ctx: &'a mut C,
) -> Now<'a> {
    match begin(hooks, &mut chain, observed, ctx) {
        Begun::Finished(outcome) => Now::Done(outcome),
        Begun::GoOn {
            stretch,
            all,
            traced,
        } => go_on_now(Walk::new(hooks, chain, all, traced, observed), stretch, ctx),
    }
}

/// [`now`] past its first stretch: the rest of the walk, finished here
/// unless something really waits — then handed back as the dispatch's
/// future. What may wait (an `async fn` hook, an approval, a traced run)
/// is polled once first: most answer at once, and a caller that cannot
/// wait should not refuse a call because debug logging is on.
#[inline(never)]
fn go_on_now<'a, C: Event>(
    walk: Walk<'a, C>,
    stretch: Option<Stretch<'a, C>>,
    ctx: &'a mut C,
) -> Now<'a> {
    let state = match walk.first_step(stretch, ctx) {
        Step::Finish(outcome) => return Now::Done(outcome),
        Step::Wait(state) => state,
    };
    let mut rest = Dispatch {
        state,
        finished: false,
    };
    // A future that pends registers the waker of its latest poll: this
    // one's is never woken, and the caller's await polls it again with its own.
    match Pin::new(&mut rest).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(outcome) => Now::Done(outcome),
        Poll::Pending => Now::Wait(Waiting::new(rest)),
    }
}

impl<'a, C: Event> Dispatch<'a, C> {
    /// Goes on from the first poll's stretch (`None`: traced, not run),
    /// taking the start: out of line, like every path that is not the
    /// common one.
    #[inline(never)]
    fn go_on(
        &mut self,
        stretch: Option<Stretch<'a, C>>,
        all: Chain<'a, C>,
        traced: bool,
        observed: bool,
        cx: &mut Context<'_>,
    ) -> Poll<Outcome> {
        let State::Start {
            hooks, chain, ctx, ..
        } = std::mem::replace(&mut self.state, State::Done)
        else {
            unreachable!("only a dispatch's first poll goes on from its start")
        };
        let walk = Walk::new(hooks, chain, all, traced, observed);
        match walk.first_step(stretch, ctx) {
            Step::Finish(outcome) => Poll::Ready(outcome),
            Step::Wait(state) => {
                self.state = state;
                self.poll_on(cx)
            }
        }
    }

    /// Polls a dispatch past its first stretch: out of line, so the common
    /// case above stays a small function.
    #[inline(never)]
    fn poll_on(&mut self, cx: &mut Context<'_>) -> Poll<Outcome> {
        loop {
            let step = match std::mem::replace(&mut self.state, State::Done) {
                State::Start { .. } => {
                    unreachable!("a dispatch's first poll takes its start")
                }
                // No panic guard here: the hook's future carries its own
                // (`__private::guard`) and hands the context back either way.
                State::Hook {
                    walk,
                    entry,
                    mut future,
                } => match future.as_mut().poll(cx) {
                    Poll::Pending => {
                        self.state = State::Hook {
                            walk,
                            entry,
                            future,
                        };
                        return Poll::Pending;
                    }
                    Poll::Ready((verdict, ctx)) => walk.after(entry, verdict, ctx),
                },
                State::Slow(mut future) => match future.as_mut().poll(cx) {
                    Poll::Pending => {
                        self.state = State::Slow(future);
                        return Poll::Pending;
                    }
                    Poll::Ready(outcome) => Step::Finish(outcome),
                },
                State::Done => panic!("a hooks dispatch was polled after it finished"),
            };
            match step {
                Step::Wait(state) => self.state = state,
                Step::Finish(outcome) => return Poll::Ready(outcome),
            }
        }
    }
}

impl<'a, C: Event> Walk<'a, C> {
    fn new(
        hooks: &'a Hooks,
        chain: Chain<'a, C>,
        all: Chain<'a, C>,
        traced: bool,
        observed: bool,
    ) -> Self {
        Walk {
            hooks,
            chain,
            all,
            traced,
            observed,
            observing: false,
        }
    }

    /// The step after the first stretch (`None`: traced, not run).
    fn first_step(self, stretch: Option<Stretch<'a, C>>, ctx: &'a mut C) -> Step<'a, C> {
        match stretch {
            None => Step::Wait(State::Slow(Box::pin(self.carry_on(ctx, None)))),
            Some(stretch) => walk_on(self.on_stretch(stretch, ctx)),
        }
    }

    /// Runs hooks as plain calls until one must be waited on, or all are done.
    #[inline]
    fn advance(mut self, mut ctx: &'a mut C) -> Step<'a, C> {
        loop {
            if self.observing {
                let Some(entry) = self.chain.next_observer(ctx) else {
                    return Step::Finish(finish(ctx));
                };
                ctx.__enter(&entry.meta.name);
                let verdict = match &entry.runner {
                    Runner::Observe(hook) => catch(|| hook(ctx)).map(|()| Decision::Continue),
                    Runner::Unit(hook) => catch(|| hook(ctx)).map(|()| Decision::Continue),
                    Runner::Decide(hook) => catch(|| hook(ctx)),
                    Runner::Plain(hook) => catch(|| hook(ctx, &entry.state)).and_then(|v| v),
                    Runner::Started(hook) => match hook(ctx, &entry.state) {
                        Started::Ready(verdict, back) => {
                            ctx = back;
                            verdict
                        }
                        Started::Pending(future) => {
                            return Step::Wait(State::Hook {
                                walk: self,
                                entry,
                                future,
                            });
                        }
                    },
                    Runner::Runtime(hook) if entry.meta.shape == Shape::Sync => {
                        match catch(|| hook.run(ctx, &entry.state)) {
                            Ok(Deferred::Ready(verdict)) => verdict,
                            Ok(Deferred::Later(_)) => Err(HookError::failed(
                                "returned a future though it was added as a synchronous hook",
                            )),
                            Err(error) => Err(error),
                        }
                    }
                    Runner::Runtime(_) => {
                        return Step::Wait(State::Slow(Box::pin(
                            self.carry_on(ctx, Some(First::Run(entry))),
                        )));
                    }
                };
                record(self.hooks, entry, ctx, verdict);
                continue;
            }
            let stretch = sync_stretch(&mut self.chain, ctx, false);
            (self, ctx) = match self.on_stretch(stretch, ctx) {
                Ok(walking) => walking,
                Err(step) => return step,
            };
        }
    }

    /// Acts on where a stretch of plain calls stopped.
    #[inline]
    fn on_stretch(self, stretch: Stretch<'a, C>, ctx: &'a mut C) -> Walking<'a, C> {
        match stretch {
            Stretch::Done => self.decided(ctx, None),
            Stretch::Stopped(entry, verdict) => self.on_verdict(entry, verdict, ctx),
            Stretch::Slow(entry) => {
                ctx.__enter(&entry.meta.name);
                match &entry.runner {
                    Runner::Started(hook) if !entry.meta.shadow => match hook(ctx, &entry.state) {
                        Started::Ready(verdict, ctx) => self.on_verdict(entry, verdict, ctx),
                        Started::Pending(future) => Err(Step::Wait(State::Hook {
                            walk: self,
                            entry,
                            future,
                        })),
                    },
                    _ => Err(Step::Wait(State::Slow(Box::pin(
                        self.carry_on(ctx, Some(First::Run(entry))),
                    )))),
                }
            }
        }
    }

    /// Acts on a deciding hook's verdict.
    #[inline]
    fn on_verdict(self, entry: &'a Entry<C>, verdict: Verdict, ctx: &'a mut C) -> Walking<'a, C> {
        match settle(self.hooks, entry, ctx, verdict) {
            Settled::Continue => Ok((self, ctx)),
            Settled::Denied(denial) => self.decided(ctx, Some(denial)),
            Settled::Ask(approval) => Err(Step::Wait(State::Slow(Box::pin(
                self.carry_on(ctx, Some(First::Ask(entry, approval))),
            )))),
        }
    }

    /// Goes on after a hook's future answered.
    fn after(self, entry: &'a Entry<C>, verdict: Verdict, ctx: &'a mut C) -> Step<'a, C> {
        if self.observing {
            record(self.hooks, entry, ctx, verdict);
            return self.advance(ctx);
        }
        walk_on(self.on_verdict(entry, verdict, ctx))
    }

    /// The deciding hooks are done: on to the observers, or finished.
    #[inline]
    fn decided(mut self, ctx: &'a mut C, denial: Option<Denial>) -> Walking<'a, C> {
        match self.enter_observers(ctx, denial) {
            Some(outcome) => Err(Step::Finish(outcome)),
            None => Ok((self, ctx)),
        }
    }

    /// Ends the deciding phase: the outcome if there are no observers,
    /// otherwise `None` with the walk restarted on them.
    #[inline]
    fn enter_observers(&mut self, ctx: &mut C, denial: Option<Denial>) -> Option<Outcome> {
        // A yes binds the arguments it was given for, here and in any later
        // dispatch over the same context.
        let denial = match denial {
            None if !ctx.__trail().approvals().is_empty() => unbound(ctx),
            denial => denial,
        };
        ctx.__leave();
        let denial = cap_stops(self.hooks, ctx, denial);
        if !self.observed {
            return Some(conclude(ctx, denial));
        }
        ctx.__trail().set_denial(denial);
        self.observing = true;
        self.chain = self.all.clone();
        None
    }

    /// The rest of the dispatch as a task: the slow path, where waiting is
    /// normal. Entered from the deciding phase, or from the observer phase
    /// for a runtime observer that may wait (other observers wait in
    /// [`State::Hook`] like any deciding hook); it runs the observers itself.
    async fn carry_on(mut self, ctx: &'a mut C, mut first: Option<First<'a, C>>) -> Outcome {
        if self.observing {
            if let Some(First::Run(entry)) = first.take() {
                let verdict = run(entry, ctx, self.traced).await;
                record(self.hooks, entry, ctx, verdict);
            }
        } else {
            let denial = self.decide(ctx, first).await;
            if let Some(outcome) = self.enter_observers(ctx, denial) {
                return outcome;
            }
        }
        while let Some(entry) = self.chain.next_observer(ctx) {
            ctx.__enter(&entry.meta.name);
            let verdict = run(entry, ctx, self.traced).await;
            record(self.hooks, entry, ctx, verdict);
        }
        finish(ctx)
    }

    /// The rest of the deciding phase, waiting where needed; the denial, if any.
    ///
    /// A hook's `Ask` waits until every other deciding hook has allowed the
    /// call: nobody is asked to approve a call a later guard refuses, and a
    /// person sees the arguments the call will run with. An ask whose
    /// arguments a later hook changed is void (the call is denied).
    async fn decide(&mut self, ctx: &mut C, mut first: Option<First<'a, C>>) -> Option<Denial> {
        let mut asks: Vec<Pending<'a, C>> = Vec::new();
        loop {
            let (entry, verdict) = match first.take() {
                Some(First::Ask(entry, approval)) => {
                    asks.push(Pending::new(entry, approval, ctx));
                    continue;
                }
                Some(First::Run(entry)) if entry.meta.shadow => {
                    shadow(self.hooks, entry, ctx, self.traced).await;
                    continue;
                }
                Some(First::Run(entry)) => (entry, run(entry, ctx, self.traced).await),
                None => match sync_stretch(&mut self.chain, ctx, self.traced) {
                    Stretch::Done => break,
                    Stretch::Stopped(entry, verdict) => (entry, verdict),
                    Stretch::Slow(entry) => {
                        ctx.__enter(&entry.meta.name);
                        if entry.meta.shadow {
                            shadow(self.hooks, entry, ctx, self.traced).await;
                            continue;
                        }
                        (entry, run(entry, ctx, self.traced).await)
                    }
                },
            };
            match settle(self.hooks, entry, ctx, verdict) {
                Settled::Continue => {}
                // Asks not yet put are dropped: nobody approves a refused call.
                Settled::Denied(denial) => return Some(denial),
                Settled::Ask(approval) => first = Some(First::Ask(entry, approval)),
            }
        }
        ctx.__leave();
        put_all(asks, self.hooks, ctx).await
    }
}

/// Puts the chain's asks to the person: all of them about this one call, so
/// one question with every hook's prompt in it (the shortest wait of
/// theirs), its answer recorded for each hook. An ask whose arguments a later
/// hook rewrote is denied first, nobody asked.
async fn put_all<C: Event>(
    asks: Vec<Pending<'_, C>>,
    hooks: &Hooks,
    ctx: &mut C,
) -> Option<Denial> {
    if asks.len() <= 1 {
        return match asks.into_iter().next() {
            Some(pending) => pending.put(hooks, ctx).await,
            None => None,
        };
    }
    let mut asks = asks;
    for pending in &mut asks {
        if let Some(denial) = pending.voided(hooks, ctx) {
            return Some(denial);
        }
    }
    let prompt = asks
        .iter()
        .map(|pending| pending.approval.prompt())
        .collect::<Vec<_>>()
        .join("\n");
    let wait = asks
        .iter()
        .map(|pending| pending.approval.wait())
        .min()
        .unwrap_or(Approval::DEFAULT_TIMEOUT);
    let first = &asks[0];
    let denial = Box::pin(ask(
        hooks,
        &first.entry.meta.name,
        ctx,
        Approval::new(prompt).timeout(wait),
        first.args.clone(),
    ))
    .await;
    // The one answer, recorded for each hook that asked, with its own prompt.
    if let Some(answered) = ctx.__trail().take_last_approval() {
        for pending in &asks {
            ctx.__trail().record_approval(ApprovalRecord {
                hook: pending.entry.meta.name.clone(),
                prompt: pending.approval.prompt().to_owned(),
                outcome: answered.outcome.clone(),
                bound_args: answered.bound_args.clone(),
            });
        }
    }
    denial
}

/// An `Ask` waiting for the chain to end, with the arguments it was raised on.
struct Pending<'a, C: 'static> {
    entry: &'a Entry<C>,
    approval: Approval,
    /// The call's arguments when the hook asked (tool events only).
    args: Option<Value>,
    /// How many rewrites were recorded before it: a later one may void it.
    rewrites: usize,
}

impl<'a, C: Event> Pending<'a, C> {
    fn new(entry: &'a Entry<C>, approval: Approval, ctx: &mut C) -> Self {
        Pending {
            entry,
            approval,
            args: ctx.__tool_call().map(|call| call.args().clone()),
            rewrites: ctx.__trail().rewrites().len(),
        }
    }

    /// The denial of this ask if a later hook changed the arguments it was
    /// raised on (nobody is asked about a call that will not run) — or,
    /// with [`ask_again_after_rewrite`](crate::HooksBuilder::ask_again_after_rewrite),
    /// the ask turned into one about the call as it now stands.
    fn voided(&mut self, hooks: &Hooks, ctx: &mut C) -> Option<Denial> {
        let now = ctx.__tool_call().map(|call| call.args().clone());
        if now == self.args {
            return None;
        }
        let by = rewriter(ctx.__trail(), self.rewrites);
        if hooks.inner.ask_again_after_rewrite {
            self.approval = Approval::new(format!(
                "{} (the arguments were changed by `{by}` after this was asked: these are the ones that will run)",
                self.approval.prompt()
            ))
            .timeout(self.approval.wait());
            self.args = now;
            return None;
        }
        Some(superseded(&self.entry.meta.name, &self.approval, by, ctx))
    }

    /// Asks the person, unless the arguments changed since the hook asked;
    /// a denial if it is not a yes.
    async fn put(mut self, hooks: &Hooks, ctx: &mut C) -> Option<Denial> {
        if let Some(denial) = self.voided(hooks, ctx) {
            return Some(denial);
        }
        Box::pin(ask(
            hooks,
            &self.entry.meta.name,
            ctx,
            self.approval,
            self.args,
        ))
        .await
    }
}

/// Where a step of the walk left it: walking on, or a step to take instead.
type Walking<'a, C> = Result<(Walk<'a, C>, &'a mut C), Step<'a, C>>;

/// Walks on, or takes the step.
#[inline]
fn walk_on<C: Event>(walking: Walking<'_, C>) -> Step<'_, C> {
    match walking {
        Ok((walk, ctx)) => walk.advance(ctx),
        Err(step) => step,
    }
}

/// Ends a dispatch that ran observers: the denial they saw is the outcome.
fn finish<C: Event>(ctx: &mut C) -> Outcome {
    ctx.__leave();
    let denial = ctx.__trail().take_denial();
    conclude(ctx, denial)
}
