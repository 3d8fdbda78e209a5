//! Running one hook so that nothing it does escapes: panics, errors and
//! timeouts all become a [`HookError`].

use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use tracing::field::Empty;
use tracing::{Instrument, Span};

use crate::decision::Decision;
use crate::event::Event;
use crate::failure::HookError;
use crate::hook::HookCall;
use crate::output::Verdict;
use crate::table::{Entry, Runner};

/// Runs one hook in a `hook` span recording its outcome and duration.
pub(crate) async fn run<C: Event>(entry: &Entry<C>, ctx: &mut C) -> Verdict {
    let span = tracing::debug_span!(
        "hook",
        hook = %entry.meta.name,
        event = C::KIND.as_str(),
        outcome = Empty,
        duration_us = Empty,
    );
    // Reading the clock costs more than a small hook: only when someone listens.
    let started = (!span.is_disabled()).then(Instant::now);
    let verdict = match &entry.runner {
        Runner::Sync(hook) => in_span(&span, || hook(ctx)),
        Runner::Observe(hook) => in_span(&span, || hook(ctx)),
        Runner::ObserveRuntime(hook) => in_span(&span, || hook(ctx)),
        // The hook's future carries its own panic guard and timeout.
        Runner::Async(hook) | Runner::ObserveAsync(hook) => {
            hook(ctx).instrument(span.clone()).await.0
        }
        Runner::Runtime(hook) => {
            let call = {
                let _entered = span.enter();
                catch(|| hook.call(ctx))
            };
            match call {
                Ok(HookCall::Ready(verdict)) => verdict,
                Ok(HookCall::Pending(future)) => guard(None, future).instrument(span.clone()).await,
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

/// Runs one hook with no span; allocates nothing beyond what an async hook's
/// own future does.
pub(crate) async fn untraced<C: Event>(entry: &Entry<C>, ctx: &mut C) -> Verdict {
    match &entry.runner {
        Runner::Sync(hook) => catch(|| hook(ctx)).and_then(|verdict| verdict),
        Runner::Observe(hook) => catch(|| hook(ctx)).and_then(|verdict| verdict),
        Runner::ObserveRuntime(hook) => catch(|| hook(ctx)).and_then(|verdict| verdict),
        Runner::Async(hook) | Runner::ObserveAsync(hook) => hook(ctx).await.0,
        Runner::Runtime(hook) => match catch(|| hook.call(ctx)) {
            Ok(HookCall::Ready(verdict)) => verdict,
            Ok(HookCall::Pending(future)) => guard(None, future).await,
            Err(error) => Err(error),
        },
    }
}

/// Runs a sync hook inside its span.
fn in_span(span: &Span, hook: impl FnOnce() -> Verdict) -> Verdict {
    let _entered = span.enter();
    catch(hook).and_then(|verdict| verdict)
}

/// Awaits a hook's future within `limit`, if there is one, turning a panic
/// or a timeout into an error verdict. Generated `async fn` wrappers and
/// runtime hooks' futures both go through here.
pub async fn guard(limit: Option<Duration>, future: impl Future<Output = Verdict>) -> Verdict {
    within(limit, future).await.and_then(|verdict| verdict)
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

/// Calls `f`, turning a panic into a [`HookError`].
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, HookError> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| HookError::from_panic(&*payload))
}

/// Awaits `future`, turning a panic in any poll into a [`HookError`].
pub(crate) async fn catch_async<T>(future: impl Future<Output = T>) -> Result<T, HookError> {
    let mut future = pin!(future);
    poll_fn(|cx| match catch(|| future.as_mut().poll(cx)) {
        Ok(Poll::Pending) => Poll::Pending,
        Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
        Err(error) => Poll::Ready(Err(error)),
    })
    .await
}

/// Awaits `future` within `limit`, if there is one.
///
/// The future is polled once before any timer is set: a hook (or approver)
/// that answers at once costs no timer and needs no runtime.
pub(crate) async fn within<T>(
    limit: Option<Duration>,
    future: impl Future<Output = T>,
) -> Result<T, HookError> {
    let mut future = pin!(catch_async(future));
    let Some(limit) = limit else {
        return future.await;
    };
    if let Poll::Ready(result) = poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await {
        return result;
    }
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(HookError::failed(
            "a timeout needs a Tokio runtime (with the time driver enabled) to measure it",
        ));
    }
    // Creating the timer panics when the runtime has no time driver; that is
    // caught like any other failure rather than taking the agent down.
    match catch_async(async { tokio::time::timeout(limit, future).await }).await {
        Ok(Ok(result)) => result,
        Ok(Err(_elapsed)) => Err(HookError::TimedOut(limit)),
        Err(error) => Err(error),
    }
}
