//! Where approval requests live: the [`ApprovalStore`] trait, whose every
//! operation may wait (a database on the network, or a local one answered on
//! a blocking thread) without blocking the executor, and what it stores.
//! [`SqliteStore`](super::SqliteStore) is the default.

use std::fmt;
use std::time::Duration;

use hooks_core::BoxFuture;
use serde::Serialize;

/// Where a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Waiting for a person.
    Pending,
    /// A person said yes.
    Approved,
    /// A person said no.
    Denied,
    /// Nobody answered in time.
    Expired,
}

impl Status {
    /// The name stored and shown: `pending`, `approved`, `denied`, `expired`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Approved => "approved",
            Status::Denied => "denied",
            Status::Expired => "expired",
        }
    }

    /// The status a stored name stands for.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "pending" => Some(Status::Pending),
            "approved" => Some(Status::Approved),
            "denied" => Some(Status::Denied),
            "expired" => Some(Status::Expired),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How far a yes reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// This call only.
    Once,
    /// Every call of this tool for the rest of the session.
    Session,
}

impl Scope {
    /// The name stored: `once` or `session`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Once => "once",
            Scope::Session => "session",
        }
    }

    /// The scope a stored name stands for.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "once" => Some(Scope::Once),
            "session" => Some(Scope::Session),
            _ => None,
        }
    }
}

/// One stored request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request {
    /// Its id, as the CLI shows it.
    pub id: i64,
    /// The session.
    pub session: String,
    /// The agent.
    pub agent: String,
    /// The user, if known.
    pub user: Option<String>,
    /// The tool.
    pub tool: String,
    /// Its arguments, secrets redacted (JSON text).
    pub args: String,
    /// What the person is asked.
    pub prompt: String,
    /// Where it stands.
    pub status: Status,
    /// For approvals: once, or for the session.
    pub scope: Option<Scope>,
    /// When it was asked (RFC 3339).
    pub created_at: String,
    /// When it was answered.
    pub responded_at: Option<String>,
    /// Who answered.
    pub responded_by: Option<String>,
    /// The reason given, for denials.
    pub reason: Option<String>,
    /// When an approved call was let through (an approval lets one call through, once).
    pub consumed_at: Option<String>,
}

/// A request about to be stored: the call, redacted, and what the person is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRequest {
    /// Identifies the call (session, tool, exact arguments) across processes.
    pub fingerprint: String,
    /// The session.
    pub session: String,
    /// The agent.
    pub agent: String,
    /// The user, if known.
    pub user: Option<String>,
    /// The tool.
    pub tool: String,
    /// Its arguments, secrets redacted (JSON text).
    pub args: String,
    /// What the person is asked.
    pub prompt: String,
}

/// An answer to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answering {
    /// Yes or no.
    pub approved: bool,
    /// How far a yes reaches.
    pub scope: Scope,
    /// Who answered.
    pub by: Option<String>,
    /// Why, for a no.
    pub reason: Option<String>,
}

/// A yes for a tool for the rest of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The request the yes answered.
    pub request: i64,
    /// Who said it.
    pub by: Option<String>,
}

pub use crate::store::StoreError;

/// A failure of the approval store `store` (a file, a server).
pub(crate) fn failed(store: impl fmt::Display, message: impl fmt::Display) -> StoreError {
    StoreError::new(format!("approval store `{store}`"), message)
}

/// The approval state machine's storage: pending requests, answers, exactly-once
/// use, expiry and session-wide grants. Every operation is one short
/// transaction; every one returns a future, so a slow or locked store never
/// blocks the executor thread.
pub trait ApprovalStore: Send + Sync + 'static {
    /// Stores a pending request; returns its id.
    fn insert(&self, request: NewRequest) -> BoxFuture<'_, Result<i64, StoreError>>;

    /// The newest request for this call that is pending, or answered and not yet used.
    fn open_request(&self, fingerprint: &str)
    -> BoxFuture<'_, Result<Option<Request>, StoreError>>;

    /// One request.
    fn get(&self, id: i64) -> BoxFuture<'_, Result<Option<Request>, StoreError>>;

    /// Requests with this status, oldest first.
    fn list(&self, status: Status) -> BoxFuture<'_, Result<Vec<Request>, StoreError>>;

    /// Records an answer to a pending request, with its session grant if it
    /// has one, atomically. `false` if it was no longer pending: the first answer wins.
    fn answer(&self, id: i64, answer: Answering) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Uses an answered request for the one call it covers. `false` if it was
    /// already used: an approval lets a call through once, never twice.
    fn consume(&self, id: i64) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Marks a pending request expired (nobody answered in time).
    fn expire(&self, id: i64) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Expires every request pending for longer than `age` (all of them with zero).
    fn expire_older_than(&self, age: Duration) -> BoxFuture<'_, Result<usize, StoreError>>;

    /// Who allowed this tool for the rest of this session, if anyone did.
    fn grant(&self, session: &str, tool: &str) -> BoxFuture<'_, Result<Option<Grant>, StoreError>>;

    /// For stores told of answers given elsewhere (PostgreSQL's `NOTIFY`): a
    /// future resolving when request `id` may have been answered, listening
    /// from the moment this is called, so a status read after it misses
    /// nothing. `None` (the default): the gate checks every `poll_interval`.
    fn answered(&self, id: i64) -> Option<BoxFuture<'_, Result<(), StoreError>>> {
        let _ = id;
        None
    }
}
