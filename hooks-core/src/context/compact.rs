use serde::Serialize;

use super::{Rewritable, Trail};
use crate::session::Session;

/// What started a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactTrigger {
    /// The person asked for it (`/compact`).
    Manual,
    /// The context window was full.
    Auto,
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
/// assert_eq!(ctx.trigger(), CompactTrigger::Auto);
/// ```
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "pre_compact")]
pub struct PreCompact {
    pub(crate) session: Session,
    trigger: CompactTrigger,
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
            custom_instructions: None,
            trail: Trail::default(),
        }
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

    /// The instructions the person gave for the summary, if any.
    pub fn custom_instructions(&self) -> Option<&str> {
        self.custom_instructions.as_deref()
    }
}

impl Rewritable for PreCompact {}
