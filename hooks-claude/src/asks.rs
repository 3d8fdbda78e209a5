//! A hook's `Ask`, answered by the host: Claude Code asks its user in its
//! own permission dialog, so the binary hands the question over
//! (`permissionDecision: "ask"`) instead of asking anyone itself. Where the
//! host cannot ask (Codex; events other than a tool call), the configured
//! approver is asked (the approval store, answered with `hooks-approve`),
//! and without one the call is refused.

use std::collections::HashMap;
use std::future::ready;
use std::sync::{Arc, Mutex, PoisonError};

use hooks_core::{ApprovalAnswer, ApprovalRequest, Approver, BoxFuture, EventKind};

use crate::host::Host;

/// The questions handed to the host, by session and call, until answered.
#[derive(Debug, Default)]
pub(crate) struct Asked(Mutex<HashMap<(String, String), String>>);

impl Asked {
    /// The question asked about this call, if one was handed to the host.
    pub(crate) fn take(&self, session: &str, call: Option<&str>) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(session.to_owned(), call.unwrap_or_default().to_owned()))
    }

    fn put(&self, session: &str, call: Option<&str>, prompt: String) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                (session.to_owned(), call.unwrap_or_default().to_owned()),
                prompt,
            );
    }
}

/// The approver the binary runs with.
pub(crate) struct HostAsks {
    pub(crate) host: Host,
    pub(crate) asked: Arc<Asked>,
    pub(crate) fallback: Option<Arc<dyn Approver>>,
}

impl Approver for HostAsks {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalAnswer> {
        if self.host.can_ask() && request.event() == EventKind::PreToolUse {
            self.asked.put(
                request.session().id(),
                request.call_id(),
                request.prompt().to_owned(),
            );
            // Not approved *here*: the host asks its user, and runs the
            // call only on their yes.
            return Box::pin(ready(
                ApprovalAnswer::deny(format!(
                    "handed to {}'s permission dialog",
                    self.host.title()
                ))
                .by(self.host.title()),
            ));
        }
        match &self.fallback {
            Some(fallback) => fallback.decide(request),
            None => Box::pin(ready(ApprovalAnswer::deny(format!(
                "a person must approve this, and {} cannot ask for it here; configure \
                 `[approval]` so requests wait in its store for `hooks-approve`",
                self.host.title()
            )))),
        }
    }
}
