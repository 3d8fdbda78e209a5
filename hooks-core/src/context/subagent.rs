use serde::Serialize;

use super::{Rewritable, Trail};
use crate::session::Session;

/// The context of `#[subagent_start]` hooks: a sub-agent is about to be spawned.
///
/// The [`session`](Self::session) is the spawning agent's. Hooks may refuse
/// the spawn ([`Decision::Deny`](crate::Decision::Deny), with a reason for
/// the spawning model) or inject context for the sub-agent.
///
/// ```
/// use hooks_core::{Session, SubagentStart};
///
/// let ctx = SubagentStart::new(&Session::new("s"), "researcher-1", "Find the flaky test")
///     .with_agent_type("researcher");
/// assert_eq!(ctx.agent_type(), Some("researcher"));
/// ```
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "subagent_start")]
pub struct SubagentStart {
    pub(crate) session: Session,
    subagent_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_type: Option<String>,
    prompt: String,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

impl SubagentStart {
    /// The context for spawning the sub-agent `subagent_id` with its task.
    pub fn new(
        session: &Session,
        subagent_id: impl Into<String>,
        prompt: impl Into<String>,
    ) -> Self {
        SubagentStart {
            session: session.clone(),
            subagent_id: subagent_id.into(),
            agent_type: None,
            prompt: prompt.into(),
            trail: Trail::default(),
        }
    }

    /// Sets the kind of sub-agent (`researcher`, `Explore`).
    #[must_use]
    pub fn with_agent_type(mut self, agent_type: impl Into<String>) -> Self {
        self.agent_type = Some(agent_type.into());
        self
    }

    /// The id the sub-agent will have.
    pub fn subagent_id(&self) -> &str {
        &self.subagent_id
    }

    /// The kind of sub-agent, if the agent loop said.
    pub fn agent_type(&self) -> Option<&str> {
        self.agent_type.as_deref()
    }

    /// The task it is given.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The session the sub-agent will run in: this one, as a sub-agent of
    /// the spawning agent.
    pub fn subagent_session(&self) -> Session {
        self.session.sub_agent(self.subagent_id.clone())
    }
}

/// The context of `#[subagent_stop]` hooks: a sub-agent wants to stop.
///
/// The [`session`](Self::session) is the sub-agent's. Like [`Stop`](crate::Stop),
/// a hook returning [`Decision::Deny`](crate::Decision::Deny) keeps it going;
/// the dispatcher lets it stop after [`stop_denial_cap`](crate::HooksBuilder::stop_denial_cap)
/// refusals in a row.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename = "subagent_stop")]
pub struct SubagentStop {
    pub(crate) session: Session,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_message: Option<String>,
    #[allow(clippy::struct_field_names)] // the name Claude Code hook scripts read
    stop_hook_active: bool,
    #[serde(skip)]
    pub(crate) trail: Trail,
}

super::stop::stopping!(SubagentStop, "the sub-agent", "The sub-agent");

impl Rewritable for SubagentStart {}
