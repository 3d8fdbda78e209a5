//! Running one hook off the fast path, so that nothing it does escapes:
//! panics, errors and timeouts all become a [`HookError`](crate::HookError).

use std::time::Instant;

use tracing::Instrument;
use tracing::field::Empty;

use crate::registry::Event;
use crate::registry::linked::Started;
use crate::registry::table::{Entry, Runner};
use crate::verdict::Deferred;
use crate::verdict::{Decision, HookError, Verdict, catch, guard};

/// Runs one hook off the fast path. Traced runs are boxed: their spans
/// would otherwise make every dispatch's future larger, and a subscriber
/// listening at DEBUG allocates for each span anyway.
pub(crate) async fn run<C: Event>(entry: &Entry<C>, ctx: &mut C, traced: bool) -> Verdict {
    if traced {
        Box::pin(traced_run(entry, ctx)).await
    } else {
        untraced(entry, ctx).await
    }
}

/// Runs one hook in a `hook` span recording its outcome and duration.
async fn traced_run<C: Event>(entry: &Entry<C>, ctx: &mut C) -> Verdict {
    let span = tracing::debug_span!(
        "hook",
        hook = %entry.meta.name,
        event = C::KIND.as_str(),
        shadow = entry.meta.shadow,
        outcome = Empty,
        duration_us = Empty,
    );
    // Reading the clock costs more than a small hook: only when someone listens.
    let started = (!span.is_disabled()).then(Instant::now);
    let verdict = match &entry.runner {
        Runner::Unit(_) | Runner::Decide(_) | Runner::Observe(_) | Runner::Plain(_) => {
            let _entered = span.enter();
            plain(entry, ctx)
        }
        // The wrapper catches the hook's panics, and its future carries its
        // own panic guard and timeout.
        Runner::Started(hook) => {
            let started = {
                let _entered = span.enter();
                hook(ctx, &entry.state)
            };
            match started {
                Started::Ready(verdict, _) => verdict,
                Started::Pending(future) => future.instrument(span.clone()).await.0,
            }
        }
        Runner::Runtime(hook) => {
            let call = {
                let _entered = span.enter();
                catch(|| hook.run(ctx, &entry.state))
            };
            match call {
                Ok(Deferred::Ready(verdict)) => verdict,
                Ok(Deferred::Later(future)) => guard(None, future).instrument(span.clone()).await,
                Err(error) => Err(error),
            }
        }
    };
    if let Some(started) = started {
        span.record("outcome", label(&verdict));
        span.record(
            "duration_us",
            u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        );
    }
    verdict
}

/// Runs one hook with no span; allocates nothing beyond what a waiting
/// hook's own future does.
async fn untraced<C: Event>(entry: &Entry<C>, ctx: &mut C) -> Verdict {
    match &entry.runner {
        Runner::Unit(_) | Runner::Decide(_) | Runner::Observe(_) | Runner::Plain(_) => {
            plain(entry, ctx)
        }
        Runner::Started(hook) => match hook(ctx, &entry.state) {
            Started::Ready(verdict, _) => verdict,
            Started::Pending(future) => future.await.0,
        },
        Runner::Runtime(hook) => match catch(|| hook.run(ctx, &entry.state)) {
            Ok(Deferred::Ready(verdict)) => verdict,
            Ok(Deferred::Later(future)) => guard(None, future).await,
            Err(error) => Err(error),
        },
    }
}

/// Runs a hook that answers at once, catching its panic.
fn plain<C: Event>(entry: &Entry<C>, ctx: &mut C) -> Verdict {
    match &entry.runner {
        Runner::Unit(hook) => catch(|| hook(ctx)).map(|()| Decision::Continue),
        Runner::Decide(hook) => catch(|| hook(ctx)),
        Runner::Observe(hook) => catch(|| hook(ctx)).map(|()| Decision::Continue),
        Runner::Plain(hook) => catch(|| hook(ctx, &entry.state)).and_then(|verdict| verdict),
        Runner::Started(_) | Runner::Runtime(_) => Err(HookError::failed(
            "was run as a plain call though it may wait (a bug in hooks-core)",
        )),
    }
}

fn label(verdict: &Verdict) -> &'static str {
    match verdict {
        Ok(Decision::Continue) => "continue",
        Ok(Decision::Deny(_)) => "deny",
        Ok(Decision::Ask(_)) => "ask",
        Err(HookError::Panicked(_)) => "panicked",
        Err(HookError::TimedOut(_)) => "timed_out",
        Err(_) => "failed",
    }
}
