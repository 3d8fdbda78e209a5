//! What a replay found: call by call, what the dispatcher decides now
//! against what was recorded, and the totals.

use std::fmt;

use hooks_core::notes::Would;
use hooks_core::{Outcome, PreToolUse, printable};
use serde::Serialize;

use super::call::RecordedCall;
use super::ruling::{Change, Ruling};
use super::source::LineError;

/// A shadow hook that would have denied the call, had it been enforced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShadowDenial {
    /// The shadow hook.
    pub hook: String,
    /// Its reason.
    pub reason: String,
    /// The denial's kind.
    pub kind: String,
}

/// One replayed call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CallReport {
    /// The call, with what was recorded.
    pub call: RecordedCall,
    /// What the dispatcher decides now.
    pub now: Ruling,
    /// How the two compare.
    pub change: Change,
    /// Shadow hooks that would have denied it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shadow: Vec<ShadowDenial>,
}

impl CallReport {
    pub(super) fn new(call: RecordedCall, outcome: &Outcome, ctx: &PreToolUse) -> Self {
        let now = Ruling::of(outcome, ctx);
        let shadow = outcome
            .shadowed()
            .iter()
            .filter_map(|shadowed| match &shadowed.would {
                Would::Deny { reason, kind } => Some(ShadowDenial {
                    hook: shadowed.hook.to_string(),
                    reason: reason.clone(),
                    kind: kind.clone(),
                }),
                _ => None,
            })
            .collect();
        CallReport {
            change: Change::between(&call.recorded, &now),
            call,
            now,
            shadow,
        }
    }

    /// Whether the text report shows it: it changed, or a shadow hook would deny it.
    fn noteworthy(&self) -> bool {
        self.change != Change::Unchanged || !self.shadow.is_empty()
    }
}

impl fmt::Display for CallReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let call = &self.call;
        write!(f, "line {}: `{}`", call.line, printable(&call.tool, false))?;
        if let Some(id) = &call.call_id {
            write!(f, " (call {})", printable(id, false))?;
        }
        write!(f, " in session {}", printable(&call.session, false))?;
        if let Some(user) = &call.user {
            write!(f, " for {}", printable(user, false))?;
        }
        writeln!(f, ": {}", self.change.describe())?;
        writeln!(f, "    recorded: {}", call.recorded)?;
        writeln!(f, "    replayed: {}", self.now)?;
        for shadow in &self.shadow {
            writeln!(
                f,
                "    shadow `{}` would deny ({}): {}",
                printable(&shadow.hook, false),
                printable(&shadow.kind, false),
                printable(&shadow.reason, false)
            )?;
        }
        Ok(())
    }
}

/// The totals of a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Calls replayed.
    pub calls: usize,
    /// Calls decided as they were.
    pub unchanged: usize,
    /// Calls that ran and would now be denied.
    pub newly_denied: usize,
    /// Of those, the ones denied by a rate limit, which counts replay
    /// time: the calls come faster than they did.
    pub newly_rate_limited: usize,
    /// Calls that were denied and would now run.
    pub newly_allowed: usize,
    /// Calls nobody was asked about that would now need a person's yes.
    pub would_ask: usize,
    /// Calls denied both times, by different hooks.
    pub denied_by_another: usize,
    /// Calls a shadow hook would deny.
    pub shadow_would_deny: usize,
    /// Lines that could not be read.
    pub unreadable_lines: usize,
}

impl Summary {
    fn of(calls: &[CallReport], errors: &[LineError]) -> Self {
        let mut summary = Summary {
            calls: calls.len(),
            unreadable_lines: errors.len(),
            ..Summary::default()
        };
        for call in calls {
            let count = match call.change {
                Change::Unchanged => &mut summary.unchanged,
                Change::NewlyDenied => &mut summary.newly_denied,
                Change::NewlyAllowed => &mut summary.newly_allowed,
                Change::WouldAsk => &mut summary.would_ask,
                Change::DeniedByAnother => &mut summary.denied_by_another,
            };
            *count += 1;
            if call.change == Change::NewlyDenied
                && matches!(&call.now, Ruling::Denied { kind, .. } if kind == "rate_limited")
            {
                summary.newly_rate_limited += 1;
            }
            if !call.shadow.is_empty() {
                summary.shadow_would_deny += 1;
            }
        }
        summary
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |count: usize| if count == 1 { "" } else { "s" };
        write!(
            f,
            "{} call{} replayed: would newly deny {}",
            self.calls,
            plural(self.calls),
            self.newly_denied
        )?;
        if self.newly_rate_limited > 0 {
            write!(
                f,
                " ({} by a rate limit, which counts replay time, not the recorded times)",
                self.newly_rate_limited
            )?;
        }
        write!(
            f,
            ", would newly allow {}, would ask {}, denied by another hook {}, unchanged {}",
            self.newly_allowed, self.would_ask, self.denied_by_another, self.unchanged
        )?;
        if self.shadow_would_deny > 0 {
            write!(f, "; shadow hooks would deny {}", self.shadow_would_deny)?;
        }
        if self.unreadable_lines > 0 {
            write!(
                f,
                "; {} line{} could not be read",
                self.unreadable_lines,
                plural(self.unreadable_lines)
            )?;
        }
        Ok(())
    }
}

/// What a replay found: every call, the lines that could not be read, and the totals.
///
/// Prints the calls whose decision changed (or that a shadow hook would
/// deny), then the unreadable lines, then the [`Summary`]; serializes as
/// `{"calls": [..], "errors": [..], "summary": {..}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    calls: Vec<CallReport>,
    errors: Vec<LineError>,
    summary: Summary,
}

impl Report {
    pub(super) fn new(calls: Vec<CallReport>, errors: Vec<LineError>) -> Self {
        Report {
            summary: Summary::of(&calls, &errors),
            calls,
            errors,
        }
    }

    /// Every replayed call, in the order read.
    pub fn calls(&self) -> &[CallReport] {
        &self.calls
    }

    /// The calls whose decision changed.
    pub fn changes(&self) -> impl Iterator<Item = &CallReport> {
        self.calls
            .iter()
            .filter(|call| call.change != Change::Unchanged)
    }

    /// The lines that could not be read.
    pub fn errors(&self) -> &[LineError] {
        &self.errors
    }

    /// The totals.
    pub fn summary(&self) -> Summary {
        self.summary
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for call in self.calls.iter().filter(|call| call.noteworthy()) {
            writeln!(f, "{call}")?;
        }
        if !self.errors.is_empty() {
            writeln!(f, "lines that could not be read:")?;
            for error in &self.errors {
                writeln!(f, "    {error}")?;
            }
            writeln!(f)?;
        }
        write!(f, "{}", self.summary)
    }
}
