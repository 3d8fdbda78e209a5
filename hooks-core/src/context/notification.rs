use std::borrow::Cow;

use serde::Serialize;

use super::Trail;
use crate::session::Session;

/// The context of `#[notification]` hooks: the host tells its person
/// something — it needs a permission (`permission_prompt`), it has waited
/// for input (`idle_prompt`), a login went through (`auth_success`), an MCP
/// server asks for input (`elicitation_dialog`).
///
/// Hooks observe it (play a sound, page someone, log it): they can neither
/// block nor add context, and a failing hook is logged.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "notification")]
pub struct Notification {
    pub(crate) session: Session,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[allow(clippy::struct_field_names)] // the name Claude Code hook scripts read
    notification_type: Option<Cow<'static, str>>,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

impl Notification {
    /// The context for a notification saying `message`.
    pub fn new(session: &Session, message: impl Into<String>) -> Self {
        Notification {
            session: session.clone(),
            message: message.into(),
            title: None,
            notification_type: None,
            trail: Trail::default(),
        }
    }

    /// Sets its title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets its kind, as the host names it (`permission_prompt`,
    /// `idle_prompt`, `auth_success`, `elicitation_dialog`, ...).
    #[must_use]
    pub fn with_notification_type(mut self, kind: impl Into<Cow<'static, str>>) -> Self {
        self.notification_type = Some(kind.into());
        self
    }

    /// What the host tells the person.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Its title, if the host gave one.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Its kind, if the host named one (`idle_prompt`, ...).
    pub fn notification_type(&self) -> Option<&str> {
        self.notification_type.as_deref()
    }
}

impl super::Rewritable for Notification {}
