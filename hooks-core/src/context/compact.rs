use serde::Serialize;

use super::{Rewritable, Trail};
use crate::session::Session;

/// What started a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CompactTrigger {
    /// The person asked for it (`/compact`).
    Manual,
    /// The context window was full.
    Auto,
    /// Something the host names otherwise (a newer host's trigger): its name
    /// is [`PreCompact::trigger_name`]. A compaction is not refused for
    /// being started some new way.
    Other,
}

impl CompactTrigger {
    /// The trigger the host calls `name`: `manual`, `auto`, else [`Other`](Self::Other).
    pub fn from_name(name: &str) -> Self {
        match name {
            "manual" => CompactTrigger::Manual,
            "auto" => CompactTrigger::Auto,
            _ => CompactTrigger::Other,
        }
    }
}

/// The context of `#[pre_compact]` hooks: the conversation is about to be
/// compacted (summarized to fit the context window).
///
/// Hooks cannot block; they may observe it and inject what the summary must keep.
///
/// ```
/// use hooks_core::{CompactTrigger, PreCompact, Session};
///
/// let ctx = PreCompact::new(&Session::new("s"), CompactTrigger::Auto);
/// assert_eq!((ctx.trigger(), ctx.trigger_name()), (CompactTrigger::Auto, "auto"));
///
/// let newer = PreCompact::named(&Session::new("s"), "budget");
/// assert_eq!((newer.trigger(), newer.trigger_name()), (CompactTrigger::Other, "budget"));
/// ```
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "pre_compact")]
pub struct PreCompact {
    pub(crate) session: Session,
    trigger: CompactTrigger,
    /// The host's name for an [`CompactTrigger::Other`] trigger.
    #[serde(rename = "trigger_name", skip_serializing_if = "Option::is_none")]
    other_trigger: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    custom_instructions: Option<String>,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

impl PreCompact {
    /// The context for a compaction started by `trigger`.
    pub fn new(session: &Session, trigger: CompactTrigger) -> Self {
        PreCompact {
            session: session.clone(),
            trigger,
            other_trigger: None,
            custom_instructions: None,
            trail: Trail::default(),
        }
    }

    /// The context for a compaction started by what the host calls `trigger`
    /// (`manual`, `auto`, or a name kept as given: [`CompactTrigger::Other`]).
    pub fn named(session: &Session, trigger: impl Into<String>) -> Self {
        let trigger = trigger.into();
        let mut ctx = PreCompact::new(session, CompactTrigger::from_name(&trigger));
        if ctx.trigger == CompactTrigger::Other {
            ctx.other_trigger = Some(trigger);
        }
        ctx
    }

    /// Sets the instructions the person gave for the summary.
    #[must_use]
    pub fn with_custom_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.custom_instructions = Some(instructions.into());
        self
    }

    /// What started it.
    pub fn trigger(&self) -> CompactTrigger {
        self.trigger
    }

    /// What started it, as the host names it: `manual`, `auto`, or an
    /// [`Other`](CompactTrigger::Other) trigger's own name.
    pub fn trigger_name(&self) -> &str {
        match self.trigger {
            CompactTrigger::Manual => "manual",
            CompactTrigger::Auto => "auto",
            CompactTrigger::Other => self.other_trigger.as_deref().unwrap_or("other"),
        }
    }

    /// The instructions the person gave for the summary, if any.
    pub fn custom_instructions(&self) -> Option<&str> {
        self.custom_instructions.as_deref()
    }
}

impl Rewritable for PreCompact {}
