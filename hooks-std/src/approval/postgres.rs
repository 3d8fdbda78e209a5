//! Approval requests in PostgreSQL, shared by every replica of a service: a
//! request asked on one machine can be answered anywhere and resumed on any
//! other. A waiting replica is told of an answer (`LISTEN`/`NOTIFY`, sent by
//! a trigger in the answering transaction) instead of polling; a yes is
//! claimed by one `UPDATE ... WHERE consumed_at IS NULL`, so two replicas
//! can never both run the call it covers.

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hooks_core::BoxFuture;
use tokio::sync::{Mutex, broadcast};
use tokio::task::AbortHandle;
use tokio_postgres::Row;

use crate::postgres::{Connected, Server, failure, spawn_on_driver};

use super::store::{
    self, Answering, ApprovalStore, Grant, NewRequest, Request, Scope, Status, StoreError,
};

/// The channel the answering trigger notifies, with the request id as payload.
const CHANNEL: &str = "hooks_approval_answers";

/// The schema, one step per entry, recorded in `hooks_schema_migrations`.
const MIGRATIONS: &[&str] = &[
    // 1: requests, session-wide grants, and the trigger that tells waiters.
    "CREATE TABLE hooks_approval_requests (
         id           BIGSERIAL PRIMARY KEY,
         fingerprint  TEXT NOT NULL,
         session      TEXT NOT NULL,
         agent        TEXT NOT NULL,
         user_id      TEXT,
         tool         TEXT NOT NULL,
         args         TEXT NOT NULL,
         prompt       TEXT NOT NULL,
         status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
         scope        TEXT CHECK (scope IN ('once', 'session')),
         created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
         responded_at TIMESTAMPTZ,
         responded_by TEXT,
         reason       TEXT,
         consumed_at  TIMESTAMPTZ
     );
     CREATE INDEX hooks_approval_requests_by_fingerprint ON hooks_approval_requests (fingerprint, status);
     CREATE INDEX hooks_approval_requests_by_status ON hooks_approval_requests (status, created_at);
     CREATE TABLE hooks_approval_grants (
         session    TEXT NOT NULL,
         tool       TEXT NOT NULL,
         granted_by TEXT,
         granted_at TIMESTAMPTZ NOT NULL,
         request_id BIGINT NOT NULL REFERENCES hooks_approval_requests (id),
         PRIMARY KEY (session, tool)
     );
     CREATE FUNCTION hooks_approval_time(at TIMESTAMPTZ) RETURNS TEXT
         LANGUAGE sql IMMUTABLE
         AS $$ SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') $$;
     CREATE FUNCTION hooks_approval_notify() RETURNS TRIGGER
         LANGUAGE plpgsql
         AS $$ BEGIN PERFORM pg_notify('hooks_approval_answers', NEW.id::text); RETURN NULL; END $$;
     CREATE TRIGGER hooks_approval_answered
         AFTER UPDATE OF status ON hooks_approval_requests
         FOR EACH ROW WHEN (OLD.status = 'pending' AND NEW.status <> 'pending')
         EXECUTE FUNCTION hooks_approval_notify();",
];

/// A request's columns, times as RFC 3339 text like the SQLite store's.
const COLUMNS: &str = "id, session, agent, user_id, tool, args, prompt, status, scope,
     hooks_approval_time(created_at) AS created_at,
     hooks_approval_time(responded_at) AS responded_at,
     responded_by, reason,
     hooks_approval_time(consumed_at) AS consumed_at";

/// Approval requests in PostgreSQL, behind [`ApprovalStore`]: the state
/// machine of [`SqliteStore`](super::SqliteStore), shared by every process
/// that connects to the same database, and [`answered`](ApprovalStore::answered)
/// resolves when a request is answered, from any connection.
///
/// Cheap to clone. Connects lazily, and again after the connection is lost.
/// Its connections are driven on a thread of their own, so the store works
/// from any runtime and outlives each. Connecting and each statement are
/// bounded ([`timeouts`](Self::timeouts), 5 s each by default): a server that
/// does not answer is an error, and the approval gate denies (fail-closed).
///
/// The `hooks-approve` operations are its trait methods:
/// [`list`](ApprovalStore::list)`(Status::Pending)`, [`get`](ApprovalStore::get),
/// and [`answer`](ApprovalStore::answer), which wakes the waiting replica.
#[derive(Clone)]
pub struct PostgresStore {
    inner: Arc<Inner>,
}

struct Inner {
    server: Server,
    client: Mutex<Option<Arc<Connected>>>,
    /// Answered request ids; `None` after (re)listening: every waiter re-checks.
    answers: broadcast::Sender<Option<i64>>,
    listener: OnceLock<AbortHandle>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(listener) = self.listener.get() {
            listener.abort();
        }
    }
}

impl PostgresStore {
    /// A store on the server `connection` names (`${NAME}`s expanded), not
    /// yet connected: the first operation connects and migrates.
    pub fn new(connection: &str) -> Result<Self, StoreError> {
        let server = Server::parse(connection).map_err(|error| store::failed("postgres", error))?;
        Ok(PostgresStore {
            inner: Arc::new(Inner {
                server,
                client: Mutex::new(None),
                answers: broadcast::channel(1024).0,
                listener: OnceLock::new(),
            }),
        })
    }

    /// Connects to the server and brings its schema up to date.
    pub async fn connect(connection: &str) -> Result<Self, StoreError> {
        let store = Self::new(connection)?;
        store.client().await?;
        Ok(store)
    }

    /// Sets how long connecting may take (TCP, TLS, authentication) and how
    /// long each statement may take before it is an error. Before the store
    /// is first used; a clone made earlier keeps the old ones.
    #[must_use]
    pub fn timeouts(self, connect: Duration, statement: Duration) -> Self {
        let mut server = self.inner.server.clone();
        server.connect_timeout(connect);
        server.statement_timeout(statement);
        PostgresStore {
            inner: Arc::new(Inner {
                server,
                client: Mutex::new(None),
                answers: broadcast::channel(1024).0,
                listener: OnceLock::new(),
            }),
        }
    }

    /// The server, user and database, for messages (never the password).
    pub fn server(&self) -> &str {
        self.inner.server.shown()
    }

    fn fail(&self, error: impl std::fmt::Display) -> StoreError {
        store::failed(self.server(), error)
    }

    async fn client(&self) -> Result<Arc<Connected>, StoreError> {
        let mut client = self.inner.client.lock().await;
        if let Some(open) = client.as_ref().filter(|open| !open.is_closed()) {
            return Ok(Arc::clone(open));
        }
        let fresh = Arc::new(
            self.inner
                .server
                .connect_migrated("approval", MIGRATIONS)
                .await
                .map_err(|error| self.fail(error))?,
        );
        *client = Some(Arc::clone(&fresh));
        Ok(fresh)
    }

    fn run<'a, T, F, Fut>(&'a self, operation: F) -> BoxFuture<'a, Result<T, StoreError>>
    where
        T: Send + 'a,
        F: FnOnce(Arc<Connected>) -> Fut + Send + 'a,
        Fut: Future<Output = Result<T, tokio_postgres::Error>> + Send + 'a,
    {
        Box::pin(async move {
            let client = self.client().await?;
            let result = self.inner.server.within(operation(client)).await;
            if result.is_err() {
                // A connection whose statement timed out may be stuck: the
                // next operation connects anew.
                self.inner.client.lock().await.take();
            }
            result.map_err(|error| self.fail(error))
        })
    }

    /// Starts the task that listens for answers, once, on the connections' runtime.
    fn listen(&self) -> bool {
        if self.inner.listener.get().is_some() {
            return true;
        }
        let Ok(task) = spawn_on_driver(listen(
            self.inner.server.clone(),
            self.inner.answers.clone(),
        )) else {
            return false;
        };
        if let Err(handle) = self.inner.listener.set(task.abort_handle()) {
            // Another waiter started one first.
            handle.abort();
        }
        true
    }
}

/// Listens for answers on a connection of its own, reconnecting when it is
/// lost; after each `LISTEN` every waiter re-checks its request, which
/// catches answers given while nobody listened.
async fn listen(server: Server, answers: broadcast::Sender<Option<i64>>) {
    let mut pause = Duration::from_millis(50);
    loop {
        let told = answers.clone();
        let notified: crate::postgres::OnNotification = Arc::new(move |note| {
            if note.channel() == CHANNEL {
                let _ = told.send(note.payload().parse().ok());
            }
        });
        match server.connect_notified(Some(notified)).await {
            Ok(mut connected) => {
                match server
                    .within(connected.batch_execute(&format!("LISTEN {CHANNEL}")))
                    .await
                {
                    Ok(()) => {
                        pause = Duration::from_millis(50);
                        let _ = answers.send(None);
                        let lost = alive(&server, &mut connected).await;
                        tracing::warn!(target: "hooks_std::approval", server = %server.shown(), error = %lost, "stopped listening for answers; reconnecting");
                    }
                    Err(error) => {
                        tracing::warn!(target: "hooks_std::approval", server = %server.shown(), %error, "cannot listen for answers; retrying");
                    }
                }
            }
            Err(error) => {
                tracing::warn!(target: "hooks_std::approval", server = %server.shown(), %error, "cannot connect to listen for answers; retrying");
            }
        }
        // Waiters re-check now and then while nobody listens.
        let _ = answers.send(None);
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(5));
    }
}

/// How often an idle listening connection is checked: a connection whose
/// path died silently (a firewall or NAT forgot it) would never deliver
/// another notification, nor end.
const PING: Duration = Duration::from_secs(10);

/// Waits for the listening connection to end, or to fail a check (a query
/// not answered within the statement timeout); says why.
async fn alive(server: &Server, connected: &mut Connected) -> String {
    loop {
        if let Ok(lost) = tokio::time::timeout(PING, connected.ended()).await {
            return lost;
        }
        if let Err(error) = server.within(connected.batch_execute("SELECT 1")).await {
            return error;
        }
    }
}

impl ApprovalStore for PostgresStore {
    fn insert(&self, request: NewRequest) -> BoxFuture<'_, Result<i64, StoreError>> {
        self.run(move |client| async move {
            let row = client
                .query_one(
                    "INSERT INTO hooks_approval_requests
                         (fingerprint, session, agent, user_id, tool, args, prompt, status)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending') RETURNING id",
                    &[
                        &request.fingerprint,
                        &request.session,
                        &request.agent,
                        &request.user,
                        &request.tool,
                        &request.args,
                        &request.prompt,
                    ],
                )
                .await?;
            Ok(row.get(0))
        })
    }

    fn open_request(
        &self,
        fingerprint: &str,
    ) -> BoxFuture<'_, Result<Option<Request>, StoreError>> {
        let fingerprint = fingerprint.to_owned();
        let query = format!(
            "SELECT {COLUMNS} FROM hooks_approval_requests
             WHERE fingerprint = $1
               AND (status = 'pending' OR (status IN ('approved', 'denied') AND consumed_at IS NULL))
             ORDER BY id DESC LIMIT 1"
        );
        Box::pin(async move {
            let row = self
                .run(move |client| async move { client.query_opt(&query, &[&fingerprint]).await })
                .await?;
            row.as_ref().map(|row| self.request(row)).transpose()
        })
    }

    fn get(&self, id: i64) -> BoxFuture<'_, Result<Option<Request>, StoreError>> {
        let query = format!("SELECT {COLUMNS} FROM hooks_approval_requests WHERE id = $1");
        Box::pin(async move {
            let row = self
                .run(move |client| async move { client.query_opt(&query, &[&id]).await })
                .await?;
            row.as_ref().map(|row| self.request(row)).transpose()
        })
    }

    fn list(&self, status: Status) -> BoxFuture<'_, Result<Vec<Request>, StoreError>> {
        let query =
            format!("SELECT {COLUMNS} FROM hooks_approval_requests WHERE status = $1 ORDER BY id");
        Box::pin(async move {
            let rows = self
                .run(move |client| async move { client.query(&query, &[&status.as_str()]).await })
                .await?;
            rows.iter().map(|row| self.request(row)).collect()
        })
    }

    fn answer(&self, id: i64, answer: Answering) -> BoxFuture<'_, Result<bool, StoreError>> {
        let status = if answer.approved {
            Status::Approved
        } else {
            Status::Denied
        };
        let grants = answer.approved && answer.scope == Scope::Session;
        self.run(move |client| async move {
            // One statement, so one transaction: the answer, its session
            // grant, and (by the trigger) the notification land together.
            let row = client
                .query_one(
                    "WITH answered AS (
                         UPDATE hooks_approval_requests
                         SET status = $2, scope = $3, responded_at = now(), responded_by = $4, reason = $5
                         WHERE id = $1 AND status = 'pending'
                         RETURNING id, session, tool, responded_by, responded_at
                     ), granted AS (
                         INSERT INTO hooks_approval_grants (session, tool, granted_by, granted_at, request_id)
                         SELECT session, tool, responded_by, responded_at, id FROM answered WHERE $6
                         ON CONFLICT (session, tool) DO UPDATE SET granted_by = EXCLUDED.granted_by,
                             granted_at = EXCLUDED.granted_at, request_id = EXCLUDED.request_id
                     )
                     SELECT count(*) FROM answered",
                    &[
                        &id,
                        &status.as_str(),
                        &answer.scope.as_str(),
                        &answer.by,
                        &answer.reason,
                        &grants,
                    ],
                )
                .await?;
            Ok(row.get::<_, i64>(0) == 1)
        })
    }

    fn consume(&self, id: i64) -> BoxFuture<'_, Result<bool, StoreError>> {
        self.run(move |client| async move {
            let changed = client
                .execute(
                    "UPDATE hooks_approval_requests SET consumed_at = now()
                     WHERE id = $1 AND status IN ('approved', 'denied') AND consumed_at IS NULL",
                    &[&id],
                )
                .await?;
            Ok(changed == 1)
        })
    }

    fn expire(&self, id: i64) -> BoxFuture<'_, Result<(), StoreError>> {
        self.run(move |client| async move {
            client
                .execute(
                    "UPDATE hooks_approval_requests SET status = 'expired', responded_at = now()
                     WHERE id = $1 AND status = 'pending'",
                    &[&id],
                )
                .await
                .map(drop)
        })
    }

    fn expire_older_than(&self, age: Duration) -> BoxFuture<'_, Result<usize, StoreError>> {
        let seconds = age.as_secs_f64();
        self.run(move |client| async move {
            let changed = client
                .execute(
                    "UPDATE hooks_approval_requests SET status = 'expired', responded_at = now()
                     WHERE status = 'pending' AND created_at <= now() - make_interval(secs => $1)",
                    &[&seconds],
                )
                .await?;
            Ok(usize::try_from(changed).unwrap_or(usize::MAX))
        })
    }

    fn grant(&self, session: &str, tool: &str) -> BoxFuture<'_, Result<Option<Grant>, StoreError>> {
        let (session, tool) = (session.to_owned(), tool.to_owned());
        self.run(move |client| async move {
            let row = client
                .query_opt(
                    "SELECT request_id, granted_by FROM hooks_approval_grants WHERE session = $1 AND tool = $2",
                    &[&session, &tool],
                )
                .await?;
            Ok(row.map(|row| Grant {
                request: row.get(0),
                by: row.get(1),
            }))
        })
    }

    fn answered(&self, id: i64) -> Option<BoxFuture<'_, Result<(), StoreError>>> {
        if !self.listen() {
            return None;
        }
        // Subscribed now, before the caller reads the status: an answer
        // committed after that read is a message this receiver gets.
        let mut answers = self.inner.answers.subscribe();
        Some(Box::pin(async move {
            loop {
                match answers.recv().await {
                    Ok(Some(answered)) if answered != id => {}
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => return Ok(()),
                    Err(broadcast::error::RecvError::Closed) => {
                        return Err(self.fail("stopped listening for answers"));
                    }
                }
            }
        }))
    }
}

impl PostgresStore {
    fn request(&self, row: &Row) -> Result<Request, StoreError> {
        let read = || -> Result<Request, String> {
            let status: String = row.try_get("status").map_err(|error| failure(&error))?;
            let scope: Option<String> = row.try_get("scope").map_err(|error| failure(&error))?;
            Ok(Request {
                id: row.try_get("id").map_err(|error| failure(&error))?,
                session: row.try_get("session").map_err(|error| failure(&error))?,
                agent: row.try_get("agent").map_err(|error| failure(&error))?,
                user: row.try_get("user_id").map_err(|error| failure(&error))?,
                tool: row.try_get("tool").map_err(|error| failure(&error))?,
                args: row.try_get("args").map_err(|error| failure(&error))?,
                prompt: row.try_get("prompt").map_err(|error| failure(&error))?,
                status: Status::parse(&status)
                    .ok_or_else(|| format!("a request with status {status:?}"))?,
                scope: scope
                    .map(|scope| {
                        Scope::parse(&scope)
                            .ok_or_else(|| format!("a request with scope {scope:?}"))
                    })
                    .transpose()?,
                created_at: row.try_get("created_at").map_err(|error| failure(&error))?,
                responded_at: row
                    .try_get("responded_at")
                    .map_err(|error| failure(&error))?,
                responded_by: row
                    .try_get("responded_by")
                    .map_err(|error| failure(&error))?,
                reason: row.try_get("reason").map_err(|error| failure(&error))?,
                consumed_at: row
                    .try_get("consumed_at")
                    .map_err(|error| failure(&error))?,
            })
        };
        read().map_err(|error| self.fail(error))
    }
}
