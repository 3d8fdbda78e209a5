//! The default approval store: every request, its answer and who gave it, in
//! SQLite, so a pending request outlives the process that asked.
//! [`Database`] is the file, used directly by the `hooks-approve` CLI;
//! [`SqliteStore`] puts it behind [`ApprovalStore`] for the gate, each
//! operation on Tokio's blocking pool so a locked database never blocks the
//! executor.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use hooks_core::BoxFuture;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::store::{
    self, Answering, ApprovalStore, Grant, NewRequest, Request, Scope, Status, StoreError,
};

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

/// The approval database. Cheap to open; every method is one short transaction.
pub struct Database {
    path: PathBuf,
    connection: Connection,
}

impl Database {
    /// Opens (creating if needed) and migrates the database at `path`.
    ///
    /// A file that is not a SQLite database, or a database another process
    /// holds locked longer than `busy_timeout`, is an error naming the file.
    pub fn open(path: impl AsRef<Path>, busy_timeout: Duration) -> Result<Self, StoreError> {
        let path = path.as_ref().to_owned();
        let fail = |error: rusqlite::Error| store::failed(path.display(), error);
        let mut connection = Connection::open(&path).map_err(fail)?;
        connection.busy_timeout(busy_timeout).map_err(fail)?;
        crate::sqlite::wal(&connection, busy_timeout).map_err(fail)?;
        connection
            .pragma_update(None, "foreign_keys", true)
            .map_err(fail)?;
        crate::sqlite::migrate(&mut connection, MIGRATIONS).map_err(fail)?;
        Ok(Database { path, connection })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn fail(&self, error: rusqlite::Error) -> StoreError {
        store::failed(self.path.display(), error)
    }

    /// Stores a pending request; returns its id.
    pub fn insert(&self, request: &NewRequest) -> Result<i64, StoreError> {
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
    pub fn open_request(&self, fingerprint: &str) -> Result<Option<Request>, StoreError> {
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
    pub fn answer(&self, id: i64, answer: &Answering) -> Result<bool, StoreError> {
        let Answering {
            approved,
            scope,
            by,
            reason,
        } = answer;
        let (approved, scope) = (*approved, *scope);
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
    pub fn consume(&self, id: i64) -> Result<bool, StoreError> {
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
    pub fn expire(&self, id: i64) -> Result<(), StoreError> {
        self.connection
            .execute(
                "UPDATE requests SET status = 'expired', responded_at = ?2 WHERE id = ?1 AND status = 'pending'",
                params![id, now()],
            )
            .map(drop)
            .map_err(|error| self.fail(error))
    }

    /// Expires every request pending since before `cutoff` seconds ago (all of them with zero).
    pub fn expire_older_than(&self, age: Duration) -> Result<usize, StoreError> {
        let cutoff = humantime::format_rfc3339_millis(SystemTime::now() - age).to_string();
        self.connection
            .execute(
                "UPDATE requests SET status = 'expired', responded_at = ?2 WHERE status = 'pending' AND created_at <= ?1",
                params![cutoff, now()],
            )
            .map_err(|error| self.fail(error))
    }

    /// Who allowed this tool for the rest of this session, if anyone did.
    pub fn grant(&self, session: &str, tool: &str) -> Result<Option<Grant>, StoreError> {
        self.connection
            .query_row(
                "SELECT request_id, granted_by FROM session_grants WHERE session = ?1 AND tool = ?2",
                [session, tool],
                |row| {
                    Ok(Grant {
                        request: row.get(0)?,
                        by: row.get(1)?,
                    })
                },
            )
            .optional()
            .map_err(|error| self.fail(error))
    }
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
        status: parsed(Status::parse, &row.get::<_, String>("status")?)?,
        scope: scope
            .as_deref()
            .map(|scope| parsed(Scope::parse, scope))
            .transpose()?,
        created_at: row.get("created_at")?,
        responded_at: row.get("responded_at")?,
        responded_by: row.get("responded_by")?,
        reason: row.get("reason")?,
        consumed_at: row.get("consumed_at")?,
    })
}

/// A stored name read back, or an error saying what was there instead.
fn parsed<T>(parse: fn(&str) -> Option<T>, text: &str) -> rusqlite::Result<T> {
    parse(text).ok_or_else(|| {
        rusqlite::Error::InvalidColumnType(0, format!("{text:?}"), rusqlite::types::Type::Text)
    })
}

fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// The SQLite database behind [`ApprovalStore`]: each operation runs on
/// Tokio's blocking pool, so a database another process holds locked (for up
/// to its busy timeout) never stalls the executor and the tasks on it.
#[derive(Clone)]
pub struct SqliteStore {
    database: Arc<Mutex<Database>>,
    path: Arc<str>,
}

impl SqliteStore {
    /// Opens (creating and migrating) the database at `path`.
    pub fn open(path: impl AsRef<Path>, busy_timeout: Duration) -> Result<Self, StoreError> {
        let database = Database::open(&path, busy_timeout)?;
        Ok(SqliteStore {
            path: database.path().display().to_string().into(),
            database: Arc::new(Mutex::new(database)),
        })
    }

    /// Runs `operation` on the database, off the executor.
    fn run<T, F>(&self, operation: F) -> BoxFuture<'_, Result<T, StoreError>>
    where
        T: Send + 'static,
        F: FnOnce(&Database) -> Result<T, StoreError> + Send + 'static,
    {
        let database = Arc::clone(&self.database);
        let path = Arc::clone(&self.path);
        Box::pin(async move {
            if tokio::runtime::Handle::try_current().is_err() {
                return Err(store::failed(
                    &*path,
                    "the SQLite approval store needs a Tokio runtime to run on",
                ));
            }
            tokio::task::spawn_blocking(move || {
                operation(&database.lock().unwrap_or_else(PoisonError::into_inner))
            })
            .await
            .map_err(|error| store::failed(&*path, error))?
        })
    }
}

impl ApprovalStore for SqliteStore {
    fn insert(&self, request: NewRequest) -> BoxFuture<'_, Result<i64, StoreError>> {
        self.run(move |database| database.insert(&request))
    }

    fn open_request(
        &self,
        fingerprint: &str,
    ) -> BoxFuture<'_, Result<Option<Request>, StoreError>> {
        let fingerprint = fingerprint.to_owned();
        self.run(move |database| database.open_request(&fingerprint))
    }

    fn get(&self, id: i64) -> BoxFuture<'_, Result<Option<Request>, StoreError>> {
        self.run(move |database| database.get(id))
    }

    fn list(&self, status: Status) -> BoxFuture<'_, Result<Vec<Request>, StoreError>> {
        self.run(move |database| database.list(status))
    }

    fn answer(&self, id: i64, answer: Answering) -> BoxFuture<'_, Result<bool, StoreError>> {
        self.run(move |database| database.answer(id, &answer))
    }

    fn consume(&self, id: i64) -> BoxFuture<'_, Result<bool, StoreError>> {
        self.run(move |database| database.consume(id))
    }

    fn expire(&self, id: i64) -> BoxFuture<'_, Result<(), StoreError>> {
        self.run(move |database| database.expire(id))
    }

    fn expire_older_than(&self, age: Duration) -> BoxFuture<'_, Result<usize, StoreError>> {
        self.run(move |database| database.expire_older_than(age))
    }

    fn grant(&self, session: &str, tool: &str) -> BoxFuture<'_, Result<Option<Grant>, StoreError>> {
        let (session, tool) = (session.to_owned(), tool.to_owned());
        self.run(move |database| database.grant(&session, &tool))
    }
}
