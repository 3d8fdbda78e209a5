//! The approval store: every request, its answer and who gave it, in SQLite,
//! so a pending request outlives the process that asked.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use serde::Serialize;

/// The schema, one migration per step; `PRAGMA user_version` counts the steps applied.
const MIGRATIONS: &[&str] = &[
    // 1: requests and session-wide grants.
    "CREATE TABLE requests (
         id           INTEGER PRIMARY KEY AUTOINCREMENT,
         fingerprint  TEXT NOT NULL,
         session      TEXT NOT NULL,
         agent        TEXT NOT NULL,
         user         TEXT,
         tool         TEXT NOT NULL,
         args         TEXT NOT NULL,
         prompt       TEXT NOT NULL,
         status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
         scope        TEXT CHECK (scope IN ('once', 'session')),
         created_at   TEXT NOT NULL,
         responded_at TEXT,
         responded_by TEXT,
         reason       TEXT,
         consumed_at  TEXT
     );
     CREATE INDEX requests_by_fingerprint ON requests (fingerprint, status);
     CREATE INDEX requests_by_status ON requests (status, created_at);
     CREATE TABLE session_grants (
         session    TEXT NOT NULL,
         tool       TEXT NOT NULL,
         granted_by TEXT,
         granted_at TEXT NOT NULL,
         request_id INTEGER NOT NULL REFERENCES requests (id),
         PRIMARY KEY (session, tool)
     );",
];

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
    fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Approved => "approved",
            Status::Denied => "denied",
            Status::Expired => "expired",
        }
    }

    fn parse(text: &str) -> rusqlite::Result<Self> {
        match text {
            "pending" => Ok(Status::Pending),
            "approved" => Ok(Status::Approved),
            "denied" => Ok(Status::Denied),
            "expired" => Ok(Status::Expired),
            other => Err(rusqlite::Error::InvalidColumnType(
                0,
                format!("status {other:?}"),
                rusqlite::types::Type::Text,
            )),
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
    fn as_str(self) -> &'static str {
        match self {
            Scope::Once => "once",
            Scope::Session => "session",
        }
    }

    fn parse(text: &str) -> rusqlite::Result<Self> {
        match text {
            "once" => Ok(Scope::Once),
            "session" => Ok(Scope::Session),
            other => Err(rusqlite::Error::InvalidColumnType(
                0,
                format!("scope {other:?}"),
                rusqlite::types::Type::Text,
            )),
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

/// What a store operation could not do.
#[derive(Debug)]
pub struct StoreError {
    path: PathBuf,
    error: rusqlite::Error,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "approval store `{}`: {}",
            self.path.display(),
            self.error
        )
    }
}

impl std::error::Error for StoreError {}

/// A request about to be stored.
pub(crate) struct NewRequest<'a> {
    pub(crate) fingerprint: &'a str,
    pub(crate) session: &'a str,
    pub(crate) agent: &'a str,
    pub(crate) user: Option<&'a str>,
    pub(crate) tool: &'a str,
    pub(crate) args: &'a str,
    pub(crate) prompt: &'a str,
}

/// The approval database. Cheap to open; every method is one short transaction.
pub struct Store {
    path: PathBuf,
    connection: Connection,
}

impl Store {
    /// Opens (creating if needed) and migrates the database at `path`.
    ///
    /// A file that is not a SQLite database, or a database another process
    /// holds locked longer than `busy_timeout`, is an error naming the file.
    pub fn open(path: impl AsRef<Path>, busy_timeout: Duration) -> Result<Self, StoreError> {
        let path = path.as_ref().to_owned();
        let fail = |error| StoreError {
            path: path.clone(),
            error,
        };
        let mut connection = Connection::open(&path).map_err(fail)?;
        connection.busy_timeout(busy_timeout).map_err(fail)?;
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(fail)?;
        connection
            .pragma_update(None, "foreign_keys", true)
            .map_err(fail)?;
        migrate(&mut connection).map_err(fail)?;
        Ok(Store { path, connection })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn fail(&self, error: rusqlite::Error) -> StoreError {
        StoreError {
            path: self.path.clone(),
            error,
        }
    }

    /// Stores a pending request; returns its id.
    pub(crate) fn insert(&self, request: &NewRequest<'_>) -> Result<i64, StoreError> {
        self.connection
            .execute(
                "INSERT INTO requests (fingerprint, session, agent, user, tool, args, prompt, status, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8)",
                params![
                    request.fingerprint,
                    request.session,
                    request.agent,
                    request.user,
                    request.tool,
                    request.args,
                    request.prompt,
                    now()
                ],
            )
            .map_err(|error| self.fail(error))?;
        Ok(self.connection.last_insert_rowid())
    }

    /// The newest request for this call that is pending, or answered and not yet used.
    pub(crate) fn open_request(&self, fingerprint: &str) -> Result<Option<Request>, StoreError> {
        self.connection
            .query_row(
                "SELECT * FROM requests
                 WHERE fingerprint = ?1
                   AND (status = 'pending' OR (status IN ('approved', 'denied') AND consumed_at IS NULL))
                 ORDER BY id DESC LIMIT 1",
                [fingerprint],
                request,
            )
            .optional()
            .map_err(|error| self.fail(error))
    }

    /// One request.
    pub fn get(&self, id: i64) -> Result<Option<Request>, StoreError> {
        self.connection
            .query_row("SELECT * FROM requests WHERE id = ?1", [id], request)
            .optional()
            .map_err(|error| self.fail(error))
    }

    /// Requests with this status, oldest first.
    pub fn list(&self, status: Status) -> Result<Vec<Request>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT * FROM requests WHERE status = ?1 ORDER BY id")
            .map_err(|error| self.fail(error))?;
        let rows = statement
            .query_map([status.as_str()], request)
            .map_err(|error| self.fail(error))?;
        rows.collect::<Result<_, _>>()
            .map_err(|error| self.fail(error))
    }

    /// Records an answer to a pending request. `false` if it was no longer
    /// pending (someone answered first, or it expired): the first answer wins.
    pub fn answer(
        &self,
        id: i64,
        approved: bool,
        scope: Scope,
        by: Option<&str>,
        reason: Option<&str>,
    ) -> Result<bool, StoreError> {
        let status = if approved {
            Status::Approved
        } else {
            Status::Denied
        };
        // The answer and its session grant land together or not at all: a
        // request "approved for the session" with no grant would be a lie.
        let transaction = self
            .connection
            .unchecked_transaction()
            .map_err(|error| self.fail(error))?;
        let changed = transaction
            .execute(
                "UPDATE requests SET status = ?2, scope = ?3, responded_at = ?4, responded_by = ?5, reason = ?6
                 WHERE id = ?1 AND status = 'pending'",
                params![id, status.as_str(), scope.as_str(), now(), by, reason],
            )
            .map_err(|error| self.fail(error))?;
        if changed == 1 && approved && scope == Scope::Session {
            transaction
                .execute(
                    "INSERT OR REPLACE INTO session_grants (session, tool, granted_by, granted_at, request_id)
                     SELECT session, tool, responded_by, responded_at, id FROM requests WHERE id = ?1",
                    [id],
                )
                .map_err(|error| self.fail(error))?;
        }
        transaction.commit().map_err(|error| self.fail(error))?;
        Ok(changed == 1)
    }

    /// Uses an answered request for the one call it covers. `false` if it was
    /// already used: an approval lets a call through once, never twice.
    pub(crate) fn consume(&self, id: i64) -> Result<bool, StoreError> {
        let changed = self
            .connection
            .execute(
                "UPDATE requests SET consumed_at = ?2
                 WHERE id = ?1 AND status IN ('approved', 'denied') AND consumed_at IS NULL",
                params![id, now()],
            )
            .map_err(|error| self.fail(error))?;
        Ok(changed == 1)
    }

    /// Marks a pending request expired (nobody answered in time).
    pub(crate) fn expire(&self, id: i64) -> Result<(), StoreError> {
        self.connection
            .execute(
                "UPDATE requests SET status = 'expired', responded_at = ?2 WHERE id = ?1 AND status = 'pending'",
                params![id, now()],
            )
            .map(drop)
            .map_err(|error| self.fail(error))
    }

    /// Expires every request pending since before `cutoff` seconds ago (all of them with zero).
    pub(crate) fn expire_older_than(&self, age: Duration) -> Result<usize, StoreError> {
        let cutoff = humantime::format_rfc3339_millis(SystemTime::now() - age).to_string();
        self.connection
            .execute(
                "UPDATE requests SET status = 'expired', responded_at = ?2 WHERE status = 'pending' AND created_at <= ?1",
                params![cutoff, now()],
            )
            .map_err(|error| self.fail(error))
    }

    /// Who allowed this tool for the rest of this session, if anyone did.
    pub(crate) fn grant(
        &self,
        session: &str,
        tool: &str,
    ) -> Result<Option<(i64, Option<String>)>, StoreError> {
        self.connection
            .query_row(
                "SELECT request_id, granted_by FROM session_grants WHERE session = ?1 AND tool = ?2",
                [session, tool],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(|error| self.fail(error))
    }
}

/// Brings the schema up to date. The version is read under the write lock
/// (`BEGIN IMMEDIATE`): two processes opening a new store at once must not
/// both run the same migration.
fn migrate(connection: &mut Connection) -> rusqlite::Result<()> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = transaction.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let version = usize::try_from(version).unwrap_or(usize::MAX);
    if version > MIGRATIONS.len() {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_MISMATCH),
            Some(format!(
                "the database is at schema version {version}, newer than this program's {}",
                MIGRATIONS.len()
            )),
        ));
    }
    for migration in &MIGRATIONS[version..] {
        transaction.execute_batch(migration)?;
    }
    transaction.pragma_update(
        None,
        "user_version",
        i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX),
    )?;
    transaction.commit()
}

fn request(row: &Row<'_>) -> rusqlite::Result<Request> {
    let scope: Option<String> = row.get("scope")?;
    Ok(Request {
        id: row.get("id")?,
        session: row.get("session")?,
        agent: row.get("agent")?,
        user: row.get("user")?,
        tool: row.get("tool")?,
        args: row.get("args")?,
        prompt: row.get("prompt")?,
        status: Status::parse(&row.get::<_, String>("status")?)?,
        scope: scope.as_deref().map(Scope::parse).transpose()?,
        created_at: row.get("created_at")?,
        responded_at: row.get("responded_at")?,
        responded_by: row.get("responded_by")?,
        reason: row.get("reason")?,
        consumed_at: row.get("consumed_at")?,
    })
}

fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}
