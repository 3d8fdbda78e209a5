//! Walking a dispatch's hooks: which entries, and the fast path that runs
//! stretches of sync hooks as plain calls.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::registry::Event;
use crate::registry::table::{Candidate, Entry, Runner, Shape};
use crate::verdict::Deferred;
use crate::verdict::{Decision, HookError, Verdict};

/// The entries a dispatch walks, each with whether its matcher must be
/// checked against the call: every entry (by name), or a tool handle's candidates.
pub(crate) enum Chain<'t, C: 'static> {
    All(std::slice::Iter<'t, Entry<C>>),
    Candidates {
        entries: &'t [Entry<C>],
        candidates: std::slice::Iter<'t, Candidate>,
    },
}

// Not derived: a derive would require `C: Clone`, and contexts are not.
impl<C> Clone for Chain<'_, C> {
    fn clone(&self) -> Self {
        match self {
            Chain::All(entries) => Chain::All(entries.clone()),
            Chain::Candidates {
                entries,
                candidates,
            } => Chain::Candidates {
                entries,
                candidates: candidates.clone(),
            },
        }
    }
}

impl<C> Chain<'_, C> {
    /// Whether no entry is left.
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Chain::All(entries) => entries.len() == 0,
            Chain::Candidates { candidates, .. } => candidates.len() == 0,
        }
    }
}

impl<'t, C> Iterator for Chain<'t, C> {
    type Item = (&'t Entry<C>, bool);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Chain::All(entries) => entries.next().map(|entry| (entry, true)),
            Chain::Candidates {
                entries,
                candidates,
            } => candidates
                .next()
                .map(|candidate| (&entries[candidate.index as usize], candidate.per_call)),
        }
    }
}

impl<'t, C: Event> Chain<'t, C> {
    /// The next observer that applies to `ctx`.
    pub(crate) fn next_observer(&mut self, ctx: &C) -> Option<&'t Entry<C>> {
        self.find(|(entry, check)| entry.meta.observer && (!check || entry.applies_to(ctx)))
            .map(|(entry, _)| entry)
    }
}

/// Where a stretch of plain sync calls stopped.
pub(crate) enum Stretch<'t, C: 'static> {
    /// Every deciding hook ran and let the call through.
    Done,
    /// This hook said something other than `Continue` (or failed).
    Stopped(&'t Entry<C>, Verdict),
    /// This hook needs more than a plain call (it may wait, or the
    /// dispatch is traced); it has not run.
    Slow(&'t Entry<C>),
}

/// Runs sync hooks as plain calls until one does not continue or one needs
/// the slow path. One panic guard covers the whole stretch — a guard per hook
/// costs more than most hooks — and still names the hook that panicked.
#[inline]
pub(crate) fn sync_stretch<'t, C: Event>(
    chain: &mut Chain<'t, C>,
    ctx: &mut C,
    traced: bool,
) -> Stretch<'t, C> {
    let mut running = None;
    // Each chain walked by its own loop, everything inline: the walk is most
    // of a dispatch's fixed cost, and a call per step showed in the profile.
    let stretch = catch_unwind(AssertUnwindSafe(|| match chain {
        Chain::All(entries) => stretch(
            entries.by_ref().map(|entry| (entry, true)),
            ctx,
            traced,
            &mut running,
        ),
        Chain::Candidates {
            entries,
            candidates,
        } => stretch(
            candidates
                .by_ref()
                .map(|candidate| (&entries[candidate.index as usize], candidate.per_call)),
            ctx,
            traced,
            &mut running,
        ),
    }));
    match (stretch, running) {
        (Ok(stretch), _) => stretch,
        (Err(payload), Some(entry)) => {
            Stretch::Stopped(entry, Err(HookError::from_panic(&*payload)))
        }
        // Nothing user-written ran yet, so this is a bug of ours: re-raise.
        (Err(payload), None) => std::panic::resume_unwind(payload),
    }
}

/// The stretch over one chain's entries. Observers sort after every
/// deciding hook, so the first one ends the stretch (and the deciding phase).
#[inline]
fn stretch<'t, C: Event>(
    entries: impl Iterator<Item = (&'t Entry<C>, bool)>,
    ctx: &mut C,
    traced: bool,
    running: &mut Option<&'t Entry<C>>,
) -> Stretch<'t, C> {
    for (entry, check) in entries {
        if entry.meta.observer {
            return Stretch::Done;
        }
        if check && !entry.applies_to(ctx) {
            continue;
        }
        // A shadow hook's changes are undone after it runs: off the fast path.
        if traced || entry.meta.shadow {
            return Stretch::Slow(entry);
        }
        let verdict = match &entry.runner {
            Runner::Decide(hook) => {
                ctx.__enter(&entry.meta.name);
                *running = Some(entry);
                match hook(ctx) {
                    Decision::Continue => continue,
                    decision => Ok(decision),
                }
            }
            Runner::Unit(hook) => {
                ctx.__enter(&entry.meta.name);
                *running = Some(entry);
                hook(ctx);
                continue;
            }
            Runner::Plain(hook) => {
                ctx.__enter(&entry.meta.name);
                *running = Some(entry);
                hook(ctx, &entry.state)
            }
            // A closure added with `Hook::new` always answers at once.
            Runner::Runtime(hook) if entry.meta.shape == Shape::Sync => {
                ctx.__enter(&entry.meta.name);
                *running = Some(entry);
                match hook.run(ctx, &entry.state) {
                    Deferred::Ready(verdict) => verdict,
                    Deferred::Later(_) => Err(HookError::failed(
                        "returned a future though it was added as a synchronous hook",
                    )),
                }
            }
            _ => return Stretch::Slow(entry),
        };
        match verdict {
            Ok(Decision::Continue) => {}
            verdict => return Stretch::Stopped(entry, verdict),
        }
    }
    Stretch::Done
}
