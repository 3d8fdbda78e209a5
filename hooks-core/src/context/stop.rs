use serde::Serialize;

use super::Trail;
use crate::session::Session;

/// The context of `#[stop]` hooks: the agent wants to stop.
///
/// A hook returning [`Decision::Deny`](crate::Decision::Deny) keeps the agent
/// going; the reason is what the model is told to do next. Check
/// [`stop_hook_active`](Self::stop_hook_active) to avoid keeping it going for ever.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "stop")]
pub struct Stop {
    pub(crate) session: Session,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_message: Option<String>,
    #[allow(clippy::struct_field_names)] // the name Claude Code hook scripts read
    stop_hook_active: bool,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

/// The constructor and accessors of a stop context (`Stop`, `SubagentStop`).
macro_rules! stopping {
    ($kind:ident, $who:literal, $Who:literal) => {
        impl $kind {
            #[doc = concat!("The context for ", $who, " of `session` wanting to stop.")]
            pub fn new(session: &crate::session::Session) -> Self {
                $kind {
                    session: session.clone(),
                    last_message: None,
                    stop_hook_active: false,
                    trail: super::Trail::default(),
                }
            }

            #[doc = concat!("Sets ", $who, "'s last message.")]
            #[must_use]
            pub fn with_last_message(mut self, message: impl Into<String>) -> Self {
                self.last_message = Some(message.into());
                self
            }

            #[doc = concat!("Says ", $who, " is already going on because a stop hook said so.")]
            #[must_use]
            pub fn with_stop_hook_active(mut self, active: bool) -> Self {
                self.stop_hook_active = active;
                self
            }

            #[doc = concat!($Who, "'s last message, if the agent loop gave it.")]
            pub fn last_message(&self) -> Option<&str> {
                self.last_message.as_deref()
            }

            #[doc = concat!("Whether ", $who, " is already going on because a stop hook said so.")]
            pub fn stop_hook_active(&self) -> bool {
                self.stop_hook_active
            }
        }

        impl super::Rewritable for $kind {}
    };
}
pub(crate) use stopping;

stopping!(Stop, "the agent", "The agent");
