use std::borrow::Cow;

use serde::Serialize;

use super::Trail;
use crate::session::Session;

/// The context of `#[session_start]` hooks: a session begins.
///
/// Hooks cannot block; they may inject context (for example, the repository's
/// conventions) for the model's first turn.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "session_start")]
pub struct SessionStart {
    pub(crate) session: Session,
    source: Cow<'static, str>,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

impl SessionStart {
    /// The context for a session starting fresh (source `startup`).
    pub fn new(session: &Session) -> Self {
        SessionStart {
            session: session.clone(),
            source: Cow::Borrowed("startup"),
            trail: Trail::default(),
        }
    }

    /// Sets why the session started: `startup`, `resume`, `clear`, ...
    #[must_use]
    pub fn with_source(mut self, source: impl Into<Cow<'static, str>>) -> Self {
        self.source = source.into();
        self
    }

    /// Why the session started.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// The context of `#[session_end]` hooks: the session is over.
///
/// Hooks can neither block nor inject: there is no next turn.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "session_end")]
pub struct SessionEnd {
    pub(crate) session: Session,
    reason: Cow<'static, str>,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

impl SessionEnd {
    /// The context for a session ending for this reason (`exit`, `logout`, ...).
    pub fn new(session: &Session, reason: impl Into<Cow<'static, str>>) -> Self {
        SessionEnd {
            session: session.clone(),
            reason: reason.into(),
            trail: Trail::default(),
        }
    }

    /// Why the session ended.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl super::Rewritable for SessionStart {}
impl super::Rewritable for SessionEnd {}
