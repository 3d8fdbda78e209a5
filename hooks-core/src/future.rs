//! The future a dispatch returns. Small, and on the common path — sync hooks,
//! nobody tracing — nothing but a loop of plain calls on its first poll. An
//! `async fn` hook's own boxed future hands the context back when it is done,
//! so waiting on one needs no state beyond a pointer; only the rare paths (an
//! approval, a traced dispatch, a runtime hook that returns a future) go on
//! in a boxed task.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::chain::{Chain, Stretch, sync_stretch};
use crate::decision::Approval;
use crate::dispatch::{Hooks, Settled, record, run, settle};
use crate::event::Event;
use crate::hook::BoxFuture;
use crate::outcome::{Denial, Outcome};
use crate::output::Verdict;
use crate::registry::HandBack;
use crate::run::catch;
use crate::table::{Entry, Runner};

/// A dispatch in progress: what [`Hooks::dispatch`] and
/// [`ToolHandle::dispatch`](crate::ToolHandle::dispatch) return.
pub(crate) struct Dispatch<'a, C: 'static> {
    state: State<'a, C>,
}

enum State<'a, C: 'static> {
    /// Not polled yet.
    Start {
        hooks: &'a Hooks,
        chain: Chain<'a, C>,
        ctx: &'a mut C,
    },
    /// Waiting on an `async fn` hook, which holds the context until it is done.
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

/// What the boxed task does before it carries on.
enum First<'a, C: 'static> {
    Nothing,
    Run(&'a Entry<C>),
    Ask(&'a Entry<C>, Approval),
}

impl<'a, C: Event> Dispatch<'a, C> {
    pub(crate) fn new(hooks: &'a Hooks, chain: Chain<'a, C>, ctx: &'a mut C) -> Self {
        Dispatch {
            state: State::Start { hooks, chain, ctx },
        }
    }
}

impl<C: Event> Future for Dispatch<'_, C> {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let this = self.get_mut();
        loop {
            let step = match std::mem::replace(&mut this.state, State::Done) {
                State::Start { hooks, chain, ctx } => {
                    ctx.__trail().set_budget(hooks.inner.injection_budget);
                    // A span costs more than a small hook even when nobody
                    // listens: ask once whether anyone does (one relaxed load).
                    let traced = tracing::level_enabled!(tracing::Level::DEBUG);
                    let observed = C::__table(&hooks.inner.tables).observers > 0;
                    let all = chain.clone();
                    let mut walk = Walk {
                        hooks,
                        all,
                        chain,
                        traced,
                        observed,
                        observing: false,
                    };
                    if traced {
                        Step::Wait(State::Slow(Box::pin(walk.carry_on(ctx, First::Nothing))))
                    } else {
                        // The common case ends here: every hook a plain call
                        // that let the call through, and no observers.
                        let stretch = sync_stretch(&mut walk.chain, ctx, false);
                        if matches!(stretch, Stretch::Done) && !observed {
                            ctx.__trail().leave();
                            return Poll::Ready(Outcome::Continue);
                        }
                        match walk.on_stretch(stretch, ctx) {
                            Ok((walk, ctx)) => walk.advance(ctx),
                            Err(step) => step,
                        }
                    }
                }
                // No panic guard here: the hook's future carries its own
                // (`__private::guard`) and hands the context back either way.
                State::Hook {
                    walk,
                    entry,
                    mut future,
                } => match future.as_mut().poll(cx) {
                    Poll::Pending => {
                        this.state = State::Hook {
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
                        this.state = State::Slow(future);
                        return Poll::Pending;
                    }
                    Poll::Ready(outcome) => Step::Finish(outcome),
                },
                State::Done => panic!("a hooks dispatch was polled after it finished"),
            };
            match step {
                Step::Wait(state) => this.state = state,
                Step::Finish(outcome) => return Poll::Ready(outcome),
            }
        }
    }
}

impl<'a, C: Event> Walk<'a, C> {
    /// Runs hooks as plain calls until one must be waited on, or all are done.
    #[inline]
    fn advance(mut self, mut ctx: &'a mut C) -> Step<'a, C> {
        loop {
            if self.observing {
                let Some(entry) = self.chain.next_observer(ctx) else {
                    return Step::Finish(finish(ctx));
                };
                ctx.__trail().enter(&entry.meta.name);
                let verdict = match &entry.runner {
                    Runner::Observe(hook) => catch(|| hook(ctx)).and_then(|verdict| verdict),
                    Runner::ObserveRuntime(hook) => catch(|| hook(ctx)).and_then(|verdict| verdict),
                    Runner::ObserveAsync(hook) => {
                        let future = hook(ctx);
                        return Step::Wait(State::Hook {
                            walk: self,
                            entry,
                            future,
                        });
                    }
                    _ => unreachable!("observers are Observe, ObserveRuntime or ObserveAsync"),
                };
                record(entry, ctx, verdict);
                continue;
            }
            let stretch = sync_stretch(&mut self.chain, ctx, false);
            match self.on_stretch(stretch, ctx) {
                Ok((walk, ctx_back)) => {
                    self = walk;
                    ctx = ctx_back;
                }
                Err(step) => return step,
            }
        }
    }

    /// Acts on where a stretch of plain calls stopped: `Ok` to keep walking,
    /// `Err` with the step to take instead.
    #[inline]
    fn on_stretch(
        mut self,
        stretch: Stretch<'a, C>,
        ctx: &'a mut C,
    ) -> Result<(Self, &'a mut C), Step<'a, C>> {
        let (entry, verdict) = match stretch {
            Stretch::Done => {
                return match self.decided(ctx, None) {
                    Some(step) => Err(step),
                    None => Ok((self, ctx)),
                };
            }
            Stretch::Stopped(entry, verdict) => (entry, verdict),
            Stretch::Slow(entry) => {
                ctx.__trail().enter(&entry.meta.name);
                return Err(match &entry.runner {
                    Runner::Async(hook) => {
                        let future = hook(ctx);
                        Step::Wait(State::Hook {
                            walk: self,
                            entry,
                            future,
                        })
                    }
                    _ => Step::Wait(State::Slow(Box::pin(self.carry_on(ctx, First::Run(entry))))),
                });
            }
        };
        match settle(entry, ctx, verdict) {
            Settled::Continue => Ok((self, ctx)),
            Settled::Denied(denial) => match self.decided(ctx, Some(denial)) {
                Some(step) => Err(step),
                None => Ok((self, ctx)),
            },
            Settled::Ask(approval) => Err(Step::Wait(State::Slow(Box::pin(
                self.carry_on(ctx, First::Ask(entry, approval)),
            )))),
        }
    }

    /// Goes on after an `async fn` hook answered.
    fn after(mut self, entry: &'a Entry<C>, verdict: Verdict, ctx: &'a mut C) -> Step<'a, C> {
        if self.observing {
            record(entry, ctx, verdict);
            return self.advance(ctx);
        }
        match settle(entry, ctx, verdict) {
            Settled::Continue => {}
            Settled::Denied(denial) => {
                if let Some(step) = self.decided(ctx, Some(denial)) {
                    return step;
                }
            }
            Settled::Ask(approval) => {
                return Step::Wait(State::Slow(Box::pin(
                    self.carry_on(ctx, First::Ask(entry, approval)),
                )));
            }
        }
        self.advance(ctx)
    }

    /// The deciding hooks are done: on to the observers, or finished.
    #[inline]
    fn decided(&mut self, ctx: &mut C, denial: Option<Denial>) -> Option<Step<'a, C>> {
        if !self.observed {
            ctx.__trail().leave();
            return Some(Step::Finish(
                denial.map_or(Outcome::Continue, Outcome::Denied),
            ));
        }
        ctx.__trail().set_denial(denial);
        self.observing = true;
        self.chain = self.all.clone();
        None
    }

    /// The rest of the dispatch as a task: the slow path, where waiting is normal.
    async fn carry_on(mut self, ctx: &'a mut C, first: First<'a, C>) -> Outcome {
        let mut first = Some(first);
        if !self.observing {
            let denial = loop {
                let (entry, verdict) = match first.take() {
                    Some(First::Ask(entry, approval)) => {
                        let approver = self.hooks.inner.approver.as_deref();
                        let asked = Box::pin(crate::approval::ask(
                            approver,
                            &entry.meta.name,
                            ctx,
                            approval,
                        ))
                        .await;
                        if asked.is_some() {
                            break asked;
                        }
                        continue;
                    }
                    Some(First::Run(entry)) => (entry, run(entry, ctx, self.traced).await),
                    Some(First::Nothing) | None => {
                        match sync_stretch(&mut self.chain, ctx, self.traced) {
                            Stretch::Done => break None,
                            Stretch::Stopped(entry, verdict) => (entry, verdict),
                            Stretch::Slow(entry) => {
                                ctx.__trail().enter(&entry.meta.name);
                                (entry, run(entry, ctx, self.traced).await)
                            }
                        }
                    }
                };
                match settle(entry, ctx, verdict) {
                    Settled::Continue => {}
                    Settled::Denied(denial) => break Some(denial),
                    Settled::Ask(approval) => first = Some(First::Ask(entry, approval)),
                }
            };
            if !self.observed {
                ctx.__trail().leave();
                return denial.map_or(Outcome::Continue, Outcome::Denied);
            }
            ctx.__trail().set_denial(denial);
            self.chain = self.all.clone();
        } else if let Some(First::Run(observer)) = first.take() {
            let verdict = run(observer, ctx, self.traced).await;
            record(observer, ctx, verdict);
        }
        while let Some(entry) = self.chain.next_observer(ctx) {
            ctx.__trail().enter(&entry.meta.name);
            let verdict = run(entry, ctx, self.traced).await;
            record(entry, ctx, verdict);
        }
        finish(ctx)
    }
}

/// Ends a dispatch that ran observers: the denial they saw is the outcome.
fn finish<C: Event>(ctx: &mut C) -> Outcome {
    ctx.__trail().leave();
    ctx.__trail()
        .take_denial()
        .map_or(Outcome::Continue, Outcome::Denied)
}
