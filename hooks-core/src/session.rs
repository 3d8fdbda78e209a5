use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde::Serialize;
use serde_json::{Map, Value};

/// The facts every hook context carries: who is running what.
///
/// Cheap to clone (one shared allocation), so every context of a session can
/// hold it. Sub-agents get a session of their own with [`Session::sub_agent`],
/// which keeps the ids and metadata and records the parent agent.
///
/// ```
/// use hooks_core::Session;
///
/// let session = Session::new("sess-42")
///     .with_user("alice")
///     .with_metadata("org_read_only", true);
/// let researcher = session.sub_agent("researcher");
/// assert_eq!(researcher.parent_agent_id(), Some("main"));
/// assert_eq!(researcher.user_id(), Some("alice"));
/// assert_eq!(researcher.metadata_value("org_read_only"), Some(&true.into()));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Session(Arc<Facts>);

#[derive(Clone, Debug, PartialEq, Serialize)]
struct Facts {
    session_id: String,
    agent_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_agent_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user_id: Option<String>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    metadata: Map<String, Value>,
    #[serde(skip)]
    stops: StopCount,
}

/// How many times in a row stop hooks kept this agent going: shared by
/// every clone of the session (and copies made by `with_*`), fresh for a
/// sub-agent. Not part of the session's identity.
#[derive(Clone, Debug, Default)]
pub(crate) struct StopCount(Arc<AtomicU32>);

impl PartialEq for StopCount {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl StopCount {
    /// How many refusals in a row so far.
    fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    /// One more refusal in a row; how many now.
    pub(crate) fn refused(&self) -> u32 {
        self.0.fetch_add(1, Ordering::Relaxed).saturating_add(1)
    }

    /// The run is broken: the agent stopped, or the user spoke.
    pub(crate) fn reset(&self) {
        self.0.store(0, Ordering::Relaxed);
    }
}

impl Session {
    /// The agent id a session starts with.
    pub const MAIN_AGENT: &'static str = "main";

    /// A session whose agent is [`Session::MAIN_AGENT`], with no user and no metadata.
    pub fn new(session_id: impl Into<String>) -> Self {
        Session(Arc::new(Facts {
            session_id: session_id.into(),
            agent_id: Self::MAIN_AGENT.to_owned(),
            parent_agent_id: None,
            user_id: None,
            metadata: Map::new(),
            stops: StopCount::default(),
        }))
    }

    /// Sets the agent id.
    #[must_use]
    pub fn with_agent(mut self, agent_id: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.0).agent_id = agent_id.into();
        self
    }

    /// Sets the user id.
    #[must_use]
    pub fn with_user(mut self, user_id: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.0).user_id = Some(user_id.into());
        self
    }

    /// Sets one metadata entry (for example `org_read_only = true`).
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        Arc::make_mut(&mut self.0)
            .metadata
            .insert(key.into(), value.into());
        self
    }

    /// The session of a sub-agent: same session, user and metadata; this agent as its parent.
    #[must_use]
    pub fn sub_agent(&self, agent_id: impl Into<String>) -> Session {
        let mut facts = (*self.0).clone();
        facts.parent_agent_id = Some(std::mem::replace(&mut facts.agent_id, agent_id.into()));
        facts.stops = StopCount::default();
        Session(Arc::new(facts))
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.0.session_id
    }

    /// The id of the agent running in this session.
    pub fn agent_id(&self) -> &str {
        &self.0.agent_id
    }

    /// The id of the agent that started this one, for sub-agents.
    pub fn parent_agent_id(&self) -> Option<&str> {
        self.0.parent_agent_id.as_deref()
    }

    /// The user the agent acts for, if known.
    pub fn user_id(&self) -> Option<&str> {
        self.0.user_id.as_deref()
    }

    /// All metadata.
    pub fn metadata(&self) -> &Map<String, Value> {
        &self.0.metadata
    }

    /// One metadata entry.
    pub fn metadata_value(&self, key: &str) -> Option<&Value> {
        self.0.metadata.get(key)
    }
}

impl Serialize for Session {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl Session {
    pub(crate) fn stops(&self) -> &StopCount {
        &self.0.stops
    }

    /// How many times in a row `stop` hooks have kept this agent going (a
    /// stop they let through starts the count again). The dispatcher lets
    /// the agent stop once the count would pass its
    /// [`stop_denial_cap`](crate::HooksBuilder::stop_denial_cap).
    ///
    /// ```
    /// use hooks_core::prelude::*;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let hooks = Hooks::builder()
    ///     .without_linked()
    ///     .stop_denial_cap(2)
    ///     .hook(Hook::new("keep_going", |_: &mut Stop| Decision::deny("the tests fail")))
    ///     .build()
    ///     .unwrap();
    /// let session = Session::new("s");
    /// assert!(hooks.dispatch(&mut Stop::new(&session)).await.is_denied());
    /// assert_eq!(session.stop_denials(), 1);
    ///
    /// // A process of its own per event: the count comes from where it was kept.
    /// let later = Session::new("s");
    /// later.resume_stop_denials(2);
    /// let outcome = hooks.dispatch(&mut Stop::new(&later)).await;
    /// assert!(outcome.stop_capped().is_some() && outcome.is_continue());
    /// assert_eq!(later.stop_denials(), 0);
    /// # }
    /// ```
    pub fn stop_denials(&self) -> u32 {
        self.0.stops.get()
    }

    /// Continues a count of refused stops kept elsewhere: for an integration
    /// that runs each event in a process of its own (hooks-claude keeps the
    /// count in its state directory), so the cap holds across processes.
    /// Shared by every clone of this session, like the count itself.
    pub fn resume_stop_denials(&self, count: u32) {
        self.0.stops.0.store(count, Ordering::Relaxed);
    }
}
